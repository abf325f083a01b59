package proctest

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that keeps failures and cleanups to itself.
type recorder struct {
	testing.TB
	errs     []string
	cleanups []func()
}

func (r *recorder) Helper()          {}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(f string, args ...any) {
	r.errs = append(r.errs, strings.TrimSpace(sprintf(f, args...)))
}

// finish runs the cleanups, last registered first, as testing does.
func (r *recorder) finish() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestReaped(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the reaping check needs /proc")
	}
	defer func(g time.Duration) { Grace = g }(Grace)
	Grace = 300 * time.Millisecond
	tests := []struct {
		name string
		// script runs under sh -c and is waited for.
		script string
		leak   string // a word of the leaked command line, "" for none
	}{
		{"waited child", "true", ""},
		{"short-lived child", "sleep 0.1", ""},
		// The shell exits at once; its background sleep is orphaned and
		// re-parented to the test binary, which must still see it.
		{"orphaned grandchild", "sleep 31.5 & exit 0", "31.5"},
		{"grandchild ignoring SIGTERM in a new session", "setsid sh -c 'trap \"\" TERM; sleep 32.5' & exit 0", "32.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Reaped(r)
			// No output pipe: a background process would hold it open.
			if err := exec.Command("sh", "-c", tt.script).Run(); err != nil {
				t.Fatalf("sh -c %q: %v", tt.script, err)
			}
			r.finish()
			switch {
			case tt.leak == "" && len(r.errs) > 0:
				t.Errorf("reported a leak: %v", r.errs)
			case tt.leak != "" && (len(r.errs) != 1 || !strings.Contains(r.errs[0], tt.leak)):
				t.Errorf("errors %v; want one naming %q", r.errs, tt.leak)
			}
			// The leak was killed: nothing of the script is left.
			for _, p := range Descendants() {
				if tt.leak != "" && strings.Contains(p.Cmdline, tt.leak) {
					t.Errorf("leaked process still alive after the check: %+v", p)
				}
			}
		})
	}
}

func sprintf(f string, args ...any) string { return fmt.Sprintf(f, args...) }
