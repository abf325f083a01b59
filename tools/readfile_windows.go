//go:build windows

package tools

import (
	"io"
	"math"
	"os"
	"syscall"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// openRegular opens the file at p when it is a regular file of at most
// max bytes (see the Unix version).
func openRegular(p string, max int64) (*os.File, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		f.Close()
		return nil, err
	case fi.IsDir():
		f.Close()
		return nil, &os.PathError{Op: "read", Path: p, Err: syscall.EISDIR}
	case !fi.Mode().IsRegular():
		f.Close()
		return nil, &pathres.NotRegularError{Path: p, Mode: fi.Mode()}
	case fi.Size() > max:
		f.Close()
		return nil, &pathres.TooLargeError{Path: p, Size: fi.Size(), Max: max}
	}
	return f, nil
}

// readFileRaw reads the regular file at p, of at most MaxFileBytes.
func readFileRaw(p string) ([]byte, error) { return readInto(nil, p) }

// readInto reads the regular file at p, of at most MaxFileBytes, into
// buf, growing it as needed, for a search (on Windows files are taken by
// name: NTFS hard links are not looked for).
func readInto(buf []byte, p string) ([]byte, error) {
	f, err := openRegular(p, MaxFileBytes)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	w := &appendWriter{buf: buf[:0]}
	if _, err := io.Copy(w, io.LimitReader(f, MaxFileBytes+1)); err != nil {
		return buf[:0], err
	}
	if int64(len(w.buf)) > MaxFileBytes {
		return buf[:0], &pathres.TooLargeError{Path: p, Size: int64(len(w.buf)), Max: MaxFileBytes}
	}
	return w.buf, nil
}

// appendWriter appends what is written to buf.
type appendWriter struct{ buf []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// openFile opens the regular file at p, whatever its size, for a reader
// that reads a bounded part of it (Read's offset and limit).
func openFile(p string) (*os.File, int64, error) {
	f, err := openRegular(p, math.MaxInt64)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// multiplyLinked reports false: on Windows files are taken by name.
func multiplyLinked(string) bool { return false }
