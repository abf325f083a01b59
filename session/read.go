package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

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

// rawLine is one line of a file, without its newline. final marks the
// text after the last newline (empty when the file ends with one).
type rawLine struct {
	raw   []byte
	off   int64
	final bool
}

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

// parse decodes lines (in parallel when there is enough to share) and
// takes them in order.
func (p *parser) parse(lines []rawLine) {
	results := decodeLines(lines)
	for i, l := range lines {
		p.take(l, results[i])
	}
}

func (p *parser) take(l rawLine, r lineResult) {
	end := l.off + int64(len(l.raw))
	switch {
	case r.blank:
	case r.err != nil && l.final:
		p.warn.add("skipped a torn last line (%d bytes at offset %d), left by an interrupted write", len(l.raw), l.off)
		p.tail.end = l.off
		return
	case r.err != nil:
		p.warn.add("skipped an unreadable line (%d bytes at offset %d): %v", len(l.raw), l.off, r.err)
	default:
		p.entries = append(p.entries, parsed{e: r.e, boundary: lineIsBoundary(l.raw, &r.e, nil)})
	}
	switch {
	case !l.final:
		p.tail.end = end + 1
	case r.blank:
		p.tail.end = end
	default:
		p.tail.end, p.tail.needNewline = end, true
	}
}

// lineResult is a decoded line.
type lineResult struct {
	e     entry
	err   error
	blank bool
}

// parallelBytes is the amount of text below which lines are decoded on
// one goroutine, and the size of the batches shared out above it.
const parallelBytes = 1 << 20

// decodeLines decodes lines, spreading batches of about parallelBytes
// over GOMAXPROCS goroutines, which it waits for.
func decodeLines(lines []rawLine) []lineResult {
	results := make([]lineResult, len(lines))
	decode := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if isBlank(lines[i].raw) {
				results[i].blank = true
				continue
			}
			results[i].e, results[i].err = parseLine(lines[i].raw)
		}
	}
	var batches [][2]int
	size, lo := 0, 0
	for i, l := range lines {
		size += len(l.raw)
		if size >= parallelBytes {
			batches = append(batches, [2]int{lo, i + 1})
			size, lo = 0, i+1
		}
	}
	if lo < len(lines) {
		batches = append(batches, [2]int{lo, len(lines)})
	}
	workers := min(runtime.GOMAXPROCS(0), len(batches))
	if workers <= 1 {
		decode(0, len(lines))
		return results
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				b := int(next.Add(1) - 1)
				if b >= len(batches) {
					return
				}
				decode(batches[b][0], batches[b][1])
			}
		})
	}
	wg.Wait()
	return results
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

// splitLines splits data, found at offset base of its file, into lines.
func splitLines(data []byte, base int64) []rawLine {
	lines := make([]rawLine, 0, bytes.Count(data, []byte{'\n'})+1)
	off := base
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return append(lines, rawLine{raw: data, off: off, final: true})
		}
		lines = append(lines, rawLine{raw: data[:i], off: off})
		data, off = data[i+1:], off+int64(i)+1
	}
}

// scanBlock is the size of the blocks read while searching backwards.
const scanBlock = 1 << 20

// readContext returns the lines from the last compaction boundary to the
// end of the file (the whole file when it has none). It searches
// backwards in blocks for the boundary markers, parses only the lines
// that hold one, then reads the live part at once, so a long session
// costs only its live part and a long line is never assembled piecemeal.
func readContext(r io.ReaderAt, size int64) ([]rawLine, error) {
	start, err := lastBoundary(r, size)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, size-start)
	if _, err := r.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return splitLines(buf, start), nil
}

// lastBoundary returns the offset of the last line that is a compaction
// boundary, or 0.
func lastBoundary(r io.ReaderAt, size int64) (int64, error) {
	return lastLine(r, size, [][]byte{markerBoundary, markerCompactSummary}, func(line []byte) bool {
		e, err := parseLine(line)
		return lineIsBoundary(line, &e, err)
	})
}

// lastLine returns the offset of the last line in the first size bytes of
// r that holds one of markers and that accept takes, or 0 when none does.
// It reads backwards in blocks and hands accept only the lines holding a
// marker.
func lastLine(r io.ReaderAt, size int64, markers [][]byte, accept func(line []byte) bool) (int64, error) {
	longest := 0
	for _, m := range markers {
		longest = max(longest, len(m))
	}
	overlap := int64(longest - 1)
	buf := make([]byte, scanBlock+overlap)
	// Markers starting before hi are yet to be checked.
	for hi := size; hi > 0; {
		lo := max(0, hi-scanBlock)
		n := hi - lo + min(overlap, size-hi)
		if _, err := r.ReadAt(buf[:n], lo); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		at := lastMarker(buf[:n], int(hi-lo), markers)
		if at < 0 {
			hi = lo
			continue
		}
		ls, err := lineStart(r, lo+int64(at), buf[:at], lo)
		if err != nil {
			return 0, err
		}
		le, err := lineEnd(r, lo+int64(at), size)
		if err != nil {
			return 0, err
		}
		line := make([]byte, le-ls)
		if _, err := r.ReadAt(line, ls); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if accept(line) {
			return ls, nil
		}
		hi = ls // the rest of that line is not taken either
	}
	return 0, nil
}

// lastMarker returns the index of the last of markers in b starting
// before limit, or -1.
func lastMarker(b []byte, limit int, markers [][]byte) int {
	last := -1
	for _, m := range markers {
		for off := 0; ; {
			i := bytes.Index(b[off:], m)
			if i < 0 {
				break
			}
			if off+i < limit {
				last = max(last, off+i)
			}
			off += i + 1
		}
	}
	return last
}

// lineStart returns the offset of the start of the line holding pos.
// before holds the bytes from offset base up to pos.
func lineStart(r io.ReaderAt, pos int64, before []byte, base int64) (int64, error) {
	if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
		return base + int64(i) + 1, nil
	}
	buf := make([]byte, 64<<10)
	for hi := base; hi > 0; {
		lo := max(0, hi-int64(len(buf)))
		if _, err := r.ReadAt(buf[:hi-lo], lo); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:hi-lo], '\n'); i >= 0 {
			return lo + int64(i) + 1, nil
		}
		hi = lo
	}
	return 0, nil
}

// lineEnd returns the offset of the newline ending the line holding pos,
// or size.
func lineEnd(r io.ReaderAt, pos, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for lo := pos; lo < size; {
		n := min(int64(len(buf)), size-lo)
		if _, err := r.ReadAt(buf[:n], lo); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return lo + int64(i), nil
		}
		lo += n
	}
	return size, nil
}

// withPreserved puts back, after the compaction summary opening the
// context (seg, read from offset start of r), the messages Claude Code
// kept verbatim across that compaction: its compact_boundary line (the
// first of seg, or the line just before start) lists them in
// compactMetadata.preservedMessages, and they are written before the
// boundary. They are relinked in their listed order after the anchor
// (the summary), so the chain of what follows them runs through them.
func withPreserved(r io.ReaderAt, start int64, seg []parsed, warn *warnings) ([]parsed, error) {
	var pres *preserved
	if len(seg) > 0 && seg[0].e.Preserved != nil {
		pres = seg[0].e.Preserved
	} else if start > 0 {
		ls, err := lineStart(r, start-1, nil, start-1)
		if err != nil {
			return nil, err
		}
		line := make([]byte, start-1-ls)
		if _, err := r.ReadAt(line, ls); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if e, err := parseLine(line); err == nil && e.Type == typeSystem && e.Subtype == subtypeCompactBoundary {
			pres = e.Preserved
		}
	}
	if pres == nil || start == 0 {
		return seg, nil
	}
	// The preserved lines are before the boundary: read what precedes it.
	head := make([]byte, start)
	if _, err := r.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	var quiet warnings // damage before the context was reported when it was live
	p := &parser{warn: &quiet}
	p.parse(splitLines(head, 0))
	byID := make(map[string]*parsed, len(p.entries))
	for i := range p.entries {
		if id := p.entries[i].e.UUID; id != "" {
			byID[id] = &p.entries[i]
		}
	}
	at := -1 // the anchor's index in seg
	for i := range seg {
		e := &seg[i].e
		if (pres.Anchor != "" && e.UUID == pres.Anchor) || (at < 0 && e.CompactSummary) {
			at = i
		}
	}
	if at < 0 {
		warn.add("the anchor %s of the messages kept across a compaction is missing; they are left out", pres.Anchor)
		return seg, nil
	}
	kept := make([]parsed, 0, len(pres.UUIDs))
	parent := seg[at].e.UUID
	for _, id := range pres.UUIDs {
		pe, ok := byID[id]
		if !ok {
			warn.add("message %s kept across a compaction is missing", id)
			continue
		}
		c := *pe
		c.boundary = false
		c.e.Parent = parent
		parent = c.e.UUID
		kept = append(kept, c)
	}
	out := make([]parsed, 0, len(seg)+len(kept))
	out = append(out, seg[:at+1]...)
	out = append(out, kept...)
	out = append(out, seg[at+1:]...)
	if len(kept) > 0 {
		// What follows chains after the kept messages, whether it was
		// written under the summary or under the last of them.
		anchor, tail := seg[at].e.UUID, kept[len(kept)-1].e.UUID
		for i := at + 1 + len(kept); i < len(out); i++ {
			if out[i].e.Parent == anchor {
				out[i].e.Parent = tail
			}
		}
	}
	return out, nil
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
// decode) it falls back to file order. forUser leaves out isMeta lines,
// which Claude Code hides from the user (Load, for replay); the model's
// context (Resume) keeps them.
func build(seg []parsed, warn *warnings, forUser bool) built {
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
	visible := func(i int) bool {
		e := &seg[i].e
		return e.isMessage() && !deleted[e.UUID] && !(forUser && e.Meta)
	}
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
	// Claude Code writes lines of its own after a response (attachments
	// such as its prompt_snapshot), chained to it, and its last-prompt
	// line names the last of them as the leaf to resume from. A new line
	// chains to that one, so that Claude Code, resuming, follows the
	// chain on to the lines written here; chained to the response, they
	// would be a branch it never reads.
	for i := leaf + 1; i < len(seg); i++ {
		e := &seg[i].e
		if e.Parent == b.leaf && e.UUID != "" && !e.Sidechain && !deleted[e.UUID] && !seg[i].boundary &&
			(e.Type == typeAttachment || e.Type == typeSystem) {
			b.leaf = e.UUID
		}
	}
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
		order = withParallelResults(seg, order, visible)
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

// withParallelResults adds to a chain the parallel tool calls and results
// that hang off it. Claude Code writes one line per content block of a
// response (sharing message.id), chained, and each result under its own
// tool_use line; the next turn chains to whichever result was written
// last. The chain from the leaf therefore runs through one result only,
// and possibly not through every tool_use line of the response: the
// others are branches. As Claude Code does when it rebuilds a
// conversation, the response's other lines (by message.id) are put after
// its lines on the chain, where they merge into the same message, and each
// result line (only tool results, whose calls the chain has not answered)
// after the chain's next result line, where it merges too.
func withParallelResults(seg []parsed, order []int, visible func(int) bool) []int {
	onChain := make(map[int]bool, len(order))
	answered := map[string]bool{}
	chainMsg := map[string]bool{} // message ids of the chain's responses
	for _, i := range order {
		onChain[i] = true
		e := &seg[i].e
		if e.Type == typeUser && e.Message != nil {
			for _, b := range e.Message.Content {
				if b.Type == providers.BlockToolResult {
					answered[b.ToolUseID] = true
				}
			}
		}
		if e.Type == typeAssistant && e.MessageID != "" {
			chainMsg[e.MessageID] = true
		}
	}
	siblings := map[string][]int{} // message id -> its lines off the chain
	children := map[string][]int{}
	for i := range seg {
		e := &seg[i].e
		if onChain[i] || !visible(i) {
			continue
		}
		if e.Type == typeAssistant && chainMsg[e.MessageID] {
			siblings[e.MessageID] = append(siblings[e.MessageID], i)
			continue
		}
		if e.Parent == "" || e.Type != typeUser || !onlyToolResults(e.Message.Content) {
			continue
		}
		fresh := true
		for _, b := range e.Message.Content {
			fresh = fresh && !answered[b.ToolUseID]
		}
		if fresh {
			children[e.Parent] = append(children[e.Parent], i)
		}
	}
	if len(children) == 0 && len(siblings) == 0 {
		return order
	}
	out := make([]int, 0, len(order)+len(children)+len(siblings))
	var pending []int
	for k, i := range order {
		out = append(out, i)
		e := &seg[i].e
		switch {
		case e.Type == typeAssistant:
			pending = append(pending, children[e.UUID]...)
			if k+1 < len(order) && seg[order[k+1]].e.Type == typeAssistant && seg[order[k+1]].e.MessageID == e.MessageID {
				break // the response goes on along the chain
			}
			for _, j := range siblings[e.MessageID] {
				out = append(out, j)
				pending = append(pending, children[seg[j].e.UUID]...)
			}
			delete(siblings, e.MessageID)
		case len(pending) > 0 && e.Type == typeUser && visible(i) && onlyToolResults(e.Message.Content):
			out = append(out, pending...)
			pending = nil
		}
	}
	return append(out, pending...)
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

// needs reports whether line may tell t something it does not know yet:
// once the cwd, a message and a first prompt are known, only title lines
// are parsed.
func (t *titleInfo) needs(line []byte) bool {
	if t.cwd == "" || !t.messages || t.prompt == "" {
		return true
	}
	return bytes.Contains(line, []byte(`"custom-title"`)) || bytes.Contains(line, []byte(`"summary"`))
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
