package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/langserver"
	"github.com/agent-lsp/agent-lsp/mcp"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/providers/config"
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/settings"
)

// Check statuses. Only statusError blocks a session: doctor exits 1 when
// one check has it.
const (
	statusOK      = "ok"
	statusWarning = "warning" // the session runs, with something missing
	statusError   = "error"   // a session cannot run, or runs without rules the user wrote
	statusSkipped = "skipped" // not applicable here
)

// doctorCheck is one finding of `agent-lsp doctor`.
type doctorCheck struct {
	// Name is the thing checked: provider, settings, trust, ripgrep,
	// bubblewrap, git, sessions, platform, mcp[:<server>], lsp[:<server>].
	Name    string `json:"name"`
	Status  string `json:"status"`
	Message string `json:"message"`
	// Fix says, in one line, what to do about a problem.
	Fix string `json:"fix,omitempty"`
}

// doctorReport is what `agent-lsp doctor --json` prints.
type doctorReport struct {
	Version   string        `json:"version"`
	OS        string        `json:"os"`
	Arch      string        `json:"arch"`
	Workspace string        `json:"workspace"`
	OK        bool          `json:"ok"` // no check has status "error"
	Checks    []doctorCheck `json:"checks"`
}

// doctorTimeouts bound the checks that wait on something outside.
var doctorTimeouts = struct {
	network, mcp time.Duration
}{network: 3 * time.Second, mcp: 15 * time.Second}

// doctor checks what a session in the working directory (or -C DIR)
// needs, prints one line per check with a one-line fix for each problem,
// and exits 1 when something blocks a session: no model provider (no key,
// unknown provider), a settings file that does not parse (its permission
// rules, deny rules included, would be off), or a session directory that
// cannot be written. Everything else is a warning.
func doctor(ctx context.Context, args []string, stdout io.Writer) int {
	fl := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fl.SetOutput(os.Stderr)
	asJSON := fl.Bool("json", false, "print the report as JSON")
	dir := fl.String("C", "", "the workspace to check (default: the working directory)")
	noNet := fl.Bool("offline", false, "do not try to reach the model's server")
	noMCP := fl.Bool("no-mcp", false, "do not start the MCP servers")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	project := *dir
	if project == "" {
		project, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(project); err == nil {
		project = abs
	}
	r := runDoctor(ctx, project, doctorOptions{offline: *noNet, noMCP: *noMCP})
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(r)
	} else {
		printReport(stdout, r)
	}
	if !r.OK {
		return 1
	}
	return 0
}

type doctorOptions struct {
	offline bool
	noMCP   bool
}

func runDoctor(ctx context.Context, project string, o doctorOptions) doctorReport {
	r := doctorReport{Version: version, OS: runtime.GOOS, Arch: runtime.GOARCH, Workspace: project}
	add := func(c ...doctorCheck) { r.Checks = append(r.Checks, c...) }

	trusted, why := folderTrusted(project, server.InitOptions{})
	st, problems := settings.Load(settings.Options{
		Project:      project,
		Home:         userHome(),
		NoUser:       noUserSettings(),
		ManagedPath:  managedPath(),
		CheckRule:    permission.CheckRule,
		TrustProject: trusted,
	})
	add(checkProvider(ctx, st, o.offline))
	add(checkSettings(st, problems)...)
	add(checkTrust(project, st, trusted, why))
	add(checkPlatform())
	add(checkTool("ripgrep", "rg", "--version", "the Grep tool falls back to a slower built-in search", "install ripgrep (Debian/Ubuntu: apt-get install ripgrep; macOS: brew install ripgrep)"))
	add(checkSandbox(project))
	add(checkTool("git", "git", "--version", "git status, diffs and the repository's state are not available to the agent", "install git (Debian/Ubuntu: apt-get install git)"))
	add(checkSessions())
	if o.noMCP {
		add(doctorCheck{Name: "mcp", Status: statusSkipped, Message: "not started (--no-mcp)"})
	} else {
		add(checkMCP(ctx, project, st)...)
	}
	add(checkLSP(st)...)

	r.OK = true
	for _, c := range r.Checks {
		if c.Status == statusError {
			r.OK = false
		}
	}
	return r
}

func printReport(w io.Writer, r doctorReport) {
	fmt.Fprintf(w, "agent-lsp %s doctor (%s/%s) in %s\n", r.Version, r.OS, r.Arch, r.Workspace)
	blocking := 0
	for _, c := range r.Checks {
		fmt.Fprintf(w, "  %-8s %-12s %s\n", c.Status, c.Name, c.Message)
		if c.Fix != "" {
			fmt.Fprintf(w, "  %-8s %-12s fix: %s\n", "", "", c.Fix)
		}
		if c.Status == statusError {
			blocking++
		}
	}
	switch blocking {
	case 0:
		fmt.Fprintln(w, "nothing blocks a session")
	case 1:
		fmt.Fprintln(w, "1 problem blocks a session")
	default:
		fmt.Fprintf(w, "%d problems block a session\n", blocking)
	}
}

// checkProvider resolves the model as a session would, then tries to
// reach its server.
func checkProvider(ctx context.Context, st *settings.Settings, offline bool) doctorCheck {
	c := doctorCheck{Name: "provider"}
	rctx, cancel := context.WithTimeout(ctx, config.DefaultHelperTimeout+time.Second)
	defer cancel()
	res, err := config.Resolver{Getenv: config.EnvWith(st.Env)}.Resolve(rctx, config.Source{Name: "settings", Provider: st.Provider, Model: st.Model, BaseURL: st.BaseURL, APIKeyHelper: st.APIKeyHelper})
	if err != nil {
		// The words the editors show for a prompt without a model.
		noKey := errors.Is(err, config.ErrNoAPIKey)
		c.Status, c.Message = statusError, engine.ProviderProblem(err, noKey)
		switch {
		case errors.Is(err, config.ErrCloudSetup):
			c.Message = err.Error()
			c.Fix = "set the variable named, in the environment agent-lsp starts with or the settings' \"env\""
		case noKey:
			c.Fix = err.Error() + "; or set the key in the editor (VS Code: \"Agent: Set API Key\")"
		case st.APIKeyHelper != "":
			c.Fix = "make the apiKeyHelper command of the settings print the key"
		default:
			c.Fix = "set \"provider\" in the settings to anthropic, openai, ollama, vllm, llamacpp or openrouter"
		}
		return c
	}
	base := res.BaseURL
	if base == "" {
		base = map[string]string{config.ProviderAnthropic: "https://api.anthropic.com", config.ProviderOpenAI: "https://api.openai.com/v1"}[res.Provider]
	}
	key := "key from " + res.KeyFrom
	if res.KeyFrom == "" {
		key = "no key (a local server)"
	}
	c.Status = statusOK
	c.Message = fmt.Sprintf("%s, model %s, %s, %s", res.Provider, res.Model, key, base)
	if res.Cloud != nil {
		base = res.Cloud.Endpoint(res.BaseURL)
		c.Message = fmt.Sprintf("Claude through %s, model %s, %s, %s", res.Cloud.Describe(), res.Model, res.Cloud.Credentials(), base)
	}
	if !res.Info.Known {
		c.Status = statusWarning
		c.Message += "; the model is not in agent-lsp's table (its context window and prices are guessed)"
		c.Fix = "check the model name (\"model\" in the settings, ANTHROPIC_MODEL or OPENAI_MODEL)"
	}
	if offline || base == "" {
		return c
	}
	if err := reach(ctx, base); err != nil {
		c.Status = statusWarning
		c.Message += "; not reachable: " + err.Error()
		c.Fix = "check the network, or the base URL (ANTHROPIC_BASE_URL, OPENAI_BASE_URL or \"baseURL\" in the settings)"
	} else {
		c.Message += " (reachable)"
	}
	return c
}

// reach sends one GET to url: any HTTP answer, even an error status, means
// the server is there.
func reach(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, doctorTimeouts.network)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) && ue.Unwrap() != nil {
			return ue.Unwrap()
		}
		return err
	}
	resp.Body.Close()
	return nil
}

// checkSettings lists each settings problem with its file:line:column.
func checkSettings(st *settings.Settings, problems []settings.Problem) []doctorCheck {
	// Keys Claude Code knows that do nothing here: the session runs.
	var inert []doctorCheck
	for _, i := range st.Inert {
		inert = append(inert, doctorCheck{Name: "settings", Status: statusWarning, Message: i.String()})
	}
	if len(problems) == 0 {
		files := "no settings files"
		if len(st.Files) > 0 {
			files = strings.Join(st.Files, ", ")
		}
		return append([]doctorCheck{{Name: "settings", Status: statusOK, Message: files}}, inert...)
	}
	var out []doctorCheck
	for _, p := range problems {
		if p.Warning {
			// Valid for Claude Code, not run here: the session runs.
			out = append(out, doctorCheck{Name: "settings", Status: statusWarning, Message: p.String()})
			continue
		}
		off := "that setting is ignored until then"
		if strings.HasPrefix(p.Message, "invalid JSON") || strings.HasPrefix(p.Message, "settings must be") {
			off = "the file's settings are off until then"
		}
		out = append(out, doctorCheck{
			Name: "settings", Status: statusError, Message: p.String(),
			Fix: "correct " + p.File + " at the line and column shown (" + off + ")",
		})
	}
	return append(out, inert...)
}

// checkTrust says whether the project folder is trusted and what its own
// files hold that stays off until it is.
func checkTrust(project string, st *settings.Settings, trusted bool, why string) doctorCheck {
	c := doctorCheck{Name: "trust"}
	if trusted {
		c.Status, c.Message = statusOK, "the folder is trusted: "+why
		return c
	}
	c.Status = statusWarning
	c.Message = settings.ResolveFolder(project) + " is not trusted: its own settings only tighten the rules"
	if held := settings.DescribeHeldBack(st.HeldBack); held != "" {
		c.Message += "; held back: " + held
	}
	c.Fix = "run `agent-lsp trust` in the folder, answer the trust question the editor asks at the first prompt, or trust the folder in Claude Code"
	return c
}

// checkPlatform says what agent-lsp lacks on this system.
func checkPlatform() doctorCheck {
	c := doctorCheck{Name: "platform", Status: statusOK, Message: runtime.GOOS + "/" + runtime.GOARCH}
	if msg := platformLimits(); msg != "" {
		c.Status, c.Message = statusWarning, msg
		c.Fix = "run agent-lsp on Linux (or in WSL or a Linux container) for the sandbox"
	}
	return c
}

// platformLimits says what agent-lsp cannot do on this system; "" on Linux.
func platformLimits() string {
	switch runtime.GOOS {
	case "linux":
		return ""
	case "windows":
		return "on windows there is no bubblewrap sandbox (sandbox.enabled cannot be honoured), and stopping a command ends its own process but not what it started"
	}
	return "on " + runtime.GOOS + " there is no bubblewrap sandbox: sandbox.enabled cannot be honoured"
}

// checkTool finds a program on PATH and runs it with versionArg.
func checkTool(name, prog, versionArg, without, fix string) doctorCheck {
	c := doctorCheck{Name: name}
	p, err := exec.LookPath(prog)
	if err != nil {
		c.Status, c.Message, c.Fix = statusWarning, prog+" is not on PATH: "+without, fix
		return c
	}
	out, err := exec.Command(p, versionArg).Output()
	if err != nil {
		c.Status, c.Message, c.Fix = statusWarning, p+" does not run: "+err.Error(), fix
		return c
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	c.Status, c.Message = statusOK, p+": "+first
	return c
}

// checkSandbox checks that bubblewrap is there and can create a sandbox
// for the workspace.
func checkSandbox(project string) doctorCheck {
	c := doctorCheck{Name: "bubblewrap"}
	if runtime.GOOS != "linux" {
		c.Status, c.Message = statusSkipped, "Linux only"
		return c
	}
	sb, warning := sandbox.New(settings.Sandbox{Enabled: true}, []string{project})
	if sb.Active() {
		p, _ := exec.LookPath("bwrap")
		c.Status, c.Message = statusOK, p+" creates a sandbox here"
		return c
	}
	c.Status = statusWarning
	c.Message = strings.TrimPrefix(strings.SplitN(warning, "\n", 2)[0], "sandbox: ")
	c.Message += " (only matters with sandbox.enabled in the settings)"
	c.Fix = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) on a system that allows unprivileged user namespaces"
	return c
}

// checkSessions checks that the session directory can be written, and
// says how much it holds.
func checkSessions() doctorCheck {
	dir := session.DefaultDir()
	c := doctorCheck{Name: "sessions"}
	fix := "make " + dir + " writable, or set AGENT_LSP_HOME to a writable directory"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		c.Status, c.Message, c.Fix = statusError, "cannot create the session directory: "+err.Error(), fix
		return c
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		c.Status, c.Message, c.Fix = statusError, "cannot write in the session directory: "+err.Error(), fix
		return c
	}
	f.Close()
	os.Remove(f.Name())
	var size int64
	files := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
				files++
			}
		}
		return nil
	})
	c.Status, c.Message = statusOK, fmt.Sprintf("%s is writable; %d files, %s", dir, files, humanSize(size))
	return c
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// checkMCP starts each MCP server a session would start and lists its
// tools. An untrusted folder's .mcp.json is not read, and project servers
// the user has not approved are not started: doctor runs nothing a
// session would not.
func checkMCP(ctx context.Context, project string, st *settings.Settings) []doctorCheck {
	workspace := project
	if st.ProjectRestricted {
		workspace = ""
	}
	home, _ := os.UserHomeDir()
	if noUserSettings() {
		home = "" // an explicit CLAUDE_CONFIG_DIR still counts
	}
	servers, errs := mcp.Collect(mcp.Sources{Workspace: workspace, Folder: project, Settings: st, ClaudeJSON: settings.ClaudeJSONPath(home), ManagedFile: managedMCPPath()})
	var out []doctorCheck
	for _, err := range errs {
		out = append(out, doctorCheck{Name: "mcp", Status: statusWarning, Message: err.Error(), Fix: "correct the server's definition"})
	}
	if len(servers) == 0 {
		if len(errs) == 0 {
			out = append(out, doctorCheck{Name: "mcp", Status: statusOK, Message: "no MCP servers configured"})
		}
		return out
	}
	var mu sync.Mutex
	final := map[string]mcp.Status{} // guarded by mu
	done := make(chan struct{})
	m := mcp.Start(ctx, servers, mcp.Options{
		Dir:          project,
		Env:          settingsEnvPairs(st),
		Version:      version,
		StartTimeout: doctorTimeouts.mcp,
		Logf:         func(string, ...any) {},
		OnStatus: func(s mcp.Status) {
			if s.State == mcp.StateStarting {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			final[s.Server] = s
			if len(final) == len(servers) {
				select {
				case <-done:
				default:
					close(done)
				}
			}
		},
	})
	select {
	case <-done:
	case <-time.After(doctorTimeouts.mcp + time.Second):
	case <-ctx.Done():
	}
	m.Close()
	mu.Lock()
	defer mu.Unlock()
	for _, srv := range servers {
		c := doctorCheck{Name: "mcp:" + srv.Name}
		s, ok := final[srv.Name]
		switch {
		case !ok:
			c.Status, c.Message = statusWarning, fmt.Sprintf("MCP server %q did not answer within %s", srv.Name, doctorTimeouts.mcp)
			c.Fix = "run the server's command by hand to see why it hangs"
		case s.State == mcp.StateReady:
			c.Status, c.Message = statusOK, s.String()
		case s.State == mcp.StateFailed:
			c.Status, c.Message = statusWarning, s.String()
			c.Fix = "check the server's command, arguments and environment in " + scopeFile(srv.Scope)
		default:
			c.Status, c.Message = statusWarning, s.String()
		}
		out = append(out, c)
	}
	return out
}

func scopeFile(s mcp.Scope) string {
	switch s {
	case mcp.ScopeProject:
		return mcp.ProjectFile
	case mcp.ScopeUser, mcp.ScopeLocal:
		return "~/.claude.json (claude mcp get)"
	case mcp.ScopeManaged:
		return "the administrator's managed-mcp.json"
	case mcp.ScopeSession:
		return "the editor's MCP settings"
	}
	return "the settings' mcpServers"
}

// settingsEnvPairs returns the settings' env as KEY=value pairs.
func settingsEnvPairs(st *settings.Settings) []string {
	var env []string
	for k, v := range st.Env {
		env = append(env, k+"="+v)
	}
	return env
}

// checkLSP reports the language servers a session would use: the ones the
// settings' "lsp" key configures, each found on PATH or not, else the known
// ones found on PATH. It does not start them.
func checkLSP(st *settings.Settings) []doctorCheck {
	if st.ProjectRestricted {
		return []doctorCheck{{Name: "lsp", Status: statusSkipped, Message: "no language server starts until the folder is trusted", Fix: "trust it when the first prompt asks, or run `agent-lsp trust`"}}
	}
	if st.LSP.Disabled {
		return []doctorCheck{{Name: "lsp", Status: statusSkipped, Message: "language servers are turned off (\"lsp\": {\"enabled\": false})"}}
	}
	if len(st.LSP.Servers) == 0 {
		var names []string
		for _, c := range langserver.Detect(exec.LookPath) {
			names = append(names, c.Name+" ("+c.Command[0]+")")
		}
		if len(names) == 0 {
			return []doctorCheck{{Name: "lsp", Status: statusSkipped, Message: "none configured and no known language server on PATH"}}
		}
		return []doctorCheck{{Name: "lsp", Status: statusOK, Message: "found on PATH: " + strings.Join(names, ", ")}}
	}
	var out []doctorCheck
	for _, name := range slices.Sorted(maps.Keys(st.LSP.Servers)) {
		srv := st.LSP.Servers[name]
		c := doctorCheck{Name: "lsp:" + name}
		switch {
		case srv.Disabled:
			c.Status, c.Message = statusSkipped, "turned off in the settings"
		case len(srv.Command) == 0:
			if known, ok := langserver.Known(name); ok && len(known.Command) > 0 {
				srv.Command = known.Command
			} else {
				c.Status, c.Message, c.Fix = statusWarning, "no command", "set \"command\" of lsp."+name+" in the settings"
				break
			}
			fallthrough
		default:
			if p, err := exec.LookPath(srv.Command[0]); err != nil {
				c.Status, c.Message, c.Fix = statusWarning, srv.Command[0]+" is not on PATH", "install "+srv.Command[0]+" or give its absolute path in lsp."+name+".command"
			} else {
				c.Status, c.Message = statusOK, p
			}
		}
		out = append(out, c)
	}
	return out
}
