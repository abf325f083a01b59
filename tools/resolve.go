package tools

import (
	"strings"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// resolveExisting resolves the absolute path p as the kernel would open or
// create it (see pathres.Resolve): every symlink followed where it is met,
// "link/.." physical, a dangling link followed to where a write would
// create the file, the part that does not exist kept as written, and
// /proc, /sys and /dev refused.
func resolveExisting(p string) (string, error) {
	return pathres.Resolve("/", p)
}

// hasDotDot reports whether the slash-separated path p has a ".."
// component, which only a physical resolution can place.
func hasDotDot(p string) bool {
	return strings.Contains("/"+p+"/", "/../")
}
