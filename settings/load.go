package settings

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Options says where to find the settings.
type Options struct {
	// Project is the workspace root (absolute).
	Project string
	// Home is the user's home directory; empty means os.UserHomeDir.
	Home string
	// NoUser leaves out the user's settings file (~/.claude/settings.json):
	// it is neither read nor watched. Home still expands "~" in rules.
	NoUser bool
	// ManagedPath is the managed policy file, if any (see
	// DefaultManagedPath). A missing file is not a problem. The
	// *.json files of the managed-settings.d folder beside it are read
	// too, in file name order, each later one above the earlier ones and
	// all above the file itself, as Claude Code merges them.
	ManagedPath string
	// InitializationOptions is the editor's settings object, in the same
	// format as a settings file. Keys this package does not know (maxTurns,
	// ...) are ignored.
	InitializationOptions json.RawMessage
	// TrustProject loads the project's own layers (.claude/settings.json,
	// .claude/settings.local.json, .mcp.json) in full. Without it the
	// folder is untrusted: those layers contribute only what tightens
	// the rules (deny and ask rules, disableBypassPermissionsMode, a
	// stricter sandbox) and the rest is listed in Settings.HeldBack.
	TrustProject bool
	// CheckRule, when set, validates each permission rule; a rule it
	// rejects is reported as a Problem at the rule's position (and kept in
	// the Settings, for the permission layer to handle cautiously).
	CheckRule func(rule string) error
}

// scope is a settings layer, highest priority first.
type scope int

const (
	scopeManaged scope = iota
	scopeInit
	scopeLocal
	scopeProject
	scopeUser
)

// source is one layer's origin.
type source struct {
	scope scope
	// name is the file path, or initializationOptionsName.
	name string
}

// LocalPath returns the path of the project's personal settings file,
// <project>/.claude/settings.local.json.
func LocalPath(project string) string {
	return filepath.Join(project, ".claude", "settings.local.json")
}

// projectPath returns the path of the project's shared settings file,
// <project>/.claude/settings.json.
func projectPath(project string) string {
	return filepath.Join(project, ".claude", "settings.json")
}

// userPath returns the path of the user's settings file,
// <home>/.claude/settings.json.
func userPath(home string) string {
	return filepath.Join(home, ".claude", "settings.json")
}

func (o Options) home() string {
	if o.Home != "" {
		return o.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// managedDropInDir returns the drop-in folder beside the managed policy
// file.
func managedDropInDir(managed string) string {
	return filepath.Join(filepath.Dir(managed), "managed-settings.d")
}

// managedDropIns returns the drop-in files of dir, highest priority
// (last in name order) first. Hidden files are skipped, as Claude Code
// does.
func managedDropIns(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var files []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") || e.IsDir() {
			continue
		}
		files = append(files, filepath.Join(dir, name))
	}
	slices.Sort(files)
	slices.Reverse(files)
	return files
}

func (o Options) sources() []source {
	var srcs []source
	if o.ManagedPath != "" {
		for _, f := range managedDropIns(managedDropInDir(o.ManagedPath)) {
			srcs = append(srcs, source{scopeManaged, f})
		}
		srcs = append(srcs, source{scopeManaged, o.ManagedPath})
	}
	if len(bytes.TrimSpace(o.InitializationOptions)) > 0 {
		srcs = append(srcs, source{scopeInit, initializationOptionsName})
	}
	if o.Project != "" {
		srcs = append(srcs,
			source{scopeLocal, LocalPath(o.Project)},
			source{scopeProject, projectPath(o.Project)})
	}
	if h := o.home(); h != "" && !o.NoUser {
		srcs = append(srcs, source{scopeUser, userPath(h)})
	}
	return srcs
}

// Load reads and merges every layer. It always returns usable Settings;
// the problems say what was skipped and where.
func Load(opts Options) (*Settings, []Problem) {
	s, problems, _ := newLoader(opts).load()
	return s, problems
}

// loader loads the layers, remembering each file's last valid content so
// that a reload while a file is half-edited keeps the rules it had.
type loader struct {
	opts     Options
	lastGood map[string][]byte // by file name
}

func newLoader(opts Options) *loader {
	return &loader{opts: opts, lastGood: map[string][]byte{}}
}

// load returns the merged settings, the problems, and a fingerprint of the
// inputs that changes whenever any input's content changes.
func (l *loader) load() (*Settings, []Problem, [sha256.Size]byte) {
	home := l.opts.home()
	var (
		layers   []*layer
		problems []Problem
		files    []string
		held     []HeldBack
	)
	h := sha256.New()
	for _, src := range l.opts.sources() {
		var data []byte
		if src.scope == scopeInit {
			data = l.opts.InitializationOptions
		} else {
			b, err := ReadFile(src.name)
			if errors.Is(err, fs.ErrNotExist) {
				delete(l.lastGood, src.name)
				fmt.Fprintf(h, "%s\x00missing\x00", src.name)
				continue
			}
			if err != nil {
				problems = append(problems, Problem{File: src.name, Message: fmt.Sprintf("reading settings: %v", err)})
				fmt.Fprintf(h, "%s\x00unreadable\x00", src.name)
				continue
			}
			data = b
		}
		fmt.Fprintf(h, "%s\x00%d\x00", src.name, len(data))
		h.Write(data)
		lay, probs, ok := parseLayer(src, data, l.opts.Project, home, l.opts.CheckRule)
		if !ok {
			if prev, had := l.lastGood[src.name]; had {
				probs[len(probs)-1].Message += "; keeping the previous version of this file until it is fixed"
				lay, _, _ = parseLayer(src, prev, l.opts.Project, home, nil)
			}
		} else if src.scope != scopeInit {
			l.lastGood[src.name] = data
		}
		problems = append(problems, probs...)
		if lay != nil && !l.opts.TrustProject && (src.scope == scopeLocal || src.scope == scopeProject) {
			if h := restrict(lay, l.rel(src.name)); !h.empty() {
				held = append(held, h)
			}
		}
		if lay != nil {
			layers = append(layers, lay)
			if src.scope != scopeInit {
				files = append(files, src.name)
			}
		}
	}
	s := merge(layers)
	s.Project = l.opts.Project
	s.Home = home
	s.Files = files
	if l.opts.Project != "" && !l.opts.TrustProject {
		s.ProjectRestricted = true
		if n := countMCPJSON(l.opts.Project); n > 0 {
			held = append(held, HeldBack{File: ".mcp.json", MCPServers: n, RunsCode: true})
		}
		s.HeldBack = held
	}
	var sum [sha256.Size]byte
	copy(sum[:], h.Sum(nil))
	return s, problems, sum
}

// rel returns a settings file's name relative to the project.
func (l *loader) rel(name string) string {
	if r, err := filepath.Rel(l.opts.Project, name); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return name
}

// layer is one parsed settings layer.
type layer struct {
	src         source
	permissions rawPermissions
	allow       []Rule
	deny        []Rule
	ask         []Rule
	hooks       map[string][]HookMatcher
	disableAll  *bool
	sandbox     rawSandbox
	model       *string
	fallback    *string
	available   *[]string
	provider    *string
	baseURL     *string
	keyHelper   *string
	env         map[string]string
	thinking    *bool
	effort      *string
	enableAll   *bool
	enabledMCP  []string
	disabledMCP []string
	mcpServers  map[string]json.RawMessage
	allowedMCP  *[]MCPServerRule
	deniedMCP   []MCPServerRule
	managedMCP  *bool
	lsp         rawLSP

	// Auto memory (engine/memoryauto.go).
	autoMemory    *bool   // autoMemoryEnabled
	autoMemoryDir *string // autoMemoryDirectory, absolute
	cleanup       *int
	attribution   struct {
		Commit *string `json:"commit"`
		PR     *string `json:"pr"`
	}
	coAuthoredBy  *bool
	gitInstr      *bool
	respectIgnore *bool
	autoCompact   *bool
	language      *string
	managedHooks  *bool
	managedRules  *bool
	inert         []Inert
}

type rawPermissions struct {
	DefaultMode                  *string
	AdditionalDirectories        []string
	DisableBypassPermissionsMode *string
}

type rawSandbox struct {
	Enabled                  *bool `json:"enabled"`
	FailIfUnavailable        *bool `json:"failIfUnavailable"`
	AllowUnsandboxedCommands *bool `json:"allowUnsandboxedCommands"`
	Network                  struct {
		AllowedDomains    []string `json:"allowedDomains"`
		DeniedDomains     []string `json:"deniedDomains"`
		AllowLocalBinding *bool    `json:"allowLocalBinding"`
	} `json:"network"`
	Filesystem struct {
		AllowWrite []string `json:"allowWrite"`
		AllowRead  []string `json:"allowRead"`
		DenyRead   []string `json:"denyRead"`
		DenyWrite  []string `json:"denyWrite"`
	} `json:"filesystem"`
}

// knownModes are the permission modes a defaultMode may name.
var knownModes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"}

// knownHookEvents are the hook events agent-lsp runs.
var knownHookEvents = []string{
	"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest",
	"UserPromptSubmit", "Stop", "SessionStart", "SessionEnd", "Notification",
	"PreCompact", "PostCompact", "SubagentStart", "SubagentStop",
}

// toolHookEvents are the events about one tool call, where a hook's
// "if" rule applies.
var toolHookEvents = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"}

// promptHookEvents are the events a prompt hook can decide.
var promptHookEvents = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "UserPromptSubmit", "Stop", "SubagentStop"}

// shorten cuts s to n characters with an ellipsis.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// parseLayer parses one layer. ok is false when data is not a JSON object;
// the last problem then says why.
func parseLayer(src source, data []byte, project, home string, check func(string) error) (_ *layer, problems []Problem, ok bool) {
	at := func(off int, msg string) Problem {
		line, col := lineCol(data, off)
		return Problem{File: src.name, Line: line, Column: col, Message: msg}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return &layer{src: src}, nil, true
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, []Problem{at(int(syn.Offset), "invalid JSON: "+syn.Error())}, false
		case errors.As(err, &typ):
			return nil, []Problem{at(0, "settings must be a JSON object")}, false
		}
		return nil, []Problem{at(0, "invalid JSON: "+err.Error())}, false
	}
	idx := indexValues(data)
	pos := func(path string) Position {
		p := Position{File: src.name}
		if off, found := idx[path]; found {
			p.Line, p.Column = lineCol(data, off)
		}
		return p
	}
	report := func(path, msg string) {
		p := pos(path)
		problems = append(problems, Problem{File: p.File, Line: p.Line, Column: p.Column, Message: msg})
	}
	// decodeAt decodes raw, the value at path, into v, reporting type
	// errors where they are. The parts of the value that decode are kept.
	decodeAt := func(path string, raw json.RawMessage, v any) bool {
		err := json.Unmarshal(raw, v)
		if err == nil {
			return true
		}
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			where := path
			if typ.Field != "" {
				if _, found := idx[path+"."+typ.Field]; found {
					where = path + "." + typ.Field
				}
			}
			report(where, fmt.Sprintf("%s: expected %s, found JSON %s", where, typ.Type, typ.Value))
			return false
		}
		report(path, fmt.Sprintf("%s: %v", path, err))
		return false
	}
	decode := func(key string, v any) {
		if raw, found := top[key]; found {
			decodeAt(key, raw, v)
		}
	}
	// elems decodes a list of strings element by element, so that one
	// bad element loses only itself.
	type elem struct{ path, text string }
	elems := func(path string, raw json.RawMessage) []elem {
		var raws []json.RawMessage
		if raw == nil || !decodeAt(path, raw, &raws) {
			return nil
		}
		var out []elem
		for i, r := range raws {
			e := elem{path: fmt.Sprintf("%s[%d]", path, i)}
			if decodeAt(e.path, r, &e.text) {
				out = append(out, e)
			}
		}
		return out
	}
	strs := func(path string, raw json.RawMessage) []string {
		var out []string
		for _, e := range elems(path, raw) {
			out = append(out, e.text)
		}
		return out
	}

	warn := func(path, msg string) {
		report(path, msg)
		problems[len(problems)-1].Warning = true
	}
	lay := &layer{src: src}
	var perms map[string]json.RawMessage
	decode("permissions", &perms)
	lay.permissions.AdditionalDirectories = strs("permissions.additionalDirectories", perms["additionalDirectories"])
	if raw, found := perms["defaultMode"]; found {
		decodeAt("permissions.defaultMode", raw, &lay.permissions.DefaultMode)
	}
	if raw, found := perms["disableBypassPermissionsMode"]; found {
		decodeAt("permissions.disableBypassPermissionsMode", raw, &lay.permissions.DisableBypassPermissionsMode)
	}
	rules := func(list string) []Rule {
		var out []Rule
		for _, e := range elems("permissions."+list, perms[list]) {
			path, t := e.path, e.text
			if strings.TrimSpace(t) == "" {
				report(path, fmt.Sprintf("permissions.%s: empty rule", list))
				continue
			}
			r := Rule{Text: t, Pos: pos(path)}
			if check != nil {
				if err := check(t); err != nil {
					report(path, fmt.Sprintf("permissions.%s: rule %q: %v", list, t, err))
				}
			}
			out = append(out, r)
		}
		return out
	}
	lay.allow = rules("allow")
	lay.deny = rules("deny")
	lay.ask = rules("ask")
	if m := lay.permissions.DefaultMode; m != nil {
		switch {
		case *m == "manual":
			// Claude Code's newer name for the default mode.
			def := "default"
			lay.permissions.DefaultMode = &def
		case *m == "auto" || *m == "delegate":
			warn("permissions.defaultMode", fmt.Sprintf("permissions.defaultMode: agent-lsp has no %s mode; sessions start in the default mode", *m))
			lay.permissions.DefaultMode = nil
		case !slices.Contains(knownModes, *m):
			report("permissions.defaultMode", fmt.Sprintf("permissions.defaultMode: unknown mode %q (want one of %s)", *m, strings.Join(knownModes, ", ")))
			lay.permissions.DefaultMode = nil
		case *m == "bypassPermissions" && src.scope == scopeProject:
			// A repository must not switch its cloners' permission checks off.
			report("permissions.defaultMode", "permissions.defaultMode: bypassPermissions is ignored in the project's shared settings; set it in .claude/settings.local.json or the user settings")
			lay.permissions.DefaultMode = nil
		}
	}
	if d := lay.permissions.DisableBypassPermissionsMode; d != nil && *d != "disable" {
		report("permissions.disableBypassPermissionsMode", fmt.Sprintf("permissions.disableBypassPermissionsMode: unknown value %q (want \"disable\")", *d))
	}
	lay.permissions.AdditionalDirectories = resolveDirs(lay.permissions.AdditionalDirectories, project, home)

	decode("hooks", &lay.hooks)
	for _, event := range sortedKeys(lay.hooks) {
		n := 0
		for _, m := range lay.hooks[event] {
			n += len(m.Hooks)
		}
		if !slices.Contains(knownHookEvents, event) {
			what := "its hook never runs"
			if n != 1 {
				what = fmt.Sprintf("its %d hooks never run", n)
			}
			warn("hooks."+event, fmt.Sprintf("hooks: agent-lsp has no %s event, so %s (events that run: %s)", event, what, strings.Join(knownHookEvents, ", ")))
			continue
		}
		for i, m := range lay.hooks[event] {
			for j, h := range m.Hooks {
				path := fmt.Sprintf("hooks.%s[%d].hooks[%d]", event, i, j)
				switch {
				case h.Type == "command" && strings.TrimSpace(h.Command) == "":
					report(path, fmt.Sprintf("hooks.%s: hook has no command", event))
				case h.Type == "http" && strings.TrimSpace(h.URL) == "":
					report(path, fmt.Sprintf("hooks.%s: http hook has no url", event))
				case h.Type == "command" || h.Type == "http":
					if h.If != "" && !slices.Contains(toolHookEvents, event) {
						warn(path+".if", fmt.Sprintf("hooks.%s: \"if\" applies to tool events only (%s), so this hook never runs", event, strings.Join(toolHookEvents, ", ")))
					} else if h.If != "" && check != nil {
						if err := check(h.If); err != nil {
							report(path+".if", fmt.Sprintf("hooks.%s: \"if\" %q is not a permission rule: %v; the hook never runs", event, h.If, err))
						}
					}
				case h.Type == "prompt" && strings.TrimSpace(h.Prompt) == "":
					report(path, fmt.Sprintf("hooks.%s: prompt hook has no prompt", event))
				case h.Type == "prompt" && !slices.Contains(promptHookEvents, event):
					warn(path, fmt.Sprintf("hooks.%s: prompt hooks run on %s only, so this one (%q) never runs", event, strings.Join(promptHookEvents, ", "), shorten(h.Prompt, 60)))
				case h.Type == "prompt":
				case h.Type == "agent":
					warn(path, fmt.Sprintf("hooks.%s: agent hooks are not supported by agent-lsp, so this one (%q) never runs", event, shorten(h.Prompt, 60)))
				default:
					report(path, fmt.Sprintf("hooks.%s: unknown hook type %q (want \"command\", \"http\" or \"prompt\")", event, h.Type))
				}
				if h.Timeout < 0 {
					report(path, fmt.Sprintf("hooks.%s: negative timeout", event))
				}
			}
		}
	}
	decode("disableAllHooks", &lay.disableAll)
	decode("sandbox", &lay.sandbox)
	fsys := &lay.sandbox.Filesystem
	for _, list := range []*[]string{&fsys.AllowWrite, &fsys.AllowRead, &fsys.DenyRead, &fsys.DenyWrite} {
		*list = resolveDirs(*list, project, home)
	}
	decode("model", &lay.model)
	if raw, found := top["fallbackModel"]; found {
		// Claude Code 2.1.332 takes a chain; earlier releases one model.
		var chain []string
		if json.Unmarshal(raw, &chain) == nil {
			if len(chain) > 0 {
				lay.fallback = &chain[0]
			}
		} else {
			decode("fallbackModel", &lay.fallback)
		}
	}
	decode("availableModels", &lay.available)
	decode("provider", &lay.provider)
	decode("baseURL", &lay.baseURL)
	decode("apiKeyHelper", &lay.keyHelper)
	decode("env", &lay.env)
	decode("alwaysThinkingEnabled", &lay.thinking)
	decode("autoMemoryEnabled", &lay.autoMemory)
	decode("autoMemoryDirectory", &lay.autoMemoryDir)
	if d := lay.autoMemoryDir; d != nil {
		switch {
		case src.scope == scopeProject || src.scope == scopeLocal:
			// The model writes there without a question about the
			// folder: a repository must not choose it.
			warn("autoMemoryDirectory", "autoMemoryDirectory is read from the user's and the managed settings only; here it is ignored")
			lay.autoMemoryDir = nil
		case *d == "~" || strings.HasPrefix(*d, "~/"):
			v := filepath.Join(home, strings.TrimPrefix(*d, "~"))
			lay.autoMemoryDir = &v
		case !filepath.IsAbs(*d):
			report("autoMemoryDirectory", fmt.Sprintf("autoMemoryDirectory: %q is neither absolute nor under ~/; the default folder is used", *d))
			lay.autoMemoryDir = nil
		default:
			v := filepath.Clean(*d)
			lay.autoMemoryDir = &v
		}
	}
	decode("effortLevel", &lay.effort)
	if e := lay.effort; e != nil && !slices.Contains(EffortLevels, *e) {
		warn("effortLevel", fmt.Sprintf("effortLevel: unknown level %q (want one of %s); the model's default effort applies", *e, strings.Join(EffortLevels, ", ")))
		lay.effort = nil
	}
	decode("enableAllProjectMcpServers", &lay.enableAll)
	decode("enabledMcpjsonServers", &lay.enabledMCP)
	decode("disabledMcpjsonServers", &lay.disabledMCP)
	decode("mcpServers", &lay.mcpServers)
	decode("allowedMcpServers", &lay.allowedMCP)
	decode("deniedMcpServers", &lay.deniedMCP)
	if src.scope == scopeManaged {
		decode("allowManagedMcpServersOnly", &lay.managedMCP)
	}
	var lspRaw map[string]json.RawMessage
	decode("lsp", &lspRaw)
	lay.lsp = parseLSP(lspRaw, report)

	decode("cleanupPeriodDays", &lay.cleanup)
	if c := lay.cleanup; c != nil && *c < 1 {
		report("cleanupPeriodDays", fmt.Sprintf("cleanupPeriodDays: %d is not allowed (Claude Code's minimum is 1); sessions are kept %d days", *c, DefaultCleanupPeriodDays))
		lay.cleanup = nil
	}
	decode("attribution", &lay.attribution)
	decode("includeCoAuthoredBy", &lay.coAuthoredBy)
	decode("includeGitInstructions", &lay.gitInstr)
	decode("respectGitignore", &lay.respectIgnore)
	decode("autoCompactEnabled", &lay.autoCompact)
	decode("language", &lay.language)
	decode("allowManagedHooksOnly", &lay.managedHooks)
	decode("allowManagedPermissionRulesOnly", &lay.managedRules)
	var mcpOnly *bool // read into managedMCP above, for the managed layer
	decode("allowManagedMcpServersOnly", &mcpOnly)
	if src.scope != scopeManaged {
		for i, v := range []*bool{lay.managedHooks, lay.managedRules, mcpOnly} {
			if v != nil && *v {
				k := managedOnlyKeys[i]
				warn(k, fmt.Sprintf("%s takes effect in managed settings only, so it has no effect in this file", k))
			}
		}
		lay.managedHooks, lay.managedRules = nil, nil
	}
	if src.scope != scopeInit {
		// The editor's initializationOptions hold agent-lsp's own
		// options beside the settings.
		lay.inert = checkKeys(top, pos, warn)
	}
	return lay, problems, true
}

// resolveDirs makes directories absolute: "~/x" is under home, "//x" and
// "/x" are absolute, anything else is relative to the project.
func resolveDirs(dirs []string, project, home string) []string {
	var out []string
	for _, d := range dirs {
		d = strings.TrimSpace(d)
		switch {
		case d == "":
			continue
		case d == "~":
			d = home
		case strings.HasPrefix(d, "~/"):
			d = filepath.Join(home, d[2:])
		case filepath.IsAbs(d):
		default:
			d = filepath.Join(project, d)
		}
		out = append(out, filepath.Clean(d))
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// merge combines layers given highest priority first.
func merge(layers []*layer) *Settings {
	s := &Settings{}
	isManaged := func(l *layer) bool { return l.src.scope == scopeManaged }
	managedTrue := func(get func(*layer) *bool) bool {
		for _, l := range layers {
			if v := get(l); isManaged(l) && v != nil && *v {
				return true
			}
		}
		return false
	}
	s.ManagedHooksOnly = managedTrue(func(l *layer) *bool { return l.managedHooks })
	s.ManagedPermissionRulesOnly = managedTrue(func(l *layer) *bool { return l.managedRules })
	first := func(get func(*layer) *string) string {
		for _, l := range layers {
			if v := get(l); v != nil {
				return *v
			}
		}
		return ""
	}
	firstBool := func(get func(*layer) *bool) *bool {
		for _, l := range layers {
			if v := get(l); v != nil {
				return v
			}
		}
		return nil
	}
	isTrue := func(b *bool) bool { return b != nil && *b }

	for _, l := range layers {
		s.Inert = append(s.Inert, l.inert...)
		if !s.ManagedPermissionRulesOnly || isManaged(l) {
			s.Permissions.Allow = appendRules(s.Permissions.Allow, l.allow)
			s.Permissions.Deny = appendRules(s.Permissions.Deny, l.deny)
			s.Permissions.Ask = appendRules(s.Permissions.Ask, l.ask)
		}
		s.Permissions.AdditionalDirectories = appendUnique(s.Permissions.AdditionalDirectories, l.permissions.AdditionalDirectories)
		if d := l.permissions.DisableBypassPermissionsMode; d != nil && *d == "disable" {
			s.Permissions.DisableBypassPermissions = true
		}
		for _, event := range sortedKeys(l.hooks) {
			if s.ManagedHooksOnly && !isManaged(l) {
				break
			}
			if s.Hooks == nil {
				s.Hooks = map[string][]HookMatcher{}
			}
			s.Hooks[event] = append(s.Hooks[event], l.hooks[event]...)
		}
		s.EnabledMcpjsonServers = appendUnique(s.EnabledMcpjsonServers, l.enabledMCP)
		s.DisabledMcpjsonServers = appendUnique(s.DisabledMcpjsonServers, l.disabledMCP)
		s.Sandbox.Network.AllowedDomains = appendUnique(s.Sandbox.Network.AllowedDomains, l.sandbox.Network.AllowedDomains)
		s.Sandbox.Network.DeniedDomains = appendUnique(s.Sandbox.Network.DeniedDomains, l.sandbox.Network.DeniedDomains)
		s.Sandbox.Filesystem.AllowWrite = appendUnique(s.Sandbox.Filesystem.AllowWrite, l.sandbox.Filesystem.AllowWrite)
		s.Sandbox.Filesystem.AllowRead = appendUnique(s.Sandbox.Filesystem.AllowRead, l.sandbox.Filesystem.AllowRead)
		s.Sandbox.Filesystem.DenyRead = appendUnique(s.Sandbox.Filesystem.DenyRead, l.sandbox.Filesystem.DenyRead)
		s.Sandbox.Filesystem.DenyWrite = appendUnique(s.Sandbox.Filesystem.DenyWrite, l.sandbox.Filesystem.DenyWrite)
	}
	// Maps: lower layers first, so higher ones overwrite.
	for _, l := range slices.Backward(layers) {
		for k, v := range l.env {
			if s.Env == nil {
				s.Env = map[string]string{}
			}
			s.Env[k] = v
		}
		for k, v := range l.mcpServers {
			if s.MCPServers == nil {
				s.MCPServers = map[string]json.RawMessage{}
			}
			s.MCPServers[k] = v
		}
	}
	s.Permissions.DefaultMode = first(func(l *layer) *string { return l.permissions.DefaultMode })
	s.DisableAllHooks = isTrue(firstBool(func(l *layer) *bool { return l.disableAll }))
	s.Sandbox.Enabled = isTrue(firstBool(func(l *layer) *bool { return l.sandbox.Enabled }))
	s.Sandbox.FailIfUnavailable = firstBool(func(l *layer) *bool { return l.sandbox.FailIfUnavailable })
	s.Sandbox.AllowUnsandboxedCommands = firstBool(func(l *layer) *bool { return l.sandbox.AllowUnsandboxedCommands })
	s.Sandbox.Network.AllowLocalBinding = isTrue(firstBool(func(l *layer) *bool { return l.sandbox.Network.AllowLocalBinding }))
	s.Model = first(func(l *layer) *string { return l.model })
	s.FallbackModel = first(func(l *layer) *string { return l.fallback })
	for _, l := range layers {
		if l.available != nil {
			s.AvailableModels = append([]string{}, *l.available...)
			break
		}
	}
	s.Provider = first(func(l *layer) *string { return l.provider })
	s.BaseURL = first(func(l *layer) *string { return l.baseURL })
	s.APIKeyHelper = first(func(l *layer) *string { return l.keyHelper })
	s.AlwaysThinkingEnabled = firstBool(func(l *layer) *bool { return l.thinking })
	s.AutoMemoryEnabled = firstBool(func(l *layer) *bool { return l.autoMemory })
	s.AutoMemoryDirectory = first(func(l *layer) *string { return l.autoMemoryDir })
	s.EffortLevel = first(func(l *layer) *string { return l.effort })
	s.EnableAllProjectMcpServers = isTrue(firstBool(func(l *layer) *bool { return l.enableAll }))
	s.AllowManagedMcpServersOnly = isTrue(firstBool(func(l *layer) *bool { return l.managedMCP }))
	for _, l := range layers {
		s.DeniedMcpServers = append(s.DeniedMcpServers, l.deniedMCP...)
		if l.allowedMCP == nil || (s.AllowManagedMcpServersOnly && l.src.scope != scopeManaged) {
			continue
		}
		if s.AllowedMcpServers == nil {
			s.AllowedMcpServers = []MCPServerRule{}
		}
		s.AllowedMcpServers = append(s.AllowedMcpServers, *l.allowedMCP...)
	}
	s.LSP = mergeLSP(layers)

	s.CleanupPeriodDays = DefaultCleanupPeriodDays
	for _, l := range layers {
		if l.cleanup != nil {
			s.CleanupPeriodDays = *l.cleanup
			break
		}
	}
	coAuthored := firstBool(func(l *layer) *bool { return l.coAuthoredBy })
	none := ""
	s.CommitAttribution = firstPtr(layers, func(l *layer) *string { return l.attribution.Commit })
	s.PRAttribution = firstPtr(layers, func(l *layer) *string { return l.attribution.PR })
	if coAuthored != nil && !*coAuthored {
		// The deprecated switch, where attribution does not say.
		if s.CommitAttribution == nil {
			s.CommitAttribution = &none
		}
		if s.PRAttribution == nil {
			s.PRAttribution = &none
		}
	}
	isFalse := func(b *bool) bool { return b != nil && !*b }
	s.NoGitInstructions = isFalse(firstBool(func(l *layer) *bool { return l.gitInstr }))
	s.IncludeIgnored = isFalse(firstBool(func(l *layer) *bool { return l.respectIgnore }))
	s.NoAutoCompact = isFalse(firstBool(func(l *layer) *bool { return l.autoCompact }))
	s.Language = first(func(l *layer) *string { return l.language })
	return s
}

// firstPtr returns the value of the highest layer that sets it, nil when
// none does.
func firstPtr[T any](layers []*layer, get func(*layer) *T) *T {
	for _, l := range layers {
		if v := get(l); v != nil {
			c := *v
			return &c
		}
	}
	return nil
}

// appendRules appends the rules of add whose text is not already in rules.
func appendRules(rules, add []Rule) []Rule {
	for _, r := range add {
		if !slices.ContainsFunc(rules, func(have Rule) bool { return have.Text == r.Text }) {
			rules = append(rules, r)
		}
	}
	return rules
}

func appendUnique(list, add []string) []string {
	for _, v := range add {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}
