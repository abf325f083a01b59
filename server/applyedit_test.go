package server

import (
	"context"
	"errors"
	"testing"

	"github.com/agent-lsp/agent-lsp/workspace"
)

// TestApplyEditRefusesAChangedDocument: a change computed from text the
// editor no longer has (the user typed while its approval waited, and the
// didChange came in before the edit was sent) is refused without asking
// the editor: sent with the document's new version, the editor would
// apply it to the wrong text.
func TestApplyEditRefusesAChangedDocument(t *testing.T) {
	d := newLSPDoor(Options{})
	path := "/w/calc.py"
	d.overlay.Open(path, "# typed\nx = 1 / 2\n", 2)
	err := newLSPClient(d).ApplyEdit(context.Background(), workspace.FileChange{Path: path, Before: "x = 1 / 2\n", After: "x = 1 / 3\n"})
	var refused *workspace.EditRefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("ApplyEdit = %v, want an EditRefusedError", err)
	}
}
