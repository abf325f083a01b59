//go:build !windows

package tools

import (
	"os"
	"slices"
	"syscall"
)

// readFileRaw reads the file at p as os.ReadFile does, with half the
// system calls: open, fstat, read, close.
func readFileRaw(p string) ([]byte, error) {
	fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: p, Err: err}
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return nil, &os.PathError{Op: "read", Path: p, Err: syscall.EISDIR}
	case syscall.S_IFREG:
		return readFD(fd, p, make([]byte, 0, st.Size+1))
	}
	return os.ReadFile(p) // pipes and devices have no size to trust
}

// readInto reads the file at p into buf, growing it as needed. It uses
// the system calls directly: os.Open's poller registration and the Stat
// for the size double the calls per file, which dominate a search of many
// small files.
func readInto(buf []byte, p string) ([]byte, error) {
	fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return buf[:0], &os.PathError{Op: "open", Path: p, Err: err}
	}
	defer syscall.Close(fd)
	if cap(buf) == 0 {
		buf = make([]byte, 0, 64<<10)
	}
	return readFD(fd, p, buf[:0])
}

// readFD reads fd to its end, appending to buf. A short read of a regular
// file means its end, which saves the read that would return 0.
func readFD(fd int, p string, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, max(cap(buf), 4096))
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return buf[:0], &os.PathError{Op: "read", Path: p, Err: err}
		case n == 0:
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if len(buf) < cap(buf) {
			return buf, nil
		}
	}
}
