package server

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// transcript is the markdown transcript of one plain-LSP session. Its
// file is opened at the first entry and kept open until the session is
// replaced (agent.newSession) or the connection ends. A nil *transcript
// (before the session exists) drops entries.
type transcript struct {
	path string
	logf func(string, ...any)

	mu     sync.Mutex // guards the fields below
	f      *os.File   // open once written, nil before and after close
	last   string     // kind of the last entry
	closed bool
}

func newTranscript(path string, logf func(string, ...any)) *transcript {
	return &transcript{path: path, logf: logf}
}

// append appends text, an entry of kind ("user", "agent", "tool",
// "plan", "end"), to the transcript. The model's text that follows
// another kind of entry gets an "Agent" heading. An entry that comes
// after close (a steering prompt's, racing the end of its session) is
// still written, through a file opened for it alone.
func (t *transcript) append(text, kind string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if kind == "agent" && t.last != "agent" {
		text = "\n\n## Agent\n\n" + text
	}
	t.last = kind
	if t.f == nil {
		if err := os.MkdirAll(filepath.Dir(t.path), 0o755); err != nil {
			t.logf("transcript: %v", err)
			return
		}
		f, err := os.OpenFile(t.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.logf("transcript: %v", err)
			return
		}
		t.f = f
	}
	if _, err := t.f.WriteString(text); err != nil {
		t.logf("transcript: %v", err)
	}
	if t.closed {
		t.closeFile()
	}
}

// close closes the transcript's file.
func (t *transcript) close() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	t.closeFile()
}

// closeFile closes the open file, if any. Callers hold t.mu.
func (t *transcript) closeFile() {
	if t.f == nil {
		return
	}
	if err := t.f.Close(); err != nil {
		t.logf("transcript: %v", err)
	}
	t.f = nil
}

// show opens the transcript in the editor, when it can.
func (t *transcript) show(ctx context.Context, lsp *lspDoor) {
	if t == nil || !lsp.capabilities().showDocument {
		return
	}
	takeFocus := false
	p := protocol.ShowDocumentParams{URI: uri.File(t.path), TakeFocus: &takeFocus}
	if err := lsp.c.peer.Call(ctx, "window/showDocument", p, nil); err != nil {
		lsp.c.logf("window/showDocument: %v", err)
	}
}
