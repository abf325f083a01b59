package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
	"github.com/bmatcuk/doublestar/v4"
)

// globHider hides what absolute doublestar patterns match, and what lies
// under a match, as permission.Policy does for deny rules.
type globHider struct {
	globs map[string][]string // tool -> patterns
}

func (h globHider) Hides(tool, p string) bool {
	for _, g := range h.globs[tool] {
		if ok, _ := doublestar.Match(g, p); ok {
			return true
		}
		if ok, _ := doublestar.Match(g+"/**", p); ok {
			return true
		}
	}
	return false
}

func (h globHider) HiddenGlobs(tool string) []string { return h.globs[tool] }

// hideTree holds a secret in several places: each file holding "SECRET"
// is covered by a deny rule of the test below.
var hideTree = map[string]string{
	".env":              "TOKEN=SECRET\n",
	"sub/.env":          "TOKEN=SECRET deep\n",
	"secrets/key.pem":   "SECRET key\n",
	"secrets/more/x.md": "SECRET more\n",
	"a.go":              "package a // TOKEN visible\n",
	"sub/b.go":          "package sub // TOKEN visible\n",
	"notsecrets/y.md":   "TOKEN visible\n",
	"envs/.envrc":       "TOKEN visible\n",
}

func newHideEnv(t *testing.T) *testEnv {
	t.Helper()
	te := newTestEnv(t)
	te.write(t, hideTree)
	// A symlink whose target is hidden, and one to a hidden directory:
	// neither may bring the secret back.
	if err := os.Symlink(te.path(".env"), te.path("link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(te.path("secrets"), te.path("dirlink")); err != nil {
		t.Fatal(err)
	}
	root := strings.ReplaceAll(te.root, "[", `\[`)
	read := []string{root + "/**/.env", root + "/secrets"}
	te.Hide = globHider{globs: map[string][]string{"Grep": read, "Glob": read, "LS": read}}
	return te
}

func TestSearchToolsHideDeniedFiles(t *testing.T) {
	te := newHideEnv(t)
	tests := []struct {
		tool  string
		input obj
		want  []string
	}{
		{"Grep", obj{"pattern": "TOKEN|SECRET"}, []string{"a.go", "sub/b.go", "notsecrets/y.md", "envs/.envrc"}},
		{"Grep", obj{"pattern": "TOKEN|SECRET", "output_mode": "content"}, []string{"a.go:1:package a // TOKEN visible"}},
		{"Grep", obj{"pattern": "SECRET", "output_mode": "count"}, []string{"No matches found"}},
		{"Grep", obj{"pattern": "SECRET", "glob": ".env"}, []string{"No files found"}},
		{"Grep", obj{"pattern": "SECRET", "glob": "**/*.pem", "-i": true}, []string{"No files found"}},
		{"Grep", obj{"pattern": "SECRET", "path": "sub"}, []string{"No files found"}},
		{"Grep", obj{"pattern": "SECRET", "path": "link.txt", "output_mode": "content"}, []string{"No matches found"}},
		{"Grep", obj{"pattern": "SECRET", "path": "dirlink"}, []string{"No files found"}},
		{"Grep", obj{"pattern": "SECRET", "path": "secrets/more"}, []string{"No files found"}},
		{"Glob", obj{"pattern": "**/*"}, []string{"a.go", "sub/b.go", "notsecrets/y.md", "envs/.envrc"}},
		{"Glob", obj{"pattern": "**/.env"}, []string{"No files found"}},
		{"Glob", obj{"pattern": "secrets/**"}, []string{"No files found"}},
		{"Glob", obj{"pattern": "*", "path": "dirlink"}, []string{"No files found"}},
		{"LS", obj{}, []string{"a.go", "sub/", "b.go", "notsecrets/", "envs/", ".envrc"}},
		{"LS", obj{"path": "sub"}, []string{"b.go"}},
	}
	for _, tt := range tests {
		for _, engine := range []string{"ripgrep", "in-process"} {
			if tt.tool != "Grep" && engine == "ripgrep" {
				continue
			}
			t.Run(tt.tool+" "+engine, func(t *testing.T) {
				tool := Find(te.tools, tt.tool)
				if g, ok := tool.(*grepTool); ok {
					g2 := *g
					if engine == "in-process" {
						g2.rg = ""
					} else if g2.rg == "" {
						testenv.NeedTool(t, "rg")
					}
					tool = &g2
				}
				res := tool.Run(context.Background(), rawInput(t, tt.input))
				wantResult(t, res, false)
				for _, w := range tt.want {
					if !strings.Contains(res.Content, w) {
						t.Errorf("%s %v: output lacks %q:\n%s", tt.tool, tt.input, w, res.Content)
					}
				}
				for _, leak := range []string{"SECRET", ".env\n", ".env:", "key.pem", "x.md", "/secrets", "- secrets", "more"} {
					if strings.Contains(res.Content, leak) {
						t.Errorf("%s %v: output shows the hidden %q:\n%s", tt.tool, tt.input, leak, res.Content)
					}
				}
			})
		}
	}
}

// TestGrepEnginesAgreeWithHiddenFiles checks that ripgrep, given the deny
// rules as exclusions, answers as the in-process engine does.
func TestGrepEnginesAgreeWithHiddenFiles(t *testing.T) {
	te := newHideEnv(t)
	for _, in := range []obj{
		{"pattern": "TOKEN|SECRET"},
		{"pattern": "TOKEN|SECRET", "output_mode": "content", "-C": 1},
		{"pattern": "SECRET", "output_mode": "count", "glob": "*"},
		{"pattern": "SECRET", "path": "sub"},
	} {
		grepBoth(t, te, DiskFS{}, in)
	}
}

// TestGrepHidesOpenBuffers checks that a hidden file open in the editor is
// not searched in its buffer either.
func TestGrepHidesOpenBuffers(t *testing.T) {
	te := newHideEnv(t)
	fs := &overlayFS{}
	fs.open(te.path(".env"), "TOKEN=SECRET unsaved\n")
	got := grepBoth(t, te, fs, obj{"pattern": "SECRET", "output_mode": "content"})
	if strings.Contains(got, "SECRET") {
		t.Fatalf("a hidden buffer was searched:\n%s", got)
	}
}

func TestRelativeGlobs(t *testing.T) {
	tests := []struct {
		globs []string
		dir   string
		want  []string
	}{
		{[]string{"/p/**/.env"}, "/p", []string{"/**/.env"}},
		{[]string{"/p/**/.env"}, "/p/sub/deep", []string{"/**/.env"}},
		{[]string{"/p/secrets"}, "/p", []string{"/secrets"}},
		{[]string{"/p/secrets"}, "/p/secrets", nil},          // names the directory itself
		{[]string{"/p/secrets"}, "/p/other", nil},            // elsewhere
		{[]string{"/p/*/x"}, "/p/sub", nil},                  // a wildcard on the way
		{[]string{`/p/a\[1\]/x`}, "/p/a[1]", []string{"/x"}}, // escaped literal
		{[]string{"/p/src/*.key", "/q/x"}, "/p", []string{"/src/*.key"}},
	}
	for _, tt := range tests {
		got := relativeGlobs(tt.globs, filepath.FromSlash(tt.dir))
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("relativeGlobs(%q, %s) = %q, want %q", tt.globs, tt.dir, got, tt.want)
		}
	}
}
