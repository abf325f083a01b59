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

// Refuser is implemented by a FileSystem whose editor may refuse to
// serve a file (ACP's fs/read_text_file). A refusal holds for the whole
// session and for every tool: Read and the edit tools get it from
// ReadFile, and the tools that read the disk themselves (Grep, Glob, LS,
// Diagnostics, LSP) leave the file out as they leave out one a deny rule
// hides.
type Refuser interface {
	// Refused reports whether the editor refused to serve path in this
	// session.
	Refused(path string) bool
}

// hider returns the check a walk of tool applies to each path, or nil
// when nothing is hidden: the files a rule keeps from the model and those
// the editor refused to serve.
func (e *Env) hider(tool string) func(string) bool {
	ruled := e.Hide != nil && len(e.Hide.HiddenGlobs(tool)) > 0
	ref, _ := e.Files.(Refuser)
	switch {
	case ref == nil && !ruled:
		return nil
	case ref == nil:
		return func(p string) bool { return e.Hide.Hides(tool, p) }
	case !ruled:
		return ref.Refused
	}
	return func(p string) bool { return ref.Refused(p) || e.Hide.Hides(tool, p) }
}
