package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-lsp/agent-lsp/providers"
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

// TestParallelToolUseOffTheChain: when the first of parallel calls
// finishes last, Claude Code chains the next turn to its result, so the
// other tool_use line of the response and its result are both off the
// chain (as the real Claude Code 2.1.332 wrote it). Both are found, by
// Load and by Resume.
func TestParallelToolUseOffTheChain(t *testing.T) {
	s, claude := newTestStore(t)
	const cwd, id = "/home/dev/off", "offchain"
	line := func(typ, uuid, parent, msgID, content string) string {
		p := `null`
		if parent != "" {
			p = `"` + parent + `"`
		}
		msg := `{"role":"` + typ + `","content":` + content + `}`
		if msgID != "" {
			msg = `{"id":"` + msgID + `","role":"` + typ + `","content":` + content + `}`
		}
		return `{"parentUuid":` + p + `,"type":"` + typ + `","message":` + msg + `,"uuid":"` + uuid + `","sessionId":"` + id + `","cwd":"` + cwd + `"}`
	}
	attachment := func(uuid, parent string) string {
		return `{"parentUuid":"` + parent + `","type":"attachment","attachment":{"type":"date"},"uuid":"` + uuid + `","sessionId":"` + id + `"}`
	}
	use := func(tid string) string { return `[{"type":"tool_use","id":"` + tid + `","name":"Read","input":{}}]` }
	result := func(tid string) string {
		return `[{"type":"tool_result","tool_use_id":"` + tid + `","content":"r-` + tid + `"}]`
	}
	lines := []string{
		line("user", "u1", "", "", `"read both"`),
		attachment("at1", "u1"),
		line("assistant", "a0", "at1", "m1", `[{"type":"text","text":"Reading."}]`),
		line("assistant", "a1", "a0", "m1", use("t1")),
		line("assistant", "a2", "a1", "m1", use("t2")),
		line("user", "r2", "a2", "", result("t2")),
		line("user", "r1", "a1", "", result("t1")),
		attachment("at2", "r1"),
		line("assistant", "f", "at2", "m2", `[{"type":"text","text":"both read"}]`),
	}
	path := filepath.Join(claude, "projects", sanitize(cwd), id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	full, err := s.Load(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	l, live, err := s.Resume(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	for name, h := range map[string]*History{"Load": full, "Resume": live} {
		var got []string
		for _, m := range h.Messages {
			var blocks []string
			for _, b := range m.Content {
				blocks = append(blocks, string(b.Type)+":"+b.ID+b.ToolUseID+b.Text)
			}
			got = append(got, string(m.Role)+"["+strings.Join(blocks, " ")+"]")
		}
		want := "user[text:read both] assistant[text:Reading. tool_use:t1 tool_use:t2] user[tool_result:t1 tool_result:t2] assistant[text:both read]"
		if strings.Join(got, " ") != want {
			t.Errorf("%s:\n got %s\nwant %s", name, strings.Join(got, " "), want)
		}
	}
}

// TestClaudeCompaction: after a compaction Claude Code keeps some
// messages verbatim (compactMetadata.preservedMessages, written before
// the boundary): Resume puts them after the summary, and what followed
// chains after them. isMeta lines go to the model (Resume) but are not
// shown (Load).
func TestClaudeCompaction(t *testing.T) {
	s, claude := newTestStore(t)
	const cwd, id = "/home/dev/compact", "compacted"
	msg := func(typ, uuid, parent, extra, content string) string {
		p := `null`
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"parentUuid":` + p + `,"type":"` + typ + `",` + extra + `"message":{"role":"` + typ + `","content":"` + content + `"},"uuid":"` + uuid + `","sessionId":"` + id + `","cwd":"` + cwd + `"}`
	}
	lines := []string{
		msg("user", "u1", "", "", "first"),
		msg("assistant", "a1", "u1", "", "one"),
		msg("user", "u2", "a1", "", "second"),
		msg("assistant", "a2", "u2", "", "two"),
		`{"parentUuid":null,"logicalParentUuid":"a2","type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"manual","preTokens":10,"preservedMessages":{"anchorUuid":"s1","uuids":["u2","a2"]}},"uuid":"b1","sessionId":"` + id + `"}`,
		msg("user", "s1", "b1", `"isCompactSummary":true,"isVisibleInTranscriptOnly":true,`, "This session is being continued from a previous conversation. Summary: first, one."),
		msg("user", "m1", "a2", `"isMeta":true,`, "<local-command-stdout>ok</local-command-stdout>"),
		msg("user", "u3", "m1", "", "third"),
		msg("assistant", "a3", "u3", "", "three"),
	}
	path := filepath.Join(claude, "projects", sanitize(cwd), id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	texts := func(h *History) string {
		var out []string
		for _, m := range h.Messages {
			out = append(out, m.Text())
		}
		return strings.Join(out, " | ")
	}
	l, live, err := s.Resume(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	want := "This session is being continued from a previous conversation. Summary: first, one. | second | two | <local-command-stdout>ok</local-command-stdout> | third | three"
	if got := texts(live); got != want {
		t.Errorf("Resume:\n got %s\nwant %s", got, want)
	}
	full, err := s.Load(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(full); strings.Contains(got, "local-command-stdout") || !strings.HasSuffix(got, "third | three") {
		t.Errorf("Load shows %s; want no isMeta line", got)
	}
}

// TestRealClaudeCompaction: a session the real Claude Code compacted with
// /compact (testdata/claude_compacted.jsonl) resumes as Claude Code
// rebuilds it: the summary with its lead-in, the response it kept
// (preservedMessages, written before the boundary), then the isMeta
// caveat and the /compact command's lines, which chain to the summary.
func TestRealClaudeCompaction(t *testing.T) {
	s, claude := newTestStore(t)
	const cwd, id = "/home/dev/cc", "5d891808-cdde-4083-9eea-768f3634e8a5"
	data, err := os.ReadFile("testdata/claude_compacted.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(claude, "projects", sanitize(cwd), id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	l, h, err := s.Resume(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	var got []string
	for _, m := range h.Messages {
		got = append(got, string(m.Role)+": "+strings.SplitN(m.Text(), "\n", 2)[0])
	}
	want := []string{
		"user: This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.",
		"assistant: Done: x is 2.",
		"user: <local-command-caveat>The command below was run directly in Claude Code, not sent to you as a request, and its output goes straight to the user. It's recorded here as context for later messages.</local-command-caveat>",
		"user: <command-name>/compact</command-name>",
		"user: <local-command-stdout>Compacted </local-command-stdout>",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Resume:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if h.Model != "claude-sonnet-4-5" {
		t.Errorf("Model = %q, want the session's claude-sonnet-4-5", h.Model)
	}
	if len(h.Warnings) != 0 {
		t.Errorf("warnings: %q", h.Warnings)
	}
}

// TestGitBranch: the branch is read from .git/HEAD of the repository
// holding the cwd, through a worktree's .git file, and "HEAD" when
// detached.
func TestGitBranch(t *testing.T) {
	root := t.TempDir()
	write := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "repo", ".git", "HEAD"), "ref: refs/heads/feature/x\n")
	write(filepath.Join(root, "repo", ".git", "worktrees", "wt", "HEAD"), "0123456789abcdef0123456789abcdef01234567\n")
	write(filepath.Join(root, "wt", ".git"), "gitdir: ../repo/.git/worktrees/wt\n")
	if err := os.MkdirAll(filepath.Join(root, "repo", "sub", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{
		filepath.Join(root, "repo", "sub", "dir"): "feature/x",
		filepath.Join(root, "wt"):                 "HEAD",
		root:                                      "",
	} {
		if got := gitBranch(dir); got != want {
			t.Errorf("gitBranch(%s) = %q, want %q", dir, got, want)
		}
	}
}

// TestGitBranchOfDevices: .git, or a gitdir's HEAD, may be a link to
// /dev/zero or a FIFO in a repository the user opened; gitBranch read it
// without end when the session started (filling the agent's memory) or
// waited for a writer forever. Such a repository has no branch to record.
func TestGitBranchOfDevices(t *testing.T) {
	root := t.TempDir()
	mk := func(dir string, f func(dir string) error) string {
		t.Helper()
		d := filepath.Join(root, dir)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := f(d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	dirs := []string{
		mk("zero-dotgit", func(d string) error { return os.Symlink("/dev/zero", filepath.Join(d, ".git")) }),
		mk("zero-head", func(d string) error {
			if err := os.MkdirAll(filepath.Join(d, ".git"), 0o755); err != nil {
				return err
			}
			return os.Symlink("/dev/zero", filepath.Join(d, ".git", "HEAD"))
		}),
		mk("fifo-head", func(d string) error {
			if err := os.WriteFile(filepath.Join(d, ".git"), []byte("gitdir: g\n"), 0o644); err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Join(d, "g"), 0o755); err != nil {
				return err
			}
			return syscall.Mkfifo(filepath.Join(d, "g", "HEAD"), 0o644)
		}),
	}
	for _, dir := range dirs {
		if got := gitBranch(dir); got != "" {
			t.Errorf("gitBranch(%s) = %q, want none", dir, got)
		}
	}
}

// TestRealClaudeTrailingAttachment: Claude Code 2.1.332 ends a turn with
// an attachment chained to the response and names it as the leaf to
// resume from (testdata/claude_trailing_attachment.jsonl). A message
// appended by agent-lsp chains to that attachment, so the file stays one
// chain, which Claude Code follows from its leaf to agent-lsp's lines.
func TestRealClaudeTrailingAttachment(t *testing.T) {
	s, claude := newTestStore(t)
	const cwd, id = "/home/dev/cc", "ba057973-1b71-4dcc-bb13-0d2bdc26a299"
	data, err := os.ReadFile("testdata/claude_trailing_attachment.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(claude, "projects", sanitize(cwd), id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var hint string
	for _, line := range strings.Split(string(data), "\n") {
		var e struct {
			Type     string `json:"type"`
			LeafUUID string `json:"leafUuid"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == "last-prompt" {
			hint = e.LeafUUID
		}
	}
	l, h, err := s.Resume(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range h.Messages {
		got = append(got, m.Text())
	}
	if strings.Join(got, " | ") != "first prompt | Started in Claude Code." {
		t.Errorf("Resume: %s", got)
	}
	if err := l.Append(providers.Message{Role: providers.RoleUser, Content: []providers.Block{{Type: providers.BlockText, Text: "next"}}}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	after, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(after)), "\n")
	var last struct {
		Parent string `json:"parentUuid"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if hint == "" || last.Parent != hint {
		t.Errorf("the appended line's parent is %q, want Claude Code's leaf %q", last.Parent, hint)
	}
}
