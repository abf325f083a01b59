package session

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/providers"
)

// Sources of a listed session.
const (
	SourceAgentLSP = "agent-lsp" // our data directory
	SourceClaude   = "claude"    // Claude Code's ~/.claude/projects, read-only
)

var (
	// ErrNotFound is returned (wrapped) for a session that exists in
	// neither directory.
	ErrNotFound = errors.New("session not found")
	// ErrInUse is returned (wrapped) when another Log, in this process or
	// another, has the session open for appending.
	ErrInUse = errors.New("session is open for writing elsewhere")
	// ErrClosed is returned by a Log's methods after Close.
	ErrClosed = errors.New("session log is closed")
)

// InUseError is the error (matching ErrInUse) of a session whose file
// another Log holds locked: in another process, or in this one.
type InUseError struct {
	// Path is the session file.
	Path string
	// PID is the process holding the lock; 0 when the system does not
	// tell (only Linux does, in /proc/locks).
	PID int
	// Command is that process's command line, when known.
	Command string
}

func (e *InUseError) Error() string {
	switch {
	case e.PID != 0 && e.Command != "":
		return fmt.Sprintf("%v: process %d (%s) holds %s", ErrInUse, e.PID, e.Command, e.Path)
	case e.PID != 0:
		return fmt.Sprintf("%v: process %d holds %s", ErrInUse, e.PID, e.Path)
	}
	return fmt.Sprintf("%v: another process holds %s", ErrInUse, e.Path)
}

// Is makes errors.Is(err, ErrInUse) true.
func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// headSize is how much of a file's start is read for its title and cwd.
const headSize = 32 << 10

// DefaultDir returns the data directory: $AGENT_LSP_HOME, else
// $XDG_STATE_HOME/agent-lsp, else ~/.local/state/agent-lsp.
func DefaultDir() string {
	if d := os.Getenv("AGENT_LSP_HOME"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "agent-lsp")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "agent-lsp")
	}
	return filepath.Join(home, ".local", "state", "agent-lsp")
}

// Store finds, creates and lists session files. It holds no state of its
// own beyond its directories and is safe for concurrent use.
type Store struct {
	dir       string // our data directory
	claudeDir string // Claude Code's directory; "" for none

	// Version is written in the version field of each line. Set it
	// before first use.
	Version string
}

// NewStore returns a store keeping sessions under dir/projects. claudeDir
// is Claude Code's directory, whose projects/ sessions are listed and can
// be continued: "" means ~/.claude, "-" means none.
func NewStore(dir, claudeDir string) *Store {
	switch claudeDir {
	case "-":
		claudeDir = ""
	case "":
		if home, err := os.UserHomeDir(); err == nil {
			claudeDir = filepath.Join(home, ".claude")
		}
	}
	return &Store{dir: dir, claudeDir: claudeDir, Version: "agent-lsp"}
}

// projectDir returns the directory holding root's sessions for cwd.
func projectDir(root, cwd string) string {
	return filepath.Join(root, "projects", sanitize(cwd))
}

func (s *Store) ourPath(cwd, id string) string {
	return filepath.Join(projectDir(s.dir, cwd), id+".jsonl")
}

func (s *Store) claudePath(cwd, id string) string {
	if s.claudeDir == "" {
		return ""
	}
	return filepath.Join(projectDir(s.claudeDir, cwd), id+".jsonl")
}

// sanitize turns a directory into a directory name the way Claude Code
// does: every character other than an ASCII letter or digit becomes '-'
// (one per UTF-16 code unit, as in JavaScript).
func sanitize(cwd string) string {
	var b strings.Builder
	for i := 0; i < len(cwd); {
		r, n := utf8.DecodeRuneInString(cwd[i:])
		i += n
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// checkArgs validates a cwd and a session id before they become a path.
func checkArgs(cwd, id string) error {
	if !filepath.IsAbs(cwd) {
		return fmt.Errorf("session cwd %q is not an absolute path", cwd)
	}
	if id == "" || len(id) > 200 || id[0] == '.' {
		return fmt.Errorf("invalid session id %q", id)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("invalid session id %q: only letters, digits, '-', '_' and '.' are allowed", id)
		}
	}
	return nil
}

// Create starts a new session file at <dir>/projects/<sanitized cwd>/<id>.jsonl.
// It fails if the session exists.
func (s *Store) Create(cwd, sessionID string) (*Log, error) {
	if err := checkArgs(cwd, sessionID); err != nil {
		return nil, err
	}
	path := s.ourPath(cwd, sessionID)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating session directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating session %s: %w", sessionID, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("creating session %s: %w", sessionID, err)
	}
	// dirty: the new directory entries are not durable until Sync.
	return &Log{cwd: cwd, id: sessionID, path: path, version: s.Version, f: f, truncTo: -1, dirty: true}, nil
}

// History is a session's conversation as loaded.
type History struct {
	// Messages are the conversation. From Resume: the model's context,
	// that is the last compaction summary (as a user message) and what
	// follows it. From Load: every visible message across compactions,
	// each compaction summary in its place.
	Messages []providers.Message
	// ContextStart is the index in Messages where the model's context
	// begins (always 0 from Resume).
	ContextStart int
	// Title names the session: a title set for it, else its summary
	// line, else its first prompt.
	Title string
	// Summary is the text of the last compaction summary, if any.
	Summary string
	// State is the session's last saved state (mode, model, "always"
	// answers); nil when none was saved.
	State *State
	// Warnings describe what loading skipped: a torn last line left by a
	// crash, unreadable lines, a broken message chain.
	Warnings []string
	// ToolUseResults are, by tool_use_id, what each tool call did as the
	// session file recorded it for display: Claude Code's toolUseResult
	// (an Edit's filePath, oldString, newString, originalFile and
	// structuredPatch; a Write's type, content and originalFile; ...).
	// Only Load fills it, for replaying.
	ToolUseResults map[string]stdjson.RawMessage
}

// Resume opens a session to continue it. It reads only from the last
// compaction boundary to the end of the file, walking backwards, so its
// cost follows the live context, not the file's size.
//
// A session in our directory is reopened for appending; it is locked
// until Close, and ErrInUse is returned when it is already open. A
// session found only under Claude Code's directory is continued
// copy-on-write: its file is never written; the first write through the
// returned Log copies it into our directory under the same id and appends
// there, and from then on that copy is the session (List shows it
// instead of Claude Code's). Until then nothing is created.
func (s *Store) Resume(cwd, sessionID string) (*Log, *History, error) {
	if err := checkArgs(cwd, sessionID); err != nil {
		return nil, nil, err
	}
	l := &Log{cwd: cwd, id: sessionID, path: s.ourPath(cwd, sessionID), version: s.Version, truncTo: -1, dirSynced: true}
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return s.resumeClaude(l)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("opening session %s: %w", sessionID, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("opening session %s: %w", sessionID, err)
	}
	h, t, err := readResumeFile(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("reading session %s: %w", l.path, err)
	}
	l.f, l.size = f, t.end
	l.restore(h, t)
	return l, h.History, nil
}

func (s *Store) resumeClaude(l *Log) (*Log, *History, error) {
	src := s.claudePath(l.cwd, l.id)
	if src == "" {
		return nil, nil, fmt.Errorf("%w: %s", ErrNotFound, l.id)
	}
	f, err := os.Open(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w: %s", ErrNotFound, l.id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("opening session %s: %w", l.id, err)
	}
	defer f.Close()
	h, t, err := readResumeFile(f)
	if err != nil {
		return nil, nil, fmt.Errorf("reading session %s: %w", src, err)
	}
	l.src, l.srcEnd, l.srcNewline = src, t.end, t.needNewline
	l.restore(h, t)
	l.needNewline = false // the copy gets its newline
	return l, h.History, nil
}

// resumed is what Resume read.
type resumed struct {
	*History
	built built
	title bool
}

func readResumeFile(f *os.File) (*resumed, tail, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, tail{}, err
	}
	return readResume(f, fi.Size())
}

// readResume reads the live part of a session file of size bytes and its
// head.
func readResume(r io.ReaderAt, size int64) (*resumed, tail, error) {
	lines, err := readContext(r, size)
	if err != nil {
		return nil, tail{}, err
	}
	var warn warnings
	p := &parser{warn: &warn}
	p.parse(lines)
	b := build(p.entries, &warn)
	var ti titleInfo
	if err := readHead(r, size, &ti, nil); err != nil {
		return nil, tail{}, err
	}
	for i := range p.entries {
		ti.add(&p.entries[i].e)
	}
	h := &History{Messages: b.messages, Title: ti.title(), Summary: b.summary, Warnings: warn.result()}
	h.State = stateOf(p.entries)
	if h.State == nil && len(lines) > 0 && lines[0].off > 0 {
		// Not in the live part (a compaction by another writer): the
		// last one before it.
		if h.State, err = lastState(r, lines[0].off); err != nil {
			return nil, tail{}, err
		}
	}
	return &resumed{History: h, built: b, title: h.Title != ""}, p.tail, nil
}

// readHead feeds the complete lines in the first headSize bytes of r to
// ti. buf, when large enough, is used to read into.
func readHead(r io.ReaderAt, size int64, ti *titleInfo, buf []byte) error {
	n := min(size, headSize)
	if int64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := r.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	whole := n == size
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, '\n')
		line := buf
		if i >= 0 {
			line, buf = buf[:i], buf[i+1:]
		} else if !whole {
			break // cut by the head's end
		} else {
			buf = nil
		}
		if ti.needs(line) {
			if e, err := parseLine(line); err == nil {
				ti.add(&e)
			}
		}
	}
	return nil
}

// Load reads a whole session, ours or else Claude Code's, for replay. It
// never writes.
func (s *Store) Load(cwd, sessionID string) (*History, error) {
	if err := checkArgs(cwd, sessionID); err != nil {
		return nil, err
	}
	path := s.ourPath(cwd, sessionID)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) && s.claudeDir != "" {
		path = s.claudePath(cwd, sessionID)
		f, err = os.Open(path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, sessionID)
	}
	if err != nil {
		return nil, fmt.Errorf("opening session %s: %w", sessionID, err)
	}
	defer f.Close()
	// The whole file at once: lines have no length limit, and decoding
	// can be shared between cores.
	data, err := readAll(f)
	if err != nil {
		return nil, fmt.Errorf("reading session %s: %w", path, err)
	}
	return loadAll(data), nil
}

// readAll reads f into a buffer of its size.
func readAll(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	data := make([]byte, fi.Size())
	n, err := io.ReadFull(f, data)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil // it shrank meanwhile
	}
	return data[:n], err
}

// loadAll decodes every line of a session file and builds each
// compaction segment.
func loadAll(data []byte) *History {
	var warn warnings
	p := &parser{warn: &warn}
	p.parse(splitLines(data, 0))
	h := &History{}
	var ti titleInfo
	for i := range p.entries {
		ti.add(&p.entries[i].e)
	}
	h.Title = ti.title()
	h.ToolUseResults = toolUseResults(p.entries)
	for _, seg := range splitSegments(p.entries) {
		b := build(seg, &warn)
		h.ContextStart = len(h.Messages)
		h.Messages = append(h.Messages, b.messages...)
		h.Summary = b.summary
	}
	h.Warnings = warn.result()
	h.State = stateOf(p.entries)
	return h
}

// toolUseResults collects the toolUseResult of every tool result line.
func toolUseResults(entries []parsed) map[string]stdjson.RawMessage {
	out := map[string]stdjson.RawMessage{}
	for i := range entries {
		e := &entries[i].e
		for id, v := range e.ToolUseResults {
			out[id] = stdjson.RawMessage(v)
		}
		if e.ToolUseResult == nil || e.Message == nil {
			continue
		}
		// Claude Code's field belongs to the line's (one) tool result.
		for _, b := range e.Message.Content {
			if b.Type == providers.BlockToolResult {
				out[b.ToolUseID] = stdjson.RawMessage(e.ToolUseResult)
				break
			}
		}
	}
	return out
}
