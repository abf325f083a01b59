//go:build windows

package permission

// linkedFile reports found false: on Windows the file tools decide by
// name (NTFS hard links are not looked for).
func linkedFile(path string) (id fileID, links uint64, found bool) {
	return fileID{}, 0, false
}
