package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectSlug: folder names are Claude Code's (cli.js of
// @anthropic-ai/claude-agent-sdk 0.3.332 and the claude 2.1.332 binary):
// non-alphanumerics become '-', and a name over 200 characters is cut to
// 200 and gets '-' and the base-36 hash of the cwd. The hashes were
// computed with that JavaScript function under node.
func TestProjectSlug(t *testing.T) {
	long := "/tmp/" + strings.Repeat("a", 208)
	odd := "/x/\u00e9\U0001F600" + strings.Repeat("b/", 110)
	for _, tc := range []struct{ cwd, want string }{
		{"/home/dev/proj", "-home-dev-proj"},
		{long, sanitize(long)[:200] + "-ya5eav"},
		{odd, sanitize(odd)[:200] + "-ut6c5g"},
	} {
		if got := projectSlug(tc.cwd); got != tc.want {
			t.Errorf("projectSlug(%.30q…) = %q, want %q", tc.cwd, got, tc.want)
		}
	}
}

// writeClaude writes a one-prompt Claude Code session of cwd under
// claude's projects, in the folder named slug.
func writeClaude(t *testing.T, claude, slug, cwd, id string) string {
	t.Helper()
	path := filepath.Join(claude, "projects", slug, id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"parentUuid":null,"type":"user","message":{"role":"user","content":"hello"},"uuid":"u1","sessionId":"` + id + `","cwd":"` + cwd + `"}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLongAndOddCwds: a Claude Code session of a 213-character cwd is
// listed, loaded and resumed; a 256-character cwd can hold our own
// sessions; a symlinked cwd finds Claude Code's sessions stored under the
// resolved path.
func TestLongAndOddCwds(t *testing.T) {
	base := t.TempDir()
	long := filepath.Join(base, strings.Repeat("d", 213-len(base)-1))
	if len(long) != 213 {
		t.Fatalf("cwd of %d characters", len(long))
	}
	longer := "/" + strings.Repeat("e", 255)
	real := filepath.Join(base, "real")
	link := filepath.Join(base, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cwd, storedCwd, slug string
	}{
		{"213 characters", long, long, sanitize(long)[:200] + "-" + jsHash(long)},
		{"symlink", link, real, sanitize(real)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, claude := newTestStore(t)
			writeClaude(t, claude, tc.slug, tc.storedCwd, "cc1")
			got, _, err := s.List(tc.cwd, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].ID != "cc1" {
				t.Fatalf("List(%s) = %+v, want the Claude Code session", tc.name, got)
			}
			if _, err := s.Load(tc.cwd, "cc1"); err != nil {
				t.Errorf("Load: %v", err)
			}
			l, _, err := s.Resume(tc.cwd, "cc1")
			if err != nil {
				t.Fatalf("Resume: %v", err)
			}
			l.Close()
		})
	}
	t.Run("256 characters", func(t *testing.T) {
		s, _ := newTestStore(t)
		l, err := s.Create(longer, "ours")
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		if err := l.Append(text("user", "hi")); err != nil {
			t.Fatal(err)
		}
		l.Close()
		if n := len(filepath.Base(filepath.Dir(l.Path()))); n > 255 {
			t.Errorf("folder name of %d characters", n)
		}
		got, _, err := s.List(longer, "", 0)
		if err != nil || len(got) != 1 {
			t.Fatalf("List = %+v, %v", got, err)
		}
	})
}

// TestClaudeConfigDir: with no directory given, Claude Code's sessions
// are looked for under $CLAUDE_CONFIG_DIR/projects.
func TestClaudeConfigDir(t *testing.T) {
	conf := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", conf)
	t.Setenv("HOME", t.TempDir())
	writeClaude(t, conf, sanitize("/p"), "/p", "cc2")
	s := NewStore(t.TempDir(), "")
	got, _, err := s.List("/p", "", 0)
	if err != nil || len(got) != 1 || got[0].Source != SourceClaude {
		t.Fatalf("List = %+v, %v; want the session under CLAUDE_CONFIG_DIR", got, err)
	}
}
