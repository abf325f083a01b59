package pathres

import (
	"fmt"
	"io/fs"
)

// TooLargeError reports a file larger than a reader takes at once. Size
// is what the file system says (a sparse file's apparent size).
type TooLargeError struct {
	Path      string
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %s, more than the %s read at once", e.Path, FormatSize(e.Size), FormatSize(e.Max))
}

// NotRegularError reports a file that is not a regular file: a FIFO, a
// device, a socket or a directory, which have no content of a size to
// read (a FIFO's open and reads wait on its writer, /dev/zero never ends).
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, KindOf(e.Mode))
}

// KindOf names the kind of file that mode describes, with its article.
func KindOf(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// FormatSize writes n bytes as people read sizes: "512 bytes", "64 MB",
// "20 GB" (powers of 1024, one decimal below 10).
func FormatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	name := [...]string{"KB", "MB", "GB", "TB", "PB"}[i]
	if v < 10 && v != float64(int64(v)) {
		return fmt.Sprintf("%.1f %s", v, name)
	}
	return fmt.Sprintf("%.0f %s", v, name)
}
