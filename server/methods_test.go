package server

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/schema"
)

// TestDoorsServeEditorMethods: the doors serve every method that
// schema.EditorMethods says an editor sends, and every session method
// they serve is listed there, so the editors' copies checked against it
// (internal/protocheck) cannot miss one.
func TestDoorsServeEditorMethods(t *testing.T) {
	listed := map[string]bool{}
	for _, m := range schema.EditorMethods {
		listed[m.Name] = true
	}
	for _, door := range []struct {
		name  string
		table methodTable
	}{
		{"lsp", newLSPDoor(Options{}).c.methods},
		{"acp", newACPDoor(Options{}).c.methods},
	} {
		for _, m := range schema.EditorMethods {
			if m.Dir == schema.ToAgent && door.table[m.Name] == nil {
				t.Errorf("%s door: no handler for %s, which schema.EditorMethods says editors send", door.name, m.Name)
			}
		}
		for name := range door.table {
			if strings.HasPrefix(name, "session/") && !listed[name] {
				t.Errorf("%s door: serves %s, which schema.EditorMethods lacks", door.name, name)
			}
		}
	}
}
