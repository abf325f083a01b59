package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/providers"
)

const (
	fixtureCwd = "/home/dev/proj"
	fixtureID  = "5b0c7e52-94d3-4f6a-8b1e-0c2d3e4f5a6b"
)

// newTestStore returns a store over two temporary directories: ours and
// a Claude Code one.
func newTestStore(t *testing.T) (*Store, string) {
	t.Helper()
	claude := t.TempDir()
	return NewStore(t.TempDir(), claude), claude
}

// installFixture copies testdata/claude_session.jsonl into claude's
// projects directory and returns its path.
func installFixture(t *testing.T, claude string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/claude_session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(claude, "projects", "-home-dev-proj", fixtureID+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func text(role providers.Role, s string) providers.Message {
	return providers.Message{Role: role, Content: []providers.Block{providers.TextBlock(s)}}
}

// fixtureMessages is what the fixture holds, as the model sees it.
func fixtureMessages() []providers.Message {
	summary := "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n" +
		"The user asked why the parser test is flaky. TestParse ranges over the map cases, so the order is random and one case depends on another."
	return []providers.Message{
		text(providers.RoleUser, "The parser test fails about one run in ten. Can you find out why?"),
		{Role: providers.RoleAssistant, Content: []providers.Block{
			providers.TextBlock("I'll look at the parser test first."),
			{Type: providers.BlockToolUse, ID: "toolu_01Rd", Name: "Read", Input: json.RawMessage(`{"file_path":"/home/dev/proj/parser_test.go"}`)},
		}},
		{Role: providers.RoleUser, Content: []providers.Block{
			providers.ToolResultBlock("toolu_01Rd", "     1\tpackage parser\n     2\t\n     3\tfunc TestParse(t *testing.T) {\n     4\t\tfor k, v := range cases {", false),
		}},
		text(providers.RoleAssistant, "The test ranges over a map, so its cases run in random order and one of them depends on another."),
		// The context after /compact.
		text(providers.RoleUser, summary),
		text(providers.RoleUser, "Sort the keys and run the tests."),
		{Role: providers.RoleAssistant, Content: []providers.Block{
			{Type: providers.BlockToolUse, ID: "toolu_02Ab", Name: "Bash", Input: json.RawMessage(`{"command":"go test ./parser/","description":"Run the parser tests"}`)},
			{Type: providers.BlockToolUse, ID: "toolu_02Cd", Name: "Read", Input: json.RawMessage(`{"file_path":"/home/dev/proj/missing.go"}`)},
		}},
		{Role: providers.RoleUser, Content: []providers.Block{
			providers.ToolResultBlock("toolu_02Ab", "ok  \texample.com/proj/parser\t0.012s", false),
			providers.ToolResultBlock("toolu_02Cd", "File does not exist.", true),
		}},
		{Role: providers.RoleAssistant, Content: []providers.Block{
			{Type: providers.BlockThinking, Thinking: "The tests pass; missing.go was a wrong guess.", Signature: "EqQBCkYIBRgCKkB"},
			providers.TextBlock("The tests pass now that the keys are sorted."),
		}},
	}
}

// sameMessages compares messages by their JSON, so a nil and an empty
// slice or differently spaced raw input do not differ.
func sameMessages(t *testing.T, what string, got, want []providers.Message) {
	t.Helper()
	g, _ := json.MarshalIndent(normalize(got), "", " ")
	w, _ := json.MarshalIndent(normalize(want), "", " ")
	if !bytes.Equal(g, w) {
		t.Fatalf("%s: messages differ\ngot:  %s\nwant: %s", what, g, w)
	}
}

func normalize(ms []providers.Message) any {
	var v any
	b, _ := json.Marshal(ms)
	json.Unmarshal(b, &v)
	return v
}

func TestLoadClaudeFixture(t *testing.T) {
	s, claude := newTestStore(t)
	installFixture(t, claude)
	want := fixtureMessages()

	h, err := s.Load(fixtureCwd, fixtureID)
	if err != nil {
		t.Fatal(err)
	}
	sameMessages(t, "Load", h.Messages, want)
	if h.ContextStart != 4 {
		t.Errorf("ContextStart = %d, want 4", h.ContextStart)
	}
	if h.Title != "Fix the flaky parser test" {
		t.Errorf("Title = %q", h.Title)
	}
	if !strings.HasPrefix(h.Summary, "This session is being continued") {
		t.Errorf("Summary = %q", h.Summary)
	}
	if len(h.Warnings) != 0 {
		t.Errorf("Warnings = %q", h.Warnings)
	}

	l, rh, err := s.Resume(fixtureCwd, fixtureID)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sameMessages(t, "Resume", rh.Messages, want[4:])
	if rh.Title != h.Title || rh.Summary != h.Summary {
		t.Errorf("Resume: title %q summary %q; Load: %q %q", rh.Title, rh.Summary, h.Title, h.Summary)
	}
}

// TestContinueClaudeSession continues Claude Code's session: the new
// lines are appended to its own file (one history per id, which either
// tool can resume), locked while open, and listing shows it once.
func TestContinueClaudeSession(t *testing.T) {
	s, claude := newTestStore(t)
	src := installFixture(t, claude)
	before, _ := os.ReadFile(src)

	l, _, err := s.Resume(fixtureCwd, fixtureID)
	if err != nil {
		t.Fatal(err)
	}
	if l.Path() != src {
		t.Fatalf("continuing writes to %s, want Claude Code's file %s", l.Path(), src)
	}
	if _, _, err := s.Resume(fixtureCwd, fixtureID); !errors.Is(err, ErrInUse) {
		t.Errorf("a second Resume while open: %v, want ErrInUse", err)
	}
	next := text(providers.RoleUser, "Commit it.")
	if err := l.Append(next); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(after, before) || len(after) == len(before) {
		t.Fatal("Claude Code's file was not appended to")
	}
	entries, _ := os.ReadDir(filepath.Join(s.dir, "projects"))
	if len(entries) != 0 {
		t.Errorf("a copy was made in our directory: %v", entries)
	}

	h, err := s.Load(fixtureCwd, fixtureID)
	if err != nil {
		t.Fatal(err)
	}
	sameMessages(t, "Load after continuing", h.Messages, append(fixtureMessages(), next))

	// The new line chains to the last message of Claude Code's chain.
	lines := bytes.Split(bytes.TrimSpace(after), []byte("\n"))
	var last map[string]any
	if err := json.Unmarshal(lines[len(lines)-1], &last); err != nil {
		t.Fatal(err)
	}
	if last["parentUuid"] != "6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d" {
		t.Errorf("parentUuid = %v", last["parentUuid"])
	}

	infos, _, err := s.List(fixtureCwd, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].Source != SourceClaude || infos[0].ID != fixtureID {
		t.Fatalf("List = %+v, want Claude Code's session once", infos)
	}
}

// TestForkClaudeSession forks Claude Code's session: its file is left
// alone, the fork is a copy under the new id plus the new lines, made on
// the first write only.
func TestForkClaudeSession(t *testing.T) {
	s, claude := newTestStore(t)
	src := installFixture(t, claude)
	before, _ := os.ReadFile(src)
	const newID = "fork-1"

	l, _, err := s.Fork(fixtureCwd, fixtureID, newID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("forking created %s before any write (%v)", l.Path(), err)
	}
	next := text(providers.RoleUser, "Commit it.")
	if err := l.Append(next); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(src); !bytes.Equal(before, after) {
		t.Fatal("Claude Code's session file was modified")
	}
	ours, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(ours, before) {
		t.Fatal("the fork does not start with Claude Code's file")
	}
	h, err := s.Load(fixtureCwd, newID)
	if err != nil {
		t.Fatal(err)
	}
	sameMessages(t, "Load of the fork", h.Messages, append(fixtureMessages(), next))
	orig, err := s.Load(fixtureCwd, fixtureID)
	if err != nil {
		t.Fatal(err)
	}
	sameMessages(t, "Load of the original", orig.Messages, fixtureMessages())
}

// TestRoundTrip writes the fixture's messages through a Log and reads them
// back, and checks the lines carry Claude Code's fields.
func TestRoundTrip(t *testing.T) {
	s, _ := newTestStore(t)
	const cwd, id = "/work/proj", "round-trip"
	l, err := s.Create(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	msgs := fixtureMessages()
	for _, m := range msgs[:4] {
		if err := l.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.AppendSummary(msgs[4].Text(), TriggerManual); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs[5:] {
		if err := l.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	h, err := s.Load(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	sameMessages(t, "Load", h.Messages, msgs)
	if h.ContextStart != 4 || h.Summary != msgs[4].Text() {
		t.Errorf("ContextStart %d, Summary %q", h.ContextStart, h.Summary)
	}
	if h.Title != "The parser test fails about one run in ten. Can you find out why?" {
		t.Errorf("Title = %q", h.Title)
	}
	l2, rh, err := s.Resume(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	sameMessages(t, "Resume", rh.Messages, msgs[4:])

	// Claude Code's fields and chain.
	data, _ := os.ReadFile(filepath.Join(s.dir, "projects", "-work-proj", id+".jsonl"))
	prev := ""
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		typ, _ := m["type"].(string)
		switch typ {
		case "summary":
			if m["summary"] == "" || m["leafUuid"] == "" {
				t.Errorf("line %d: title line without summary or leafUuid: %s", i, line)
			}
			continue
		case "user", "assistant", "system":
		default:
			t.Fatalf("line %d: unexpected type %q", i, typ)
		}
		for _, k := range []string{"uuid", "sessionId", "cwd", "timestamp", "version", "isSidechain", "userType"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %d: no %s: %s", i, k, line)
			}
		}
		if m["sessionId"] != id || m["cwd"] != cwd {
			t.Errorf("line %d: sessionId %v cwd %v", i, m["sessionId"], m["cwd"])
		}
		parent, _ := m["parentUuid"].(string)
		if typ == "system" {
			if m["subtype"] != "compact_boundary" || parent != "" || m["logicalParentUuid"] != prev {
				t.Errorf("line %d: bad boundary: %s", i, line)
			}
		} else {
			if parent != prev {
				t.Errorf("line %d: parentUuid %q, want %q", i, parent, prev)
			}
			msg, _ := m["message"].(map[string]any)
			if msg["role"] != typ {
				t.Errorf("line %d: message.role %v, type %s", i, msg["role"], typ)
			}
		}
		prev = m["uuid"].(string)
	}
}

func TestTornLastLine(t *testing.T) {
	s, _ := newTestStore(t)
	const cwd, id = "/p", "torn"
	l, err := s.Create(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	want := []providers.Message{text(providers.RoleUser, "one"), text(providers.RoleAssistant, "two")}
	for _, m := range want {
		if err := l.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	path := s.ourPath(cwd, id)
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"parentUuid":"x","type":"user","message":{"role":"user","content":[{"type":"te`)
	f.Close()

	h, err := s.Load(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	sameMessages(t, "Load", h.Messages, want)
	if len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "torn last line") {
		t.Fatalf("Warnings = %q", h.Warnings)
	}

	// Resuming cuts the torn line before writing, so the next line is whole.
	l, rh, err := s.Resume(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	sameMessages(t, "Resume", rh.Messages, want)
	if len(rh.Warnings) != 1 {
		t.Fatalf("Resume warnings = %q", rh.Warnings)
	}
	three := text(providers.RoleUser, "three")
	if err := l.Append(three); err != nil {
		t.Fatal(err)
	}
	l.Close()
	h, err = s.Load(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	sameMessages(t, "Load after resume", h.Messages, append(want, three))
	if len(h.Warnings) != 0 {
		t.Fatalf("Warnings = %q", h.Warnings)
	}
}

// TestLastLineWithoutNewline: a complete last line whose newline is
// missing is kept, and the next write starts a new line.
func TestLastLineWithoutNewline(t *testing.T) {
	s, _ := newTestStore(t)
	const cwd, id = "/p", "nonl"
	l, _ := s.Create(cwd, id)
	one := text(providers.RoleUser, "one")
	l.Append(one)
	l.Close()
	path := s.ourPath(cwd, id)
	data, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.TrimSuffix(data, []byte("\n")), 0o600)

	l, h, err := s.Resume(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	sameMessages(t, "Resume", h.Messages, []providers.Message{one})
	two := text(providers.RoleAssistant, "two")
	l.Append(two)
	l.Close()
	h, _ = s.Load(cwd, id)
	sameMessages(t, "Load", h.Messages, []providers.Message{one, two})
	if len(h.Warnings) != 0 {
		t.Fatalf("Warnings = %q", h.Warnings)
	}
}

func TestUnreadableLineInTheMiddle(t *testing.T) {
	s, _ := newTestStore(t)
	const cwd, id = "/p", "garbage"
	l, _ := s.Create(cwd, id)
	one, two := text(providers.RoleUser, "one"), text(providers.RoleAssistant, "two")
	l.Append(one)
	l.f.WriteString("not json at all\n")
	l.Append(two)
	l.Close()
	h, err := s.Load(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	sameMessages(t, "Load", h.Messages, []providers.Message{one, two})
	if len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "unreadable line") {
		t.Fatalf("Warnings = %q", h.Warnings)
	}
}

func TestDelete(t *testing.T) {
	s, _ := newTestStore(t)
	const cwd, id = "/p", "tombstones"
	l, err := s.Create(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	m := func(i int) providers.Message {
		role := providers.RoleUser
		if i%2 == 1 {
			role = providers.RoleAssistant
		}
		return text(role, strings.Repeat("m", i+1))
	}
	for i := range 4 {
		l.Append(m(i))
	}
	if err := l.Delete(2); err != nil {
		t.Fatal(err)
	}
	h, _ := s.Load(cwd, id)
	sameMessages(t, "after Delete(2)", h.Messages, []providers.Message{m(0), m(1)})

	// New turns chain after the survivors.
	l.Append(m(4))
	l.Append(m(5))
	l.Close()
	want := []providers.Message{m(0), m(1), m(4), m(5)}
	h, _ = s.Load(cwd, id)
	sameMessages(t, "Load", h.Messages, want)

	l, rh, err := s.Resume(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	sameMessages(t, "Resume", rh.Messages, want)
	if err := l.Delete(5); err == nil {
		t.Fatal("Delete(5) of 4 messages succeeded")
	}
	if err := l.Delete(4); err != nil {
		t.Fatal(err)
	}
	l.Append(m(6))
	l.Close()
	h, _ = s.Load(cwd, id)
	sameMessages(t, "after deleting everything", h.Messages, []providers.Message{m(6)})
	if len(h.Warnings) != 0 {
		t.Fatalf("Warnings = %q", h.Warnings)
	}
}

// TestDeleteKeepsSummary: the compaction summary is not deletable, and
// deleting after it leaves the summary as the context.
func TestDeleteKeepsSummary(t *testing.T) {
	s, _ := newTestStore(t)
	const cwd, id = "/p", "compacted"
	l, _ := s.Create(cwd, id)
	l.Append(text(providers.RoleUser, "old"))
	l.AppendSummary("summary", TriggerAuto)
	l.Append(text(providers.RoleUser, "new"))
	if err := l.Delete(2); err == nil {
		t.Fatal("Delete removed the summary")
	}
	if err := l.Delete(1); err != nil {
		t.Fatal(err)
	}
	l.Close()
	_, h, err := s.Resume(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	sameMessages(t, "Resume", h.Messages, []providers.Message{text(providers.RoleUser, "summary")})
}

func TestLocking(t *testing.T) {
	s, _ := newTestStore(t)
	const cwd, id = "/p", "locked"
	l, err := s.Create(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(cwd, id); !errors.Is(err, os.ErrExist) {
		t.Fatalf("second Create: %v", err)
	}
	_, _, err = s.Resume(cwd, id)
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("Resume of an open session: %v", err)
	}
	// The error names the holder: this process, which holds the first Log.
	var inUse *InUseError
	if !errors.As(err, &inUse) {
		t.Fatalf("Resume of an open session: %T %v, want an *InUseError", err, err)
	}
	if runtime.GOOS == "linux" && (inUse.PID != os.Getpid() || inUse.Command == "") {
		t.Errorf("InUseError names process %d (%q), want this one, %d", inUse.PID, inUse.Command, os.Getpid())
	}
	if _, err := s.Load(cwd, id); err != nil {
		t.Fatalf("Load of an open session: %v", err)
	}
	l.Close()
	if err := l.Append(text(providers.RoleUser, "x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close: %v", err)
	}
	l, _, err = s.Resume(cwd, id)
	if err != nil {
		t.Fatalf("Resume after Close: %v", err)
	}
	l.Close()
	if _, _, err := s.Resume(cwd, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Resume of a missing session: %v", err)
	}
	if _, err := s.Load(cwd, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load of a missing session: %v", err)
	}
	for _, bad := range []string{"", "../x", "a/b", ".hidden"} {
		if _, err := s.Create(cwd, bad); err == nil {
			t.Errorf("Create(%q) succeeded", bad)
		}
	}
	if _, err := s.Create("relative", "x"); err == nil {
		t.Error("Create with a relative cwd succeeded")
	}
}

func TestConcurrentAppends(t *testing.T) {
	s, _ := newTestStore(t)
	l, _ := s.Create("/p", "concurrent")
	done := make(chan error)
	for g := range 4 {
		go func() {
			for i := range 50 {
				if err := l.Append(text(providers.RoleUser, strings.Repeat("x", g*100+i))); err != nil {
					done <- err
					return
				}
			}
			done <- l.Sync()
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	h, err := s.Load("/p", "concurrent")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Messages) != 200 || len(h.Warnings) != 0 {
		t.Fatalf("%d messages, warnings %q", len(h.Messages), h.Warnings)
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"/home/dev/proj":         "-home-dev-proj",
		"/Users/a.b/my_repo":     "-Users-a-b-my-repo",
		`C:\Users\x\src`:         "C--Users-x-src",
		"/tmp/caf\u00e9":         "-tmp-caf-",
		"/tmp/\U0001F600":        "-tmp---",
		"/a b/c-d":               "-a-b-c-d",
		"/srv/2024/proj.v2/src/": "-srv-2024-proj-v2-src-",
	} {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("AGENT_LSP_HOME", "/x/home")
	if d := DefaultDir(); d != "/x/home" {
		t.Errorf("with AGENT_LSP_HOME: %s", d)
	}
	t.Setenv("AGENT_LSP_HOME", "")
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if d := DefaultDir(); d != "/x/state/agent-lsp" {
		t.Errorf("with XDG_STATE_HOME: %s", d)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/x/user")
	if d := DefaultDir(); d != "/x/user/.local/state/agent-lsp" {
		t.Errorf("default: %s", d)
	}
}

func TestMessageBeforeType(t *testing.T) {
	line := []byte(`{"message":{"role":"user","content":"hi"},"uuid":"u","type":"user"}`)
	e, err := parseLine(line)
	if err != nil {
		t.Fatal(err)
	}
	if e.Message == nil || !reflect.DeepEqual(e.Message.Content, []providers.Block{providers.TextBlock("hi")}) {
		t.Fatalf("message = %+v", e.Message)
	}
}

// TestToolUseResults: what a tool call did for display is stored beside
// its result, as Claude Code's toolUseResult for a line with one result
// and as toolUseResults for a line with several, and Load returns it by
// tool_use_id, from our files and from Claude Code's.
func TestToolUseResults(t *testing.T) {
	s, _ := newTestStore(t)
	const cwd, id = "/p", "results"
	l, err := s.Create(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	use := func(id string) providers.Block {
		return providers.Block{Type: providers.BlockToolUse, ID: id, Name: "Edit", Input: json.RawMessage(`{}`)}
	}
	msgs := []struct {
		m       providers.Message
		results map[string]json.RawMessage
	}{
		{text(providers.RoleUser, "go"), nil},
		{providers.Message{Role: providers.RoleAssistant, Content: []providers.Block{use("t1")}}, nil},
		{providers.Message{Role: providers.RoleUser, Content: []providers.Block{providers.ToolResultBlock("t1", "ok", false)}},
			map[string]json.RawMessage{"t1": json.RawMessage(`{"filePath":"/p/a","oldString":"a","newString":"b"}`)}},
		{providers.Message{Role: providers.RoleAssistant, Content: []providers.Block{use("t2"), use("t3")}}, nil},
		{providers.Message{Role: providers.RoleUser, Content: []providers.Block{providers.ToolResultBlock("t2", "ok", false), providers.ToolResultBlock("t3", "ok", false)}},
			map[string]json.RawMessage{"t2": json.RawMessage(`{"type":"create"}`), "t3": json.RawMessage(`"Error: no"`)}},
	}
	for _, m := range msgs {
		if err := l.AppendResults(m.m, m.results); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	raw, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"toolUseResult":{"filePath":"/p/a"`) {
		t.Errorf("a line with one result does not carry Claude Code's toolUseResult:\n%s", raw)
	}
	h, err := s.Load(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"t1": `{"filePath":"/p/a","oldString":"a","newString":"b"}`, "t2": `{"type":"create"}`, "t3": `"Error: no"`}
	for tid, w := range want {
		if got := string(h.ToolUseResults[tid]); got != w {
			t.Errorf("ToolUseResults[%s] = %s, want %s", tid, got, w)
		}
	}
	if len(h.Messages) != 5 {
		t.Errorf("Load: %d messages, want 5", len(h.Messages))
	}
}

// TestParallelToolResults: Claude Code writes each tool_use of a response
// as its own line, chained, and each result under its own tool_use line,
// so the results of parallel calls branch off the chain. Every result is
// found, by Load and by Resume, and a result the chain already holds is
// not taken twice.
func TestParallelToolResults(t *testing.T) {
	s, claude := newTestStore(t)
	const cwd, id = "/home/dev/par", "parallel"
	line := func(typ, uuid, parent, msgID string, content string) string {
		p := `null`
		if parent != "" {
			p = `"` + parent + `"`
		}
		msg := `{"role":"` + typ + `","content":` + content + `}`
		if msgID != "" {
			msg = `{"id":"` + msgID + `","role":"` + typ + `","content":` + content + `}`
		}
		return `{"parentUuid":` + p + `,"isSidechain":false,"type":"` + typ + `","message":` + msg + `,"uuid":"` + uuid + `","sessionId":"` + id + `","cwd":"` + cwd + `"}`
	}
	use := func(tid string) string { return `[{"type":"tool_use","id":"` + tid + `","name":"Read","input":{}}]` }
	result := func(tid string) string {
		return `[{"type":"tool_result","tool_use_id":"` + tid + `","content":"r-` + tid + `"}]`
	}
	lines := []string{
		line("user", "u1", "", "", `"read both"`),
		line("assistant", "a1", "u1", "m1", use("t1")),
		line("assistant", "a2", "a1", "m1", use("t2")),
		line("assistant", "a3", "a2", "m1", use("t3")),
		line("user", "r1", "a1", "", result("t1")),
		line("user", "r2", "a2", "", result("t2")),
		line("user", "r3", "a3", "", result("t3")),
		line("user", "r1dup", "a1", "", result("t3")), // answers a call the chain answers: not taken
		line("assistant", "f", "r3", "m2", `[{"type":"text","text":"both read"}]`),
	}
	path := filepath.Join(claude, "projects", sanitize(cwd), id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	results := func(msgs []providers.Message) []string {
		var got []string
		for _, m := range msgs {
			for _, b := range m.Content {
				if b.Type == providers.BlockToolResult {
					got = append(got, b.ToolUseID)
				}
			}
		}
		return got
	}
	full, err := s.Load(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	_, live, err := s.Resume(cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]*History{"Load": full, "Resume": live} {
		if len(h.Messages) != 4 {
			t.Errorf("%s: %d messages, want 4 (prompt, calls, results, answer)", name, len(h.Messages))
		}
		got := results(h.Messages)
		slices.Sort(got)
		if strings.Join(got, ",") != "t1,t2,t3" {
			t.Errorf("%s: tool results %v, want t1, t2 and t3 once each", name, got)
		}
	}
}
