package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
)

// TestNoToolRunsBeforeThePromptsCheckpoint checks that the snapshot a
// prompt's start takes while the model is asked holds the files as they
// were before any tool of the turn ran: a snapshot held back until the
// model asked for a Write does not hold the file the Write made, and the
// rewind removes it.
func TestNoToolRunsBeforeThePromptsCheckpoint(t *testing.T) {
	model := newScript(t)
	client := &recordingClient{answers: []answer{pick(optAllowOnce)}}
	h := newHarness(t, model, client, func(c *Config) { c.Store = session.NewStore(t.TempDir(), "-") })
	made := filepath.Join(h.dir, "made.txt")
	asked := make(chan struct{})
	checkpointStall = func() {
		<-asked
		// Time for a tool that did not wait to have run.
		time.Sleep(300 * time.Millisecond)
	}
	t.Cleanup(func() { checkpointStall = nil })
	write := use("w1", "Write", map[string]any{"file_path": made, "content": "made\n"})
	model.steps = []step{
		func(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
			close(asked)
			return write(ctx, req, emit)
		},
		say("Written."),
	}
	if stop := h.prompt(t, "make a file"); stop != schema.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	if data, _ := os.ReadFile(made); string(data) != "made\n" {
		t.Fatalf("made.txt = %q after the turn, want the Write's text (result %+v)", data, h.toolResult(t, "w1"))
	}
	checkpointStall = nil
	res, err := h.sess.Rewind(context.Background(), schema.RewindParams{SessionID: h.sess.ID, Checkpoint: 1, Restore: schema.RestoreCode})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Applied {
		t.Fatalf("rewind not applied: %+v", res)
	}
	if _, err := os.Stat(made); !os.IsNotExist(err) {
		t.Errorf("made.txt is still there after the rewind (%v): the checkpoint was taken after the tool ran", err)
	}
}
