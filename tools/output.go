package tools

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// BashOutputLimit is how much of a command's output is kept: its first
// and last halves, with a note in place of the middle.
const BashOutputLimit = 30000

// cappedBuffer is an io.Writer that keeps the head and the tail of what
// is written to it and counts the rest, so a command printing gigabytes
// holds BashOutputLimit bytes of memory. It is safe for concurrent use.
type cappedBuffer struct {
	mu    sync.Mutex
	limit int    // total bytes kept: half head, half tail
	head  []byte // the first limit/2 bytes; guarded by mu
	tail  []byte // the last bytes written past head, at most limit/2 once trimmed; guarded by mu
	total int64  // bytes written; guarded by mu
}

func newCappedBuffer(limit int) *cappedBuffer {
	return &cappedBuffer{limit: limit}
}

// Write keeps p's bytes that belong to the head or the tail.
func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.total += int64(n)
	half := b.limit / 2
	if room := half - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	tailMax := b.limit - half
	if len(p) >= tailMax {
		b.tail = append(b.tail[:0], p[len(p)-tailMax:]...)
		return n, nil
	}
	if len(b.tail)+len(p) > 2*tailMax {
		// Drop the oldest bytes; copying tailMax bytes once per tailMax
		// bytes written keeps Write linear.
		keep := tailMax - len(p)
		b.tail = append(b.tail[:0], b.tail[len(b.tail)-keep:]...)
	}
	b.tail = append(b.tail, p...)
	return n, nil
}

// Len returns the number of bytes written.
func (b *cappedBuffer) Len() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Since returns what was written from offset from on, with a note in
// place of any part no longer kept, and the offset to read from next.
func (b *cappedBuffer) Since(from int64) (string, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tailKept := min(int64(len(b.tail)), int64(b.limit-b.limit/2))
	tailStart := b.total - tailKept // offset of the first kept tail byte
	headEnd := int64(len(b.head))
	gapStart := max(from, headEnd)
	var out []byte
	if from < headEnd {
		h := b.head[from:]
		if gapStart < tailStart {
			h = trimRuneEnd(h)
		}
		out = append(out, h...)
	}
	if gapStart < tailStart {
		out = fmt.Appendf(out, "\n\n[... %d characters of output omitted: only the first and last %d are kept ...]\n\n", tailStart-gapStart, b.limit/2)
	}
	if b.total > max(from, tailStart) {
		skip := max(from, tailStart) - tailStart
		t := b.tail[int64(len(b.tail))-tailKept+skip:]
		if skip == 0 && tailStart > headEnd {
			t = trimRuneStart(t)
		}
		out = append(out, t...)
	}
	return string(out), b.total
}

// String returns everything kept.
func (b *cappedBuffer) String() string {
	s, _ := b.Since(0)
	return s
}

// trimRuneEnd drops a rune cut in two at the end of p.
func trimRuneEnd(p []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(p); i++ {
		c := p[len(p)-i]
		if utf8.RuneStart(c) {
			if !utf8.FullRune(p[len(p)-i:]) {
				return p[:len(p)-i]
			}
			break
		}
	}
	return p
}

// trimRuneStart drops continuation bytes at the start of p.
func trimRuneStart(p []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(p) > 0 && !utf8.RuneStart(p[0]); i++ {
		p = p[1:]
	}
	return p
}
