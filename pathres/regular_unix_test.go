//go:build !windows

package pathres

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadRegular: a FIFO and a link to /dev/zero are refused without
// waiting or reading, a sparse file by its size before any byte is read.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	fifo, zero, sparse, small := filepath.Join(dir, "fifo"), filepath.Join(dir, "zero"), filepath.Join(dir, "sparse"), filepath.Join(dir, "small")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/zero", zero)
	os.WriteFile(sparse, nil, 0o644)
	if err := os.Truncate(sparse, 20<<30); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	os.WriteFile(small, []byte("ok"), 0o644)
	var notRegular *NotRegularError
	var tooLarge *TooLargeError
	for _, c := range []struct {
		path string
		want any
		text string
	}{
		{fifo, &notRegular, "is a named pipe (FIFO), not a regular file"},
		{zero, &notRegular, "is a character device"},
		{sparse, &tooLarge, "is 20 GB, more than the 1 MB read at once"},
	} {
		_, err := ReadRegular(c.path, 1<<20)
		if !errors.As(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("ReadRegular(%s) = %v, want %q", c.path, err, c.text)
		}
	}
	if b, err := ReadRegular(small, 1<<20); err != nil || string(b) != "ok" {
		t.Errorf("ReadRegular(small) = %q, %v", b, err)
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1536: "1.5 KB", 64 << 20: "64 MB", 20 << 30: "20 GB", 100 << 30: "100 GB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
