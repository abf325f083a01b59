//go:build !windows

package tools

import (
	"os/exec"
	"syscall"
)

// newProcessGroup makes cmd the leader of a new process group, so that
// everything it starts can be signalled at once.
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminateGroup asks every process of the group to stop (SIGTERM).
func terminateGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGTERM) }

// killGroup kills every process of the group (SIGKILL). The group may be
// gone already.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
