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

// realPath makes p absolute (from cwd) and resolves it the way the
// kernel does: component by component, following each symlink as it is
// met, so "link/.." is the parent of the link's target, not "." as a
// lexical clean would say. What does not exist yet is joined lexically.
// A link inside the workspace that points out of it is seen for what it
// is.
func realPath(cwd, p string) string {
	return realPathDepth(cwd, p, 0)
}

// maxLinks bounds the symlinks followed for one path, as the kernel's
// ELOOP does.
const maxLinks = 40

func realPathDepth(cwd, p string, depth int) string {
	if depth > maxLinks {
		return "/proc/self/loop" // outside any workspace: asks
	}
	cur := "/"
	if !filepath.IsAbs(p) {
		cur = filepath.Clean(cwd)
	}
	parts := strings.Split(p, "/")
	for i, part := range parts {
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if err != nil {
			// Missing: the rest cannot hold symlinks.
			return filepath.Join(append([]string{cur}, parts[i:]...)...)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(next)
			if err != nil {
				// A dangling link (or a chain ending in one): follow it
				// hop by hop to where a write would create the file.
				target, err := os.Readlink(next)
				if err != nil {
					return "/proc/self/unreadable-link"
				}
				rest := strings.Join(parts[i+1:], "/")
				if rest != "" {
					target += "/" + rest
				}
				return realPathDepth(cur, target, depth+1)
			}
			next = real
		}
		cur = next
	}
	return cur
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
