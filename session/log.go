package session

import (
	"crypto/rand"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
)

// Log appends to one session file. Each method writes whole lines with a
// single write on a file opened with O_APPEND; a line is durable once
// Sync returns. A write that fails part-way is cut back off the file so
// the next line does not land on a torn one. Safe for concurrent use.
type Log struct {
	cwd, id, path, version string

	mu sync.Mutex // guards the fields below and the file's end
	f  *os.File   // nil until the first write of a fork
	// src is the session file a fork ([Store.Fork]) copies on its first
	// write ("" once copied, and for other logs). Its first srcEnd bytes
	// are copied, plus a newline when srcNewline is set.
	src        string
	srcEnd     int64
	srcNewline bool
	// truncTo, when >= 0, is where a torn last line starts: the file is
	// cut there before the first write.
	truncTo int64
	// needNewline: the file's last line lacks its newline; write one
	// before the next line.
	needNewline bool
	size        int64      // the file's length as far as this Log knows
	leaf        string     // uuid the next message names as parentUuid
	base        string     // uuid to chain to when no message is left
	ids         [][]string // uuids of the lines behind each visible message
	pinned      int        // leading messages Delete may not remove
	titled      bool       // the session has a title line or a first prompt
	state       *State     // the last state written or read, written again after a compaction
	dirty       bool       // written since the last fsync
	dirSynced   bool       // the directories holding a new file were fsynced
	closed      bool
	// agentID names the subagent whose sidechain this log writes ("" for
	// a main session file); set at creation, never changed.
	agentID string
}

// restore sets the chain state from what Resume read.
func (l *Log) restore(r *resumed, t tail) {
	l.leaf, l.base, l.ids, l.pinned = r.built.leaf, r.built.base, r.built.ids, r.built.pinned
	l.titled = r.title
	l.state = r.State.clone()
	if t.needNewline {
		l.needNewline = true
	}
	if l.src == "" {
		if fi, err := l.f.Stat(); err == nil && fi.Size() > t.end {
			l.truncTo = t.end
		}
	}
}

// ID returns the session id.
func (l *Log) ID() string { return l.id }

// Path returns the session file the log appends to (for a fork, where
// the copy will be).
func (l *Log) Path() string { return l.path }

// Append writes m as one user or assistant line whose parentUuid is the
// previous message's. The first user prompt is preceded by a summary line
// carrying it as the session's title, so listing finds it in the file's
// first bytes whatever the prompt's size.
func (l *Log) Append(m providers.Message) error {
	return l.AppendResults(m, nil)
}

// AppendResults is Append for a message of tool results, with what each
// call did for display, by tool_use_id (Claude Code's toolUseResult
// shape): a line with one result carries it as toolUseResult, as Claude
// Code writes it; a line with several as toolUseResults.
func (l *Log) AppendResults(m providers.Message, results map[string]stdjson.RawMessage) error {
	return l.appendMessage(m, results, nil)
}

// AppendResponse is Append for a model's response, recorded with what
// info says of it (model, stop reason, usage) and a message id, as
// Claude Code writes its assistant lines.
func (l *Log) AppendResponse(m providers.Message, info ResponseInfo) error {
	return l.appendMessage(m, nil, &info)
}

func (l *Log) appendMessage(m providers.Message, results map[string]stdjson.RawMessage, info *ResponseInfo) error {
	if m.Role != providers.RoleUser && m.Role != providers.RoleAssistant {
		return fmt.Errorf("appending a message with role %q: want user or assistant", m.Role)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	le := newLineEncoder()
	id, now := newUUID(), timestamp()
	title := ""
	if !l.titled && m.Role == providers.RoleUser {
		title = promptTitle(m)
	}
	if title != "" {
		err := le.add(metaLine{Type: typeSummary, Summary: title, LeafUUID: id, SessionID: l.id, Cwd: l.cwd, Timestamp: now})
		if err != nil {
			return err
		}
	}
	line := l.messageLine(string(m.Role), id, now, &m)
	switch {
	case m.Role == providers.RoleAssistant:
		am := &assistantMessage{ID: newMessageID(), Type: "message", Role: m.Role, Content: m.Content}
		if info != nil {
			am.Model, am.Usage = info.Model, info.Usage
			if info.StopReason != "" {
				am.StopReason = &info.StopReason
			}
		}
		line.Message = am
	case len(m.Content) == 1 && m.Content[0].Type == providers.BlockText:
		line.Message = &promptMessage{Role: m.Role, Content: m.Content[0].Text}
	}
	if len(results) > 0 {
		var ids []string
		for _, b := range m.Content {
			if b.Type == providers.BlockToolResult {
				ids = append(ids, b.ToolUseID)
			}
		}
		if len(ids) == 1 {
			line.ToolUseResult = results[ids[0]]
		} else {
			line.ToolUseResults = make(map[string]stdjson.RawMessage)
			for _, tid := range ids {
				if r, ok := results[tid]; ok {
					line.ToolUseResults[tid] = r
				}
			}
		}
	}
	if err := le.add(line); err != nil {
		return err
	}
	if err := l.writeLocked(le.buf.Bytes()); err != nil {
		return err
	}
	l.ids = append(l.ids, []string{id})
	l.leaf = id
	if title != "" {
		l.titled = true
	}
	return nil
}

// Triggers of a compaction, as Claude Code records them in
// compactMetadata.trigger.
const (
	TriggerAuto   = "auto"   // the context filled up
	TriggerManual = "manual" // the user asked (/compact)
)

// AppendSummary writes a compaction boundary the way Claude Code does: a
// compact_boundary system line (a new chain root whose logicalParentUuid
// is the previous message, with compactMetadata.trigger set to trigger)
// and a user line holding summary, marked isCompactSummary. Loading and resuming start the model's context at
// that summary. Messages to keep verbatim after the summary must be
// appended again after this call.
func (l *Log) AppendSummary(summary, trigger string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	le := newLineEncoder()
	now := timestamp()
	bid, sid := newUUID(), newUUID()
	boundary := l.messageLine(typeSystem, bid, now, nil)
	boundary.ParentUUID = nil
	boundary.LogicalParentUUID = l.leaf
	boundary.Subtype = subtypeCompactBoundary
	boundary.Content = "Conversation compacted"
	boundary.Level = "info"
	boundary.CompactMetadata = &compactMetadata{Trigger: trigger}
	if err := le.add(boundary); err != nil {
		return err
	}
	m := providers.Message{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock(summary)}}
	line := l.messageLine(typeUser, sid, now, &m)
	line.ParentUUID = &bid
	line.IsCompactSummary = true
	line.IsVisibleInTranscriptOnly = true
	if err := le.add(line); err != nil {
		return err
	}
	if l.state != nil {
		// Resuming reads from the boundary on: the state goes with it.
		if err := le.add(l.stateLine(l.state)); err != nil {
			return err
		}
	}
	if err := l.writeLocked(le.buf.Bytes()); err != nil {
		return err
	}
	l.ids, l.pinned = [][]string{{sid}}, 1
	l.leaf, l.base = sid, bid
	return nil
}

// Delete writes a tombstone for the last n visible messages (every line
// behind each, for a Claude Code response split over several lines).
// Loading skips them, and the next message chains to the one before
// them. The compaction summary opening the context cannot be deleted.
func (l *Log) Delete(n int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n < 0 || n > len(l.ids)-l.pinned {
		return fmt.Errorf("deleting %d messages: %d can be deleted", n, len(l.ids)-l.pinned)
	}
	if n == 0 {
		return nil
	}
	keep := len(l.ids) - n
	var gone []string
	for _, ids := range l.ids[keep:] {
		for _, id := range ids {
			if id != "" {
				gone = append(gone, id)
			}
		}
	}
	le := newLineEncoder()
	if err := le.add(metaLine{Type: typeTombstone, Deleted: gone, SessionID: l.id, Timestamp: timestamp()}); err != nil {
		return err
	}
	if err := l.writeLocked(le.buf.Bytes()); err != nil {
		return err
	}
	l.ids = l.ids[:keep]
	l.leaf = l.base
	if keep > 0 {
		last := l.ids[keep-1]
		l.leaf = last[len(last)-1]
	}
	return nil
}

// SetTitle names the session with a custom-title line (Claude Code's
// rename), which takes precedence over the first prompt in listings.
func (l *Log) SetTitle(title string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	le := newLineEncoder()
	if err := le.add(metaLine{Type: typeCustomTitle, CustomTitle: title, SessionID: l.id, Timestamp: timestamp()}); err != nil {
		return err
	}
	if err := l.writeLocked(le.buf.Bytes()); err != nil {
		return err
	}
	l.titled = true
	return nil
}

// Sync makes everything appended so far durable: it fsyncs the file and,
// the first time, the directories that hold it.
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	return l.syncLocked()
}

func (l *Log) syncLocked() error {
	if l.f == nil || !l.dirty {
		return nil
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", l.path, err)
	}
	l.dirty = false
	if !l.dirSynced {
		dir := filepath.Dir(l.path)
		for _, d := range []string{dir, filepath.Dir(dir)} {
			if err := syncDir(d); err != nil {
				return err
			}
		}
		l.dirSynced = true
	}
	return nil
}

// Close syncs and closes the file, releasing the session for other
// writers. Later calls return ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	l.closed = true
	if l.f == nil {
		return nil
	}
	err := l.syncLocked()
	if cerr := l.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("closing %s: %w", l.path, cerr)
	}
	l.f = nil
	return err
}

// messageLine returns a chain line of type typ.
func (l *Log) messageLine(typ, id, now string, m *providers.Message) messageLine {
	var parent *string
	if l.leaf != "" {
		p := l.leaf
		parent = &p
	}
	line := messageLine{
		ParentUUID:  parent,
		IsSidechain: l.agentID != "",
		AgentID:     l.agentID,
		UserType:    "external",
		Cwd:         l.cwd,
		SessionID:   l.id,
		Version:     l.version,
		GitBranch:   gitBranch(l.cwd),
		Type:        typ,
		UUID:        id,
		Timestamp:   now,
	}
	if m != nil {
		line.Message = m
	}
	return line
}

// writeLocked appends buf (whole lines) to the file.
func (l *Log) writeLocked(buf []byte) error {
	if l.closed {
		return ErrClosed
	}
	if err := l.prepareLocked(); err != nil {
		return err
	}
	if l.needNewline {
		if err := l.writeRaw([]byte{'\n'}); err != nil {
			return err
		}
		l.needNewline = false
	}
	return l.writeRaw(buf)
}

func (l *Log) writeRaw(buf []byte) error {
	l.dirty = true
	n, err := l.f.Write(buf)
	if err == nil {
		l.size += int64(n)
		return nil
	}
	if n > 0 {
		// Cut the partial line so the next write starts clean.
		if terr := l.f.Truncate(l.size); terr != nil {
			return fmt.Errorf("appending to %s: %w (and removing the partial line: %v)", l.path, err, terr)
		}
	}
	return fmt.Errorf("appending to %s: %w", l.path, err)
}

// prepareLocked opens the file for the first write: it copies the
// session a fork continues, or cuts a torn last line.
func (l *Log) prepareLocked() error {
	if l.f == nil {
		if err := l.copySource(); err != nil {
			return fmt.Errorf("forking session %s: %w", l.id, err)
		}
	}
	if l.truncTo >= 0 {
		if err := l.f.Truncate(l.truncTo); err != nil {
			return fmt.Errorf("removing the torn last line of %s: %w", l.path, err)
		}
		l.size, l.truncTo = l.truncTo, -1
	}
	return nil
}

// copySource copies the forked session's file into our directory through
// a temporary file linked into place, so a crash never leaves half a copy
// under the new id and a concurrent fork to that id is detected.
func (l *Log) copySource() error {
	dir := filepath.Dir(l.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	src, err := os.Open(l.src)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(dir, "."+l.id+".copy*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	n, err := io.Copy(tmp, io.LimitReader(src, l.srcEnd))
	if err != nil {
		return fmt.Errorf("copying %s: %w", l.src, err)
	}
	if n != l.srcEnd {
		return fmt.Errorf("copying %s: it shrank from %d to %d bytes", l.src, l.srcEnd, n)
	}
	if l.srcNewline {
		if _, err := tmp.Write([]byte{'\n'}); err != nil {
			return err
		}
		n++
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), l.path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%w: it was continued by another writer", ErrInUse)
		}
		// A file system without hard links: rename, after checking.
		if _, serr := os.Lstat(l.path); serr == nil {
			return fmt.Errorf("%w: it was continued by another writer", ErrInUse)
		}
		if err := os.Rename(tmp.Name(), l.path); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return err
	}
	l.f, l.size, l.src = f, n, ""
	l.dirty, l.dirSynced = true, false
	return nil
}

// syncDir fsyncs a directory so the entries created in it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hexd = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hexd[c>>4], hexd[c&0xf])
	}
	return string(out)
}

// newMessageID returns an id for a response's message.id, in the API's
// shape (msg_ and 24 characters). Claude Code groups the lines of one
// response by it.
func newMessageID() string {
	var b [12]byte
	rand.Read(b[:])
	return fmt.Sprintf("msg_%x", b)
}

// timestamp returns the current time as Claude Code writes it (JavaScript's
// toISOString).
func timestamp() string {
	return time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
}
