package permission

import (
	"fmt"

	"github.com/agent-lsp/agent-lsp/settings"
)

// persistLocalRule adds an "always allow" rule to the project's
// .claude/settings.local.json, unless that file would be written outside
// the project. A repository chooses its .claude: when it (or the file in
// it) is a link out of the workspace, the user's click must not write
// through it; the rule then holds for the session only, and the error
// says why it was not saved.
func persistLocalRule(project, rule string) error {
	path := settings.LocalPath(project)
	root := realPath("/", project)
	// Where a write would land: through a .claude link, and through a
	// dangling settings.local.json link to a file that does not exist yet.
	real := realPath("/", path)
	if !within(root, real) {
		return fmt.Errorf("not saving %q to %s: it leads to %s, outside the project", rule, path, real)
	}
	return settings.AddLocalRule(project, "allow", rule)
}
