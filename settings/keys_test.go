package settings

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestKnownKeysCoverSchema checks that every key of Claude Code's
// settings schema (SchemaStore's claude-code-settings.json, as of
// SchemaVersion) is known: honoured, or listed with a reason.
func TestKnownKeysCoverSchema(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "claude-code-settings.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	type node struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	var schema node
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	n := 0
	var check func(path string, props map[string]json.RawMessage, known map[string]string)
	check = func(path string, props map[string]json.RawMessage, known map[string]string) {
		for key, raw := range props {
			n++
			if _, ok := known[key]; !ok {
				t.Errorf("%s%s is in Claude Code's schema but not in agent-lsp's known keys", path, key)
			}
			if sub, ok := knownNested[path+key]; ok {
				var child node
				json.Unmarshal(raw, &child)
				check(path+key+".", child.Properties, sub)
			}
		}
	}
	check("", schema.Properties, knownKeys)
	if n < 180 {
		t.Errorf("checked %d keys; the schema has about 190", n)
	}
	for _, k := range managedOnlyKeys {
		if r, ok := knownKeys[k]; !ok || r != "" {
			t.Errorf("managed-only key %s is not honoured", k)
		}
	}
}

// TestAllKeysFile loads a settings file that uses every key of Claude
// Code's schema, in every layer: no problem at all, and the keys without
// effect are listed with their reasons.
func TestAllKeysFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "claude-code-all-keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	write(t, userPath(f.home), string(data))
	write(t, projectPath(f.project), string(data))
	write(t, f.managed, string(data))
	s, problems := Load(f.opts())
	for _, p := range problems {
		// Claude Code too reads autoMemoryDirectory from the user's and
		// managed settings only: a project naming it is warned about.
		if strings.Contains(fmt.Sprint(p), "autoMemoryDirectory is read from the user's and the managed settings only") && strings.Contains(fmt.Sprint(p), projectPath(f.project)) {
			continue
		}
		t.Errorf("problem: %v", p)
	}
	var keys []string
	for _, i := range s.Inert {
		if i.Reason == "" || i.Pos.Line == 0 {
			t.Errorf("inert key without reason or position: %+v", i)
		}
		if i.Pos.File == userPath(f.home) {
			keys = append(keys, i.Key)
		}
	}
	for _, want := range []string{"statusLine", "enabledPlugins", "sandbox.excludedCommands", "sandbox.network.httpProxyPort", "permissions.disableAutoMode", "attribution.sessionUrl"} {
		if !slices.Contains(keys, want) {
			t.Errorf("inert keys of the user file miss %s: %v", want, keys)
		}
	}
	for _, honoured := range []string{"cleanupPeriodDays", "hooks", "sandbox.enabled", "attribution.commit"} {
		if slices.Contains(keys, honoured) {
			t.Errorf("%s is honoured but listed as inert", honoured)
		}
	}
	if s.FallbackModel != "sonnet" || s.CleanupPeriodDays != 20 {
		t.Errorf("fallbackModel %q, cleanupPeriodDays %d", s.FallbackModel, s.CleanupPeriodDays)
	}
}

// TestUnknownKeys checks the warnings about keys Claude Code does not
// have: one per key and file, where the key is, with the key it likely
// misspells; nested keys of the objects agent-lsp reads too.
func TestUnknownKeys(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string // messages, in order
	}{
		{
			name: "typo",
			file: `{"cleanupPeriodDay": 3}`,
			want: []string{`1:22: unknown setting "cleanupPeriodDay": Claude Code 2.1.332 does not have it, and it has no effect (did you mean "cleanupPeriodDays"?)`},
		},
		{
			name: "case",
			file: `{"IncludeCoAuthoredBy": false}`,
			want: []string{`(did you mean "includeCoAuthoredBy"?)`},
		},
		{
			name: "future key, nothing near",
			file: `{"quantumEntanglement": true}`,
			want: []string{`unknown setting "quantumEntanglement": Claude Code 2.1.332 does not have it, and it has no effect`},
		},
		{
			name: "nested",
			file: "{\n  \"permissions\": {\"alow\": [\"Read\"]},\n  \"sandbox\": {\"network\": {\"allowedDomain\": [\"x.com\"]}}\n}",
			want: []string{
				`2:27: unknown setting "permissions.alow": Claude Code 2.1.332 does not have it, and it has no effect (did you mean "permissions.allow"?)`,
				`3:44: unknown setting "sandbox.network.allowedDomain"`,
			},
		},
		{
			name: "managed-only key elsewhere",
			file: `{"allowManagedHooksOnly": true}`,
			want: []string{"allowManagedHooksOnly takes effect in managed settings only"},
		},
		{
			name: "all valid",
			file: `{"includeCoAuthoredBy": false, "respectGitignore": false, "permissions": {"defaultMode": "manual"}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			write(t, projectPath(f.project), tc.file)
			_, problems := Load(f.opts())
			if len(problems) != len(tc.want) {
				t.Fatalf("problems %v, want %d", problems, len(tc.want))
			}
			for i, p := range problems {
				if !p.Warning || p.File != projectPath(f.project) || !strings.Contains(p.String(), tc.want[i]) {
					t.Errorf("problem %d = %v (warning %v), want a warning containing %q", i, p, p.Warning, tc.want[i])
				}
			}
		})
	}
}

// TestHonouredKeys checks each key that changes agent-lsp's behaviour,
// and how the layers combine for it.
func TestHonouredKeys(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name            string
		managed, user   string
		project         string
		untrusted       bool
		check           func(*Settings) any
		want            any
		problemContains string
	}{
		{name: "cleanup default", check: func(s *Settings) any { return s.CleanupPeriodDays }, want: 30},
		{name: "cleanup set", user: `{"cleanupPeriodDays": 7}`, project: `{"cleanupPeriodDays": 60}`, check: func(s *Settings) any { return s.CleanupPeriodDays }, want: 60},
		{name: "cleanup zero refused", user: `{"cleanupPeriodDays": 0}`, check: func(s *Settings) any { return s.CleanupPeriodDays }, want: 30, problemContains: "cleanupPeriodDays: 0 is not allowed"},
		{name: "cleanup from an untrusted project held back", user: `{"cleanupPeriodDays": 7}`, project: `{"cleanupPeriodDays": 1}`, untrusted: true, check: func(s *Settings) any { return s.CleanupPeriodDays }, want: 7},
		{name: "attribution default", check: func(s *Settings) any { return []*string{s.CommitAttribution, s.PRAttribution} }, want: []*string{nil, nil}},
		{name: "includeCoAuthoredBy false", user: `{"includeCoAuthoredBy": false}`, check: func(s *Settings) any { return []*string{s.CommitAttribution, s.PRAttribution} }, want: []*string{str(""), str("")}},
		{name: "attribution beats includeCoAuthoredBy", user: `{"includeCoAuthoredBy": false}`, project: `{"attribution": {"commit": "Reviewed-by: a bot"}}`, check: func(s *Settings) any { return []*string{s.CommitAttribution, s.PRAttribution} }, want: []*string{str("Reviewed-by: a bot"), str("")}},
		{name: "attribution empty hides it", user: `{"attribution": {"commit": "", "pr": ""}}`, check: func(s *Settings) any { return []*string{s.CommitAttribution, s.PRAttribution} }, want: []*string{str(""), str("")}},
		{name: "respectGitignore default", check: func(s *Settings) any { return s.IncludeIgnored }, want: false},
		{name: "respectGitignore false", user: `{"respectGitignore": false}`, check: func(s *Settings) any { return s.IncludeIgnored }, want: true},
		{name: "respectGitignore project beats user", user: `{"respectGitignore": false}`, project: `{"respectGitignore": true}`, check: func(s *Settings) any { return s.IncludeIgnored }, want: false},
		{name: "autoCompactEnabled false", user: `{"autoCompactEnabled": false}`, check: func(s *Settings) any { return s.NoAutoCompact }, want: true},
		{name: "autoCompactEnabled default", check: func(s *Settings) any { return s.NoAutoCompact }, want: false},
		{name: "includeGitInstructions false", project: `{"includeGitInstructions": false}`, check: func(s *Settings) any { return s.NoGitInstructions }, want: true},
		{name: "language", user: `{"language": "japanese"}`, check: func(s *Settings) any { return s.Language }, want: "japanese"},
		{name: "language from an untrusted project held back", project: `{"language": "pirate"}`, untrusted: true, check: func(s *Settings) any { return s.Language }, want: ""},
		{name: "defaultMode manual is default", user: `{"permissions": {"defaultMode": "manual"}}`, check: func(s *Settings) any { return s.Permissions.DefaultMode }, want: "default"},
		{
			name:    "managed hooks only",
			managed: `{"allowManagedHooksOnly": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "managed"}]}]}}`,
			user:    `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "user"}]}]}}`,
			project: `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "project"}]}]}}`,
			check: func(s *Settings) any {
				var cmds []string
				for _, ms := range s.Hooks {
					for _, m := range ms {
						for _, h := range m.Hooks {
							cmds = append(cmds, h.Command)
						}
					}
				}
				return []any{s.ManagedHooksOnly, cmds}
			},
			want: []any{true, []string{"managed"}},
		},
		{
			name:    "hooks of every layer without the switch",
			managed: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "managed"}]}]}}`,
			user:    `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "user"}]}]}}`,
			check:   func(s *Settings) any { return len(s.Hooks["Stop"]) },
			want:    2,
		},
		{
			name:    "managed permission rules only",
			managed: `{"allowManagedPermissionRulesOnly": true, "permissions": {"deny": ["Bash(curl:*)"], "allow": ["Read"]}}`,
			user:    `{"permissions": {"allow": ["Bash"], "deny": ["Edit"], "ask": ["Write"]}}`,
			project: `{"permissions": {"allow": ["WebFetch"]}}`,
			check: func(s *Settings) any {
				return [][]string{texts(s.Permissions.Allow), texts(s.Permissions.Deny), texts(s.Permissions.Ask)}
			},
			want: [][]string{{"Read"}, {"Bash(curl:*)"}, nil},
		},
		{
			name: "managed switches are ignored outside managed settings",
			user: `{"allowManagedPermissionRulesOnly": true, "allowManagedMcpServersOnly": true, "permissions": {"allow": ["Bash"]}}`,
			check: func(s *Settings) any {
				return []any{s.ManagedPermissionRulesOnly, s.AllowManagedMcpServersOnly, texts(s.Permissions.Allow)}
			},
			want:            []any{false, false, []string{"Bash"}},
			problemContains: "takes effect in managed settings only",
		},
		{
			name:    "managed MCP servers only",
			managed: `{"allowManagedMcpServersOnly": true}`,
			check:   func(s *Settings) any { return s.AllowManagedMcpServersOnly },
			want:    true,
		},
		{name: "fallbackModel chain", user: `{"fallbackModel": ["opus", "sonnet"]}`, check: func(s *Settings) any { return s.FallbackModel }, want: "opus"},
		{name: "fallbackModel string", user: `{"fallbackModel": "haiku"}`, check: func(s *Settings) any { return s.FallbackModel }, want: "haiku"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for path, text := range map[string]string{f.managed: tc.managed, userPath(f.home): tc.user, projectPath(f.project): tc.project} {
				if text != "" {
					write(t, path, text)
				}
			}
			opts := f.opts()
			opts.TrustProject = !tc.untrusted
			s, problems := Load(opts)
			if got := tc.check(s); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %s, want %s", show(got), show(tc.want))
			}
			var msgs []string
			for _, p := range problems {
				msgs = append(msgs, p.String())
			}
			all := strings.Join(msgs, "\n")
			if tc.problemContains == "" && len(problems) > 0 {
				t.Errorf("problems: %s", all)
			}
			if tc.problemContains != "" && !strings.Contains(all, tc.problemContains) {
				t.Errorf("problems %q do not say %q", all, tc.problemContains)
			}
		})
	}
}

// show prints values holding pointers to strings readably.
func show(v any) string {
	if ps, ok := v.([]*string); ok {
		var out []string
		for _, p := range ps {
			if p == nil {
				out = append(out, "nil")
			} else {
				out = append(out, "\""+*p+"\"")
			}
		}
		return "[" + strings.Join(out, " ") + "]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestManagedPaths checks where managed settings are looked for on each
// system, and that the drop-in files of managed-settings.d merge in file
// name order above the managed file, hidden files and other names left
// out.
func TestManagedPaths(t *testing.T) {
	for goos, want := range map[string]string{
		"darwin":  "/Library/Application Support/ClaudeCode/managed-settings.json",
		"windows": `C:\Program Files\ClaudeCode\managed-settings.json`,
		"linux":   "/etc/claude-code/managed-settings.json",
		"freebsd": "/etc/claude-code/managed-settings.json",
	} {
		if got := ManagedPathFor(goos); got != want {
			t.Errorf("ManagedPathFor(%s) = %q, want %q", goos, got, want)
		}
	}

	f := newFixture(t)
	dropIns := filepath.Join(filepath.Dir(f.managed), "managed-settings.d")
	write(t, f.managed, `{"model": "base", "effortLevel": "low", "permissions": {"deny": ["Bash(curl:*)"]}}`)
	write(t, filepath.Join(dropIns, "10-security.json"), `{"model": "ten", "permissions": {"deny": ["WebFetch"]}}`)
	write(t, filepath.Join(dropIns, "20-model.json"), `{"model": "twenty"}`)
	write(t, filepath.Join(dropIns, ".hidden.json"), `{"model": "hidden"}`)
	write(t, filepath.Join(dropIns, "notes.txt"), `{"model": "text"}`)
	write(t, userPath(f.home), `{"model": "user", "effortLevel": "high"}`)
	s, problems := Load(f.opts())
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	if s.Model != "twenty" || s.EffortLevel != "low" {
		t.Errorf("model %q effort %q, want twenty (the last drop-in) and low (the managed file)", s.Model, s.EffortLevel)
	}
	if got, want := texts(s.Permissions.Deny), []string{"WebFetch", "Bash(curl:*)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("deny %v, want %v", got, want)
	}
	if len(s.Files) != 4 || s.Files[0] != filepath.Join(dropIns, "20-model.json") {
		t.Errorf("files %v", s.Files)
	}

	// A drop-in written later is picked up by the watcher.
	ctx, cancel := context.WithCancel(context.Background())
	models := make(chan string, 64)
	w, _, _, err := Watch(ctx, f.opts(), func(s *Settings, _ []Problem) {
		select {
		case models <- s.Model:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); <-w.Done() }()
	write(t, filepath.Join(dropIns, "30-late.json"), `{"model": "thirty"}`)
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-models:
			if m == "thirty" {
				return
			}
		case <-timeout:
			t.Fatal("the new drop-in file was not loaded")
		}
	}
}
