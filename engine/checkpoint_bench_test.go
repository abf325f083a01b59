package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/settings"
)

// timedModel answers every call at once: a tool call (Glob) first when
// tool is set, then the end of the turn. It records when each call came.
type timedModel struct {
	tool bool

	mu    sync.Mutex
	calls []time.Time // guarded by mu
}

func (m *timedModel) Stream(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
	m.mu.Lock()
	m.calls = append(m.calls, time.Now())
	first := len(m.calls) == 1
	m.mu.Unlock()
	msg := providers.Message{Role: providers.RoleAssistant, Content: []providers.Block{providers.TextBlock("ok")}}
	stop := providers.StopEndTurn
	if m.tool && first {
		msg.Content = append(msg.Content, providers.Block{Type: providers.BlockToolUse, ID: "g1", Name: "Glob", Input: []byte(`{"pattern":"pkg00/*.go"}`)})
		stop = providers.StopToolUse
	}
	return &providers.Response{Message: msg, StopReason: stop}, nil
}

func (m *timedModel) reset() []time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	calls := m.calls
	m.calls = nil
	return calls
}

// BenchmarkPromptStart10kFiles is what a prompt's checkpoint adds to the
// prompt's start in a git repository of 10,000 files of which 10 changed
// since the last prompt (issue 31: at most 50 ms), side by side with
// checkpoints off. to-model-ms is the time from the prompt to the
// model's request; first-tool-ms, with a model that asks for a tool the
// moment it is called, the time from its first request to its second,
// which holds the tool's wait for the checkpoint: a real model takes
// longer than the checkpoint to ask for a tool, and then nothing waits.
func BenchmarkPromptStart10kFiles(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	testenv.Repository(b, root, 10_000)
	for _, checkpoints := range []bool{false, true} {
		for _, tool := range []bool{false, true} {
			name := fmt.Sprintf("checkpoints=%v/tool=%v", checkpoints, tool)
			b.Run(name, func(b *testing.B) { benchPromptStart(b, root, checkpoints, tool) })
		}
	}
}

func benchPromptStart(b *testing.B, root string, checkpoints, tool bool) {
	model := &timedModel{tool: tool}
	cfg := Config{Provider: model, Model: "test-model", Home: b.TempDir(), Logf: b.Logf, Settings: &settings.Settings{Project: root}}
	if checkpoints {
		cfg.Store = session.NewStore(b.TempDir(), "-")
	}
	svc := NewService(cfg)
	b.Cleanup(svc.Close)
	sess, err := svc.NewSession(context.Background(), SessionOptions{Cwd: root, Client: &recordingClient{}})
	if err != nil {
		b.Fatal(err)
	}
	prompt := func(i int) (started time.Time, calls []time.Time) {
		started = time.Now()
		if _, err := sess.Prompt(context.Background(), []schema.ContentBlock{schema.TextBlock(fmt.Sprintf("prompt %d", i))}); err != nil {
			b.Fatal(err)
		}
		return started, model.reset()
	}
	prompt(0) // the first checkpoint stores the whole folder
	var toModel, firstTool time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for j := range 10 {
			p := testenv.RepositoryFile(root, (i*10+j)*997%10_000)
			if err := os.WriteFile(p, fmt.Appendf(nil, "package pkg\n\n// Changed %d.\n", i), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		started, calls := prompt(i + 1)
		toModel += calls[0].Sub(started)
		if tool {
			firstTool += calls[1].Sub(calls[0])
		}
	}
	b.StopTimer()
	if checkpoints {
		// Every prompt has its checkpoint: none was given up.
		if cps, err := sess.Checkpoints(); err != nil || len(cps) != b.N+1 {
			b.Fatalf("%d checkpoints (%v), want %d", len(cps), err, b.N+1)
		}
	}
	b.ReportMetric(float64(toModel.Microseconds())/1000/float64(b.N), "to-model-ms")
	if tool {
		b.ReportMetric(float64(firstTool.Microseconds())/1000/float64(b.N), "first-tool-ms")
	}
}
