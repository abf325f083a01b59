package main

import (
	"fmt"
	"log"
	"os"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/retry"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/session"
)

// defaultModel is asked when nothing names a model.
const defaultModel = "claude-sonnet-4-5"

// newService builds the session service from the editor's
// initializationOptions and the environment.
func newService(init server.InitOptions) (*engine.Service, error) {
	cfg := engine.Config{
		Model:    firstNonEmpty(init.Model, os.Getenv("ANTHROPIC_MODEL"), defaultModel),
		MaxTurns: init.MaxTurns,
		Logf:     log.Printf,
		Store:    session.NewStore(session.DefaultDir(), claudeDir()),
	}
	if noUserSettings() {
		cfg.Home = os.DevNull // no ~/.claude/CLAUDE.md
	}
	if init.MaxTurns < 0 {
		return nil, fmt.Errorf("initializationOptions.maxTurns must be positive, got %d", init.MaxTurns)
	}
	key := os.Getenv("ANTHROPIC_API_KEY")
	if key == "" {
		cfg.ProviderError = fmt.Errorf("set ANTHROPIC_API_KEY in the environment the editor starts agent-lsp with")
		return engine.NewService(cfg), nil
	}
	cfg.Provider = retry.Wrap(anthropic.New(anthropic.Options{
		APIKey:  key,
		BaseURL: firstNonEmpty(init.BaseURL, os.Getenv("ANTHROPIC_BASE_URL")),
	}), retry.Policy{})
	return engine.NewService(cfg), nil
}

// noUserSettings reports whether AGENT_LSP_NO_USER_SETTINGS asks to ignore
// the user's own settings, instructions and Claude Code sessions (for
// tests and the demo).
func noUserSettings() bool { return os.Getenv("AGENT_LSP_NO_USER_SETTINGS") != "" }

// claudeDir is where Claude Code's sessions are listed from ("-": nowhere).
func claudeDir() string {
	if noUserSettings() {
		return "-"
	}
	return ""
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
