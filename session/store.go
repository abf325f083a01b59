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
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/providers"
)

// Sources of a listed session.
const (
	SourceAgentLSP = "agent-lsp" // our data directory
	SourceClaude   = "claude"    // Claude Code's $CLAUDE_CONFIG_DIR/projects (~/.claude/projects)
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
// be continued: "" means Claude Code's own ($CLAUDE_CONFIG_DIR, else
// ~/.claude), "-" means none.
func NewStore(dir, claudeDir string) *Store {
	switch claudeDir {
	case "-":
		claudeDir = ""
	case "":
		if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
			claudeDir = d
		} else if home, err := os.UserHomeDir(); err == nil {
			claudeDir = filepath.Join(home, ".claude")
		}
	}
	return &Store{dir: dir, claudeDir: claudeDir, Version: "agent-lsp"}
}

// projectDir returns the directory holding root's sessions for cwd.
func projectDir(root, cwd string) string {
	return filepath.Join(root, "projects", projectSlug(cwd))
}

func (s *Store) ourPath(cwd, id string) string {
	return filepath.Join(projectDir(s.dir, cwd), id+".jsonl")
}

// legacyOurPath is where sessions of a cwd whose slug is 201 to 255
// characters long were kept before slugs were cut ("" for other cwds).
func (s *Store) legacyOurPath(cwd, id string) string {
	if n := len(sanitize(cwd)); n <= maxSlug || n > 255 {
		return ""
	}
	return filepath.Join(s.dir, "projects", sanitize(cwd), id+".jsonl")
}

// claudePath is where Claude Code keeps session id of cwd: under the
// slug of the resolved cwd, as Claude Code resolves its working
// directory before naming the folder.
func (s *Store) claudePath(cwd, id string) string {
	if s.claudeDir == "" {
		return ""
	}
	return filepath.Join(projectDir(s.claudeDir, resolveCwd(cwd)), id+".jsonl")
}

// resolveCwd returns cwd with its symbolic links resolved, as Claude Code
// does (fs.realpathSync) before naming a session folder; cwd itself when
// it cannot be resolved.
func resolveCwd(cwd string) string {
	if r, err := filepath.EvalSymlinks(cwd); err == nil {
		return r
	}
	return cwd
}

// maxSlug is Claude Code's longest project folder name before the hash.
const maxSlug = 200

// projectSlug is Claude Code's project folder name for cwd (its cli.js:
// replace every character other than [a-zA-Z0-9] with '-', and cut a
// name longer than 200 characters to 200 followed by '-' and a hash of
// cwd), so that no name exceeds a file system's 255 bytes.
func projectSlug(cwd string) string {
	s := sanitize(cwd)
	if len(s) <= maxSlug {
		return s
	}
	return s[:maxSlug] + "-" + jsHash(cwd)
}

// jsHash is Claude Code's short hash of a string: the Java-style
// h = h*31 + c over UTF-16 code units in 32-bit arithmetic, made
// positive with Math.abs and written in base 36.
func jsHash(s string) string {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = h<<5 - h + int32(u)
	}
	v := int64(h)
	if v < 0 {
		v = -v
	}
	return strconv.FormatInt(v, 36)
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
	// Model is the model of the last response in the context, as the
	// file records it (Claude Code's message.model); "" when unknown.
	// Only Resume fills it.
	Model string
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
	// Permissions are, by tool_use_id, the user's answers to the
	// permission requests of tool calls (SetPermission). Only Load
	// fills it, for replaying.
	Permissions map[string]Permission
	// Usage is what the model's responses used, one entry per response
	// in order (the lines of one response counted once), subagents'
	// included, for the context size and the cost shown after a
	// replay. From Resume: only the responses since the last compaction.
	Usage []ResponseUsage
}

// Resume opens a session to continue it. It reads only from the last
// compaction boundary to the end of the file, walking backwards, so its
// cost follows the live context, not the file's size.
//
// The session's file is reopened for appending wherever it is, in our
// directory or in Claude Code's: a session has one history, which either
// tool can continue. The file is locked until Close, and ErrInUse is
// returned when it is already open; a torn last line is cut before the
// first write. (Claude Code itself takes no lock: do not continue one
// session in both tools at the same moment.) Fork continues a copy
// instead.
func (s *Store) Resume(cwd, sessionID string) (*Log, *History, error) {
	if err := checkArgs(cwd, sessionID); err != nil {
		return nil, nil, err
	}
	path, err := s.find(cwd, sessionID)
	if err != nil {
		return nil, nil, err
	}
	l := &Log{cwd: cwd, id: sessionID, path: path, version: s.Version, truncTo: -1, dirSynced: true}
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_APPEND, 0)
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

// find returns the file of a session: ours, else Claude Code's.
func (s *Store) find(cwd, sessionID string) (string, error) {
	paths := []string{s.ourPath(cwd, sessionID), s.legacyOurPath(cwd, sessionID), s.claudePath(cwd, sessionID)}
	for _, p := range paths {
		if p == "" {
			continue
		}
		_, err := os.Stat(p)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("opening session %s: %w", sessionID, err)
		}
	}
	return "", fmt.Errorf("%w: %s", ErrNotFound, sessionID)
}

// Fork continues session sessionID, ours or Claude Code's, as a new
// session newID in our directory, leaving the original as it is (Claude
// Code's --fork-session). The fork is copy-on-write: its file is created,
// holding the original's lines, on the first write through the returned
// Log; until then nothing is written.
func (s *Store) Fork(cwd, sessionID, newID string) (*Log, *History, error) {
	if err := checkArgs(cwd, sessionID); err != nil {
		return nil, nil, err
	}
	if err := checkArgs(cwd, newID); err != nil {
		return nil, nil, err
	}
	src, err := s.find(cwd, sessionID)
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(s.ourPath(cwd, newID)); err == nil {
		return nil, nil, fmt.Errorf("forking session %s: session %s exists", sessionID, newID)
	}
	f, err := os.Open(src)
	if err != nil {
		return nil, nil, fmt.Errorf("opening session %s: %w", sessionID, err)
	}
	defer f.Close()
	h, t, err := readResumeFile(f)
	if err != nil {
		return nil, nil, fmt.Errorf("reading session %s: %w", src, err)
	}
	l := &Log{cwd: cwd, id: newID, path: s.ourPath(cwd, newID), version: s.Version, truncTo: -1, dirSynced: true}
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
	entries := p.entries
	if len(lines) > 0 {
		if entries, err = withPreserved(r, lines[0].off, entries, &warn); err != nil {
			return nil, tail{}, err
		}
	}
	b := build(entries, &warn, false)
	var ti titleInfo
	if err := readHead(r, size, &ti, nil); err != nil {
		return nil, tail{}, err
	}
	for i := range p.entries {
		ti.add(&p.entries[i].e)
	}
	h := &History{Messages: b.messages, Title: ti.title(), Summary: b.summary, Warnings: warn.result(), Usage: usageOf(entries)}
	for i := len(entries) - 1; i >= 0; i-- {
		if e := &entries[i].e; e.Type == typeAssistant && e.Model != "" && e.Model != "<synthetic>" && !e.Sidechain {
			h.Model = e.Model
			break
		}
	}
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
	path, err := s.find(cwd, sessionID)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
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
// compaction segment. Sidechain (subagent) lines are skipped.
func loadAll(data []byte) *History {
	var warn warnings
	p := &parser{warn: &warn}
	p.parse(splitLines(data, 0))
	return p.history(&warn)
}

// history builds what p parsed into a History.
func (p *parser) history(warn *warnings) *History {
	h := &History{}
	var ti titleInfo
	for i := range p.entries {
		ti.add(&p.entries[i].e)
	}
	h.Title = ti.title()
	h.ToolUseResults = toolUseResults(p.entries)
	h.Permissions = permissionsOf(p.entries)
	h.Usage = usageOf(p.entries)
	for _, seg := range splitSegments(p.entries) {
		b := build(seg, warn, true)
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
