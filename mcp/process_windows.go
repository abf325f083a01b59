//go:build windows

package mcp

import (
	"os"
	"os/exec"
	"syscall"
)

// newProcessGroup starts cmd in a new process group. Windows cannot
// signal a group: stopping a server ends its own process only.
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// terminateGroup ends the group's leader: Windows has no SIGTERM.
func terminateGroup(pid int) { killGroup(pid) }

// killGroup ends the group's leader.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// groupExists is false: without /proc or group signals there is nothing
// to wait for once the leader has been killed.
func groupExists(int) bool { return false }
