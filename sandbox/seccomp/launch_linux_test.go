package seccomp

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLauncher runs a program through the launcher: it must be exec'd
// with --seccomp and a descriptor from which the whole filter reads.
func TestLauncher(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want, err := Filter()
	if err != nil {
		t.Skip(err)
	}
	// A script stands in for bwrap: $1 is --seccomp, $2 the descriptor,
	// then the rest of the command line.
	standIn := filepath.Join(t.TempDir(), "bwrap")
	script := "#!/bin/bash\n[ \"$1 $3\" = \"--seccomp rest\" ] && exec cat <&\"$2\"\n"
	if err := os.WriteFile(standIn, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe, LauncherArg, standIn, "rest").Output()
	if err != nil {
		t.Fatalf("the launcher failed: %v", err)
	}
	if string(out) != string(want) {
		t.Errorf("the program read %d bytes from the launcher's descriptor, want the %d of the filter", len(out), len(want))
	}
}

// BenchmarkLauncher is the cost the launcher adds to every sandboxed
// command: starting /bin/true directly, and through the launcher (this
// test binary; agent-lsp is larger, and runs a few more package inits
// first).
func BenchmarkLauncher(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		argv []string
	}{
		{"direct", []string{"/bin/true"}},
		{"launcher", []string{exe, LauncherArg, "/bin/true"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if err := exec.Command(bc.argv[0], bc.argv[1:]...).Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
