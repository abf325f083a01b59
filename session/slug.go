package session

// ProjectSlug is Claude Code's folder name for a project directory under
// ~/.claude/projects (its sessions, its auto memory): every character
// other than an ASCII letter or digit becomes '-', and a name longer
// than 200 characters is cut and followed by a hash of the directory.
func ProjectSlug(dir string) string { return projectSlug(dir) }
