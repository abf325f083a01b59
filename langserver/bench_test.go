package langserver_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkEditDiagnostics measures what diagnostics add to an Edit with a
// warm gopls: the edited text goes out (didChange) and the edit waits for
// gopls's diagnostics of that version. The text before the edit is the
// one of the previous op, whose diagnostics are already known, so the
// "before" half costs nothing, as in a session that edits a file twice.
func BenchmarkEditDiagnostics(b *testing.B) {
	m, dir := goplsManagerTB(b)
	path := filepath.Join(dir, "main.go")
	ctx := context.Background()
	if _, ok, err := m.Diagnostics(ctx, dir, path, []byte(mainGo), time.Minute); err != nil || !ok {
		b.Fatalf("warming gopls: ok=%v err=%v", ok, err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		text := strings.Replace(mainGo, `"you"`, `"you`+strconv.Itoa(i)+`"`, 1)
		if i%2 == 1 {
			text = strings.Replace(text, `fmt.Println(Greet(`, `var n int = Greet(`, 1) + "var _ = n\n"
		}
		if _, ok, err := m.Diagnostics(ctx, dir, path, []byte(text), 10*time.Second); err != nil || !ok {
			b.Fatalf("op %d: ok=%v err=%v", i, ok, err)
		}
	}
}

// BenchmarkOneServerMemory reports the memory one started gopls costs: the
// sidecar's heap growth for holding it (client, buffers, diagnostics) and
// gopls's own resident memory, on this module of one file.
func BenchmarkOneServerMemory(b *testing.B) {
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m, dir := goplsManagerTB(b)
		if _, ok, err := m.Diagnostics(context.Background(), dir, filepath.Join(dir, "main.go"), []byte(mainGo), time.Minute); err != nil || !ok {
			b.Fatalf("ok=%v err=%v", ok, err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/1e6, "sidecar-heap-MB")
		for _, pid := range m.PIDs() {
			b.ReportMetric(rssMB(pid), "server-RSS-MB")
		}
		m.Close()
	}
}

func rssMB(pid int) float64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}
