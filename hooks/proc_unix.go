//go:build !windows

package hooks

import (
	"os/exec"
	"syscall"
)

// newProcessGroup makes cmd the leader of a new process group, so that
// everything the hook started can be killed with it.
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills every process of the group (SIGKILL).
func killGroup(pgid int) error { return syscall.Kill(-pgid, syscall.SIGKILL) }
