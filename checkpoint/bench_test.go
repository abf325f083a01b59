package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
)

// benchFolder makes a git repository of n files in 100 folders, last
// modified an hour ago, and takes its first checkpoint.
func benchFolder(b *testing.B, n int) (root string, s *Store) {
	b.Helper()
	base := b.TempDir()
	root = filepath.Join(base, "ws")
	testenv.Repository(b, root, n)
	var err error
	if s, err = Open(filepath.Join(base, "state"), root); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Save(context.Background(), Point{Session: "b", N: 1, Kind: Start}, nil); err != nil {
		b.Fatal(err)
	}
	return root, s
}

// BenchmarkCheckpoint10kFiles10Changed is a prompt's checkpoint in a
// repository of 10,000 files of which 10 changed since the last one
// (issue 31: at most 50 ms). It reports the store's growth per
// checkpoint as disk-bytes/op, beside what the first checkpoint took and
// the workspace's size.
func BenchmarkCheckpoint10kFiles10Changed(b *testing.B) {
	root, s := benchFolder(b, 10_000)
	ctx := context.Background()
	before := dirSize(s.Dir())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for j := range 10 {
			k := (i*10 + j) * 997 % 10_000
			p := testenv.RepositoryFile(root, k)
			if err := os.WriteFile(p, fmt.Appendf(nil, "package pkg\n\n// Changed %d.\n", i), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if _, err := s.Save(ctx, Point{Session: "b", N: 2 + i, Kind: Start}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(dirSize(s.Dir())-before)/float64(b.N), "disk-bytes/op")
	b.ReportMetric(float64(before), "first-checkpoint-bytes")
	b.ReportMetric(float64(dirSize(root)-dirSize(filepath.Join(root, ".git"))), "workspace-bytes")
}

// BenchmarkRewind100Files restores 100 changed files of a 10,000-file
// repository (issue 31: at most 300 ms), planning included.
func BenchmarkRewind100Files(b *testing.B) {
	root, s := benchFolder(b, 10_000)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for k := range 100 {
			p := testenv.RepositoryFile(root, k*97)
			if err := os.WriteFile(p, fmt.Appendf(nil, "changed %d\n", i), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := s.Save(ctx, Point{Session: "b", N: 1, Kind: End}, nil); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		plan, err := s.Plan(ctx, "b", 1, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(plan.Changes) != 100 {
			b.Fatalf("%d changes, want 100", len(plan.Changes))
		}
		if _, err := s.Apply(ctx, plan, ApplyOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// BenchmarkListFiles10k is the floor of a checkpoint: `git ls-files
// --cached --others --exclude-standard` of the 10,000-file repository,
// as a snapshot runs it.
func BenchmarkListFiles10k(b *testing.B) {
	_, s := benchFolder(b, 10_000)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.listFiles(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
