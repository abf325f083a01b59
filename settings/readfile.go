package settings

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// MaxFileBytes bounds one settings or .mcp.json file.
const MaxFileBytes = 4 << 20

// ReadFile reads a settings file (or .mcp.json) as os.ReadFile does, but
// only a regular file (after links) of at most MaxFileBytes. A repository
// ships these files: one that is a link to /dev/zero, /dev/stdin or a
// FIFO must not hang the agent or fill its memory before the first
// question. A missing file's error wraps fs.ErrNotExist.
func ReadFile(path string) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO would wait for a writer; a regular
	// file reads as usual.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, MaxFileBytes)
	}
	return data, nil
}
