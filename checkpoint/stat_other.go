//go:build !unix

package checkpoint

import "os"

// inode returns 0: the stamp relies on size and modification time.
func inode(os.FileInfo) uint64 { return 0 }
