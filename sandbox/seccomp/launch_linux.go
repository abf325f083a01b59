package seccomp

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"syscall"
)

// init makes the program the sandbox's launcher when its first argument
// is LauncherArg: the rest is bwrap's command line, which it runs with
// the seccomp filter on a pipe (--seccomp FD). It never returns then.
func init() {
	if len(os.Args) > 2 && os.Args[1] == LauncherArg {
		err := launch(os.Args[2:])
		fmt.Fprintf(os.Stderr, "agent-lsp: sandbox launcher: %v\n", err)
		os.Exit(126)
	}
}

// launch execs argv (bwrap and its arguments) with the seccomp filter
// readable on an inherited pipe, named by --seccomp right after the
// program. It returns only on failure.
func launch(argv []string) error {
	filter, err := Filter()
	if err != nil {
		return err
	}
	// Both ends without close-on-exec: the write end is closed here,
	// the read end is bwrap's, which reads the filter to its end and
	// closes it. The filter is far smaller than a pipe's buffer.
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		return fmt.Errorf("making a pipe for the seccomp filter: %w", err)
	}
	for len(filter) > 0 {
		n, err := syscall.Write(p[1], filter)
		if err != nil {
			return fmt.Errorf("writing the seccomp filter: %w", err)
		}
		filter = filter[n:]
	}
	if err := syscall.Close(p[1]); err != nil {
		return fmt.Errorf("closing the seccomp filter's pipe: %w", err)
	}
	args := slices.Concat([]string{argv[0], "--seccomp", strconv.Itoa(p[0])}, argv[1:])
	if err := syscall.Exec(argv[0], args, os.Environ()); err != nil {
		return fmt.Errorf("running %s: %w", argv[0], err)
	}
	return nil
}
