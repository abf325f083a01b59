//go:build windows

package tools

import (
	"io"
	"os"
)

// readFileRaw reads the file at p (os.ReadFile: Windows has no cheaper
// path through the system calls).
func readFileRaw(p string) ([]byte, error) { return os.ReadFile(p) }

// readInto reads the file at p into buf, growing it as needed.
func readInto(buf []byte, p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	w := &appendWriter{buf: buf[:0]}
	if _, err := io.Copy(w, f); err != nil {
		return buf[:0], err
	}
	return w.buf, nil
}

// appendWriter appends what is written to buf.
type appendWriter struct{ buf []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	return len(p), nil
}
