package tools

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// errLinked refuses a search's read of a file with more than one name.
var errLinked = errors.New("the file has other names (hard links), which may lie outside the workspace")

// errTooLarge ends readCurrent's error for a file larger than
// MaxFileBytes; Read tells such a file apart to read part of it.
var errTooLarge = errors.New("use Read with offset and limit to read part of it, or Bash (head, tail, grep) to look into it")

// MaxFileBytes is the largest file the file tools read whole: Read
// without offset and limit, Edit, MultiEdit, Write over a file,
// NotebookEdit, Grep (which skips bigger files, as ripgrep's
// --max-filesize does), the language servers' and the prompt's reads. A
// repository may ship a file of any apparent size (a sparse file costs
// nothing on disk): reading it whole would exhaust the memory of the
// process and end every session in it.
const MaxFileBytes = 64 << 20

// readCurrent returns the current text of path as the session sees it
// (the editor buffer when open). exists is false when there is no such
// file. A file that is not a regular file, or larger than MaxFileBytes,
// is an error saying so (*pathres.NotRegularError, *pathres.TooLargeError
// under errors.As).
func (e *Env) readCurrent(path string) (content []byte, exists bool, err error) {
	content, err = e.Files.ReadFile(path)
	var notRegular *pathres.NotRegularError
	var tooLarge *pathres.TooLargeError
	switch {
	case err == nil:
		return content, true, nil
	case errors.Is(err, syscall.EISDIR):
		return nil, true, fmt.Errorf("%s is a directory, not a file", path)
	case errors.Is(err, fs.ErrNotExist) && !e.Files.IsOpen(path):
		return nil, false, nil
	case errors.As(err, &notRegular):
		return nil, true, fmt.Errorf("%w: the file tools read and write regular files only", err)
	case errors.As(err, &tooLarge):
		return nil, true, fmt.Errorf("%s is %s; the file tools read files of up to %s whole: %w", path, pathres.FormatSize(tooLarge.Size), pathres.FormatSize(MaxFileBytes), errTooLarge)
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
