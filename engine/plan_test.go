package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/permission"
)

// TestUnplannedCommandRunsReadOnly: a command whose tool call carries no
// plan runs in the read-only sandbox; only a plan that says so by name
// lets it write.
func TestUnplannedCommandRunsReadOnly(t *testing.T) {
	h := newHarness(t, newScript(t), nil, nil)
	if !h.sess.pipe.confiner.Available() {
		t.Skip("bubblewrap cannot run here")
	}
	var zero callPlan
	if zero.confine != permission.ConfineReadOnly {
		t.Fatalf("the zero plan is held %d, want the read-only sandbox", zero.confine)
	}
	write := func(ctx context.Context, name string) error {
		target := filepath.Join(h.dir, name)
		argv, release, err := h.sess.wrapCommand(ctx, []string{"/bin/sh", "-c", "echo x > " + target})
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if err := exec.Command(argv[0], argv[1:]...).Run(); err != nil {
			return err
		}
		_, err = os.Stat(target)
		return err
	}
	if err := write(context.Background(), "unplanned.txt"); err == nil {
		t.Error("a command without a plan wrote into the workspace")
	}
	if err := write(withConfinement(context.Background(), permission.ConfineWorkspace), "planned.txt"); err != nil {
		t.Errorf("a command planned to write the workspace could not: %v", err)
	}
}
