package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// file is a file of a test folder: content and mode (a symlink's
// content is its target).
type file struct {
	data string
	mode os.FileMode
}

// tree reads every file under root except .git and the store.
func readTree(t *testing.T, root string) map[string]file {
	t.Helper()
	got := make(map[string]file)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "state") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			got[filepath.ToSlash(rel)] = file{target, os.ModeSymlink}
			return nil
		}
		data, err := os.ReadFile(p)
		got[filepath.ToSlash(rel)] = file{string(data), fi.Mode().Perm()}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func writeFiles(t *testing.T, root string, files map[string]file) {
	t.Helper()
	for p, f := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if f.mode&os.ModeSymlink != 0 {
			if err := os.Symlink(f.data, abs); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(abs, []byte(f.data), f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(abs, f.mode); err != nil {
			t.Fatal(err)
		}
	}
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// folder makes a workspace (a git repository with a commit when repo
// is set) and its store.
func folder(t *testing.T, repo bool, files map[string]file) (root string, s *Store) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "ws")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, files)
	if repo {
		run(t, root, "git", "init", "-q")
		run(t, root, "git", "add", "-A")
		run(t, root, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
	}
	s, err := Open(filepath.Join(base, "state"), root)
	if err != nil {
		t.Fatal(err)
	}
	return root, s
}

// buffers are open files' texts, by absolute path.
type buffers map[string]string

func (b buffers) Text(p string) ([]byte, bool) {
	text, ok := b[p]
	return []byte(text), ok
}

// turn records a turn: its start point, what the agent does, its end.
func turn(t *testing.T, s *Store, n int, buf Buffers, agent func()) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.Save(ctx, Point{Session: "s1", N: n, Kind: Start, Prompt: fmt.Sprintf("prompt %d", n)}, buf); err != nil {
		t.Fatal(err)
	}
	agent()
	if _, err := s.Save(ctx, Point{Session: "s1", N: n, Kind: End}, buf); err != nil {
		t.Fatal(err)
	}
}

var start = map[string]file{
	"a.txt":          {"alpha\n", 0o644},
	"b.txt":          {"bravo\n", 0o644},
	"run.sh":         {"#!/bin/sh\necho hi\n", 0o755},
	"dir/c.txt":      {"charlie\n", 0o644},
	"link":           {"a.txt", os.ModeSymlink},
	".gitignore":     {"*.log\n", 0o644},
	"ignored.log":    {"noise\n", 0o644},
	"deep/er/d.bin":  {"\x00\x01\x02binary", 0o644},
	"keep/e.txt":     {"echo\n", 0o644},
	"space name.txt": {"x y\n", 0o644},
}

// TestRewindRestoresEverything: what a turn's file tool and commands
// did (an edit, sed -i, rm, chmod, a new file in a new folder, a
// symlink changed) is undone byte for byte with modes, in a repository
// and in a plain folder, and the user's repository is untouched.
func TestRewindRestoresEverything(t *testing.T) {
	for _, repo := range []bool{true, false} {
		t.Run(fmt.Sprintf("repo=%v", repo), func(t *testing.T) {
			root, s := folder(t, repo, start)
			var gitBefore string
			if repo {
				gitBefore = gitState(t, root)
			}
			want := readTree(t, root)
			turn(t, s, 1, nil, func() {
				writeFiles(t, root, map[string]file{"a.txt": {"alpha edited\n", 0o644}})
			})
			turn(t, s, 2, nil, func() {
				run(t, root, "sed", "-i", "s/bravo/BRAVO/", "b.txt")
				run(t, root, "rm", "dir/c.txt", "deep/er/d.bin")
				run(t, root, "chmod", "-x", "run.sh")
				run(t, root, "sh", "-c", "mkdir -p new/sub && echo new > new/sub/n.txt && ln -sf b.txt link && echo more > ignored.log")
			})
			plan, err := s.Plan(context.Background(), "s1", 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Conflicts) > 0 {
				t.Fatalf("conflicts %v, want none", plan.Conflicts)
			}
			if _, err := s.Apply(context.Background(), plan, ApplyOptions{}); err != nil {
				t.Fatal(err)
			}
			got := readTree(t, root)
			want["ignored.log"] = file{"more\n", 0o644} // ignored: not the checkpoint's
			assertTree(t, got, want)
			if _, err := os.Stat(filepath.Join(root, "new")); !os.IsNotExist(err) {
				t.Errorf("the folder the turn created is still there (%v)", err)
			}
			if repo {
				if after := gitState(t, root); after != gitBefore {
					t.Errorf("the user's repository changed:\nbefore %s\nafter  %s", gitBefore, after)
				}
			}
			// Rewinding forward again (to the start of turn 2) gives
			// turn 1's result.
			plan, err = s.Plan(context.Background(), "s1", 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Apply(context.Background(), plan, ApplyOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := readTree(t, root)["a.txt"].data; got != "alpha edited\n" {
				t.Errorf("a.txt after rewinding to 2 = %q", got)
			}
		})
	}
}

// gitState is what the user's repository shows: HEAD, refs, index,
// stash and status.
func gitState(t *testing.T, root string) string {
	index, _ := os.ReadFile(filepath.Join(root, ".git", "index"))
	return run(t, root, "git", "rev-parse", "HEAD") + run(t, root, "git", "for-each-ref") +
		fmt.Sprintf("index %x\n", index) + run(t, root, "git", "status", "--porcelain", "--ignored")
}

func assertTree(t *testing.T, got, want map[string]file) {
	t.Helper()
	var diffs []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			diffs = append(diffs, "missing "+p)
		} else if g != w {
			diffs = append(diffs, fmt.Sprintf("%s = %q %v, want %q %v", p, g.data, g.mode, w.data, w.mode))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, "extra "+p)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("workspace differs from the checkpoint:\n%s", strings.Join(diffs, "\n"))
	}
}

// TestBuffersAreSnapshotted: an open file's unsaved text is what the
// checkpoint keeps, and what the rewind gives back, to the disk and the
// editor.
func TestBuffersAreSnapshotted(t *testing.T) {
	root, s := folder(t, true, start)
	a := filepath.Join(root, "a.txt")
	buf := buffers{a: "unsaved alpha\n"}
	turn(t, s, 1, buf, func() { buf[a] = "agent alpha\n" })
	plan, err := s.Plan(context.Background(), "s1", 1, buf)
	if err != nil {
		t.Fatal(err)
	}
	ed := &editor{buf: buf}
	if _, err := s.Apply(context.Background(), plan, ApplyOptions{Editor: ed, Buffers: buf}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(a); string(got) != "unsaved alpha\n" {
		t.Errorf("disk a.txt = %q, want the unsaved text of the checkpoint", got)
	}
	if buf[a] != "unsaved alpha\n" || len(ed.wrote) != 1 {
		t.Errorf("buffer = %q after %v, want the restored text in one edit", buf[a], ed.wrote)
	}
}

type editor struct {
	buf   buffers
	wrote []string
}

func (e *editor) IsOpen(p string) bool { _, ok := e.buf[p]; return ok }
func (e *editor) WriteFile(_ context.Context, p string, before, content []byte) error {
	if string(before) != e.buf[p] {
		return fmt.Errorf("stale before %q", before)
	}
	e.buf[p] = string(content)
	e.wrote = append(e.wrote, p)
	return nil
}

// TestConflicts: a file the user changed since the point (between
// turns, after the last turn, or in a buffer) is never overwritten
// unless forced; files only the agent changed are not conflicts.
func TestConflicts(t *testing.T) {
	tests := []struct {
		name string
		// user acts after turn 1 (between the turns) or after turn 2.
		between, after func(root string, buf buffers)
		want           []string
	}{
		{name: "agent only", want: nil},
		{
			name:  "user edits after the last turn",
			after: func(root string, _ buffers) { os.WriteFile(filepath.Join(root, "a.txt"), []byte("user\n"), 0o644) },
			want:  []string{"a.txt"},
		},
		{
			name:    "user edits between turns",
			between: func(root string, _ buffers) { os.WriteFile(filepath.Join(root, "b.txt"), []byte("user\n"), 0o644) },
			want:    []string{"b.txt"},
		},
		{
			name:  "user creates a file",
			after: func(root string, _ buffers) { os.WriteFile(filepath.Join(root, "mine.txt"), []byte("user\n"), 0o644) },
			want:  []string{"mine.txt"},
		},
		{
			name:  "user types in a buffer",
			after: func(root string, buf buffers) { buf[filepath.Join(root, "a.txt")] = "typed\n" },
			want:  []string{"a.txt"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, s := folder(t, true, start)
			buf := buffers{}
			turn(t, s, 1, buf, func() { writeFiles(t, root, map[string]file{"a.txt": {"agent 1\n", 0o644}}) })
			if tt.between != nil {
				tt.between(root, buf)
			}
			turn(t, s, 2, buf, func() { os.Remove(filepath.Join(root, "dir", "c.txt")) })
			if tt.after != nil {
				tt.after(root, buf)
			}
			before := readTree(t, root)
			plan, err := s.Plan(context.Background(), "s1", 1, buf)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(plan.Conflicts) != fmt.Sprint(tt.want) {
				t.Fatalf("conflicts = %v, want %v", plan.Conflicts, tt.want)
			}
			_, err = s.Apply(context.Background(), plan, ApplyOptions{})
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ce *ConflictError
			if !errors.As(err, &ce) {
				t.Fatalf("Apply = %v, want a ConflictError", err)
			}
			assertTree(t, readTree(t, root), before)
			if _, err := s.Apply(context.Background(), plan, ApplyOptions{Force: true}); err != nil {
				t.Fatalf("forced: %v", err)
			}
			if got := readTree(t, root)["dir/c.txt"].data; got != "charlie\n" {
				t.Errorf("forced rewind: dir/c.txt = %q", got)
			}
		})
	}
}

// TestBadInput: each bad input is a clear error and leaves the
// workspace as it was.
func TestBadInput(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root string, s *Store) (n int)
		want  string
	}{
		{
			name:  "unknown point",
			setup: func(*testing.T, string, *Store) int { return 7 },
			want:  "session s1 has no checkpoint 7: it has 1",
		},
		{
			name: "store deleted",
			setup: func(t *testing.T, _ string, s *Store) int {
				os.RemoveAll(s.Dir())
				return 1
			},
			want: "the checkpoint store was deleted",
		},
		{
			name: "file became a folder",
			setup: func(t *testing.T, root string, s *Store) int {
				// After the turn, someone makes b.txt a folder
				// with a file the store does not have (ignored).
				os.Remove(filepath.Join(root, "b.txt"))
				writeFiles(t, root, map[string]file{"b.txt/x.log": {"x", 0o644}})
				return 1
			},
			want: "is a folder now",
		},
		{
			name: "read-only workspace",
			setup: func(t *testing.T, root string, s *Store) int {
				mkdirTemp = func(string, string) (string, error) {
					return "", &os.PathError{Op: "mkdirtemp", Path: root, Err: syscall.EROFS}
				}
				t.Cleanup(func() { mkdirTemp = os.MkdirTemp })
				return 1
			},
			want: "is not writable",
		},
		{
			name: "a step fails part-way",
			setup: func(t *testing.T, root string, s *Store) int {
				calls := 0
				rename = func(from, to string) error {
					if calls++; calls == 3 {
						return &os.LinkError{Op: "rename", Old: from, New: to, Err: syscall.EACCES}
					}
					return os.Rename(from, to)
				}
				t.Cleanup(func() { rename = os.Rename })
				return 1
			},
			want: "permission denied",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, s := folder(t, false, start)
			turn(t, s, 1, nil, func() {
				run(t, root, "sh", "-c", "echo A > a.txt && sed -i s/bravo/B/ b.txt && rm dir/c.txt && echo n > n.txt")
			})
			n := tt.setup(t, root, s)
			before := readTree(t, root)
			plan, err := s.Plan(context.Background(), "s1", n, nil)
			if err == nil {
				_, err = s.Apply(context.Background(), plan, ApplyOptions{Force: true})
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one saying %q", err, tt.want)
			}
			assertTree(t, readTree(t, root), before)
			if m, _ := filepath.Glob(filepath.Join(root, ".agent-lsp-rewind-*")); len(m) > 0 {
				t.Errorf("staging left behind: %v", m)
			}
		})
	}
}

// TestPointsPersist: points are listed by session id from a new store
// (a restart), with their prompts; Prune drops a session's; Copy gives
// a fork the points up to its prompt.
func TestPointsPersist(t *testing.T) {
	root, s := folder(t, false, start)
	turn(t, s, 1, nil, func() {})
	turn(t, s, 2, nil, func() {})
	again, err := Open(filepath.Join(filepath.Dir(root), "state"), root)
	if err != nil {
		t.Fatal(err)
	}
	points, err := again.List("s1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range points {
		got = append(got, fmt.Sprintf("%d %s %q", p.N, p.Kind, p.Prompt))
	}
	want := `[1 start "prompt 1" 1 end "" 2 start "prompt 2" 2 end ""]`
	if fmt.Sprint(got) != want {
		t.Errorf("points = %v, want %v", got, want)
	}
	if err := again.Copy("s1", "fork", 1); err != nil {
		t.Fatal(err)
	}
	if fork, _ := again.List("fork"); len(fork) != 2 || fork[1].N != 1 {
		t.Errorf("fork's points = %v, want prompt 1's", fork)
	}
	if err := again.Prune("s1"); err != nil {
		t.Fatal(err)
	}
	if points, _ := again.List("s1"); len(points) != 0 {
		t.Errorf("after Prune: %v", points)
	}
	if _, err := again.Save(context.Background(), Point{Session: "../x", N: 1, Kind: Start}, nil); err == nil {
		t.Error("a session id with a slash named a ref")
	}
}

// TestUnchangedFilesAreNotRehashed: a file whose stamp is old is taken
// from the last snapshot without reading it; one changed (even to the
// same size, by a rename over it) is read again.
func TestUnchangedFilesAreNotRehashed(t *testing.T) {
	root, s := folder(t, true, start)
	old := time.Now().Add(-time.Hour)
	for p := range start {
		os.Chtimes(filepath.Join(root, p), old, old)
	}
	ctx := context.Background()
	if _, err := s.Save(ctx, Point{Session: "s1", N: 1, Kind: Start}, nil); err != nil {
		t.Fatal(err)
	}
	if len(s.stamp) == 0 {
		t.Fatal("no stamps kept")
	}
	// Same size, same mtime, new inode: must be seen.
	b := filepath.Join(root, "b.txt")
	os.WriteFile(b+".tmp", []byte("BRAVO\n"), 0o644)
	os.Chtimes(b+".tmp", old, old)
	os.Rename(b+".tmp", b)
	if _, err := s.Save(ctx, Point{Session: "s1", N: 1, Kind: End}, nil); err != nil {
		t.Fatal(err)
	}
	plan, err := s.Plan(ctx, "s1", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Changes) != 1 || plan.Changes[0].Path != "b.txt" {
		t.Errorf("changes = %+v, want b.txt's", plan.Changes)
	}
}

// TestSweepKeepsWhatPointsReach: pruning a session and sweeping deletes
// the objects only its points reached; another session's points still
// rewind.
func TestSweepKeepsWhatPointsReach(t *testing.T) {
	root, s := folder(t, false, start)
	ctx := context.Background()
	if _, err := s.Save(ctx, Point{Session: "keep", N: 1, Kind: Start}, nil); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]file{"only-gone.txt": {"a blob only the pruned session has\n", 0o644}})
	if _, err := s.Save(ctx, Point{Session: "gone", N: 1, Kind: Start}, nil); err != nil {
		t.Fatal(err)
	}
	blob := s.objs.path(hashObject("blob", []byte("a blob only the pruned session has\n")))
	if _, err := os.Stat(blob); err != nil {
		t.Fatal(err)
	}
	if ids, _ := s.Sessions(); fmt.Sprint(ids) != "[gone keep]" {
		t.Fatalf("sessions = %v", ids)
	}
	if err := s.Prune("gone"); err != nil {
		t.Fatal(err)
	}
	removed, err := s.Sweep(0)
	if err != nil || removed == 0 {
		t.Fatalf("Sweep = %d, %v; want the pruned session's objects removed", removed, err)
	}
	if _, err := os.Stat(blob); !os.IsNotExist(err) {
		t.Errorf("the pruned session's blob is still there (%v)", err)
	}
	plan, err := s.Plan(ctx, "keep", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(ctx, plan, ApplyOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "only-gone.txt")); !os.IsNotExist(err) {
		t.Errorf("rewinding the kept session: only-gone.txt still there (%v)", err)
	}
	assertTree(t, readTree(t, root), start)
}
