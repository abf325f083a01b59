package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
)

// setMtime backdates a session file so listing order is deterministic.
func setMtime(t *testing.T, path string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

func TestListPagination(t *testing.T) {
	s, claude := newTestStore(t)
	installFixture(t, claude)
	setMtime(t, filepath.Join(claude, "projects", "-home-dev-proj", fixtureID+".jsonl"), time.Unix(1000, 0))
	base := time.Unix(2000, 0)
	for i := range 7 {
		cwd := "/home/dev/proj"
		if i%3 == 2 {
			cwd = "/home/dev/other"
		}
		id := fmt.Sprintf("s%d", i)
		l, err := s.Create(cwd, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Append(text(providers.RoleUser, fmt.Sprintf("prompt  number\n%d", i))); err != nil {
			t.Fatal(err)
		}
		l.Append(text(providers.RoleAssistant, "ok"))
		l.Close()
		setMtime(t, l.Path(), base.Add(time.Duration(i)*time.Second))
	}
	// An empty session and one with only a summary line are not listed.
	empty, _ := s.Create("/home/dev/proj", "empty")
	empty.Close()
	setMtime(t, empty.Path(), base.Add(time.Hour))
	onlySummary := filepath.Join(claude, "projects", "-home-dev-proj", "summaries.jsonl")
	os.WriteFile(onlySummary, []byte(`{"type":"summary","summary":"x","leafUuid":"y"}`+"\n"), 0o644)

	// Every cwd, two at a time.
	var got []string
	cursor := ""
	for page := 0; ; page++ {
		infos, next, err := s.List("", cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(infos) > 2 {
			t.Fatalf("page %d has %d entries", page, len(infos))
		}
		for _, in := range infos {
			got = append(got, in.ID)
		}
		if next == "" {
			break
		}
		cursor = next
		if page > 10 {
			t.Fatal("pagination does not end")
		}
	}
	want := []string{"s6", "s5", "s4", "s3", "s2", "s1", "s0", fixtureID}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("listed %v, want %v", got, want)
	}

	// One cwd, everything at once.
	infos, next, err := s.List("/home/dev/proj", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if next != "" {
		t.Errorf("next cursor %q after listing everything", next)
	}
	got = got[:0]
	for _, in := range infos {
		got = append(got, in.ID)
		if in.Cwd != "/home/dev/proj" {
			t.Errorf("%s: cwd %q", in.ID, in.Cwd)
		}
	}
	if strings.Join(got, ",") != "s6,s4,s3,s1,s0,"+fixtureID {
		t.Fatalf("listed %v", got)
	}
	first := infos[0]
	if first.Title != "prompt number 6" || first.Source != SourceAgentLSP || !first.UpdatedAt.Equal(base.Add(6*time.Second)) {
		t.Errorf("first = %+v", first)
	}
	last := infos[len(infos)-1]
	if last.Title != "Fix the flaky parser test" || last.Source != SourceClaude {
		t.Errorf("Claude Code's session = %+v", last)
	}

	if _, _, err := s.List("", "garbage!", 2); err == nil {
		t.Error("List with a bad cursor succeeded")
	}
}

// TestListTitles: a title comes from a custom-title line anywhere near
// the end, else the summary line, else the first prompt, found in a
// file's head even when the prompt is huge.
func TestListTitles(t *testing.T) {
	s, _ := newTestStore(t)
	const cwd = "/p"
	huge, _ := s.Create(cwd, "huge")
	huge.Append(text(providers.RoleUser, "Look at this log: "+strings.Repeat("line of log\n", 100_000)))
	huge.Close()

	renamed, _ := s.Create(cwd, "renamed")
	renamed.Append(text(providers.RoleUser, "first prompt"))
	for range 50 {
		renamed.Append(text(providers.RoleAssistant, strings.Repeat("padding ", 200)))
	}
	renamed.SetTitle("Renamed  session")
	renamed.Close()

	wrapped, _ := s.Create(cwd, "wrapped")
	wrapped.Append(providers.Message{Role: providers.RoleUser, Content: []providers.Block{
		providers.TextBlock("<command-name>/review</command-name>"),
		providers.TextBlock("Review the diff"),
	}})
	wrapped.Close()

	infos, _, err := s.List(cwd, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, in := range infos {
		titles[in.ID] = in.Title
	}
	if want := "Look at this log: " + strings.Repeat("line of log ", 7); !strings.HasPrefix(titles["huge"], want[:80]) || !strings.HasSuffix(titles["huge"], "…") {
		t.Errorf("huge: %q", titles["huge"])
	}
	if titles["renamed"] != "Renamed session" {
		t.Errorf("renamed: %q", titles["renamed"])
	}
	if titles["wrapped"] != "Review the diff" {
		t.Errorf("wrapped: %q", titles["wrapped"])
	}
}
