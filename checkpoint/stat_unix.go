//go:build unix

package checkpoint

import (
	"os"
	"syscall"
)

// inode returns the file's inode number, which a rename over it (sed
// -i, an editor's atomic save) changes.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
