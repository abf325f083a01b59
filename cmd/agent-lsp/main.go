// Command agent-lsp is a coding agent that lives inside the editor. The
// editor starts it as a child process and speaks JSON-RPC with it on
// stdin/stdout, like a language server.
//
// Usage:
//
//	agent-lsp [--stdio]     serve the LSP door (editors with our plugin, or any LSP client)
//	agent-lsp acp           serve the Agent Client Protocol (Zed, JetBrains, ...)
//	agent-lsp --wrap -- CMD sit between the editor and the language server CMD, adding the agent's code actions
//	agent-lsp demo          run a scripted session offline and show what an editor would
//	agent-lsp chat PROMPT   run a real session in the terminal (needs an API key)
//	agent-lsp doctor [--json]  check what a session here needs, with a fix for each problem
//	agent-lsp version       print the version
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"
)

// version is set by the build (-ldflags "-X main.version=...").
var version = "0.1.0-dev"

func main() {
	log.SetFlags(0)
	log.SetPrefix("agent-lsp: ")
	log.SetOutput(os.Stderr)
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	cmd := ""
	if len(args) > 0 {
		cmd = args[0]
	}
	if cmd == "acp" {
		// An ACP client that shares our process group (a command-line
		// client's Ctrl-C) sends SIGINT: the running turns are cancelled
		// and answered "cancelled" before the process exits.
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		// The handler stays installed until serveACP returns: a second
		// Ctrl-C while the turns wind down does not kill the process
		// unanswered.
		interrupted, stopInterrupt := signal.NotifyContext(context.Background(), syscall.SIGINT)
		defer stopInterrupt()
		return serveACP(ctx, stdio{}, interrupted.Done())
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	switch cmd {
	case "", "--stdio", "serve", "lsp":
		return serveLSP(ctx, stdio{})
	case "--wrap", "wrap":
		argv := args[1:]
		if len(argv) > 0 && argv[0] == "--" {
			argv = argv[1:]
		}
		if len(argv) == 0 {
			fmt.Fprintf(os.Stderr, "agent-lsp: --wrap needs a language server command: agent-lsp --wrap -- gopls\n")
			return 2
		}
		return serveWrap(ctx, stdio{}, argv)
	case "demo":
		return demo(ctx, args[1:], os.Stdout)
	case "chat":
		return chat(ctx, args[1:], os.Stdout)
	case "doctor":
		return doctor(ctx, args[1:], os.Stdout)
	case "trust":
		return trust(args[1:], os.Stdout)
	case "version", "--version", "-v":
		fmt.Println("agent-lsp", version)
		return 0
	case "help", "--help", "-h":
		fmt.Print(usage)
		return 0
	}
	fmt.Fprintf(os.Stderr, "agent-lsp: unknown command %q\n\n%s", cmd, usage)
	return 2
}

const usage = `agent-lsp: a coding agent that lives inside the editor.

Usage:
  agent-lsp [--stdio]     serve the LSP door on stdio (what editors start)
  agent-lsp acp           serve the Agent Client Protocol on stdio
  agent-lsp --wrap -- CMD serve the editor in front of the language server CMD (e.g. gopls),
                          passing its messages through and adding the agent's code actions
  agent-lsp demo          run a scripted session offline, showing what an editor shows
  agent-lsp chat PROMPT   run a real session in the terminal (needs ANTHROPIC_API_KEY or OPENAI_API_KEY)
  agent-lsp doctor [--json] [-C DIR] [--offline] [--no-mcp]
                          check the provider, settings, trust, rg, bwrap, git, sessions
                          and MCP servers of this workspace; exits 1 if a session cannot run
  agent-lsp trust [DIR]   trust the folder DIR (default: the current one): its own settings
                          apply in full and language servers may start there
  agent-lsp version       print the version

Environment: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL,
ANTHROPIC_SMALL_FAST_MODEL (WebFetch's questions about a page),
OPENAI_API_KEY, OPENAI_BASE_URL, AGENT_LSP_HOME (session storage).
Claude through Amazon Bedrock: CLAUDE_CODE_USE_BEDROCK=1 with AWS_REGION;
through Google Vertex AI: CLAUDE_CODE_USE_VERTEX=1 with CLOUD_ML_REGION and
ANTHROPIC_VERTEX_PROJECT_ID (see the README).
`

// stdio is the process's stdin and stdout as one stream. Closing it closes
// both, so a blocked read returns.
type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error {
	err1 := os.Stdin.Close()
	err2 := os.Stdout.Close()
	if err1 != nil {
		return err1
	}
	return err2
}

var _ io.ReadWriteCloser = stdio{}
