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
		argv := os.Args[2:]
		if len(argv) > 3 && argv[0] == NetArg {
			argv = withNet(argv[1], argv[2], argv[3:])
		}
		err := launch(argv)
		fmt.Fprintf(os.Stderr, "agent-lsp: sandbox launcher: %v\n", err)
		os.Exit(126)
	}
}

// withNet connects to the network proxy's unix socket addr outside the
// sandbox (here, before bwrap and its filter), presents token, and puts
// the descriptor, left open across exec, in place of the first
// NetFDArg of argv (the bridge's argument). When the proxy cannot be
// reached, the bridge gets -1 and the command runs without network.
func withNet(addr, token string, argv []string) []string {
	fd, err := connectNet(addr, token)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agent-lsp: the sandbox's network proxy cannot be reached (%v): the command runs without network\n", err)
		fd = -1
	}
	argv = slices.Clone(argv)
	if i := slices.Index(argv, NetFDArg); i >= 0 {
		argv[i] = strconv.Itoa(fd)
	}
	return argv
}

func connectNet(addr, token string) (int, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return -1, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: addr}); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	msg := []byte(NetHello + token + "\n")
	for len(msg) > 0 {
		n, err := syscall.Write(fd, msg)
		if err != nil {
			syscall.Close(fd)
			return -1, err
		}
		msg = msg[n:]
	}
	return fd, nil
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
