// Command ansihtml turns a terminal capture (`tmux capture-pane -e -p`:
// text with SGR escape sequences) on stdin into an HTML page on stdout, for
// a headless browser to screenshot (scripts/screenshots-nvim.sh).
//
// Usage:
//
//	tmux capture-pane -e -p -t S | ansihtml -title "chat" > chat.html
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/agent-lsp/agent-lsp/internal/ansihtml"
)

func main() {
	var opt ansihtml.Options
	flag.StringVar(&opt.Title, "title", "", "page title")
	flag.StringVar(&opt.FG, "fg", "", "CSS color of the default foreground")
	flag.StringVar(&opt.BG, "bg", "", "CSS color of the default background")
	flag.IntVar(&opt.FontSize, "font-size", 0, "font size in px (default 14)")
	flag.Parse()
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ansihtml: reading stdin:", err)
		os.Exit(1)
	}
	w := bufio.NewWriter(os.Stdout)
	if err := ansihtml.Render(w, string(in), opt); err != nil {
		fmt.Fprintln(os.Stderr, "ansihtml: writing:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "ansihtml: writing:", err)
		os.Exit(1)
	}
}
