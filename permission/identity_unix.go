//go:build !windows

package permission

import "syscall"

// linkedFile returns the identity and the number of names of the regular
// file at path (links followed); found is false for anything else.
func linkedFile(path string) (id fileID, links uint64, found bool) {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return fileID{}, 0, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, uint64(st.Nlink), true
}
