package sandbox

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/settings"
)

// failurePhrases are what a command's output says when it met a folder
// the sandbox did not show ("No such file or directory", or "Permission
// denied" for what bwrap's root holds) or showed read-only.
var failurePhrases = []string{"no such file or directory", "permission denied", "read-only file system", "cannot access", "cannot open"}

// readOnlyPhrases say a write failed.
var readOnlyPhrases = []string{"read-only file system", "permission denied"}

// pathInOutputRE finds absolute (or ~/) paths in a line of output.
var pathInOutputRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?:^|[\\s'\"`(:=‘])((?:~/|/)[^\\s'\"`:,;()’]*)")
})

// GrantNote returns what the result of a failed sandboxed command adds
// when its output says a path could not be read or written there
// because no grant shows it (under the home, or outside the workspace
// and the system's folders) or a grant shows it read-only: the folder,
// and the setting that grants it (sandbox.filesystem.allowRead or
// allowWrite). It returns "" when the output names no such path. fsys
// is the settings' sandbox.filesystem.
func (c *Confiner) GrantNote(output string, fsys settings.SandboxFilesystem) string {
	if c == nil {
		return ""
	}
	home := userHome()
	granted := toolchainFolders(home)
	granted = append(granted, fsys.AllowRead...)
	var notes []string
	seen := map[string]bool{}
	for _, line := range strings.Split(output, "\n") {
		lower := strings.ToLower(line)
		if !slices.ContainsFunc(failurePhrases, func(p string) bool { return strings.Contains(lower, p) }) {
			continue
		}
		write := slices.ContainsFunc(readOnlyPhrases, func(p string) bool { return strings.Contains(lower, p) })
		for _, m := range pathInOutputRE().FindAllStringSubmatch(line, -1) {
			note, folder := c.grantNote(m[1], home, granted, fsys, write)
			if note != "" && !seen[folder] && len(notes) < 3 {
				seen[folder] = true
				notes = append(notes, note)
			}
		}
	}
	if len(notes) == 0 {
		return ""
	}
	return "\n" + strings.Join(notes, "\n")
}

// grantNote is GrantNote's note for one path p of the output, and the
// folder it names; "" when p is not a grant's business.
func (c *Confiner) grantNote(p, home string, granted []string, fsys settings.SandboxFilesystem, write bool) (string, string) {
	if strings.HasPrefix(p, "~/") {
		if home == "" {
			return "", ""
		}
		p = filepath.Join(home, p[2:])
	}
	p = filepath.Clean(p)
	inHome := home != "" && p != home && within(home, p)
	if p == "/" || p == home || (!inHome && slices.ContainsFunc(notGrantable, func(d string) bool { return within(d, p) })) {
		return "", "" // the system's, private or the kernel's
	}
	inAny := func(dirs []string) string {
		for _, d := range dirs {
			if within(d, p) {
				return d
			}
		}
		return ""
	}
	if inAny(c.roots) != "" || inAny(fsys.DenyRead) != "" || inAny(fsys.DenyWrite) != "" || inAny(fsys.AllowWrite) != "" {
		return "", "" // the workspace's, or as the user's settings say
	}
	if g := inAny(granted); g != "" {
		if !write {
			return "", ""
		}
		return fmt.Sprintf("(The sandbox shows %s read-only. If the command must write there, the user can add it to the settings' sandbox.filesystem.allowWrite.)", g), g
	}
	folder := grantFolder(p, home)
	return fmt.Sprintf("(The sandbox does not show %s: commands in it see only the workspace, the system's folders and the toolchain folders granted to them, and an empty home. If the command needs it, the user can add %s to the settings' sandbox.filesystem.allowRead (read-only) or sandbox.filesystem.allowWrite (writable).)", folder, folder), folder
}

// grantFolder names the folder to grant for p: under the home, its
// first folder there (two levels in ~/.config and ~/.cache, three in
// ~/.local/share and ~/.local/state), as "~/..."; elsewhere its first two
// levels.
func grantFolder(p, home string) string {
	if home != "" && within(home, p) {
		rel, _ := filepath.Rel(home, p)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		n := 1
		switch {
		case parts[0] == ".config" || parts[0] == ".cache":
			n = 2
		case parts[0] == ".local" && len(parts) > 1 && (parts[1] == "share" || parts[1] == "state"):
			n = 3
		}
		n = min(n, len(parts))
		return "~/" + strings.Join(parts[:n], "/")
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	return "/" + strings.Join(parts[:min(2, len(parts))], "/")
}
