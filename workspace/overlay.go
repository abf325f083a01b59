package workspace

import (
	"fmt"
	"sync"

	"github.com/agent-lsp/agent-lsp/diffs"
)

// Overlay holds the text of the documents open in the editor, keyed by
// absolute path. It is safe for concurrent use.
type Overlay struct {
	mu   sync.Mutex
	docs map[string]*document // guarded by mu
	// pending holds text the agent wrote through the editor that the
	// overlay has not seen come back yet (guarded by mu).
	pending map[string]string
}

type document struct {
	text    string
	version int32
}

// Change is one content change of a didChange notification: a range
// replaced by Text, or the whole text when Range is nil.
type Change struct {
	Range *Range
	Text  string
}

// Range is a span of a document in LSP positions.
type Range struct {
	Start, End diffs.Position
}

// NewOverlay returns an empty overlay.
func NewOverlay() *Overlay {
	return &Overlay{docs: make(map[string]*document), pending: make(map[string]string)}
}

// Open records a document opened in the editor.
func (o *Overlay) Open(path, text string, version int32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.docs[path] = &document{text: text, version: version}
	delete(o.pending, path)
}

// Change applies a didChange notification's changes in order. A change
// for a document that is not open is an error.
func (o *Overlay) Change(path string, version int32, changes []Change) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	d, ok := o.docs[path]
	if !ok {
		return fmt.Errorf("didChange for %s, which is not open (send didOpen first)", path)
	}
	for _, c := range changes {
		if c.Range == nil {
			d.text = c.Text
			continue
		}
		d.text = diffs.Apply(d.text, []diffs.TextEdit{{Start: c.Range.Start, End: c.Range.End, NewText: c.Text}})
	}
	d.version = version
	delete(o.pending, path)
	return nil
}

// Close forgets a document closed in the editor.
func (o *Overlay) Close(path string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.docs, path)
	delete(o.pending, path)
}

// Saved notes a didSave: the disk now holds the editor's text.
func (o *Overlay) Saved(path string, text *string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if d, ok := o.docs[path]; ok && text != nil {
		d.text = *text
	}
	delete(o.pending, path)
}

// Get returns the editor's text of path and whether the editor has it:
// an open document, or a change applied through the editor whose echo
// (didChange) has not arrived yet.
func (o *Overlay) Get(path string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if p, ok := o.pending[path]; ok {
		return p, true
	}
	if d, ok := o.docs[path]; ok {
		return d.text, true
	}
	return "", false
}

// Snapshot returns, under one lock, what Get returns for path and the
// editor's version of it (open is false when the document is not open,
// and the version then means nothing): an edit computed from that text
// is sent with that version, and no didChange can come in between.
func (o *Overlay) Snapshot(path string) (text string, version int32, open, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	d, open := o.docs[path]
	if open {
		text, version, ok = d.text, d.version, true
	}
	if p, pending := o.pending[path]; pending {
		text, ok = p, true
	}
	return text, version, open, ok
}

// IsOpen reports whether path is open in the editor.
func (o *Overlay) IsOpen(path string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.docs[path]
	return ok
}

// Version returns the editor's version of an open document.
func (o *Overlay) Version(path string) (int32, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if d, ok := o.docs[path]; ok {
		return d.version, true
	}
	return 0, false
}

// Paths returns the paths of the open documents.
func (o *Overlay) Paths() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]string, 0, len(o.docs))
	for p := range o.docs {
		out = append(out, p)
	}
	return out
}

// wrote records text the editor accepted for path. Editors may report the
// change (didChange) before or after they answer the edit request, or not
// at all for a buffer the server is not attached to; until the next
// notification about path, reads see the written text.
func (o *Overlay) wrote(path, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pending[path] = text
}
