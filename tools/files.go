package tools

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// readCurrent returns the current text of path as the session sees it
// (the editor buffer when open). exists is false when there is no such file.
func (e *Env) readCurrent(path string) (content []byte, exists bool, err error) {
	content, err = e.Files.ReadFile(path)
	switch {
	case err == nil:
		return content, true, nil
	case errors.Is(err, syscall.EISDIR):
		return nil, true, fmt.Errorf("%s is a directory, not a file", path)
	case errors.Is(err, fs.ErrNotExist) && !e.Files.IsOpen(path):
		return nil, false, nil
	}
	if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
		return nil, true, fmt.Errorf("%s is a directory, not a file", path)
	}
	return nil, false, fmt.Errorf("reading %s: %w", path, err)
}

// isBinary reports whether data looks like a binary file: a NUL byte in
// its first 8 KiB, as git and ripgrep decide.
func isBinary(data []byte) bool {
	if len(data) > 8192 {
		data = data[:8192]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// appendLineNo appends n right-aligned in six columns and a tab, as
// `cat -n` numbers lines.
func appendLineNo(b []byte, n int) []byte {
	if n < 0 || n >= 1e6 {
		return append(strconv.AppendInt(b, int64(n), 10), '\t')
	}
	buf := [7]byte{' ', ' ', ' ', ' ', ' ', '0', '\t'}
	for i := 5; n > 0; i-- {
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, buf[:]...)
}

// lineOf returns the 0-based line number of byte offset off in text.
func lineOf(text []byte, off int) int {
	return bytes.Count(text[:off], []byte{'\n'})
}

// firstChangedLine returns the 0-based line of the first difference
// between old and new.
func firstChangedLine(old, new []byte) int {
	n := min(len(old), len(new))
	i := 0
	for i < n && old[i] == new[i] {
		i++
	}
	return lineOf(new, i)
}

// snippet returns lines [from, to) of text (0-based) numbered as cat -n.
func snippet(text []byte, from, to int) string {
	var b []byte
	line := 0
	for len(text) > 0 && line < to {
		end := bytes.IndexByte(text, '\n')
		var l []byte
		if end < 0 {
			l, text = text, nil
		} else {
			l, text = text[:end], text[end+1:]
		}
		if line >= from {
			b = appendLineNo(b, line+1)
			b = append(b, bytes.TrimSuffix(l, []byte{'\r'})...)
			b = append(b, '\n')
		}
		line++
	}
	return string(b)
}

// intPtr returns a pointer to n, for schema.Location lines.
func intPtr(n int) *int { return &n }
