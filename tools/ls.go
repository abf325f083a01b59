package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/bmatcuk/doublestar/v4"
)

//go:embed ls.md
var lsDescription string

// LSLimit is the most entries LS lists.
const LSLimit = 1000

// lsTool is the LS tool.
type lsTool struct{ env *Env }

type lsInput struct {
	Path   string   `json:"path,omitempty" jsonschema:"The absolute path to the directory to list"`
	Ignore []string `json:"ignore,omitempty" jsonschema:"List of glob patterns to ignore"`
}

var lsSchema = InputSchema[lsInput](nil)

func (t *lsTool) Spec() Spec {
	return Spec{
		Name:        "LS",
		Description: lsDescription,
		InputSchema: lsSchema(),
		Kind:        schema.KindSearch,
		ReadOnly:    true,
		Access:      AccessRead,
		PathFields:  []string{"path"},
	}
}

func (t *lsTool) parse(input json.RawMessage) (lsInput, string, error) {
	var in lsInput
	if err := DecodeInput(input, &in); err != nil {
		return in, "", err
	}
	for i, p := range in.Ignore {
		if !doublestar.ValidatePattern(p) {
			return in, "", fmt.Errorf("ignore[%d]: invalid glob pattern %q", i, p)
		}
	}
	dir, err := t.env.searchDir(in.Path)
	return in, dir, err
}

func (t *lsTool) Preview(_ context.Context, input json.RawMessage) (*Preview, error) {
	_, dir, err := t.parse(input)
	if err != nil {
		return nil, err
	}
	return &Preview{Title: "List " + dir, Paths: []string{dir}}, nil
}

var errLSFull = errors.New("listing is full")

func (t *lsTool) Run(ctx context.Context, input json.RawMessage) *Result {
	in, dir, err := t.parse(input)
	if err != nil {
		return inputError(err)
	}
	skip := func(rel string) bool {
		for _, p := range in.Ignore {
			p = strings.TrimSuffix(p, "/")
			target := rel
			if !strings.Contains(p, "/") {
				target = path.Base(rel)
			}
			if ok, _ := doublestar.Match(p, target); ok {
				return true
			}
		}
		return false
	}
	type entry struct {
		rel string
		dir bool
	}
	var entries []entry
	err = walkTree(ctx, dir, walkOptions{base: t.env.rootOf(dir), skipDir: skip, hide: t.env.hider("LS")}, func(e walkEntry) error {
		if !e.dir && skip(e.rel) {
			return nil
		}
		if len(entries) == LSLimit {
			return errLSFull
		}
		entries = append(entries, entry{e.rel, e.dir})
		return nil
	})
	full := errors.Is(err, errLSFull)
	if err != nil && !full {
		return Errorf("listing %s: %v", dir, err)
	}
	slices.SortFunc(entries, func(a, b entry) int {
		return slices.Compare(strings.Split(a.rel, "/"), strings.Split(b.rel, "/"))
	})
	var b strings.Builder
	if full {
		fmt.Fprintf(&b, "There are more than %d files and directories under %s; only the first %d are listed. Use LS on a subdirectory, or Glob and Grep, to see more.\n\n", LSLimit, dir, LSLimit)
	}
	fmt.Fprintf(&b, "- %s/\n", dir)
	for _, e := range entries {
		depth := strings.Count(e.rel, "/")
		b.WriteString(strings.Repeat("  ", depth+1))
		b.WriteString("- ")
		b.WriteString(path.Base(e.rel))
		if e.dir {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	return &Result{Content: b.String(), Title: "List " + dir, Locations: []schema.Location{{Path: dir}}}
}
