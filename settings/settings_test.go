package settings

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fixture is a project and a home directory with settings files.
type fixture struct {
	project, home, managed string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{
		project: filepath.Join(root, "project"),
		home:    filepath.Join(root, "home"),
		managed: filepath.Join(root, "etc", "managed-settings.json"),
	}
	for _, d := range []string{f.project, f.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *fixture) opts() Options {
	return Options{Project: f.project, Home: f.home, ManagedPath: f.managed, TrustProject: true}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func texts(rules []Rule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.Text)
	}
	return out
}

func TestMergePriority(t *testing.T) {
	f := newFixture(t)
	write(t, f.managed, `{"model": "managed-model", "permissions": {"deny": ["Bash(curl:*)"]}}`)
	write(t, LocalPath(f.project), `{"model": "local-model", "provider": "openai", "env": {"A": "local"},
		"permissions": {"allow": ["Bash(npm test:*)"], "defaultMode": "acceptEdits"}}`)
	write(t, projectPath(f.project), `{"model": "project-model", "baseURL": "http://x", "env": {"A": "project", "B": "project"},
		"permissions": {"allow": ["Read", "Bash(npm test:*)"], "ask": ["Bash(git push:*)"], "defaultMode": "plan",
		"additionalDirectories": ["../shared", "~/notes"]},
		"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo project"}]}]},
		"enabledMcpjsonServers": ["db"]}`)
	write(t, userPath(f.home), `{"model": "user-model", "apiKeyHelper": "pass key", "env": {"C": "user"},
		"permissions": {"allow": ["Edit(src/**)"]},
		"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "echo user", "timeout": 5}]}]},
		"sandbox": {"enabled": true, "network": {"allowedDomains": ["*"]}}, "disabledMcpjsonServers": ["web"],
		"enableAllProjectMcpServers": true}`)
	opts := f.opts()
	opts.InitializationOptions = json.RawMessage(`{"model": "init-model", "maxTurns": 12}`)

	s, problems := Load(opts)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	if s.Model != "managed-model" {
		t.Errorf("Model = %q, want the managed policy's", s.Model)
	}
	opts.ManagedPath = ""
	s, _ = Load(opts)
	if s.Model != "init-model" {
		t.Errorf("Model = %q, want initializationOptions'", s.Model)
	}
	opts.InitializationOptions = nil
	s, _ = Load(opts)
	checks := []struct {
		name      string
		got, want any
	}{
		{"Model", s.Model, "local-model"},
		{"Provider", s.Provider, "openai"},
		{"BaseURL", s.BaseURL, "http://x"},
		{"APIKeyHelper", s.APIKeyHelper, "pass key"},
		{"Env", s.Env, map[string]string{"A": "local", "B": "project", "C": "user"}},
		{"Allow", texts(s.Permissions.Allow), []string{"Bash(npm test:*)", "Read", "Edit(src/**)"}},
		{"Ask", texts(s.Permissions.Ask), []string{"Bash(git push:*)"}},
		{"DefaultMode", s.Permissions.DefaultMode, "acceptEdits"},
		{"AdditionalDirectories", s.Permissions.AdditionalDirectories,
			[]string{filepath.Join(filepath.Dir(f.project), "shared"), filepath.Join(f.home, "notes")}},
		{"hooks", len(s.Hooks["PreToolUse"]), 2},
		{"first hook", s.Hooks["PreToolUse"][0].Hooks[0].Command, "echo project"},
		{"timeout", s.Hooks["PreToolUse"][1].Hooks[0].Timeout, 5.0},
		{"sandbox", s.Sandbox.Enabled, true},
		{"domains", s.Sandbox.Network.AllowedDomains, []string{"*"}},
		{"enabled mcp", s.EnabledMcpjsonServers, []string{"db"}},
		{"disabled mcp", s.DisabledMcpjsonServers, []string{"web"}},
		{"enable all", s.EnableAllProjectMcpServers, true},
		{"files", s.Files, []string{LocalPath(f.project), projectPath(f.project), userPath(f.home)}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
	if p := s.Permissions.Allow[0].Pos; p.File != LocalPath(f.project) || p.Line != 2 {
		t.Errorf("position of first allow rule = %v, want line 2 of the local file", p)
	}
}

func TestInvalidJSONReportedAndRestLoads(t *testing.T) {
	f := newFixture(t)
	write(t, projectPath(f.project), "{\n  \"permissions\": {\n    \"allow\": [\"Read\",]\n  }\n}\n")
	write(t, userPath(f.home), `{"permissions": {"deny": ["Bash(rm:*)"]}, "model": "m"}`)
	s, problems := Load(f.opts())
	if len(problems) != 1 {
		t.Fatalf("problems = %v, want one", problems)
	}
	p := problems[0]
	if p.File != projectPath(f.project) || p.Line != 3 || p.Column == 0 || !strings.Contains(p.Message, "invalid JSON") {
		t.Errorf("problem = %+v, want invalid JSON at line 3 of the project file", p)
	}
	if got := texts(s.Permissions.Deny); !reflect.DeepEqual(got, []string{"Bash(rm:*)"}) || s.Model != "m" {
		t.Errorf("user layer not loaded: deny=%v model=%q", got, s.Model)
	}
	if len(s.Permissions.Allow) != 0 {
		t.Errorf("allow = %v, want nothing from the broken file", s.Permissions.Allow)
	}
}

func TestTypeErrorsAndRuleCheck(t *testing.T) {
	f := newFixture(t)
	write(t, projectPath(f.project), `{
  "model": 3,
  "permissions": {
    "allow": ["Read", "Bad(", 7],
    "deny": "Bash",
    "defaultMode": "yolo"
  },
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "command": "x"}]}], "Nope": []},
  "baseURL": "http://ok"
}`)
	opts := f.opts()
	opts.CheckRule = func(r string) error {
		if strings.HasSuffix(r, "(") {
			return errors.New("unbalanced parenthesis")
		}
		return nil
	}
	s, problems := Load(opts)
	want := map[string]int{ // message fragment -> line
		"model: expected string":     2,
		"unbalanced parenthesis":     4,
		"permissions.allow[2]":       4,
		"permissions.deny: expected": 5,
		"unknown mode \"yolo\"":      6,
		"prompt hook has no prompt":  8,
		"no Nope event":              8,
	}
	for frag, line := range want {
		found := false
		for _, p := range problems {
			if strings.Contains(p.Message, frag) {
				found = true
				if p.Line != line {
					t.Errorf("%q reported at line %d, want %d", frag, p.Line, line)
				}
			}
		}
		if !found {
			t.Errorf("no problem mentions %q; problems:\n%v", frag, problems)
		}
	}
	if s.BaseURL != "http://ok" {
		t.Errorf("BaseURL = %q: a type error elsewhere dropped a valid key", s.BaseURL)
	}
	if got := texts(s.Permissions.Allow); !reflect.DeepEqual(got, []string{"Read", "Bad("}) {
		t.Errorf("allow = %v: rules that fail CheckRule must be kept for the policy to handle", got)
	}
	if s.Permissions.DefaultMode != "" {
		t.Errorf("DefaultMode = %q, want an unknown mode dropped", s.Permissions.DefaultMode)
	}
}

func TestProjectCannotEnableBypass(t *testing.T) {
	f := newFixture(t)
	write(t, projectPath(f.project), `{"permissions": {"defaultMode": "bypassPermissions"}}`)
	s, problems := Load(f.opts())
	if s.Permissions.DefaultMode != "" || len(problems) != 1 {
		t.Errorf("mode %q, problems %v: the shared project file must not switch checks off", s.Permissions.DefaultMode, problems)
	}
	write(t, LocalPath(f.project), `{"permissions": {"defaultMode": "bypassPermissions", "disableBypassPermissionsMode": "disable"}}`)
	s, _ = Load(f.opts())
	if s.Permissions.DefaultMode != "bypassPermissions" || !s.Permissions.DisableBypassPermissions {
		t.Errorf("local file: mode %q disable=%v", s.Permissions.DefaultMode, s.Permissions.DisableBypassPermissions)
	}
}

func TestSandboxFallbackSetting(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		s    Sandbox
		want bool
	}{
		{Sandbox{}, false},
		{Sandbox{FailIfUnavailable: &yes}, false},
		{Sandbox{FailIfUnavailable: &no}, true},
		{Sandbox{AllowUnsandboxedCommands: &yes}, true},
		{Sandbox{AllowUnsandboxedCommands: &no}, false},
	}
	for _, c := range cases {
		if got := c.s.MayRunUnsandboxed(); got != c.want {
			t.Errorf("%+v: MayRunUnsandboxed = %v, want %v", c.s, got, c.want)
		}
	}
}

func TestAddLocalRule(t *testing.T) {
	f := newFixture(t)
	if err := AddLocalRule(f.project, "allow", "Bash(npm test:*)"); err != nil {
		t.Fatal(err)
	}
	s, problems := Load(f.opts())
	if len(problems) != 0 || !reflect.DeepEqual(texts(s.Permissions.Allow), []string{"Bash(npm test:*)"}) {
		t.Fatalf("after creating: allow=%v problems=%v", s.Permissions.Allow, problems)
	}

	write(t, LocalPath(f.project), `{"zeta": 1, "permissions": {"deny": ["Bash(rm:*)"], "allow": ["Read"]}, "alpha": {"keep": [1, 2]}}`)
	for range 2 {
		if err := AddLocalRule(f.project, "allow", `Bash(echo "hi":*)`); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(LocalPath(f.project))
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, data)
	}
	want := map[string]any{
		"zeta":        1.0,
		"alpha":       map[string]any{"keep": []any{1.0, 2.0}},
		"permissions": map[string]any{"deny": []any{"Bash(rm:*)"}, "allow": []any{"Read", `Bash(echo "hi":*)`}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("file = %s", data)
	}
	if z, a := strings.Index(string(data), "zeta"), strings.Index(string(data), "alpha"); z > a {
		t.Errorf("key order not kept:\n%s", data)
	}

	write(t, LocalPath(f.project), `{"permissions": `)
	if err := AddLocalRule(f.project, "allow", "Read"); err == nil {
		t.Error("AddLocalRule on a broken file succeeded")
	}
	if data, _ := os.ReadFile(LocalPath(f.project)); string(data) != `{"permissions": ` {
		t.Errorf("broken file was changed to %q", data)
	}
}

func TestWatcher(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type update struct {
		s        *Settings
		problems []Problem
	}
	updates := make(chan update, 16)
	w, initial, _, err := Watch(ctx, f.opts(), func(s *Settings, p []Problem) { updates <- update{s, p} })
	if err != nil {
		t.Fatal(err)
	}
	if initial.Model != "" {
		t.Fatalf("initial model %q", initial.Model)
	}
	// until returns the first reload that satisfies done: the watcher
	// may also see a file half-written (created empty, then filled),
	// and reload for that first.
	until := func(what string, done func(update) bool) update {
		t.Helper()
		deadline := time.After(5 * time.Second)
		var last update
		for {
			select {
			case u := <-updates:
				if done(u) {
					return u
				}
				last = u
			case <-deadline:
				if last.s == nil {
					t.Fatalf("no reload after %s", what)
				}
				t.Fatalf("after %s, the last reload had model %q, problems %v", what, last.s.Model, last.problems)
				return update{}
			}
		}
	}
	model := func(m string) func(update) bool {
		return func(u update) bool { return u.s.Model == m }
	}

	// .claude/ does not exist yet: creating it and the file is noticed.
	write(t, projectPath(f.project), `{"model": "one", "permissions": {"deny": ["Bash(rm:*)"]}}`)
	until("creating .claude/settings.json", model("one"))

	// Editors save by writing a temporary file and renaming it.
	tmp := filepath.Join(f.project, ".claude", ".settings.json.swp")
	write(t, tmp, `{"model": "two", "permissions": {"deny": ["Bash(rm:*)"]}}`)
	if err := os.Rename(tmp, projectPath(f.project)); err != nil {
		t.Fatal(err)
	}
	until("rename over the file", model("two"))

	// A half-written file keeps the last valid version and reports why.
	write(t, projectPath(f.project), `{"model": "three", "permissions": {"deny": [`)
	u := until("breaking the file", func(u update) bool { return len(u.problems) > 0 })
	if u.s.Model != "two" || len(u.s.Permissions.Deny) != 1 {
		t.Errorf("broken file: model %q deny %v, want the previous version kept", u.s.Model, u.s.Permissions.Deny)
	}
	if len(u.problems) != 1 || !strings.Contains(u.problems[0].Message, "keeping the previous version") {
		t.Errorf("problems = %v", u.problems)
	}

	// The user file, in another directory.
	write(t, userPath(f.home), `{"env": {"X": "1"}}`)
	until("user file", func(u update) bool { return u.s.Env["X"] == "1" })

	cancel()
	select {
	case <-w.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("watcher did not stop when its context ended")
	}
}

func TestNoUserLeavesOutTheUserFile(t *testing.T) {
	f := newFixture(t)
	write(t, userPath(f.home), `{"model": "from-user", "permissions": {"allow": ["Bash(make:*)"]}}`)
	for _, tc := range []struct {
		noUser    bool
		wantModel string
		wantFiles int
	}{
		{noUser: false, wantModel: "from-user", wantFiles: 1},
		{noUser: true, wantModel: "", wantFiles: 0},
	} {
		opts := f.opts()
		opts.NoUser = tc.noUser
		s, problems := Load(opts)
		if len(problems) > 0 {
			t.Fatalf("NoUser=%v: problems %v", tc.noUser, problems)
		}
		if s.Model != tc.wantModel || len(s.Files) != tc.wantFiles {
			t.Errorf("NoUser=%v: model %q from %v, want %q from %d files", tc.noUser, s.Model, s.Files, tc.wantModel, tc.wantFiles)
		}
	}
}

func TestPositionIndex(t *testing.T) {
	data := []byte("{\n  \"a\": [1, {\"b\": \"é\"}],\n  \"c\": \"x\"\n}")
	idx := indexValues(data)
	for path, want := range map[string][2]int{
		"a":      {2, 8},
		"a[1]":   {2, 12},
		"a[1].b": {2, 18},
		"c":      {3, 8},
	} {
		off, ok := idx[path]
		if !ok {
			t.Errorf("%s not indexed", path)
			continue
		}
		if l, c := lineCol(data, off); l != want[0] || c != want[1] {
			t.Errorf("%s at %d:%d, want %d:%d", path, l, c, want[0], want[1])
		}
	}
}
