//go:build !windows

package procgroup

import (
	"os/exec"
	"syscall"
)

// Set makes cmd, when started, the leader of a new process group.
func Set(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// Terminate asks every process of the group to stop (SIGTERM).
func Terminate(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGTERM) }

// Kill kills every process of the group (SIGKILL). The group may be gone
// already.
func Kill(pgid int) error { return syscall.Kill(-pgid, syscall.SIGKILL) }

// Exists reports whether kill(2) still finds a process of the group
// (zombies included).
func Exists(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
