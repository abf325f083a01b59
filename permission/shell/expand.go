package shell

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// maxWalk bounds how many entries a recursive read's check looks at; a
// larger tree asks.
const maxWalk = 20000

// expand returns what the pattern word w expands to when the command runs
// in cwd: the names matching it, sorted, or the pattern's own text when
// nothing matches (bash's default). why says why it cannot be known.
func (a *analysis) expand(w Word, cwd string) (names []string, why string) {
	if w.glob == "" && !w.tilde {
		return nil, "pattern " + w.src + " is too complex to check"
	}
	pat := w.glob
	if w.tilde {
		if a.env.Home == "" {
			return nil, "~ has no known home directory"
		}
		pat = escapeMatch(a.env.Home) + pat
	}
	for _, comp := range strings.Split(pat, "/") {
		// Before bash 5.2 (globskipdots), ".*" also matches "." and
		// "..", which filepath.Glob never returns.
		if m, _ := filepath.Match(comp, ".."); m && strings.HasPrefix(comp, ".") && strings.ContainsAny(comp, "*?[") {
			return nil, "pattern " + w.src + " may match .."
		}
	}
	abs := pat
	if !filepath.IsAbs(pat) {
		abs = escapeMatch(cwd) + "/" + pat
	}
	matches, err := filepath.Glob(abs)
	if err != nil {
		return nil, "pattern " + w.src + " is malformed"
	}
	matches = bashDots(abs, matches)
	if len(matches) == 0 {
		return []string{UnescapeMatch(pat)}, ""
	}
	sort.Strings(matches)
	if !filepath.IsAbs(pat) {
		for i, m := range matches {
			if rel, err := filepath.Rel(cwd, m); err == nil {
				// Keep a leading "./" as written, so a name like "-x"
				// stays what the shell would pass.
				if strings.HasPrefix(pat, "./") {
					rel = "./" + rel
				}
				matches[i] = rel
			}
		}
	}
	return matches, ""
}

// bashDots drops the matches bash would not make: a name starting with
// "." is only matched by a pattern component that starts with "." too.
// When the components cannot be lined up, every match is kept (a
// superset is safe).
func bashDots(pattern string, matches []string) []string {
	pcs := strings.Split(filepath.Clean(pattern), "/")
	var out []string
	for _, m := range matches {
		mcs := strings.Split(m, "/")
		keep := true
		if len(mcs) == len(pcs) {
			for i, pc := range pcs {
				if strings.ContainsAny(pc, "*?[") && !strings.HasPrefix(pc, ".") && !strings.HasPrefix(pc, `\.`) && strings.HasPrefix(mcs[i], ".") {
					keep = false
				}
			}
		}
		if keep {
			out = append(out, m)
		}
	}
	return out
}

// UnescapeMatch undoes escapeMatch, and permission's escapeGlob (a
// backslash keeps the byte after it as it is).
func UnescapeMatch(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// expandAll returns w's values in every directory the command may run in.
func (a *analysis) expandAll(w Word) ([]string, string) {
	if w.literal {
		return []string{w.value}, ""
	}
	if w.expands {
		return nil, "argument " + w.src + " is only known at run time"
	}
	var out []string
	for _, cwd := range a.cwds {
		names, why := a.expand(w, cwd)
		if why != "" {
			return nil, why
		}
		for _, n := range names {
			if !contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out, ""
}

// readDenied reports whether reading the absolute path p (as written, or
// resolved) is covered by a Read deny rule.
func (e *Env) readDenied(p string) bool { return e.ReadDenied != nil && e.ReadDenied(p) }

// denyRules reports whether any Read deny rule exists.
func (e *Env) denyRules() bool { return e.ReadDenied != nil }

// checkDenied records a read of p (relative to the command's directories)
// that a Read deny rule covers.
func (a *analysis) checkDenied(p string) {
	if !a.env.denyRules() || harmlessDevices[p] || p == "-" {
		return
	}
	for _, cwd := range a.cwds {
		for _, q := range []string{lexAbs(cwd, p), realPath(cwd, p)} {
			if a.env.readDenied(q) {
				msg := fmt.Sprintf("reads %s, which a Read deny rule covers", p)
				if !contains(a.s.denied, msg) {
					a.s.denied = append(a.s.denied, msg)
				}
				return
			}
		}
	}
}

// lexAbs makes p absolute from cwd and cleans it lexically: the path as
// a rule written on it would name it.
func lexAbs(cwd, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// denyRisk records that a command may read what a deny rule covers, or
// run what a Bash deny rule forbids, in a way that cannot be checked.
func (a *analysis) denyRisk(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !contains(a.s.denyRisk, msg) {
		a.s.denyRisk = append(a.s.denyRisk, msg)
	}
}

var errWalkLimit = errors.New("too many files")

// walkCheck checks a recursive read of dir (relative to the command's
// directories): with follow, a symlink inside that leads out of the
// workspace makes it ask; when Read deny rules exist, a covered file
// inside is a deny risk. It returns why the read is not read-only.
func (a *analysis) walkCheck(dir string, follow bool) string {
	if !follow && !a.env.denyRules() {
		return ""
	}
	for _, cwd := range a.cwds {
		root := realPath(cwd, dir)
		fi, err := os.Stat(root)
		if err != nil || !fi.IsDir() {
			continue
		}
		n := 0
		var why string
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if n++; n > maxWalk {
				return errWalkLimit
			}
			if a.env.denyRules() && a.env.readDenied(p) {
				a.denyRisk("a recursive read of %s reaches %s, which a Read deny rule covers", dir, p)
			}
			if d.Type()&fs.ModeSymlink != 0 && follow {
				t := realPath("/", p)
				if a.env.denyRules() && a.env.readDenied(t) {
					a.denyRisk("a recursive read of %s follows %s to %s, which a Read deny rule covers", dir, p, t)
				}
				if !withinAny(a.env.Roots, t) {
					why = fmt.Sprintf("%s is a symlink to %s, outside the workspace, and the read follows symlinks", p, t)
					return filepath.SkipAll
				}
			}
			return nil
		})
		if errors.Is(err, errWalkLimit) {
			return fmt.Sprintf("%s holds too many files to check for symlinks and denied files", dir)
		}
		if why != "" {
			return why
		}
	}
	return ""
}
