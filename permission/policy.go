package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

// Mode is a permission mode.
type Mode string

// The permission modes.
const (
	// Default allows read-only tools and asks before anything that
	// changes state, unless a rule allows it.
	Default Mode = "default"
	// AcceptEdits also allows file edits inside the workspace; shell
	// commands still ask.
	AcceptEdits Mode = "acceptEdits"
	// Plan allows read-only tools only and refuses the rest.
	Plan Mode = "plan"
	// BypassPermissions never asks; deny rules still hold.
	BypassPermissions Mode = "bypassPermissions"
	// DontAsk refuses whatever rules and read-only checks do not allow,
	// instead of asking.
	DontAsk Mode = "dontAsk"
)

// modeInfo describes the modes, in the order editors list them.
var modeInfo = []schema.Mode{
	{ID: string(Default), Name: "Default", Description: "Ask before anything that changes files or runs commands"},
	{ID: string(AcceptEdits), Name: "Accept edits", Description: "Edit files in the workspace without asking; commands still ask"},
	{ID: string(Plan), Name: "Plan", Description: "Read and plan only: nothing is changed or run"},
	{ID: string(BypassPermissions), Name: "Bypass permissions", Description: "Never ask; deny rules still hold"},
	{ID: string(DontAsk), Name: "Don't ask", Description: "Refuse, without asking, whatever the rules do not allow"},
}

// ParseMode returns the mode named s.
func ParseMode(s string) (Mode, error) {
	for _, m := range modeInfo {
		if m.ID == s {
			return Mode(s), nil
		}
	}
	return "", fmt.Errorf("unknown permission mode %q", s)
}

// Verdict is the outcome of a permission check.
type Verdict int

// The verdicts.
const (
	Allow Verdict = iota
	Ask
	Deny
)

// String returns "allow", "ask" or "deny".
func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Call is a tool call to check.
type Call struct {
	Tool  string
	Input json.RawMessage
	// Access is what the call does, as its tool declares it. Undeclared,
	// a call has the access its name stands for in Claude Code's tools
	// (Read, Edit, Write, ...), else AccessRead when ReadOnly says so,
	// else it is held as able to do anything.
	Access Access
	// ReadOnly is the tool's declaration that it changes nothing, which
	// counts only for a call that does not declare its Access. It is
	// ignored for Bash, whose command is classified instead.
	ReadOnly bool
	// Kind is the ACP tool kind: read, edit, delete, move, search,
	// execute, think, fetch, other.
	Kind string
	// Paths are the absolute, symlink-resolved files the call reads or
	// changes.
	Paths []string
	// Command is the shell command, for Bash.
	Command string
	// Cwd is where the command runs; empty means the project root.
	Cwd string
}

// Decision is the policy's answer for a call.
type Decision struct {
	Verdict Verdict
	// Reason is, for Deny, a message for the model; otherwise the rule
	// that matched or why the call asks or is allowed.
	Reason string
	// AlwaysRule is what "allow always" would add, for display:
	// "Bash(npm test:*)", "Edit(src/**)", a tool name, or several rules
	// joined by ", ". Empty when "allow always" cannot help (the call
	// would ask again anyway); then offer allow-once only.
	AlwaysRule string
	// AlwaysRules are the rules behind AlwaysRule.
	AlwaysRules []string
	// Confine, for an Allow of a Bash call, says how the call must be
	// held because it runs without a question (every other decision,
	// and every decision of another tool, says NotConfined, the call's
	// holding being chosen elsewhere): ConfineReadOnly or
	// ConfineWorkspace when only the command classifier judged it
	// harmless (a classifier mistake cannot write, reach the network or
	// leak), ConfineRule when an allow rule (settings, a session "always
	// allow", a bare Bash rule) allowed it (a rule names a prefix, not
	// what the options or the repository's scripts make the command do).
	// It is NotConfined for calls the user approved one by one (a click
	// on "allow"), in bypassPermissions mode (chosen knowingly: nothing
	// is held), and under a hook's allow of a call that would ask.
	Confine Confinement
}

// Confinement is how a Bash call must be held. The zero value is the
// tightest, ConfineReadOnly: a call whose holding nobody chose runs
// read-only, and running unconfined is always chosen by name.
type Confinement int

// The confinements.
const (
	// ConfineReadOnly calls were classified read-only: they run with the
	// workspace read-only, no network and nothing else of the host's
	// files or environment.
	ConfineReadOnly Confinement = iota
	// ConfineWorkspace calls were classified harmless apart from writes
	// inside the workspace, which acceptEdits mode allows: as
	// ConfineReadOnly, with the workspace writable.
	ConfineWorkspace
	// ConfineRule calls were allowed by one of the user's allow rules:
	// the workspace is writable (the protected paths stay read-only),
	// the rest of the filesystem read-only, the user's home readable
	// with its secrets hidden, the network as the settings' sandbox
	// allows, and the user's environment without the sidecar's secrets.
	ConfineRule
	// NotConfined calls run as the user's settings say (their sandbox,
	// if enabled).
	NotConfined
)

// Policy decides tool calls for one session. It is safe for concurrent
// use.
type Policy struct {
	project string // symlink-resolved
	home    string

	mu            sync.RWMutex
	mode          Mode            // guarded by mu
	rules         ruleSet         // guarded by mu; from settings
	session       []compiledRule  // guarded by mu; granted by AllowAlways
	roots         []string        // guarded by mu; project, extraRoots and additionalDirectories
	extraRoots    []string        // guarded by mu; other workspace folders, from AddRoots
	disableBypass bool            // guarded by mu
	unconfined    bool            // guarded by mu; no sandbox can confine auto-run commands
	invalid       []settings.Rule // guarded by mu; rules that did not parse
	persist       func(rule string) error
}

// ruleSet is the settings' rules, parsed.
type ruleSet struct {
	allow, deny, ask []compiledRule
}

// compiledRule is a rule ready to match.
type compiledRule struct {
	Rule
	// where says where the rule was written.
	where string
	// glob is a path rule's absolute pattern.
	glob string
	// lit is the last segment of glob when it holds no wildcard (".env"
	// in ".../**/.env"): a path can only match with that segment in it,
	// which Hides checks first, as it runs for every file a search walks.
	lit string
	// fallback marks an invalid deny or ask rule that now asks for every
	// use of its tool.
	fallback bool
}

func (r *compiledRule) describe() string {
	s := fmt.Sprintf("%q", r.String())
	if r.fallback {
		s = fmt.Sprintf("the invalid rule at %s (asking for every %s call until it is fixed)", r.where, r.Tool)
	} else if r.where != "" {
		s += " (" + r.where + ")"
	}
	return s
}

// NewPolicy returns the policy for a session in project (the workspace
// root) with settings s, starting in mode. An empty mode means the
// settings' defaultMode, else Default; a mode the settings forbid
// (bypassPermissions when disabled) falls back to Default.
func NewPolicy(project string, s *settings.Settings, mode Mode) *Policy {
	if s == nil {
		s = &settings.Settings{}
	}
	p := &Policy{
		project: realPath("/", project),
		home:    s.Home,
	}
	if p.home == "" {
		p.home = homeDir()
	}
	if p.home != "" {
		p.home = realPath("/", p.home)
	}
	p.persist = func(rule string) error { return persistLocalRule(project, rule) }
	p.update(s)
	if mode == "" {
		mode = Mode(s.Permissions.DefaultMode)
	}
	if _, err := ParseMode(string(mode)); err != nil || (mode == BypassPermissions && p.disableBypass) {
		mode = Default
	}
	p.mode = mode
	return p
}

// Update replaces the rules, directories and restrictions with those of
// reloaded settings. Rules granted with AllowAlways are kept. A session in
// bypassPermissions falls back to Default when the settings now forbid it.
func (p *Policy) Update(s *settings.Settings) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.update(s)
}

func (p *Policy) update(s *settings.Settings) {
	p.invalid = nil
	p.rules = ruleSet{
		allow: p.compile(s.Permissions.Allow, false),
		deny:  p.compile(s.Permissions.Deny, true),
		ask:   p.compile(s.Permissions.Ask, true),
	}
	p.roots = []string{p.project}
	for _, d := range append(append([]string(nil), p.extraRoots...), s.Permissions.AdditionalDirectories...) {
		if r := realPath("/", d); !contains(p.roots, r) {
			p.roots = append(p.roots, r)
		}
	}
	p.disableBypass = s.Permissions.DisableBypassPermissions
	if p.disableBypass && p.mode == BypassPermissions {
		p.mode = Default
	}
}

// compile parses rules. An invalid allow rule is dropped. An invalid deny
// or ask rule whose tool can still be told becomes an ask for every use of
// that tool, so a typo never allows more than was meant.
func (p *Policy) compile(rules []settings.Rule, cautious bool) []compiledRule {
	var out []compiledRule
	for _, sr := range rules {
		cr := compiledRule{where: sr.Pos.String()}
		r, err := ParseRule(sr.Text)
		if err != nil {
			p.invalid = append(p.invalid, sr)
			if !cautious {
				continue
			}
			tool := sr.Text
			if i := strings.IndexByte(tool, '('); i >= 0 {
				tool = tool[:i]
			}
			tool = strings.TrimSpace(tool)
			if !toolNameRE().MatchString(tool) && !strings.HasPrefix(tool, "mcp__") {
				continue
			}
			r = Rule{Tool: tool, kind: kindTool}
			if m := mcpRE().FindStringSubmatch(tool); m != nil {
				r = Rule{Tool: tool, kind: kindMCP, mcpServer: m[1]}
			}
			cr.fallback = true
		}
		cr.Rule = r
		if r.kind == kindPath {
			cr.glob = pathGlob(r.Content, p.project, p.home)
			cr.lit = literalTail(cr.glob)
		}
		out = append(out, cr)
	}
	return out
}

// Mode returns the current mode.
func (p *Policy) Mode() Mode {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.mode
}

// SetMode switches the mode.
func (p *Policy) SetMode(m Mode) error {
	if _, err := ParseMode(string(m)); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if m == BypassPermissions && p.disableBypass {
		return fmt.Errorf("the bypassPermissions mode is disabled by the settings")
	}
	p.mode = m
	return nil
}

// Modes lists the modes the session can switch to, for the ACP modes
// list.
func (p *Policy) Modes() []schema.Mode {
	p.mu.RLock()
	defer p.mu.RUnlock()
	var out []schema.Mode
	for _, m := range modeInfo {
		if m.ID == string(BypassPermissions) && p.disableBypass {
			continue
		}
		out = append(out, m)
	}
	return out
}

// ModeState returns the modes and the current one, as session/new
// reports them.
func (p *Policy) ModeState() *schema.ModeState {
	return &schema.ModeState{CurrentModeID: string(p.Mode()), AvailableModes: p.Modes()}
}

// AddRoots adds directories to the workspace, as the project root is:
// the editor's other workspace folders. They stay across Update.
func (p *Policy) AddRoots(dirs ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range dirs {
		r := realPath("/", d)
		if !contains(p.extraRoots, r) {
			p.extraRoots = append(p.extraRoots, r)
		}
		if !contains(p.roots, r) {
			p.roots = append(p.roots, r)
		}
	}
}

// Roots returns the directories tools may use: the project and the
// settings' additionalDirectories, symlinks resolved.
func (p *Policy) Roots() []string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return append([]string(nil), p.roots...)
}

// snapshot is the policy's state for one decision.
type snapshot struct {
	mode       Mode
	rules      ruleSet
	session    []compiledRule
	roots      []string
	unconfined bool
}

func (p *Policy) snapshot() snapshot {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return snapshot{mode: p.mode, rules: p.rules, session: p.session, roots: p.roots, unconfined: p.unconfined}
}

// Decide checks a call. Deny rules beat ask rules, which beat allow rules;
// the mode decides what no rule covers.
func (p *Policy) Decide(c Call) Decision {
	st := p.snapshot()
	if c.Tool != "Bash" {
		d := p.decideTool(st, c)
		d.Confine = NotConfined
		return d
	}
	d := p.decideBash(st, c)
	if d.Verdict != Allow || st.mode == BypassPermissions {
		// Only an Allow without a question is held here; what the
		// user answers, or chose knowingly, runs as the settings say.
		d.Confine = NotConfined
	}
	return d
}

// matchTool reports whether rule r matches call c (a non-Bash call).
// anyPath says one matching path is enough (deny, ask); otherwise every
// path must match (allow).
func matchTool(r *compiledRule, c *Call, anyPath bool) bool {
	sameTool := r.Tool == c.Tool || familyCovers(r.Tool, c.access(), anyPath)
	switch r.kind {
	case kindTool:
		return sameTool
	case kindPath:
		if !sameTool || len(c.Paths) == 0 {
			return false
		}
		for _, path := range c.Paths {
			m := matchPath(r.glob, path)
			if anyPath && m {
				return true
			}
			if !anyPath && !m {
				return false
			}
		}
		return !anyPath
	case kindDomain:
		if c.Tool != "WebFetch" {
			return false
		}
		host := fetchHost(c.Input)
		return host != "" && matchDomain(r.domain, host)
	case kindMCP:
		server, tool, ok := splitMCP(c.Tool)
		if !ok || server != r.mcpServer {
			return false
		}
		if r.mcpTool == "" {
			return true
		}
		m, _ := filepath.Match(r.mcpTool, tool)
		return m
	}
	return false
}

// splitMCP splits "mcp__server__tool".
func splitMCP(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	return server, tool, ok
}

// fetchHost returns the host of a WebFetch call's url.
func fetchHost(input json.RawMessage) string {
	var in struct {
		URL string `json:"url"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	u, err := url.Parse(in.URL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

func firstMatch(rules []compiledRule, match func(*compiledRule) bool) *compiledRule {
	for i := range rules {
		if match(&rules[i]) {
			return &rules[i]
		}
	}
	return nil
}

func (p *Policy) decideTool(st snapshot, c Call) Decision {
	if r := firstMatch(st.rules.deny, func(r *compiledRule) bool { return matchTool(r, &c, true) }); r != nil {
		if r.fallback {
			// An invalid deny rule asks rather than refuses.
			if st.mode == BypassPermissions {
				return Decision{Verdict: Allow, Reason: "bypassPermissions mode"}
			}
			return p.askOr(st, c, Decision{Verdict: Ask, Reason: "matches " + r.describe()})
		}
		return Decision{Verdict: Deny, Reason: fmt.Sprintf("Permission to use %s was denied by the rule %s in the user's settings.", c.Tool, r.describe())}
	}
	if d, ok := p.decideLinked(st, c); ok { // files, not names: identity.go
		return d
	}
	if st.mode == BypassPermissions {
		return Decision{Verdict: Allow, Reason: "bypassPermissions mode"}
	}
	isMCP := strings.HasPrefix(c.Tool, "mcp__")
	access := c.access()
	readOnly := access == AccessRead || access == AccessNone || access == AccessFetch
	if st.mode == Plan && !readOnly {
		return Decision{Verdict: Deny, Reason: fmt.Sprintf("%s is not available in plan mode, where only read-only tools run. Finish the plan and present it; the user will switch modes to carry it out.", c.Tool)}
	}
	if r := firstMatch(st.rules.ask, func(r *compiledRule) bool { return matchTool(r, &c, true) }); r != nil {
		return p.askOr(st, c, Decision{Verdict: Ask, Reason: "matches the ask rule " + r.describe()})
	}
	allowMatch := func(r *compiledRule) bool { return matchTool(r, &c, false) }
	if r := firstMatch(st.session, allowMatch); r != nil {
		return Decision{Verdict: Allow, Reason: "allowed for this session by " + r.describe()}
	}
	if r := firstMatch(st.rules.allow, allowMatch); r != nil {
		return Decision{Verdict: Allow, Reason: "allowed by the rule " + r.describe()}
	}
	inside := true
	for _, path := range c.Paths {
		if !withinAny(st.roots, path) {
			inside = false
		}
	}
	switch {
	case readOnly && !isMCP && access != AccessFetch && inside:
		return Decision{Verdict: Allow, Reason: "read-only tool"}
	case st.mode == AcceptEdits && isEditKind(c) && inside && len(c.Paths) > 0 && !anyProtected(st.roots, c.Paths):
		return Decision{Verdict: Allow, Reason: "acceptEdits mode: edit inside the workspace"}
	}
	why := c.Tool + " changes state"
	switch {
	case !inside:
		why = c.Tool + " uses files outside the workspace"
	case access == AccessFetch:
		why = c.Tool + " reaches the network"
	case isMCP:
		why = c.Tool + " is an MCP tool"
	case st.mode == AcceptEdits && isEditKind(c):
		why = c.Tool + " changes files that hold settings or code that runs"
	}
	d := Decision{Verdict: Ask, Reason: why}
	d.AlwaysRules = p.suggestTool(c)
	d.AlwaysRule = strings.Join(d.AlwaysRules, ", ")
	return p.askOr(st, c, d)
}

// Hides reports whether a deny or ask rule keeps path (absolute, clean,
// symlinks resolved) from tool, or anything holding path: a path rule on
// tool itself or on its family (Read covers Grep, Glob and LS). The search
// tools leave such files out of their results, so a file Read may not
// open does not surface through a search either, and one Read would ask
// about is not shown without asking. These rules hold in every mode.
func (p *Policy) Hides(tool, path string) bool {
	st := p.snapshot()
	for _, rules := range [][]compiledRule{st.rules.deny, st.rules.ask} {
		for i := range rules {
			r := &rules[i]
			if hidesFor(r, tool) && (r.lit == "" || strings.Contains(path, r.lit)) && matchPath(r.glob, path) {
				return true
			}
		}
	}
	return false
}

// HiddenGlobs returns the absolute doublestar patterns of the rules
// behind Hides for tool.
func (p *Policy) HiddenGlobs(tool string) []string {
	st := p.snapshot()
	var out []string
	for _, rules := range [][]compiledRule{st.rules.deny, st.rules.ask} {
		for i := range rules {
			if r := &rules[i]; hidesFor(r, tool) {
				out = append(out, strings.TrimSuffix(r.glob, "/"))
			}
		}
	}
	return out
}

// literalTail returns "/" and the last segment of an absolute glob when
// that segment holds no wildcard or escape, else "".
func literalTail(glob string) string {
	tail := glob[strings.LastIndexByte(strings.TrimSuffix(glob, "/"), '/')+1:]
	tail = strings.TrimSuffix(tail, "/")
	if tail == "" || strings.ContainsAny(tail, `*?[]{}\`) {
		return ""
	}
	return "/" + tail
}

// hidesFor reports whether r is a path rule that covers tool, a tool
// that reads files: whoever asks, unless its name is one of Claude
// Code's editing tools.
func hidesFor(r *compiledRule, tool string) bool {
	return r.kind == kindPath && !r.fallback && family(tool) != "Edit" && (r.Tool == tool || r.Tool == "Read")
}

// askOr turns an Ask into a Deny in dontAsk mode.
func (p *Policy) askOr(st snapshot, c Call, d Decision) Decision {
	if d.Verdict == Ask && st.mode == DontAsk {
		return Decision{Verdict: Deny, Reason: fmt.Sprintf("Permission to use %s was denied: the session is in dontAsk mode and no rule allows this call (%s).", c.Tool, d.Reason)}
	}
	return d
}

func isEditKind(c Call) bool {
	return c.access() == AccessEdit
}

func anyProtected(roots, paths []string) bool {
	for _, p := range paths {
		if protected(roots, p) {
			return true
		}
	}
	return false
}

// suggestTool returns the rules "allow always" would add for a non-Bash
// call: a path rule per top-level directory for file tools, the domain
// for WebFetch, else the tool's name.
func (p *Policy) suggestTool(c Call) []string {
	if c.Tool == "WebFetch" {
		if h := fetchHost(c.Input); h != "" {
			return []string{"WebFetch(domain:" + h + ")"}
		}
		return nil
	}
	fam := ""
	switch c.access() {
	case AccessRead:
		fam = "Read"
	case AccessEdit:
		fam = "Edit"
	default:
		return []string{c.Tool}
	}
	if len(c.Paths) == 0 {
		return []string{fam}
	}
	var out []string
	for _, path := range c.Paths {
		var rule string
		if within(p.project, path) && path != p.project {
			rel := filepath.ToSlash(strings.TrimPrefix(path, p.project+"/"))
			if top, _, nested := strings.Cut(rel, "/"); nested {
				rule = fam + "(" + escapeGlob(top) + "/**)"
			} else {
				rule = fam + "(/" + escapeGlob(rel) + ")"
			}
		} else {
			rule = fam + "(/" + escapeGlob(filepath.ToSlash(filepath.Dir(path))) + "/**)"
		}
		if !contains(out, rule) {
			out = append(out, rule)
		}
	}
	return out
}

// AllowAlways grants, for the rest of the session, the rules of d (a
// decision for c that asked). For Bash calls the rules are also added to
// the project's .claude/settings.local.json, so they hold in later
// sessions; the grant holds even when that write fails, which is then
// returned as the error.
func (p *Policy) AllowAlways(c Call, d Decision) error {
	if len(d.AlwaysRules) == 0 {
		return fmt.Errorf("this %s call cannot be allowed always (%s); allow it once instead", c.Tool, d.Reason)
	}
	var add []compiledRule
	for _, text := range d.AlwaysRules {
		cr, err := p.grantRule(text)
		if err != nil {
			return fmt.Errorf("allowing %q always: %w", text, err)
		}
		add = append(add, cr)
	}
	p.addSessionRules(add)
	if c.Tool != "Bash" {
		return nil
	}
	var errs []error
	for _, text := range d.AlwaysRules {
		if err := p.persist(text); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// SessionRules returns the rules granted with AllowAlways (or Grant) in
// this session, in the order they were granted, so the session can save
// them.
func (p *Policy) SessionRules() []string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]string, len(p.session))
	for i, r := range p.session {
		out[i] = r.String()
	}
	return out
}

// Grant adds rules for the rest of the session, as AllowAlways does but
// without writing them to any settings file: the grants of a session
// being restored. A rule that does not parse is skipped and reported.
func (p *Policy) Grant(rules []string) error {
	var errs []error
	var add []compiledRule
	for _, text := range rules {
		cr, err := p.grantRule(text)
		if err != nil {
			errs = append(errs, fmt.Errorf("restoring the grant %q: %w", text, err))
			continue
		}
		add = append(add, cr)
	}
	p.addSessionRules(add)
	return errors.Join(errs...)
}

// grantRule compiles a rule granted for the session.
func (p *Policy) grantRule(text string) (compiledRule, error) {
	r, err := ParseRule(text)
	if err != nil {
		return compiledRule{}, err
	}
	cr := compiledRule{Rule: r, where: "granted in this session"}
	if r.kind == kindPath {
		cr.glob = pathGlob(r.Content, p.project, p.home)
	}
	return cr, nil
}

// addSessionRules adds granted rules the session does not hold yet.
func (p *Policy) addSessionRules(add []compiledRule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cr := range add {
		if !containsRule(p.session, cr.String()) {
			p.session = append(p.session, cr)
		}
	}
}

func containsRule(rules []compiledRule, text string) bool {
	for _, r := range rules {
		if r.String() == text {
			return true
		}
	}
	return false
}

// Invalid returns the rules of the current settings that did not parse.
// Each is also reported by settings.Load when Options.CheckRule is
// CheckRule.
func (p *Policy) Invalid() []settings.Rule {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return append([]settings.Rule(nil), p.invalid...)
}
