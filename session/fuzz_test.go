package session

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agent-lsp/agent-lsp/providers"
)

// FuzzLoad feeds arbitrary bytes to the loader as a session file. Loading
// never fails on content; resuming sees exactly the part of the file Load
// calls the model's context; and a session resumed from any content can
// be continued with a whole new line. The seed corpus is in
// testdata/fuzz/FuzzLoad.
func FuzzLoad(f *testing.F) {
	if fixture, err := os.ReadFile("testdata/claude_session.jsonl"); err == nil {
		f.Add(fixture)
	}
	// One directory for every input: creating and removing one per input
	// made file system work (fsync, discards) the fuzzer's bottleneck.
	dir, err := os.MkdirTemp("", "session-fuzz")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(dir) })
	s := NewStore(dir, "-")
	const cwd, id = "/f", "fuzz"
	path := s.ourPath(cwd, id)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		h := loadAll(data)
		if h.ContextStart < 0 || h.ContextStart > len(h.Messages) {
			t.Fatalf("ContextStart %d of %d messages", h.ContextStart, len(h.Messages))
		}
		r, _, err := readResume(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("Resume: %v", err)
		}
		if want := h.Messages[h.ContextStart:]; !reflect.DeepEqual(r.Messages, want) && (len(r.Messages) != 0 || len(want) != 0) {
			t.Fatalf("Resume sees %d messages, Load's context has %d:\n%+v\n%+v", len(r.Messages), len(want), r.Messages, want)
		}
		if r.Summary != h.Summary {
			t.Fatalf("Resume summary %q, Load summary %q", r.Summary, h.Summary)
		}

		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		l, _, err := s.Resume(cwd, id)
		if err != nil {
			t.Fatalf("Resume: %v", err)
		}
		next := text(providers.RoleAssistant, "continued")
		err = l.Append(next)
		l.f.Close() // no fsync: it would dominate the fuzzer's time
		if err != nil {
			t.Fatalf("Append: %v", err)
		}
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		h2 := loadAll(after)
		if n := len(h2.Messages); n == 0 || !reflect.DeepEqual(h2.Messages[n-1], next) {
			t.Fatalf("after Append the last message is not the appended one: %+v", h2.Messages)
		}
	})
}
