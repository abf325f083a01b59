package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/settings"
)

// trust is `agent-lsp trust [DIR]`: the user trusts a folder (the current
// one by default) from the command line, as answering the editor's trust
// question does. Editors whose client never asks (nothing in the
// folder's settings is held back, yet language servers wait for trust)
// need a way that is not a prompt.
func trust(args []string, out io.Writer) int {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	dir := "."
	switch fs.NArg() {
	case 0:
	case 1:
		dir = fs.Arg(0)
	default:
		fmt.Fprintf(os.Stderr, "agent-lsp trust: one folder at most, got %d\n", fs.NArg())
		return 2
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(abs); err == nil && !fi.IsDir() {
			err = fmt.Errorf("%s is not a folder", abs)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "agent-lsp trust: %v\n", err)
		return 1
	}
	folder := settings.ResolveFolder(abs)
	if trusted, why := folderTrusted(folder, server.InitOptions{}); trusted {
		fmt.Fprintf(out, "%s is already trusted: %s\n", folder, why)
		return 0
	}
	st, _ := settings.Load(settings.Options{Project: folder, Home: userHome(), NoUser: noUserSettings(), ManagedPath: managedPath(), CheckRule: permission.CheckRule})
	if err := trustStore().Trust(folder); err != nil {
		fmt.Fprintf(os.Stderr, "agent-lsp trust: %v\n", err)
		return 1
	}
	fmt.Fprintf(out, "%s is now trusted.\n", folder)
	if held := settings.DescribeHeldBack(st.HeldBack); held != "" {
		fmt.Fprintf(out, "Turned on for new sessions: %s.\n", held)
	}
	fmt.Fprintln(out, "Language servers found on PATH may now start there (they run the project's build code).")
	return 0
}
