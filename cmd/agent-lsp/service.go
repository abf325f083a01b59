package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/mcp"
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
func newService(init server.InitOptions) (*engine.Service, error) {
	if init.MaxTurns < 0 {
		return nil, fmt.Errorf("initializationOptions.maxTurns must be positive, got %d", init.MaxTurns)
	}
	b := &serviceBuilder{init: init, project: projectRoot(init.Roots)}
	svc := engine.NewService(b.config(false))
	b.mu.Lock()
	b.svc = svc
	b.mu.Unlock()
	return svc, nil
}

// serviceBuilder builds a service's configuration, and builds it again
// when the user trusts the project folder.
type serviceBuilder struct {
	init    server.InitOptions
	project string

	mu  sync.Mutex
	svc *engine.Service // once built, guarded by mu
	gen int             // the current configuration's generation, guarded by mu
}

// config builds the configuration: settings (watched for the life of the
// configuration), provider and model. Unless trusted is set, the project
// folder's own settings load in full only if the user trusts it.
func (b *serviceBuilder) config(trusted bool) engine.Config {
	init, project := b.init, b.project
	var trust *engine.Trust
	if !trusted {
		var why string
		if trusted, why = folderTrusted(project, init); trusted {
			log.Printf("trust: %s is trusted: %s", project, why)
		} else {
			folder := settings.ResolveFolder(project)
			trust = &engine.Trust{Folder: folder, Grant: func(context.Context) (engine.Config, error) {
				cfg := b.config(true)
				if err := trustStore().Trust(folder); err != nil {
					log.Printf("trust: %v", err)
					cfg.Notices = append(cfg.Notices, fmt.Sprintf("%s is trusted in this process, but remembering it failed: %v", folder, err))
				}
				return cfg, nil
			}}
		}
	}
	b.mu.Lock()
	b.gen++
	gen := b.gen
	b.mu.Unlock()
	opts := settings.Options{
		Project:               project,
		Home:                  userHome(),
		NoUser:                noUserSettings(),
		ManagedPath:           managedPath(),
		InitializationOptions: init.Raw,
		CheckRule:             permission.CheckRule,
		TrustProject:          trusted,
	}
	// Settings are watched for the life of the configuration: rules,
	// hooks and their problems apply to open sessions as soon as a file
	// changes. A configuration replaced (the folder became trusted) no
	// longer applies its reloads.
	watchCtx, cancelWatch := context.WithCancel(context.Background())
	w, st, problems, err := settings.Watch(watchCtx, opts, func(st *settings.Settings, problems []settings.Problem) {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.svc != nil && b.gen == gen {
			b.svc.UpdateSettings(st, notices(problems))
		}
	})
	stopWatching := func() { cancelWatch(); <-w.Done() }
	if err != nil {
		cancelWatch()
		stopWatching = func() {}
		log.Printf("settings: not watching for changes: %v", err)
		st, problems = settings.Load(opts)
	}
	store := session.NewStore(session.DefaultDir(), claudeDir())
	cleanupSessions(store, st.CleanupPeriodDays)
	cfg := engine.Config{
		MaxTurns: init.MaxTurns,
		Logf:     log.Printf,
		Store:    store,
		Settings: st,
		Notices:  append(notices(problems), platformNotices()...),
		OnClose:  []func(){stopWatching},
		Trust:    trust,
	}
	if trust != nil {
		// `agent-lsp trust` (or another agent-lsp's question) may trust
		// the folder while this one runs: its sessions follow.
		if stop, err := b.waitTrusted(trust.Folder, gen); err != nil {
			log.Printf("trust: not watching the trust file: %v", err)
		} else {
			cfg.OnClose = append(cfg.OnClose, stop)
		}
	}
	if noUserSettings() {
		cfg.Home = os.DevNull // no ~/.claude/CLAUDE.md
	}
	cfg.ManagedMCP = managedMCPPath()
	cfg.MaxThinkingTokens = os.Getenv("MAX_THINKING_TOKENS")
	// Claude Code's memory: the managed CLAUDE.md, and auto memory on
	// unless the settings or the environment turn it off.
	cfg.ManagedMemory = managedMemory()
	cfg.AutoMemory = true
	cfg.DisableAutoMemory = os.Getenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The settings' env counts as the environment (as in Claude Code):
	// CLAUDE_CODE_USE_BEDROCK and the rest may be set there. A project's
	// env is held back until the folder is trusted (settings/trust.go).
	getenv := config.EnvWith(st.Env)
	resolved, rerr := config.Resolver{Getenv: getenv}.Resolve(ctx,
		config.Source{Name: "initializationOptions", Provider: init.Provider, Model: init.Model, BaseURL: init.BaseURL},
		config.Source{Name: "settings (" + settingsFiles(st) + ")", Provider: st.Provider, Model: st.Model, BaseURL: st.BaseURL, APIKeyHelper: st.APIKeyHelper},
	)
	cfg.Model = resolved.Model
	if resolved.Provider == config.ProviderAnthropic {
		// Claude Code's variable for its small, fast model.
		cfg.SmallModel = getenv("ANTHROPIC_SMALL_FAST_MODEL")
		if cfg.SmallModel == "" && resolved.Cloud != nil {
			cfg.SmallModel = getenv("ANTHROPIC_DEFAULT_HAIKU_MODEL")
		}
		if cfg.SmallModel != "" {
			cfg.SmallModel = resolved.Cloud.PlatformModel(cfg.SmallModel)
		}
		// The API's web_search server tool; Bedrock does not serve it.
		cfg.WebSearch = resolved.Cloud == nil || resolved.Cloud.Platform != config.PlatformBedrock
	}
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
			cfg.Models = append(cfg.Models, engine.ModelInfo{ID: m.ID, Name: config.DisplayName(m.ID), Description: config.ModelDescription(m), Group: config.ModelGroup(m.Provider, m.Known)})
		}
	}
	if avail := st.AvailableModels; avail != nil {
		// The settings' availableModels: the picker lists only those,
		// and another model is refused.
		cfg.Models = slices.DeleteFunc(cfg.Models, func(m engine.ModelInfo) bool { return !config.ModelAllowed(avail, m.ID) })
		cfg.AllowModel = func(model string) error { return config.AllowModel(avail, model) }
	}
	slices.SortStableFunc(cfg.Models, func(a, b engine.ModelInfo) int { return config.CompareForPicker(a.Group, a.Name, b.Group, b.Name) })
	if rerr != nil {
		cfg.ProviderError = rerr
		return cfg
	}
	resolved.FallbackModel = st.FallbackModel
	cfg.Provider = providerPool.Provider(resolved)
	return cfg
}

// waitTrusted watches the trust file until folder is trusted there, then
// has the service of configuration gen adopt the trusted configuration;
// it returns what stops the watch.
func (b *serviceBuilder) waitTrusted(folder string, gen int) (stop func(), err error) {
	ctx, cancel := context.WithCancel(context.Background())
	// The watch ends soon after cancel; stop does not wait for it, since
	// adopting the trusted configuration runs stop from the watch's own
	// goroutine.
	_, err = trustStore().WaitTrusted(ctx, folder, func() {
		b.mu.Lock()
		svc, current := b.svc, b.gen == gen
		b.mu.Unlock()
		if svc == nil || !current {
			return // the question of this process answered it
		}
		log.Printf("trust: %s was trusted in the trust file", folder)
		if err := svc.TrustGranted(ctx); err != nil {
			log.Printf("trust: %v", err)
		}
	})
	if err != nil {
		cancel()
		return nil, err
	}
	return cancel, nil
}

// folderTrusted reports whether the user trusts project: the editor says
// so (initializationOptions.workspaceTrusted), it is the home folder, or
// it was trusted before in agent-lsp (trust.json in the state directory)
// or in Claude Code (~/.claude.json).
func folderTrusted(project string, init server.InitOptions) (bool, string) {
	var editor struct {
		WorkspaceTrusted bool `json:"workspaceTrusted"`
	}
	if len(init.Raw) > 0 {
		json.Unmarshal(init.Raw, &editor) // initialize validated it as an object
	}
	home, _ := os.UserHomeDir()
	src := settings.TrustSources{Store: trustStore(), Editor: editor.WorkspaceTrusted}
	if !noUserSettings() {
		src.Home = home
		src.ClaudeJSON = settings.ClaudeJSONPath(home)
	} else if os.Getenv("CLAUDE_CONFIG_DIR") != "" {
		src.ClaudeJSON = settings.ClaudeJSONPath("")
	}
	return settings.FolderTrusted(project, src)
}

// trustStore is where the folders the user trusted are remembered.
func trustStore() *settings.TrustStore {
	return settings.NewTrustStore(filepath.Join(session.DefaultDir(), "trust.json"))
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

// userHome is the home that "~" in settings rules expands to. With
// AGENT_LSP_NO_USER_SETTINGS no file is read there (settings.Options.NoUser).
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

// managedMCPPath is the administrator's managed-mcp.json
// (AGENT_LSP_MANAGED_MCP, else Claude Code's).
func managedMCPPath() string {
	if p := os.Getenv("AGENT_LSP_MANAGED_MCP"); p != "" {
		return p
	}
	if noUserSettings() {
		return ""
	}
	return mcp.DefaultManagedFile()
}

// claudeDir is where Claude Code's sessions are listed from ("-": nowhere;
// "": $CLAUDE_CONFIG_DIR, else ~/.claude). An explicit CLAUDE_CONFIG_DIR
// is honoured even when the user's own settings are ignored.
func claudeDir() string {
	if noUserSettings() && os.Getenv("CLAUDE_CONFIG_DIR") == "" {
		return "-"
	}
	return ""
}

// platformNotices tells the user, once per session, what agent-lsp lacks
// on this system (no sandbox outside Linux); `agent-lsp doctor` says it
// too.
func platformNotices() []string {
	if msg := platformLimits(); msg != "" {
		return []string{"agent-lsp " + msg}
	}
	return nil
}
