package tools

// Hider says which files a permission rule keeps from the model. A rule
// on Read covers every tool that reads files (Claude Code's rule
// families), so a file Read may not open must not surface through a
// search either: not its content (Grep), nor its name (Glob, LS).
type Hider interface {
	// Hides reports whether tool must not show path (absolute, clean,
	// symlinks resolved) nor anything under it.
	Hides(tool, path string) bool
	// HiddenGlobs returns the absolute doublestar patterns behind Hides
	// for tool, so a search can skip those files without reading them.
	HiddenGlobs(tool string) []string
}

// hider returns the check a walk of tool applies to each path, or nil
// when nothing is hidden.
func (e *Env) hider(tool string) func(string) bool {
	if e.Hide == nil {
		return nil
	}
	if len(e.Hide.HiddenGlobs(tool)) == 0 {
		return nil
	}
	return func(p string) bool { return e.Hide.Hides(tool, p) }
}
