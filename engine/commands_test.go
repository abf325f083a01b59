package engine

import (
	"slices"
	"testing"
)

func TestSplitMeta(t *testing.T) {
	tests := []struct {
		name, text, body string
		get              map[string]string
		tools            []string
	}{
		{
			name:  "Claude Code command",
			text:  "---\ndescription: \"Review: a PR\"\nargument-hint: [pr-number]\nallowed-tools: Bash(git diff:*), Bash(git log:*), Read\nmodel: claude-haiku-4-5\n---\n\nReview PR $1.\n",
			body:  "Review PR $1.\n",
			get:   map[string]string{"description": "Review: a PR", "model": "claude-haiku-4-5", "argument-hint": "[pr-number]"},
			tools: []string{"Bash(git diff:*)", "Bash(git log:*)", "Read"},
		},
		{
			name:  "inline list",
			text:  "---\nallowed-tools: [Read, \"Bash(ls:*)\"]\n---\n",
			body:  "",
			get:   map[string]string{},
			tools: []string{"Read", "Bash(ls:*)"},
		},
		{
			name:  "list items",
			text:  "---\nname: deploy\nallowed-tools:\n  - Read\n  - Grep\n---\nBody",
			body:  "Body",
			get:   map[string]string{"name": "deploy"},
			tools: []string{"Read", "Grep"},
		},
		{name: "no frontmatter", text: "Just a prompt\n", body: "Just a prompt\n", get: map[string]string{"description": ""}},
		{name: "unclosed", text: "---\ndescription: x\nbody", body: "---\ndescription: x\nbody", get: map[string]string{"description": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta, body := splitMeta(tt.text)
			if body != tt.body {
				t.Errorf("body = %q, want %q", body, tt.body)
			}
			for k, want := range tt.get {
				if got := meta.get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			if got := meta.list("allowed-tools"); !slices.Equal(got, tt.tools) {
				t.Errorf("allowed-tools = %q, want %q", got, tt.tools)
			}
		})
	}
}

func TestSubstituteArgs(t *testing.T) {
	tests := []struct{ body, args, want string }{
		{"Fix issue #$ARGUMENTS now", "123", "Fix issue #123 now"},
		{"Review PR #$1 with priority $2 ($3)", `456 "very high"`, "Review PR #456 with priority very high ()"},
		{"No placeholders", "extra words", "No placeholders\n\nARGUMENTS: extra words"},
		{"No placeholders", "", "No placeholders"},
		{"Cost is $5 and $ARGUMENTS", "a", "Cost is  and a"},
	}
	for _, tt := range tests {
		if got := substituteArgs(tt.body, tt.args); got != tt.want {
			t.Errorf("substituteArgs(%q, %q) = %q, want %q", tt.body, tt.args, got, tt.want)
		}
	}
}

func TestToolNameOf(t *testing.T) {
	for in, want := range map[string]string{"Bash(git status:*)": "Bash", "Read": "Read", " mcp__x__y ": "mcp__x__y"} {
		if got := toolNameOf(in); got != want {
			t.Errorf("toolNameOf(%q) = %q, want %q", in, got, want)
		}
	}
}
