package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/providers/config"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/settings"
)

// providerPool keeps one provider per endpoint and key for the process, so
// switching models never builds a new HTTP client.
var providerPool = &config.Pool{}

// newService builds the session service from the editor's
// initializationOptions, the settings files and the environment.
func newService(init server.InitOptions) (result *engine.Service, err error) {
	if init.MaxTurns < 0 {
		return nil, fmt.Errorf("initializationOptions.maxTurns must be positive, got %d", init.MaxTurns)
	}
	project := projectRoot(init.Roots)
	// Settings are watched for the life of the service: rules, hooks and
	// their problems apply to open sessions as soon as a file changes.
	watchCtx, stopWatching := context.WithCancel(context.Background())
	var svc *engine.Service
	var svcMu sync.Mutex
	_, st, problems, err := settings.Watch(watchCtx, settings.Options{
		Project:               project,
		Home:                  userHome(),
		ManagedPath:           managedPath(),
		InitializationOptions: init.Raw,
		CheckRule:             permission.CheckRule,
	}, func(st *settings.Settings, problems []settings.Problem) {
		svcMu.Lock()
		defer svcMu.Unlock()
		if svc != nil {
			svc.UpdateSettings(st, notices(problems))
		}
	})
	if err != nil {
		stopWatching()
		log.Printf("settings: not watching for changes: %v", err)
		st, problems = settings.Load(settings.Options{Project: project, Home: userHome(), ManagedPath: managedPath(), InitializationOptions: init.Raw, CheckRule: permission.CheckRule})
	}
	cfg := engine.Config{
		MaxTurns: init.MaxTurns,
		Logf:     log.Printf,
		Store:    session.NewStore(session.DefaultDir(), claudeDir()),
		Settings: st,
		Notices:  notices(problems),
		OnClose:  []func(){stopWatching},
	}
	defer func() {
		svcMu.Lock()
		svc = result
		svcMu.Unlock()
	}()
	if noUserSettings() {
		cfg.Home = os.DevNull // no ~/.claude/CLAUDE.md
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resolved, rerr := config.Resolve(ctx,
		config.Source{Name: "initializationOptions", Provider: init.Provider, Model: init.Model, BaseURL: init.BaseURL},
		config.Source{Name: "settings (" + settingsFiles(st) + ")", Provider: st.Provider, Model: st.Model, BaseURL: st.BaseURL, APIKeyHelper: st.APIKeyHelper},
	)
	cfg.Model = resolved.Model
	if resolved.Info.ContextWindow > 0 {
		cfg.Window = int64(resolved.Info.ContextWindow)
	}
	if resolved.Info.MaxOutput > 0 {
		cfg.MaxTokens = resolved.Info.MaxOutput
	}
	info := resolved.Info
	cfg.Price = func(u engine.Usage) float64 { return info.Cost(u) }
	table := config.DefaultTable()
	for _, m := range table.Models() {
		if m.Provider == resolved.Provider || resolved.Provider == "" {
			cfg.Models = append(cfg.Models, engine.ModelInfo{ID: m.ID, Name: m.ID})
		}
	}
	if rerr != nil {
		cfg.ProviderError = rerr
		return engine.NewService(cfg), nil
	}
	cfg.Provider = providerPool.Provider(resolved)
	return engine.NewService(cfg), nil
}

// notices turns settings problems into messages for the user.
func notices(problems []settings.Problem) []string {
	var out []string
	for _, p := range problems {
		log.Printf("settings: %v", p)
		out = append(out, "settings: "+p.String())
	}
	return out
}

// projectRoot is the first workspace folder, else the working directory.
func projectRoot(roots []string) string {
	if len(roots) > 0 {
		return roots[0]
	}
	wd, _ := os.Getwd()
	return wd
}

func settingsFiles(st *settings.Settings) string {
	if len(st.Files) == 0 {
		return "none"
	}
	return filepath.Base(st.Files[0]) + " and others"
}

// noUserSettings reports whether AGENT_LSP_NO_USER_SETTINGS asks to ignore
// the user's own settings, instructions and Claude Code sessions (for
// tests and the demo).
func noUserSettings() bool { return os.Getenv("AGENT_LSP_NO_USER_SETTINGS") != "" }

// userHome is where the user's ~/.claude settings are read from.
func userHome() string {
	if noUserSettings() {
		return filepath.Join(os.TempDir(), "agent-lsp-no-user-settings")
	}
	return ""
}

// managedPath is the managed policy file (AGENT_LSP_MANAGED_SETTINGS, else
// Claude Code's).
func managedPath() string {
	if p := os.Getenv("AGENT_LSP_MANAGED_SETTINGS"); p != "" {
		return p
	}
	if noUserSettings() {
		return ""
	}
	return settings.DefaultManagedPath
}

// claudeDir is where Claude Code's sessions are listed from ("-": nowhere).
func claudeDir() string {
	if noUserSettings() {
		return "-"
	}
	return ""
}
