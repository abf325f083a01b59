package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// DiskReader is implemented by a FileSystem whose text of a file the
// editor does not have is the disk's. Read then pages through a file too
// large to read whole (MaxFileBytes) straight from the disk, offset and
// limit at a time. An editor that serves files itself (ACP's
// fs/read_text_file) decides what it serves: such a file is refused.
type DiskReader interface {
	// ReadsDisk reports whether the text of path is the disk's.
	ReadsDisk(path string) bool
}

// ReadsDisk reports true: DiskFS is the disk.
func (DiskFS) ReadsDisk(string) bool { return true }

// readPart returns lines [offset, offset+limit) of the regular file at
// path as formatLines does, reading no further than the last of them, in
// memory bounded by limit lines of at most ReadMaxLineLength bytes each.
// It stops when ctx ends.
func readPart(ctx context.Context, path string, offset, limit int) (string, error) {
	f, size, err := openFile(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, err := br.Peek(8192)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	if isBinary(head) {
		return "", fmt.Errorf("%s is a binary file (%s); Read shows text files and images only. Use Bash (for example `file` or `xxd | head`) to inspect it", path, pathres.FormatSize(size))
	}
	var out []byte
	line, shown, cut := 0, 0, 0
	for shown < limit {
		if line%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return "", err
			}
		}
		l, long, ok, err := nextLine(br, line+1 >= offset)
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", path, err)
		}
		if !ok {
			break
		}
		if line++; line < offset {
			continue
		}
		out = appendLineNo(out, line)
		if long {
			cutAt := ReadMaxLineLength
			for cutAt > 0 && !utf8.RuneStart(l[cutAt]) {
				cutAt--
			}
			out = append(out, l[:cutAt]...)
			out = append(out, "... [line truncated]"...)
			cut++
		} else {
			out = append(out, l...)
		}
		out = append(out, '\n')
		shown++
	}
	if shown == 0 {
		return fmt.Sprintf("<system-reminder>The file %s is shorter than the offset %d: it has %d lines.</system-reminder>", path, offset, line), nil
	}
	if _, err := br.Peek(1); err == nil {
		out = fmt.Appendf(out, "\n(Showing lines %d-%d of %s, a file of %s too large to read whole. Use offset and limit to read the rest.)\n", offset, offset+shown-1, path, pathres.FormatSize(size))
	}
	if cut > 0 {
		out = fmt.Appendf(out, "\n(%d lines longer than %d characters were truncated.)\n", cut, ReadMaxLineLength)
	}
	return string(out), nil
}

// nextLine reads the next line of br, without its line ending, keeping
// at most ReadMaxLineLength+1 of its bytes (long reports a line longer
// than ReadMaxLineLength) and none unless keep. ok is false at the end
// of the file.
func nextLine(br *bufio.Reader, keep bool) (l []byte, long, ok bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		ok = ok || len(frag) > 0
		if room := ReadMaxLineLength + 1 - len(l); keep && room > 0 {
			l = append(l, frag[:min(len(frag), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			err = nil
		}
		l = bytes.TrimSuffix(l, []byte{'\n'})
		l = bytes.TrimSuffix(l, []byte{'\r'})
		return l, len(l) > ReadMaxLineLength, ok, err
	}
}
