//go:build unix

package sandbox

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByMe reports whether this process's user owns the file.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// linkIdentity returns the device and inode of a regular file and how
// many names (hard links) it has; ok is false for anything else.
func linkIdentity(fi fs.FileInfo) (id fileID, links uint64, ok bool) {
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if !isStat || !fi.Mode().IsRegular() {
		return fileID{}, 0, false
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, uint64(st.Nlink), true
}
