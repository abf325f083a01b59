package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agent-lsp/agent-lsp/providers"
)

// maxWarnings caps the warnings one load reports; the rest are counted.
const maxWarnings = 10

// warnings collects load warnings, capped at maxWarnings.
type warnings struct {
	list    []string
	dropped int
}

func (w *warnings) add(format string, args ...any) {
	if len(w.list) >= maxWarnings {
		w.dropped++
		return
	}
	w.list = append(w.list, fmt.Sprintf(format, args...))
}

func (w *warnings) result() []string {
	if w.dropped > 0 {
		return append(w.list, fmt.Sprintf("%d more warnings not shown", w.dropped))
	}
	return w.list
}

// tail describes how a file ends.
type tail struct {
	// end is the length of the file's valid prefix: everything but a torn
	// last line.
	end int64
	// needNewline is set when the last line is complete JSON without its
	// newline: the next line written must start with one.
	needNewline bool
}

// lineSink receives the lines of a file in order with their offsets.
// final is set for text after the last newline.
type lineSink func(raw []byte, off int64, final bool)

// parsed is a line that decoded.
type parsed struct {
	e        entry
	boundary bool
}

// parser turns raw lines into entries, reporting bad ones.
type parser struct {
	entries []parsed
	tail    tail
	warn    *warnings
}

func (p *parser) line(raw []byte, off int64, final bool) {
	end := off + int64(len(raw))
	if isBlank(raw) {
		if final {
			p.tail.end = off + int64(len(raw))
		} else {
			p.tail.end = end + 1
		}
		return
	}
	e, err := parseLine(raw)
	switch {
	case err != nil && final:
		p.warn.add("skipped a torn last line (%d bytes at offset %d), left by an interrupted write", len(raw), off)
		p.tail.end = off
		return
	case err != nil:
		p.warn.add("skipped an unreadable line (%d bytes at offset %d): %v", len(raw), off, err)
	default:
		p.entries = append(p.entries, parsed{e: e, boundary: lineIsBoundary(raw, &e, err)})
	}
	if final {
		p.tail.end, p.tail.needNewline = end, true
	} else {
		p.tail.end = end + 1
	}
}

// isBlank reports whether raw holds only JSON whitespace.
func isBlank(raw []byte) bool {
	for _, c := range raw {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// readForward reads every line of r from offset 0 with no limit on line
// length.
func readForward(r io.Reader, sink lineSink) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var off int64
	var long []byte // a line longer than the buffer, being assembled
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			long = append(long, chunk...)
			continue
		case err == nil:
			line := chunk
			if long != nil {
				line = append(long, chunk...)
				long = long[:0]
			}
			body := line[:len(line)-1]
			sink(body, off, false)
			off += int64(len(line))
		case errors.Is(err, io.EOF):
			line := chunk
			if long != nil {
				line = append(long, chunk...)
			}
			if len(line) > 0 {
				sink(line, off, true)
			} else {
				sink(nil, off, true)
			}
			return nil
		default:
			return err
		}
	}
}

// backScanner yields the lines of a file from the last to the first,
// reading backwards in growing blocks. Returned lines stay valid: blocks
// are never reused.
type backScanner struct {
	r     io.ReaderAt
	pos   int64  // file offset of buf[0]
	buf   []byte // bytes not yet returned: [pos, pos+len(buf))
	block int64
	done  bool
}

func newBackScanner(r io.ReaderAt, size int64) *backScanner {
	return &backScanner{r: r, pos: size, block: 256 << 10}
}

// prev returns the line before the ones already returned, without its
// newline, and its offset. The first call returns the text after the
// last newline (empty when the file ends with one). It returns io.EOF
// when no line is left.
func (s *backScanner) prev() ([]byte, int64, error) {
	for {
		if i := bytes.LastIndexByte(s.buf, '\n'); i >= 0 {
			line := s.buf[i+1:]
			s.buf = s.buf[:i]
			return line, s.pos + int64(i) + 1, nil
		}
		if s.pos == 0 {
			if s.done {
				return nil, 0, io.EOF
			}
			s.done = true
			line := s.buf
			s.buf = nil
			return line, 0, nil
		}
		n := min(s.block, s.pos)
		if s.block < 16<<20 {
			s.block *= 2
		}
		nb := make([]byte, int(n)+len(s.buf))
		if _, err := s.r.ReadAt(nb[:n], s.pos-n); err != nil {
			return nil, 0, err
		}
		copy(nb[n:], s.buf)
		s.buf, s.pos = nb, s.pos-n
	}
}

// readContext reads the lines from the last compaction boundary to the
// end of the file (the whole file when it has none), walking backwards
// so a long session costs only its live part.
func readContext(r io.ReaderAt, size int64, sink lineSink) error {
	type line struct {
		raw []byte
		off int64
	}
	var lines []line
	s := newBackScanner(r, size)
	for {
		raw, off, err := s.prev()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		lines = append(lines, line{raw, off})
		if !hasBoundaryMarker(raw) {
			continue
		}
		if e, err := parseLine(raw); lineIsBoundary(raw, &e, err) {
			break
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		sink(lines[i].raw, lines[i].off, i == 0)
	}
	return nil
}

// built is the conversation one segment (the lines from one compaction
// boundary to the next) holds.
type built struct {
	messages []providers.Message
	ids      [][]string // uuids of the lines behind each message
	leaf     string     // uuid a new line should name as its parent
	base     string     // uuid to chain to when every message is deleted
	summary  string     // the compaction summary opening the segment
	pinned   int        // leading messages Delete may not remove (the summary)
}

// splitSegments splits entries at compaction boundaries.
func splitSegments(entries []parsed) [][]parsed {
	var segs [][]parsed
	start := 0
	for i, p := range entries {
		if p.boundary && i > start {
			segs = append(segs, entries[start:i])
			start = i
		}
	}
	return append(segs, entries[start:])
}

// build turns one segment into messages. It follows the parentUuid chain
// back from the last message, as Claude Code does, so abandoned branches
// (a rewind, a deletion followed by new turns) drop out; tombstoned lines
// are skipped. When the chain breaks (a line it runs through did not
// decode) it falls back to file order.
func build(seg []parsed, warn *warnings) built {
	var b built
	deleted := map[string]bool{}
	index := make(map[string]int, len(seg))
	for i := range seg {
		e := &seg[i].e
		if e.Type == typeTombstone {
			for _, id := range e.Deleted {
				deleted[id] = true
			}
		}
		if e.UUID != "" {
			index[e.UUID] = i
		}
	}
	if len(seg) > 0 && seg[0].boundary {
		b.base = seg[0].e.UUID
	}
	visible := func(i int) bool { return seg[i].e.isMessage() && !deleted[seg[i].e.UUID] }
	leaf := -1
	for i := len(seg) - 1; i >= 0; i-- {
		if visible(i) {
			leaf = i
			break
		}
	}
	if leaf < 0 {
		b.leaf = b.base
		return b
	}
	b.leaf = seg[leaf].e.UUID
	var order []int
	broken := false
	for i := leaf; ; {
		order = append(order, i)
		if i == 0 || seg[i].e.Parent == "" {
			break
		}
		j, ok := index[seg[i].e.Parent]
		if !ok || j >= i {
			broken = true
			break
		}
		i = j
	}
	if broken {
		warn.add("the message chain is broken before line %s; showing messages in file order", seg[order[len(order)-1]].e.UUID)
		order = order[:0]
		for i := range seg {
			if visible(i) {
				order = append(order, i)
			}
		}
	} else {
		for l, r := 0, len(order)-1; l < r; l, r = l+1, r-1 {
			order[l], order[r] = order[r], order[l]
		}
	}
	lastID := ""
	for _, i := range order {
		if !visible(i) {
			continue
		}
		e := &seg[i].e
		m := providers.Message{Role: providers.Role(e.Type), Content: e.Message.Content}
		if n := len(b.messages); n > 0 && mergeable(&b.messages[n-1], lastID, e) {
			b.messages[n-1].Content = append(b.messages[n-1].Content, m.Content...)
			b.ids[n-1] = append(b.ids[n-1], e.UUID)
			continue
		}
		if len(b.messages) == 0 && e.CompactSummary {
			b.summary = m.Text()
			b.pinned = 1
		}
		b.messages = append(b.messages, m)
		b.ids = append(b.ids, []string{e.UUID})
		lastID = e.MessageID
	}
	return b
}

// mergeable reports whether line e continues message prev: Claude Code
// writes each content block of one response as its own line (sharing
// message.id), and each result of parallel tool calls as its own user
// line.
func mergeable(prev *providers.Message, prevID string, e *entry) bool {
	if string(prev.Role) != e.Type || e.CompactSummary {
		return false
	}
	if e.Type == typeAssistant {
		return e.MessageID != "" && e.MessageID == prevID
	}
	return onlyToolResults(e.Message.Content) && hasToolResult(prev.Content)
}

func onlyToolResults(bs []providers.Block) bool {
	for _, b := range bs {
		if b.Type != providers.BlockToolResult {
			return false
		}
	}
	return len(bs) > 0
}

func hasToolResult(bs []providers.Block) bool {
	for _, b := range bs {
		if b.Type == providers.BlockToolResult {
			return true
		}
	}
	return false
}

// Titles.

// titleRunes caps a title's length.
const titleRunes = 100

// titleInfo accumulates what names a session: a title set by the user
// (custom-title), a summary line, and the first prompt.
type titleInfo struct {
	custom, summary, prompt string
	cwd                     string
	messages                bool // a user or assistant line was seen
}

func (t *titleInfo) add(e *entry) {
	if t.cwd == "" && e.Cwd != "" {
		t.cwd = e.Cwd
	}
	switch {
	case e.Type == typeCustomTitle && e.CustomTitle != "":
		t.custom = e.CustomTitle
	case e.Type == typeSummary && e.Summary != "":
		t.summary = e.Summary
	case e.Type == typeUser || e.Type == typeAssistant:
		t.messages = true
		if t.prompt == "" && e.Type == typeUser && !e.Sidechain && !e.Meta && !e.CompactSummary && e.Message != nil {
			t.prompt = promptTitle(*e.Message)
		}
	}
}

func (t *titleInfo) title() string {
	switch {
	case t.custom != "":
		return cleanTitle(t.custom)
	case t.summary != "":
		return cleanTitle(t.summary)
	}
	return t.prompt
}

// promptTitle returns the title a user message gives a session: its
// first text that is not markup Claude Code wraps around slash commands
// and reminders.
func promptTitle(m providers.Message) string {
	for _, b := range m.Content {
		if b.Type == providers.BlockText && !strings.HasPrefix(strings.TrimSpace(b.Text), "<") {
			if t := cleanTitle(b.Text); t != "" {
				return t
			}
		}
	}
	return ""
}

// cleanTitle collapses whitespace and shortens s to titleRunes runes.
func cleanTitle(s string) string {
	var b strings.Builder
	n := 0
	for _, f := range strings.Fields(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
			n++
		}
		for _, r := range f {
			if n == titleRunes {
				return strings.TrimSpace(b.String()) + "…"
			}
			b.WriteRune(r)
			n++
		}
	}
	return b.String()
}
