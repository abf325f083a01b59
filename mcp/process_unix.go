//go:build !windows

package mcp

import (
	"os/exec"
	"syscall"
)

// newProcessGroup makes cmd the leader of a new process group, so that
// stopping a server stops what it started too.
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminateGroup asks every process of the group to stop (SIGTERM).
func terminateGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGTERM) }

// killGroup kills every process of the group (SIGKILL).
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

// groupExists reports whether kill(2) still finds a process of the group
// (zombies included).
func groupExists(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
