package permission

import (
	"os"
	"path/filepath"
	"strings"
)

// within reports whether p is root or lies under it; both clean and
// absolute.
func within(root, p string) bool {
	if p == root || root == "/" {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}

// withinAny reports whether p lies under one of roots.
func withinAny(roots []string, p string) bool {
	for _, r := range roots {
		if within(r, p) {
			return true
		}
	}
	return false
}

// realPath makes p absolute (from cwd), cleans it and resolves symlinks
// in its longest existing prefix, so a link inside the workspace that
// points out of it is seen for what it is.
func realPath(cwd, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	p = filepath.Clean(p)
	rest := ""
	for cur := p; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// protectedDirs are directories inside a workspace whose files can run
// code or change permissions (git hooks and config, these very settings,
// editor tasks), so changing them always asks.
var protectedDirs = map[string]bool{".git": true, ".claude": true, ".vscode": true, ".idea": true, ".husky": true}

// protectedFiles are single files with the same power.
var protectedFiles = map[string]bool{".mcp.json": true, ".envrc": true, ".gitconfig": true, ".bashrc": true, ".zshrc": true, ".profile": true}

// protected reports whether changing p should always ask.
func protected(roots []string, p string) bool {
	if protectedFiles[filepath.Base(p)] {
		return true
	}
	for _, r := range roots {
		if !within(r, p) {
			continue
		}
		rel, err := filepath.Rel(r, p)
		if err != nil {
			return true
		}
		for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
			if protectedDirs[part] {
				return true
			}
		}
	}
	return false
}

// homeDir returns the home directory, or "" when unknown.
func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}
