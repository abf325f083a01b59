package settings

import "github.com/agent-lsp/agent-lsp/pathres"

// MaxFileBytes bounds one settings or .mcp.json file.
const MaxFileBytes = 4 << 20

// ReadFile reads a settings file (or .mcp.json) as os.ReadFile does, but
// only a regular file (after links) of at most MaxFileBytes. A repository
// ships these files: one that is a link to /dev/zero, /dev/stdin or a
// FIFO must not hang the agent or fill its memory before the first
// question. A missing file's error wraps fs.ErrNotExist.
func ReadFile(path string) ([]byte, error) {
	return pathres.ReadRegular(path, MaxFileBytes)
}
