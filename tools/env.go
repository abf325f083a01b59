package tools

import (
	"context"
	"fmt"
	"hash/maphash"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/pathres"
	"github.com/agent-lsp/agent-lsp/schema"
)

var sprintf = fmt.Sprintf

// Env is what tools need from the session they run in.
type Env struct {
	// Cwd is the session's working directory (absolute).
	Cwd string
	// Roots are the directories tools may touch: the workspace folders
	// and additionalDirectories (absolute, symlinks resolved).
	Roots []string
	// Files reads and writes files, seeing the editor's unsaved buffers.
	Files FileSystem
	// Hide, when set, names the files the search tools (Grep, Glob, LS)
	// must leave out of their results: those a permission rule forbids
	// reading (or would ask about).
	Hide Hider
	// IncludeIgnored makes Glob list the files .gitignore excludes too
	// (the settings' respectGitignore: false).
	IncludeIgnored bool
	// Reads records what the model has read, so edits of stale files can
	// be refused.
	Reads *ReadTracker
	// OnPlan is called when the model updates its plan (TodoWrite).
	OnPlan func([]schema.PlanEntry)
	// WrapCommand, when set, rewrites a shell command's argv to run
	// inside a sandbox; ctx is the tool call's, which tells how tightly
	// this call must be confined. It returns an error when the command
	// must not run, and otherwise a function to call once every process
	// of the command has ended (nil when there is nothing to undo).
	WrapCommand func(ctx context.Context, argv []string) ([]string, func(), error)
	// MaxShells bounds the background shells running at once (0 means
	// DefaultMaxShells), and ShellMaxAge how long one may run before it
	// is killed (0 means DefaultShellMaxAge).
	MaxShells   int
	ShellMaxAge time.Duration
	// Terminal, when set, is the editor's terminal: Bash runs foreground
	// commands there so the user watches them.
	Terminal Terminal
	// Ask, when set, answers a prompt with the provider's small, fast
	// model (WebFetch's prompt about a page).
	Ask Asker
	// HTTP, when set, is the client WebFetch uses (tests); nil means one
	// that takes its proxy from the environment.
	HTTP *http.Client
	// ReadOnlyRoots, when set, returns folders outside Roots that Read
	// (and only Read) may read: the folders of the skills loaded.
	ReadOnlyRoots func() []string
	// Code, when set, is what language servers know of the files: edits
	// report the problems they introduce, and the Diagnostics and LSP
	// tools are offered.
	Code CodeIntel

	// shells holds the session's background shells; New sets it and
	// Close kills them.
	shells *shellManager
}

// FileSystem is the session's view of files: the editor's open buffers
// over the disk.
type FileSystem interface {
	// ReadFile returns the file's current text: the editor buffer when
	// the file is open there, else the disk.
	ReadFile(path string) ([]byte, error)
	// WriteFile replaces the file's text with content. before is the text
	// the change was computed from (nil for a new file). When an editor
	// is attached the change is applied in its buffer; an editor that
	// refuses it makes WriteFile fail and nothing is written.
	WriteFile(ctx context.Context, path string, before, content []byte) error
	// IsOpen reports whether the file is open in the editor.
	IsOpen(path string) bool
}

// DiskFS is a FileSystem over the disk alone, for tests and for running
// without an editor.
type DiskFS struct{}

// ReadFile reads path from disk.
func (DiskFS) ReadFile(path string) ([]byte, error) { return readFileRaw(path) }

// WriteFile writes content to path, creating parent directories.
func (DiskFS) WriteFile(_ context.Context, path string, _, content []byte) error {
	return WriteFileAtomic(path, content)
}

// IsOpen reports false.
func (DiskFS) IsOpen(string) bool { return false }

// WriteFileAtomic writes content to path through a temporary file and a
// rename, keeping the file's mode, so a crash never leaves half a file.
func WriteFileAtomic(path string, content []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating directory of %s: %w", path, err)
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// ReadTracker remembers the content of each file as the model last saw it.
// It keeps a 128-bit digest (two seeded maphash sums) and the length of
// each file, not its text: enough to tell an accidental change, at memory
// speed (a SHA-256 of a large file alone would cost more than the whole
// Read).
type ReadTracker struct {
	seeds [2]maphash.Seed
	mu    sync.Mutex
	seen  map[string]digest // guarded by mu
}

// digest identifies a file's content.
type digest struct {
	a, b uint64
	n    int
}

// NewReadTracker returns an empty tracker.
func NewReadTracker() *ReadTracker {
	return &ReadTracker{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, seen: make(map[string]digest)}
}

func (t *ReadTracker) digest(content []byte) digest {
	return digest{maphash.Bytes(t.seeds[0], content), maphash.Bytes(t.seeds[1], content), len(content)}
}

// Saw records that the model has seen content as the text of path.
func (t *ReadTracker) Saw(path string, content []byte) {
	d := t.digest(content)
	t.mu.Lock()
	t.seen[path] = d
	t.mu.Unlock()
}

// Check reports whether content is what the model last saw of path. It
// returns a message for the model when it is not.
func (t *ReadTracker) Check(path string, content []byte) (ok bool, why string) {
	t.mu.Lock()
	d, read := t.seen[path]
	t.mu.Unlock()
	switch {
	case !read:
		return false, fmt.Sprintf("file %s has not been read yet in this session: use the Read tool on it before editing it", path)
	case d != t.digest(content):
		return false, fmt.Sprintf("file %s has changed (on disk or in the editor) since it was last read: Read it again before editing it", path)
	}
	return true, ""
}

// Resolve turns a path given by the model into an absolute, clean,
// symlink-resolved path, and refuses it when it lies outside every root.
// Relative paths are taken from Cwd. A path that does not exist yet is
// resolved through its nearest existing parent.
func (e *Env) Resolve(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("path is empty")
	}
	if !filepath.IsAbs(p) {
		p = e.Cwd + "/" + p
	}
	if !hasDotDot(p) {
		// Only "." and doubled slashes to clean: the fast path.
		if real, ok := e.resolveUnderRoot(filepath.Clean(p)); ok {
			return real, nil
		}
	}
	real, err := resolveExisting(p)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", p, err)
	}
	for _, r := range e.Roots {
		if Within(r, real) {
			return real, nil
		}
	}
	return "", fmt.Errorf("path %s is outside the workspace (%s); only files under the workspace folders may be used", p, strings.Join(e.Roots, ", "))
}

// resolveUnderRoot is the fast path of Resolve for a path that lies,
// as written, under a root: roots are already symlink-resolved, so only
// the components below the root need a look. It reports false when one of
// them is a symbolic link or missing, leaving those cases to the full
// resolution.
func (e *Env) resolveUnderRoot(p string) (string, bool) {
	for _, r := range e.Roots {
		if !Within(r, p) {
			continue
		}
		for cur := p; cur != r; cur = filepath.Dir(cur) {
			fi, err := os.Lstat(cur)
			if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
				return "", false
			}
		}
		return p, true
	}
	return "", false
}

// Within reports whether path is root or lies under it. Both must be
// clean absolute paths.
func Within(root, path string) bool { return pathres.Within(root, path) }

// ResolveRoots cleans and resolves symlinks of each root, dropping
// duplicates.
func ResolveRoots(roots ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range roots {
		if r == "" {
			continue
		}
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		real, err := resolveExisting(abs)
		if err != nil {
			real = abs
		}
		if !seen[real] {
			seen[real] = true
			out = append(out, real)
		}
	}
	return out
}

// resolveReadOnly resolves p (absolute) inside one of ReadOnlyRoots,
// symlinks resolved, for Read.
func (e *Env) resolveReadOnly(p string) (string, bool) {
	if e.ReadOnlyRoots == nil || !filepath.IsAbs(p) {
		return "", false
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(p))
	if err != nil {
		return "", false
	}
	for _, r := range e.ReadOnlyRoots() {
		if rr, err := filepath.EvalSymlinks(r); err == nil && Within(rr, real) {
			return real, true
		}
	}
	return "", false
}
