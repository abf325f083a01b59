package session

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/providers"
)

// TestState checks that the last saved state comes back on Resume and
// Load, across compactions ours (which write it again after the boundary)
// and others' (found before the boundary), and that a torn state line is
// passed over.
func TestState(t *testing.T) {
	plan := State{Mode: "plan", Model: "m1", Allow: []string{"Bash(npm test:*)"}, Reject: []string{"Bash(rm:*)"}}
	accept := State{Mode: "acceptEdits", Model: "m2"}
	tests := []struct {
		name  string
		write func(t *testing.T, l *Log, path string)
		want  *State
	}{
		{"none", func(t *testing.T, l *Log, path string) {}, nil},
		{"one", func(t *testing.T, l *Log, path string) {
			must(t, l.SetState(plan))
		}, &plan},
		{"last wins", func(t *testing.T, l *Log, path string) {
			must(t, l.SetState(accept))
			must(t, l.Append(text(providers.RoleUser, "more")))
			must(t, l.SetState(plan))
		}, &plan},
		{"after our compaction", func(t *testing.T, l *Log, path string) {
			must(t, l.SetState(plan))
			must(t, l.AppendSummary("summary", TriggerAuto))
			must(t, l.Append(text(providers.RoleUser, "after")))
		}, &plan},
		{"before another writer's compaction", func(t *testing.T, l *Log, path string) {
			must(t, l.SetState(plan))
			l.mu.Lock()
			l.state = nil // as a writer that does not know state lines
			l.mu.Unlock()
			must(t, l.AppendSummary("summary", TriggerAuto))
			must(t, l.Append(text(providers.RoleUser, "after")))
		}, &plan},
		{"torn state line", func(t *testing.T, l *Log, path string) {
			must(t, l.SetState(plan))
			must(t, l.Close())
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			must(t, err)
			_, err = f.WriteString(`{"type":"agent-lsp-state","state":{"permissionMode":"bypassPerm`)
			must(t, err)
			must(t, f.Close())
		}, &plan},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestStore(t)
			l, err := s.Create(fixtureCwd, "s1")
			must(t, err)
			must(t, l.Append(text(providers.RoleUser, "hello")))
			must(t, l.Append(text(providers.RoleAssistant, "hi")))
			tt.write(t, l, l.Path())
			l.Close()
			l, h, err := s.Resume(fixtureCwd, "s1")
			must(t, err)
			if !reflect.DeepEqual(h.State, tt.want) {
				t.Errorf("Resume: state = %+v, want %+v", h.State, tt.want)
			}
			// A compaction after resuming carries the resumed state.
			must(t, l.AppendSummary("again", TriggerAuto))
			must(t, l.Close())
			_, h, err = s.Resume(fixtureCwd, "s1")
			must(t, err)
			if !reflect.DeepEqual(h.State, tt.want) {
				t.Errorf("Resume after a compaction: state = %+v, want %+v", h.State, tt.want)
			}
			full, err := s.Load(fixtureCwd, "s1")
			must(t, err)
			if !reflect.DeepEqual(full.State, tt.want) {
				t.Errorf("Load: state = %+v, want %+v", full.State, tt.want)
			}
		})
	}
}

// TestStateLineIsNotAMessage checks that a state line neither shows in the
// conversation nor makes an empty session listed.
func TestStateLineIsNotAMessage(t *testing.T) {
	s, _ := newTestStore(t)
	l, err := s.Create(fixtureCwd, "s1")
	must(t, err)
	must(t, l.SetState(State{Mode: "plan"}))
	must(t, l.Close())
	infos, _, err := s.List(fixtureCwd, "", 0)
	must(t, err)
	if len(infos) != 0 {
		t.Errorf("a session holding only its state is listed: %+v", infos)
	}
	data, err := os.ReadFile(l.Path())
	must(t, err)
	if !strings.Contains(string(data), `"type":"agent-lsp-state"`) || !strings.Contains(string(data), `"permissionMode":"plan"`) {
		t.Errorf("state line = %s", data)
	}
	h, err := s.Load(fixtureCwd, "s1")
	must(t, err)
	if len(h.Messages) != 0 {
		t.Errorf("messages = %+v", h.Messages)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
