package tools

import (
	_ "embed"
	"path"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// rgtypes.txt is the output of `rg --type-list` (ripgrep 13), so the
// in-process engine and ripgrep agree on what each Grep type means.
//
//go:embed rgtypes.txt
var rgTypeList string

// fileTypes maps a Grep type name to its file name globs.
var fileTypes = sync.OnceValue(func() map[string][]string {
	types := map[string][]string{}
	for line := range strings.SplitSeq(rgTypeList, "\n") {
		name, globs, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		for g := range strings.SplitSeq(globs, ",") {
			if g = strings.TrimSpace(g); g != "" {
				types[name] = append(types[name], g)
			}
		}
	}
	return types
})

// globRule is one Grep glob, with ripgrep's --glob semantics: a glob
// without "/" matches a file or directory name at any depth, one with "/"
// the path relative to the searched directory; a leading "!" excludes.
type globRule struct {
	pattern string
	negate  bool
	dirOnly bool
	name    bool // match the base name only
}

func parseGlobRules(globs []string) []globRule {
	rules := make([]globRule, 0, len(globs))
	for _, g := range globs {
		r := globRule{}
		if strings.HasPrefix(g, "!") {
			r.negate, g = true, g[1:]
		}
		if strings.HasSuffix(g, "/") {
			r.dirOnly, g = true, strings.TrimSuffix(g, "/")
		}
		g = strings.TrimPrefix(g, "/")
		r.name = !strings.Contains(g, "/")
		if strings.HasPrefix(g, "**/") && !strings.Contains(g[3:], "/") {
			r.name, g = true, g[3:]
		}
		r.pattern = g
		rules = append(rules, r)
	}
	return rules
}

// overrideDecision is what the globs say of an entry: exclude (-1),
// include regardless of .gitignore and type (+1), or nothing (0).
func overrideDecision(rules []globRule, rel string, isDir bool) int {
	if len(rules) == 0 {
		return 0
	}
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		target := rel
		if r.name {
			target = path.Base(rel)
		}
		if ok, _ := doublestar.Match(r.pattern, target); ok {
			if r.negate {
				return -1
			}
			return 1
		}
	}
	if isDir {
		return 0
	}
	for _, r := range rules {
		if !r.negate {
			return -1 // files must match one of the positive globs
		}
	}
	return 0
}

// matchesType reports whether a file name matches one of a type's globs.
func matchesType(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, name); ok {
			return true
		}
	}
	return false
}
