package reliability_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/internal/proctest"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
)

// TestConcurrentSessions has 20 sessions of one sidecar prompt at once
// against one model server, each in a directory of its own, with tools
// that ask permission and edit through the editor. Run under the race
// detector (the server is in process), it checks that each session gets
// exactly its own updates, permission requests, edits and history.
func TestConcurrentSessions(t *testing.T) {
	proctest.Reaped(t)
	const (
		sessions = 20
		prompts  = 3 // per session, one after the other
		calls    = 2 // model calls per prompt: maxTurns
	)
	fragments := []string{"Working ", "on ", "it: ", "reading ", "the ", "input ", "and ", "noting ", "it ", "down."}
	// The server hands turns out in the order requests arrive, whatever
	// their session: every turn is the same and names no session.
	turn := fake.Turn{
		fake.Text(fragments...),
		fake.ToolUse("toolu_read", "Read", `{"file_path":"input.txt"}`),
		fake.ToolUse("toolu_write", "Write", `{"file_path":"note.txt","content":"noted\n"}`),
	}
	var turns []fake.Turn
	for range sessions * prompts * calls {
		turns = append(turns, turn)
	}
	model := fake.NewAnthropic(t, turns...)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	dirs := make([]string, sessions)
	for i := range dirs {
		dirs[i] = filepath.Join(root, fmt.Sprintf("s%02d", i))
		os.MkdirAll(dirs[i], 0o755)
		os.WriteFile(filepath.Join(dirs[i], "input.txt"), []byte(fmt.Sprintf("input of session %d\n", i)), 0o644)
	}
	p := startInProcess(t, root, anthropicFor(model, 0, 1), func(c *engine.Config) { c.MaxTurns = calls })

	ids := make([]string, sessions)
	index := map[string]int{}
	for i := range ids {
		ids[i] = p.ed.NewSession(dirs[i])
		index[ids[i]] = i
	}
	var wg sync.WaitGroup
	errs := make(chan error, sessions*prompts)
	for i, sid := range ids {
		wg.Go(func() {
			for k := range prompts {
				var res schema.PromptResult
				err := p.ed.Call("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock(fmt.Sprintf("session %d prompt %d", i, k))}}, &res)
				if err == nil && res.StopReason != schema.StopMaxTurnRequests {
					err = fmt.Errorf("stop reason %q, want %s after %d model calls", res.StopReason, schema.StopMaxTurnRequests, calls)
				}
				if err != nil {
					errs <- fmt.Errorf("session %d prompt %d: %w", i, k, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	// Updates: each session got exactly its own, none lost.
	type counts struct{ chunks, toolCalls, completed int }
	got := make([]counts, sessions)
	for _, n := range p.ed.Notifications() {
		if n.Method != "session/update" {
			continue
		}
		var sn schema.SessionNotification
		if err := json.Unmarshal(n.Params, &sn); err != nil {
			t.Fatal(err)
		}
		i, ok := index[sn.SessionID]
		if !ok {
			t.Fatalf("update for unknown session %q", sn.SessionID)
		}
		switch u := sn.Update; u.SessionUpdate {
		case schema.UpdateAgentMessageChunk:
			got[i].chunks++
		case schema.UpdateToolCall:
			got[i].toolCalls++
		case schema.UpdateToolCallUpdate:
			if u.ToolCall.Status == schema.StatusCompleted {
				got[i].completed++
			}
		}
	}
	want := counts{chunks: prompts * calls * len(fragments), toolCalls: prompts * calls * 2, completed: prompts * calls * 2}
	for i, c := range got {
		if c != want {
			t.Errorf("session %d got %+v, want %+v", i, c, want)
		}
	}
	// The streamed text of each session is whole and in order.
	whole := strings.Repeat(strings.Join(fragments, ""), prompts*calls)
	for i, sid := range ids {
		var b strings.Builder
		for _, u := range p.ed.Updates(sid) {
			if u.SessionUpdate == schema.UpdateAgentMessageChunk {
				b.WriteString(u.Content.Text)
			}
		}
		if b.String() != whole {
			t.Errorf("session %d streamed %q, want %q", i, b.String(), whole)
		}
	}

	// Permission requests and edits: one per Write, for the session's
	// own file.
	perms := make([]int, sessions)
	for _, pr := range p.ed.Permissions() {
		i, ok := index[pr.SessionID]
		if !ok {
			t.Fatalf("permission request for unknown session %q", pr.SessionID)
		}
		perms[i]++
	}
	for i, n := range perms {
		if n != prompts*calls {
			t.Errorf("session %d got %d permission requests, want %d", i, n, prompts*calls)
		}
		if b, ok := p.ed.Buffer(filepath.Join(dirs[i], "note.txt")); !ok || b.Text != "noted\n" {
			t.Errorf("session %d's note.txt buffer = %+v, want the Write's text", i, b)
		}
	}

	// Every model request carries one session's conversation only, and
	// the Read in it saw that session's input.
	prompt := regexp.MustCompile(`session (\d+) prompt \d+`)
	input := regexp.MustCompile(`input of session (\d+)`)
	for r, req := range model.Requests() {
		all := text(messages(t, req))
		seen := map[string]bool{}
		for _, m := range prompt.FindAllStringSubmatch(all, -1) {
			seen[m[1]] = true
		}
		for _, m := range input.FindAllStringSubmatch(all, -1) {
			seen[m[1]] = true
		}
		if len(seen) != 1 {
			t.Errorf("model request %d mixes sessions %v", r, seen)
		}
	}

	// Each session's file holds its own prompts, in order.
	store := session.NewStore(p.home, "-")
	for i, sid := range ids {
		h, err := store.Load(dirs[i], sid)
		if err != nil {
			t.Errorf("session %d: %v", i, err)
			continue
		}
		b, _ := json.Marshal(h.Messages)
		got := prompt.FindAllString(string(b), -1)
		want := []string{}
		for k := range prompts {
			want = append(want, fmt.Sprintf("session %d prompt %d", i, k))
		}
		if strings.Join(got, "|") != strings.Join(want, "|") || len(h.Warnings) > 0 {
			t.Errorf("session %d's file holds prompts %q (warnings %v), want %q", i, got, h.Warnings, want)
		}
	}
}
