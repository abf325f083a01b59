//go:build !windows

package tools

import (
	"io/fs"
	"math"
	"os"
	"slices"
	"syscall"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// openRegular opens the file at p for reading when it is a regular file
// of at most max bytes, and returns its descriptor and size. It opens
// without waiting (O_NONBLOCK: a FIFO's open would wait for a writer),
// then refuses what is not a regular file (*pathres.NotRegularError; a
// directory is EISDIR) and what is larger than max
// (*pathres.TooLargeError: a sparse file costs nothing on disk and any
// amount of memory).
func openRegular(p string, max int64) (fd int, size int64, err error) {
	fd, st, err := openStat(p, max)
	return fd, st.Size, err
}

// openStat is openRegular returning the file's stat.
func openStat(p string, max int64) (fd int, st syscall.Stat_t, err error) {
	fd, err = syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return -1, st, &os.PathError{Op: "open", Path: p, Err: err}
	}
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, st, &os.PathError{Op: "stat", Path: p, Err: err}
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
	case syscall.S_IFDIR:
		syscall.Close(fd)
		return -1, st, &os.PathError{Op: "read", Path: p, Err: syscall.EISDIR}
	default:
		syscall.Close(fd)
		return -1, st, &pathres.NotRegularError{Path: p, Mode: unixMode(uint32(st.Mode))}
	}
	if st.Size > max {
		syscall.Close(fd)
		return -1, st, &pathres.TooLargeError{Path: p, Size: st.Size, Max: max}
	}
	return fd, st, nil
}

// unixMode converts the file type bits of a stat mode.
func unixMode(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}

// readFileRaw reads the regular file at p, of at most MaxFileBytes, with
// the fewest system calls: open, fstat, read, close.
func readFileRaw(p string) ([]byte, error) {
	fd, size, err := openRegular(p, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	return readFD(fd, p, make([]byte, 0, size+1), MaxFileBytes)
}

// readInto reads the regular file at p, of at most MaxFileBytes, into
// buf, growing it as needed, for a search. A file with more than one name
// (hard links) is refused with errLinked: a search walks names, and a
// second name in the workspace of a file outside it, or of one a deny
// rule hides, must not bring its content. It uses the system calls
// directly: os.Open's poller registration and os.Stat double the calls
// per file, which dominate a search of many small files.
func readInto(buf []byte, p string) ([]byte, error) {
	fd, st, err := openStat(p, MaxFileBytes)
	if err != nil {
		return buf[:0], err
	}
	defer syscall.Close(fd)
	if st.Nlink > 1 {
		return buf[:0], &os.PathError{Op: "read", Path: p, Err: errLinked}
	}
	if cap(buf) == 0 {
		buf = make([]byte, 0, 64<<10)
	}
	return readFD(fd, p, buf[:0], MaxFileBytes)
}

// readFD reads fd to its end, appending to buf, and fails past max bytes
// (a file that grew since its size was checked). A short read of a
// regular file means its end, which saves the read that would return 0.
func readFD(fd int, p string, buf []byte, limit int64) ([]byte, error) {
	for {
		if int64(len(buf)) > limit {
			return buf[:0], &pathres.TooLargeError{Path: p, Size: int64(len(buf)), Max: limit}
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(int64(max(cap(buf), 4096)), limit+1-int64(len(buf)))))
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

// openFile opens the regular file at p, whatever its size, for a reader
// that reads a bounded part of it (Read's offset and limit).
func openFile(p string) (*os.File, int64, error) {
	fd, size, err := openRegular(p, math.MaxInt64)
	if err != nil {
		return nil, 0, err
	}
	return os.NewFile(uintptr(fd), p), size, nil
}

// multiplyLinked reports whether p is a regular file with more than one
// name (links followed).
func multiplyLinked(p string) bool {
	var st syscall.Stat_t
	return syscall.Stat(p, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Nlink > 1
}
