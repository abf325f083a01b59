package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkConfinedGitStatus is the cost of confinement per command: an
// auto-run `git status` in a repository of 10,000 committed files, in the
// read-only sandbox (wrapping included), with the workspace scan reused
// (cached) and walked again (rescan, as after a command that may have
// written), beside the same git status unconfined.
func BenchmarkConfinedGitStatus(b *testing.B) {
	if bwrap, _ := Probe(); bwrap == "" {
		b.Skip("bubblewrap cannot run here")
	}
	ws := b.TempDir()
	// Files older than the index, so that no status re-reads them
	// ("racily clean" entries): each status then costs what it costs in
	// a working repository.
	old := time.Now().Add(-time.Hour)
	for i := 0; i < 10_000; i++ {
		p := filepath.Join(ws, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%05d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			b.Fatal(err)
		}
	}
	git := exec.Command("bash", "-c", "git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm init")
	git.Dir = ws
	if out, err := git.CombinedOutput(); err != nil {
		b.Fatalf("git: %v\n%s", err, out)
	}
	c, _ := NewConfiner([]string{ws})
	run := func(b *testing.B, argv []string) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
	b.Run("unconfined", func(b *testing.B) {
		for b.Loop() {
			run(b, []string{"git", "status", "--short"})
		}
	})
	for _, rescan := range []bool{false, true} {
		name := "cached"
		if rescan {
			name = "rescan"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if rescan {
					c.Invalidate()
				}
				argv, release, err := c.Wrap([]string{"git", "status", "--short"}, Options{})
				if err != nil {
					b.Fatal(err)
				}
				run(b, argv)
				release()
			}
		})
	}
}
