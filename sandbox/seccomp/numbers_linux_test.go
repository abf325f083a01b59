//go:build linux

package seccomp

import (
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSeccompNumbers checks the filter's system call numbers for this
// machine against golang.org/x/sys/unix's.
func TestSeccompNumbers(t *testing.T) {
	a, ok := arches[runtime.GOARCH]
	if !ok {
		t.Skipf("no seccomp filter for %s", runtime.GOARCH)
	}
	if a.socket != unix.SYS_SOCKET {
		t.Errorf("socket is %d, want %d", a.socket, unix.SYS_SOCKET)
	}
	want := []uint32{unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER}
	if !slices.Equal(a.denied, want) {
		t.Errorf("denied calls are %v, want %v", a.denied, want)
	}
	audit := map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}[runtime.GOARCH]
	if a.audit != audit {
		t.Errorf("audit arch is %#x, want %#x", a.audit, audit)
	}
}
