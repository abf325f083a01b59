// Package shelltest builds the workspace that the shell classifier's
// conformance corpus (permission/shell/testdata) is written against, for
// the tests of package shell and of the policy in package permission.
package shelltest

import (
	"os"
	"path/filepath"
	"testing"
)

// Workspace makes the test workspace: a project with a few files and
// symlinks, some of which lead out of it, and a home directory outside
// it. permission/shell/testdata/classifier_corpus.txt describes the layout.
func Workspace(t testing.TB) (project, home string) {
	t.Helper()
	root := t.TempDir()
	project = filepath.Join(root, "project")
	home = filepath.Join(root, "home")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{
		filepath.Join(project, "src"), filepath.Join(project, ".git"), filepath.Join(project, "deep/a/b"),
		filepath.Join(project, "dash"), filepath.Join(project, "sub"), filepath.Join(project, "inner"),
		filepath.Join(outside, "repo"), filepath.Join(project, "linkedrepo"), home,
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		"README.md":       "hello\n",
		"package.json":    "{}\n",
		"src/main.go":     "package main\n",
		".env":            "TOKEN=secret\n",
		"secrets/key.pem": "key\n",
		"deep/a/b/x.txt":  "x\n",
		"dash/-rf":        "",
		"inner/notes.txt": "notes\n",
		"sub/.git":        "gitdir: ../../outside/repo\n",
		"sub/file.txt":    "sub\n",
		// Repositories whose config names programs git would run.
		"repos/clean/.git/config":                       "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = x\n[alias]\n\tst = status\n",
		"repos/fsmonitor/.git/config":                   "[core]\n\tfsmonitor = touch /tmp/pwned\n",
		"repos/pager/.git/config":                       "[core]\n\tpager = sh -c id\n",
		"repos/textconv/.git/config":                    "[diff \"x\"]\n\ttextconv = id\n",
		"repos/external/.git/config":                    "[diff]\n\texternal = id\n",
		"repos/filter/.git/config":                      "[filter \"lfs\"]\n\tsmudge = id\n",
		"repos/gpg/.git/config":                         "[gpg]\n\tprogram = id\n[log]\n\tshowSignature = true\n",
		"repos/include/.git/config":                     "[include]\n\tpath = /tmp/evil.config\n",
		"repos/alias/.git/config":                       "[alias]\n\tst = !id\n",
		"repos/hooks/.git/config":                       "[core]\n\thooksPath = /tmp/hooks\n",
		"repos/worktree/.git/config":                    "[core]\n\tworktree = /\n",
		"repos/partial/.git/config":                     "[extensions]\n\tpartialClone = origin\n",
		"repos/trace/.git/config":                       "[trace2]\n\teventTarget = /tmp/x\n",
		"repos/dotted/.git/config":                      "[diff.x]\n\ttextconv = id\n",
		"repos/alternates/.git/objects/info/alternates": "/tmp/objects\n",
	} {
		p := filepath.Join(project, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "passwd"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"escape":          outside,                             // a directory outside
		"deep/a/b/out":    outside,                             // nested, for recursive reads
		"inner/readme":    filepath.Join(project, "README.md"), // inside: fine
		"dangling":        filepath.Join(outside, "new.txt"),   // not there yet, outside
		"passwd-link":     filepath.Join(outside, "passwd"),    // a file outside
		"envlink":         filepath.Join(project, ".env"),      // a second name for .env
		"chain":           "dangling",                          // inside, but leads to the missing file outside
		"linkedrepo/.git": filepath.Join(outside, "repo"),      // a .git symlink leading out
	} {
		if err := os.Symlink(target, filepath.Join(project, link)); err != nil {
			t.Fatal(err)
		}
	}
	return project, home
}
