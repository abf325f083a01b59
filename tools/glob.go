package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/bmatcuk/doublestar/v4"
)

//go:embed glob.md
var globDescription string

// GlobLimit is the most paths Glob returns.
const GlobLimit = 100

// globTool is the Glob tool.
type globTool struct{ env *Env }

type globInput struct {
	Pattern string `json:"pattern" jsonschema:"The glob pattern to match files against"`
	Path    string `json:"path,omitempty" jsonschema:"The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter \"undefined\" or \"null\" - simply omit it for the default behavior. Must be a valid directory path if provided."`
}

var globSchema = InputSchema[globInput](nil)

func (t *globTool) Spec() Spec {
	return Spec{
		Name:        "Glob",
		Description: globDescription,
		InputSchema: globSchema(),
		Kind:        schema.KindSearch,
		ReadOnly:    true,
		Access:      AccessRead,
		PathFields:  []string{"path"},
	}
}

// searchDir resolves the optional path of a search tool to a directory.
func (e *Env) searchDir(p string) (string, error) {
	if p == "" || p == "undefined" || p == "null" {
		p = e.Cwd
	}
	dir, err := e.Resolve(p)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return "", fmt.Errorf("path: directory does not exist: %s", dir)
	case err != nil:
		return "", fmt.Errorf("path: %w", err)
	case !fi.IsDir():
		return "", fmt.Errorf("path: not a directory: %s", dir)
	}
	return dir, nil
}

func (t *globTool) parse(input json.RawMessage) (pattern, dir string, err error) {
	var in globInput
	if err := DecodeInput(input, &in); err != nil {
		return "", "", err
	}
	pattern = in.Pattern
	if pattern == "" {
		return "", "", fmt.Errorf("pattern: must not be empty")
	}
	if filepath.IsAbs(pattern) && in.Path == "" {
		// An absolute pattern names its own directory.
		base, rest := doublestar.SplitPattern(filepath.ToSlash(pattern))
		in.Path, pattern = filepath.FromSlash(base), rest
	}
	pattern = strings.TrimPrefix(pattern, "./")
	if !doublestar.ValidatePattern(pattern) {
		return "", "", fmt.Errorf("pattern: invalid glob pattern %q", in.Pattern)
	}
	dir, err = t.env.searchDir(in.Path)
	if err != nil {
		return "", "", err
	}
	// The pattern's leading directories are a path like any other: links
	// in them are resolved and judged (a link out of the workspace is
	// refused, as LS and Grep refuse it), and the walk starts there.
	if base, rest := doublestar.SplitPattern(pattern); base != "." && base != "" {
		if dir, err = t.env.Resolve(filepath.Join(dir, filepath.FromSlash(base))); err != nil {
			return "", "", fmt.Errorf("pattern: %w", err)
		}
		pattern = rest
	}
	return pattern, dir, nil
}

func (t *globTool) Preview(_ context.Context, input json.RawMessage) (*Preview, error) {
	pattern, dir, err := t.parse(input)
	if err != nil {
		return nil, err
	}
	return &Preview{Title: fmt.Sprintf("Glob %s in %s", pattern, dir), Paths: []string{dir}}, nil
}

func (t *globTool) Run(ctx context.Context, input json.RawMessage) *Result {
	pattern, dir, err := t.parse(input)
	if err != nil {
		return inputError(err)
	}
	files, err := globFiles(ctx, dir, t.env.rootOf(dir), pattern, t.env.hider("Glob"), t.env.IncludeIgnored)
	if err != nil {
		return Errorf("glob %s in %s: %v", pattern, dir, err)
	}
	res := &Result{Title: fmt.Sprintf("Glob %s in %s (%d files)", pattern, dir, len(files))}
	if len(files) == 0 {
		res.Content = "No files found"
		return res
	}
	shown := files[:min(len(files), GlobLimit)]
	var b strings.Builder
	for _, f := range shown {
		b.WriteString(f.path)
		b.WriteByte('\n')
	}
	if len(files) > len(shown) {
		fmt.Fprintf(&b, "(Results are truncated: showing the %d most recently modified of %d files. Use a more specific path or pattern.)\n", len(shown), len(files))
	}
	res.Content = b.String()
	return res
}

type timedFile struct {
	path  string
	mtime time.Time
}

// globFiles returns the files under dir matching pattern, newest first,
// leaving out those hide reports (nil: none) and, unless noIgnore, those
// .gitignore excludes.
func globFiles(ctx context.Context, dir, base, pattern string, hide func(string) bool, noIgnore bool) ([]timedFile, error) {
	staticBase, _ := doublestar.SplitPattern(pattern)
	start := dir
	if staticBase != "." {
		start = filepath.Join(dir, filepath.FromSlash(staticBase))
		if !Within(dir, start) {
			return nil, nil // "../x/**" leaves the searched directory
		}
		if fi, err := os.Stat(start); err != nil || !fi.IsDir() {
			return nil, nil
		}
	}
	prefix := ""
	if start != dir {
		prefix = filepath.ToSlash(staticBase) + "/"
	}
	segs := strings.Split(pattern, "/")
	skipDir := func(rel string) bool {
		// Prune directories no match can lie under: compare the
		// directory with as many leading pattern segments as it has,
		// up to the first "**".
		depth := strings.Count(prefix+rel, "/") + 1
		for i := 0; i < depth && i < len(segs); i++ {
			if segs[i] == "**" || strings.Contains(segs[i], "**") {
				return false
			}
		}
		if depth >= len(segs) {
			return true
		}
		ok, _ := doublestar.Match(strings.Join(segs[:depth], "/"), prefix+rel)
		return !ok
	}
	var mu sync.Mutex
	var files []timedFile
	err := walkTree(ctx, start, walkOptions{base: base, skipDir: skipDir, parallel: true, hide: hide, noIgnore: noIgnore}, func(e walkEntry) error {
		if e.dir {
			return nil
		}
		if ok, _ := doublestar.Match(pattern, prefix+e.rel); !ok {
			return nil
		}
		fi, err := e.d.Info()
		if err != nil {
			return nil
		}
		mu.Lock()
		files = append(files, timedFile{e.path, fi.ModTime()})
		mu.Unlock()
		return nil
	})
	slices.SortFunc(files, func(a, b timedFile) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	return files, err
}
