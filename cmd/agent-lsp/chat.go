package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agent-lsp/agent-lsp/schema"
)

// chat runs one real session in the current directory, asking on the
// terminal before anything changes.
func chat(ctx context.Context, args []string, out io.Writer) int {
	prompt := strings.TrimSpace(strings.Join(args, " "))
	if prompt == "" {
		fmt.Fprintln(os.Stderr, "usage: agent-lsp chat PROMPT")
		return 2
	}
	if os.Getenv("ANTHROPIC_API_KEY") == "" && os.Getenv("OPENAI_API_KEY") == "" {
		fmt.Fprintln(os.Stderr, "agent-lsp chat: no API key: set ANTHROPIC_API_KEY (or OPENAI_API_KEY, with OPENAI_BASE_URL for other servers)")
		return 1
	}
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent-lsp chat:", err)
		return 1
	}
	t, err := startTerminal(ctx, out, root, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent-lsp chat:", err)
		return 1
	}
	in := bufio.NewReader(os.Stdin)
	t.approve = func(p *schema.RequestPermissionParams) schema.PermissionOutcome {
		fmt.Fprint(out, "    allow? [y]es once, [a]lways, [n]o: ")
		line, err := in.ReadString('\n')
		if err != nil {
			return schema.PermissionOutcome{Outcome: "cancelled"}
		}
		kind := schema.RejectOnce
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			kind = schema.AllowOnce
		case "a", "always":
			kind = schema.AllowAlways
		}
		return schema.PermissionOutcome{Outcome: "selected", OptionID: optionOfKind(p, kind)}
	}
	stop, err := t.session(ctx, prompt)
	t.close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent-lsp chat:", err)
		return 1
	}
	fmt.Fprintf(out, "stop reason: %s\n", stop)
	return 0
}
