package permission

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// Files, not names. Rules and the workspace boundary name paths, but a
// regular file can have several names (hard links): a name in the
// workspace may be the very file a deny rule covers under another name,
// or a file outside the workspace. git cannot make hard links; a command
// that ran, an archive or a copy can. So a call of the file tools that
// names a regular file with more than one name is decided as the file,
// not the name:
//   - when one of the file's other names is covered by a Read or Edit
//     deny rule, or that cannot be ruled out (the rule's folder is too
//     large to search, or is the whole disk), the call is refused;
//   - otherwise it is a file outside the workspace: it asks (plan and
//     dontAsk refuse), whatever the mode, and no allow rule matching its
//     workspace name allows it; bypassPermissions runs it.

// maxIdentityWalk bounds the entries looked at to find a deny rule's
// files, for one decision.
const maxIdentityWalk = 200_000

// fileID identifies a file on the machine: its device and inode.
type fileID struct{ dev, ino uint64 }

// decideLinked decides a call of a tool of the Read or Edit family that
// names a regular file with more than one name (see above); ok is false
// when the call names none.
func (p *Policy) decideLinked(st snapshot, c Call) (d Decision, ok bool) {
	fam := family(c.Tool)
	if fam != "Read" && fam != "Edit" {
		return Decision{}, false
	}
	for _, path := range c.Paths {
		id, links, found := linkedFile(path)
		if !found || links < 2 {
			continue
		}
		if why := deniedIdentity(st, id, path); why != "" {
			return Decision{Verdict: Deny, Reason: fmt.Sprintf("Permission to use %s on %s was denied: it has %d names (hard links), and %s.", c.Tool, path, links, why)}, true
		}
		if st.mode == BypassPermissions {
			return Decision{Verdict: Allow, Reason: "bypassPermissions mode"}, true
		}
		why := fmt.Sprintf("%s has %d names (hard links): a file with other names may be a file outside the workspace, so %s treats it as one", path, links, c.Tool)
		if st.mode == Plan {
			// Plan mode never asks (see above): a read of a file that
			// may be outside is refused like an edit.
			return Decision{Verdict: Deny, Reason: fmt.Sprintf("%s on %s is refused in plan mode, which never asks: %s.", c.Tool, path, why)}, true
		}
		return p.askOr(st, c, Decision{Verdict: Ask, Reason: why}), true
	}
	return Decision{}, false
}

// deniedIdentity returns why the file id, named path in the call, counts
// as a file a Read or Edit deny rule covers under another name, or "".
func deniedIdentity(st snapshot, id fileID, path string) string {
	budget := maxIdentityWalk
	for i := range st.rules.deny {
		r := &st.rules.deny[i]
		if f := family(r.Tool); r.kind != kindPath || r.fallback || f != "Read" && f != "Edit" {
			continue
		}
		if matchPath(r.glob, path) {
			continue // the name itself: the rule already decided it
		}
		other, err := findIdentity(r.glob, id, &budget)
		switch {
		case err != nil:
			return fmt.Sprintf("whether it is a file the deny rule %s covers cannot be ruled out (%v)", r.describe(), err)
		case other != "":
			return fmt.Sprintf("one of them, %s, is covered by the deny rule %s", other, r.describe())
		}
	}
	return ""
}

// errTooMany stops a search for a deny rule's files that has looked at
// too many entries.
var errTooMany = errors.New("too many files to search")

// findIdentity returns a path matching glob whose file is id, or "". It
// searches the folder of glob's literal prefix (every component before
// the first wildcard), within *budget entries.
func findIdentity(glob string, id fileID, budget *int) (string, error) {
	pattern := strings.TrimSuffix(glob, "/")
	base := literalPrefix(pattern)
	if base == "/" || base == "" {
		return "", fmt.Errorf("the rule covers the whole disk")
	}
	var found string
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: nothing of it can be read through a link either
		}
		if *budget--; *budget < 0 {
			return errTooMany
		}
		if d.Type()&fs.ModeSymlink != 0 || d.IsDir() || !matchPath(glob, p) {
			return nil
		}
		if other, links, ok := linkedFile(p); ok && links > 1 && other == id {
			found = p
			return fs.SkipAll
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("searching %s: %w", base, err)
	}
	return found, nil
}

// literalPrefix returns the folder of the components of the absolute
// pattern before its first wildcard (the pattern itself when it has
// none).
func literalPrefix(pattern string) string {
	parts := strings.Split(pattern, "/")
	for i, part := range parts {
		if strings.ContainsAny(part, `*?[]{}\`) {
			return filepath.Clean("/" + strings.Join(parts[:i], "/"))
		}
	}
	return filepath.Clean(pattern)
}
