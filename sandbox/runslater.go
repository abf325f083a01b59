package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// What runs later, by principle (docs/security.md, layer 7): a write in
// the workspace is held when it could change what runs without a
// question, outside any sandbox, after the command ends:
//   - the places git's configuration names as where programs come from:
//     core.hooksPath, core.fsmonitor when it is a path, the files
//     include.path and includeIf.*.path name, and the programs that
//     drivers, pagers, editors, helpers and "!" aliases name by path;
//   - configuration that editors and tools read and act on without
//     asking: every dot-folder and dotfile anywhere in the workspace
//     (.git, .claude, .vscode, .idea, .husky, .envrc, .nvim.lua, .exrc,
//     .dir-locals.el, .github, ...), editor workspace files
//     (*.code-workspace) and the hook managers' files that are not
//     dotfiles (lefthook.yml);
//   - but not the dot-folders that builds write their outputs and caches
//     in (buildDots), which hold code only as node_modules does.

// buildDots are the dot-folders that builds and test runners write in
// the workspace: virtual environments, caches and build outputs. They are
// not held (a `pip install` or `next build` must work in the write
// sandboxes); what is in them runs only when a build the user started
// runs it, as node_modules does.
var buildDots = map[string]bool{
	".venv": true, ".tox": true, ".nox": true, ".cache": true, ".pytest_cache": true, ".mypy_cache": true,
	".ruff_cache": true, ".hypothesis": true, ".eggs": true, ".next": true, ".nuxt": true, ".svelte-kit": true,
	".angular": true, ".turbo": true, ".parcel-cache": true, ".sass-cache": true, ".nyc_output": true,
	".gradle": true, ".dart_tool": true, ".stack-work": true, ".build": true, ".terraform": true, ".pnpm-store": true,
	".eslintcache": true, ".coverage": true,
}

// editorFiles are names that editors and hook managers run commands
// from without being dotfiles (patterns of filepath.Match).
var editorFiles = []string{"*.code-workspace", "lefthook.yml", "lefthook.yaml", "lefthook-local.yml", "lefthook-local.yaml", "_exrc", "_vimrc", "_gvimrc"}

// runsLater reports whether an entry named name holds configuration
// that editors or tools act on without asking: a dot name other than
// those of buildDots, or one of editorFiles.
func runsLater(name string) bool {
	if strings.HasPrefix(name, ".") && name != "." && name != ".." {
		return !buildDots[name]
	}
	for _, pat := range editorFiles {
		if ok, _ := filepath.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// Protected reports whether writing p (absolute, symlinks resolved)
// could change what runs later without a question: a name runsLater
// holds, anywhere in a workspace root (or as p's own name anywhere); a
// folder that is a git directory, whatever its name; a place the root's
// repository config names (gitNamed). The file tools ask before writing
// there, in acceptEdits too; the write sandboxes keep it read-only.
func Protected(roots []string, p string) bool {
	if runsLater(filepath.Base(p)) {
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
			if runsLater(part) {
				return true
			}
		}
		// A git directory under another name: a .git file saying
		// "gitdir: realgit", a bare repository, a folder .git/commondir
		// names. Its config and hooks run programs just the same.
		for d := p; within(r, d); d = filepath.Dir(d) {
			if isGitDir(d) {
				return true
			}
			if d == r {
				break
			}
		}
		for _, place := range gitNamed(r) {
			if within(place.path, p) {
				return true
			}
		}
	}
	return false
}

// isGitDir reports whether dir looks like a git directory, as git itself
// tells (setup.c is_git_directory): a HEAD file and objects and refs
// folders.
func isGitDir(dir string) bool {
	if fi, err := os.Lstat(filepath.Join(dir, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// gitPlace is a path in a workspace root that the root's repository
// config names as where programs (or more config) come from.
type gitPlace struct {
	path string
	dir  bool // a folder (core.hooksPath)
}

// gitPathKeys are the config keys whose value is a place: a folder of
// hooks, a file of more config, a file monitor program.
func gitPathKey(key string) (isPath, dir bool) {
	switch {
	case key == "core.hookspath":
		return true, true
	case key == "include.path", strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path"), key == "core.fsmonitor":
		return true, false
	}
	return false, false
}

// gitProgramKey reports whether the config key's value is a command line
// whose first word names a program: drivers, pagers, editors, helpers,
// hooks, "!" aliases.
func gitProgramKey(key string) bool {
	switch key {
	case "core.pager", "core.editor", "core.sshcommand", "core.askpass", "core.alternaterefscommand", "sequence.editor",
		"diff.external", "credential.helper", "gpg.program", "uploadpack.packobjectshook", "web.browser":
		return true
	}
	if gitDriverRE().MatchString(key) || strings.HasPrefix(key, "alias.") || strings.HasPrefix(key, "pager.") {
		return true
	}
	return strings.HasPrefix(key, "gpg.") && strings.HasSuffix(key, ".program") ||
		strings.HasPrefix(key, "credential.") && strings.HasSuffix(key, ".helper")
}

// gitNamed returns the places in root that its repository's config (and
// the files it includes, inside root) names as where programs come
// from: core.hooksPath, core.fsmonitor as a path, include and includeIf
// files, and the programs of drivers, pagers, editors, helpers and "!"
// aliases given by path (a value whose first word holds a "/"). Relative
// places are taken from root (git runs them from the top of the work
// tree) or, for includes, from the including file's folder. Places
// outside root are left out: nothing in a sandbox writes there.
func gitNamed(root string) []gitPlace {
	gitDir := gitDirIn(root)
	if gitDir == "" {
		return nil
	}
	var out []gitPlace
	seen := map[string]bool{}
	queue := []string{filepath.Join(gitDir, "config")}
	for len(queue) > 0 && len(seen) < 16 {
		cfg := queue[0]
		queue = queue[1:]
		if seen[cfg] {
			continue
		}
		seen[cfg] = true
		for _, kv := range cachedGitList(cfg) {
			key, value := strings.ToLower(kv[0]), strings.TrimSpace(kv[1])
			var place string
			dir := false
			switch isPath, isDir := gitPathKey(key); {
			case value == "":
			case isPath:
				if key == "core.fsmonitor" && !strings.Contains(value, "/") {
					continue // a boolean, or a program on PATH
				}
				place, dir = value, isDir
				if strings.HasSuffix(key, ".path") && !filepath.IsAbs(place) && !strings.HasPrefix(place, "~") {
					place = filepath.Join(filepath.Dir(cfg), place)
				}
			case gitProgramKey(key):
				word, _, _ := strings.Cut(strings.TrimPrefix(value, "!"), " ")
				word = strings.Trim(word, `"'`)
				if !strings.Contains(word, "/") {
					continue
				}
				place = word
			default:
				continue
			}
			if strings.HasPrefix(place, "~") {
				continue // in the home: outside every workspace
			}
			if !filepath.IsAbs(place) {
				place = filepath.Join(root, place)
			}
			place = filepath.Clean(place)
			if real, err := resolve(place); err == nil {
				place = real
			}
			if !within(root, place) {
				continue
			}
			out = append(out, gitPlace{path: place, dir: dir})
			if strings.HasSuffix(key, ".path") {
				queue = append(queue, place)
			}
		}
	}
	return out
}

// gitLists caches cachedGitList's answers by the config file's identity.
var gitLists = struct {
	mu    sync.Mutex
	lists map[string][][2]string // "path size mtime" -> entries; guarded by mu
}{lists: map[string][][2]string{}}

// cachedGitList returns the entries (key, value) of the config file at
// path, without following includes, or nil when it cannot be read.
func cachedGitList(path string) [][2]string {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	key := fmt.Sprintf("%s %d %d", path, fi.Size(), fi.ModTime().UnixNano())
	gitLists.mu.Lock()
	cached, ok := gitLists.lists[key]
	gitLists.mu.Unlock()
	if ok {
		return cached
	}
	out, err := gitList(path, false)
	if err != nil {
		return nil
	}
	var entries [][2]string
	for _, entry := range bytes.Split(out, []byte{0}) {
		if k, v, ok := strings.Cut(string(entry), "\n"); ok {
			entries = append(entries, [2]string{k, v})
		}
	}
	gitLists.mu.Lock()
	if len(gitLists.lists) > 256 {
		clear(gitLists.lists)
	}
	gitLists.lists[key] = entries
	gitLists.mu.Unlock()
	return entries
}

// maxRunsLater bounds the entries runsLaterIn returns for one root:
// each becomes a mount.
const maxRunsLater = 2000

var errTooManyRunsLater = errors.New("too many dot-files")

// runsLaterIn walks root for the entries that runsLater names, without
// descending into them, nor into root's git directory (planProtection
// keeps it), nor into node_modules (dependencies' files, code already).
// The work trees of nested repositories (a .git folder or file below
// root) are returned apart: their git directories are held as a root's
// are. It fails past maxRunsLater entries or maxWalk looked at.
func runsLaterIn(root string) (out, nested []string, err error) {
	seen := 0
	gitDir := gitDirIn(root)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > maxWalk {
			return errTooMany
		}
		if p == root {
			return nil
		}
		name := d.Name()
		if p == gitDir || p == filepath.Join(root, ".git") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if name == ".git" && (isGitDir(p) || d.Type().IsRegular()) {
			// A nested repository: git must work there, so its git
			// directory is held as a root's is (planProtection).
			nested = append(nested, filepath.Dir(p))
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if runsLater(name) {
			if len(out) >= maxRunsLater {
				return errTooManyRunsLater
			}
			out = append(out, p)
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() && (name == "node_modules" || buildDots[name]) {
			return filepath.SkipDir
		}
		return nil
	})
	switch {
	case errors.Is(err, errTooMany):
		return nil, nil, fmt.Errorf("the workspace %s is too large (more than %d entries) to find every dot-file that must stay read-only", root, maxWalk)
	case errors.Is(err, errTooManyRunsLater):
		return nil, nil, fmt.Errorf("the workspace %s holds more than %d dot-files and editor files, which must stay read-only", root, maxRunsLater)
	}
	return out, nested, nil
}
