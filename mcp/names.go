package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// toolPrefix starts the name of every MCP tool.
const toolPrefix = "mcp__"

// maxToolName is the longest tool name the model APIs accept.
const maxToolName = 64

// ToolName returns the name the model and the permission rules see for
// tool of server: mcp__<server>__<tool>. Characters other than ASCII
// letters, digits, '_' and '-' become '_' (the model APIs accept no
// others), and a name longer than 64 characters is cut, keeping it unique
// with a short hash of the whole.
func ToolName(server, tool string) string {
	name := serverPrefix(server) + sanitize(tool)
	if len(name) <= maxToolName {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return name[:maxToolName-len(suffix)] + suffix
}

// serverPrefix returns the start of the names of server's tools,
// mcp__<server>__. A permission rule naming a whole server ("mcp__github")
// matches the tools whose name starts with the rule followed by "__".
func serverPrefix(server string) string {
	return toolPrefix + sanitize(server) + "__"
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}
