package wrap

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/diffs"
	"github.com/agent-lsp/agent-lsp/workspace"
)

// diagnosticsParams are agent/diagnostics' params, as the agent asks
// its editor (docs/protocol.md, agent/diagnostics): wrap mode answers them.
type diagnosticsParams struct {
	URI string `json:"uri"`
	// Version, when set, asks for diagnostics that reflect that version
	// of the document, waiting at most TimeoutMs.
	Version   *int32 `json:"version,omitempty"`
	TimeoutMs int    `json:"timeoutMs,omitempty"`
}

// documentPath returns the file path of a document URI of method's
// params, or an error saying what is wrong with it.
func documentPath(method string, u string) (string, error) {
	if u == "" {
		return "", fmt.Errorf("%s: textDocument.uri is missing", method)
	}
	parsed, err := uri.Parse(u)
	if err != nil || !parsed.IsFile() {
		return "", fmt.Errorf("%s: only file:// documents are tracked, got %q", method, u)
	}
	return parsed.FsPath(), nil
}

func toDiffsPos(p protocol.Position) diffs.Position {
	return diffs.Position{Line: p.Line, Character: p.Character}
}

// diagStore keeps the wrapped server's diagnostics per document and
// answers agent/diagnostics from them, waiting (bounded) for diagnostics
// newer than an edit.
type diagStore struct {
	mu   sync.Mutex
	seq  uint64                // counts events, guarded by mu
	docs map[string]*diagState // by path, guarded by mu
	wake chan struct{}         // closed and replaced on each event, guarded by mu
}

type diagState struct {
	languageID string
	diags      json.RawMessage
	published  uint64      // event number of the last publication; 0: never
	versions   [][2]uint64 // [version, event number when reached], the last few
}

func newDiagStore() *diagStore {
	return &diagStore{docs: map[string]*diagState{}, wake: make(chan struct{})}
}

func (d *diagStore) doc(path string) *diagState {
	st, ok := d.docs[path]
	if !ok {
		st = &diagState{}
		d.docs[path] = st
	}
	return st
}

// event records something that happened to path; callers hold mu.
func (d *diagStore) event() uint64 {
	d.seq++
	close(d.wake)
	d.wake = make(chan struct{})
	return d.seq
}

func (d *diagStore) opened(path, languageID string, version int32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.doc(path)
	st.languageID = languageID
	st.versions = append(st.versions, [2]uint64{uint64(max(version, 0)), d.event()})
}

func (d *diagStore) changed(path string, version int32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.doc(path)
	st.versions = append(st.versions, [2]uint64{uint64(max(version, 0)), d.event()})
	if len(st.versions) > 16 {
		st.versions = st.versions[1:]
	}
}

func (d *diagStore) publish(params json.RawMessage) {
	var p struct {
		URI         string          `json:"uri"`
		Diagnostics json.RawMessage `json:"diagnostics"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	path, err := documentPath("textDocument/publishDiagnostics", p.URI)
	if err != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.doc(path)
	st.diags = p.Diagnostics
	st.published = d.event()
}

func (d *diagStore) languageID(path string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if st, ok := d.docs[path]; ok && st.languageID != "" {
		return st.languageID
	}
	return filepath.Ext(path)
}

// ready reports whether path's diagnostics were published after the
// document reached version; callers hold mu.
func (d *diagStore) ready(path string, version uint64) bool {
	st, ok := d.docs[path]
	if !ok || st.published == 0 {
		return true // no diagnostics ever: nothing to wait for
	}
	for _, v := range st.versions {
		if v[0] >= version {
			return st.published > v[1]
		}
	}
	return false
}

// answer answers agent/diagnostics.
func (d *diagStore) answer(ctx context.Context, p diagnosticsParams, docs *workspace.Overlay) json.RawMessage {
	path, err := documentPath("agent/diagnostics", p.URI)
	if err != nil {
		return json.RawMessage("[]")
	}
	if p.Version != nil {
		version := uint64(max(*p.Version, 0))
		if v, ok := docs.Version(path); ok && uint64(max(v, 0)) > version {
			version = uint64(v)
		}
		wait := time.Duration(p.TimeoutMs) * time.Millisecond
		if wait <= 0 {
			wait = 1500 * time.Millisecond
		}
		ctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		for {
			d.mu.Lock()
			ok, wake := d.ready(path, version), d.wake
			d.mu.Unlock()
			if ok {
				break
			}
			select {
			case <-wake:
				continue
			case <-ctx.Done():
			}
			break
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if st, ok := d.docs[path]; ok && len(st.diags) > 0 {
		return st.diags
	}
	return json.RawMessage("[]")
}
