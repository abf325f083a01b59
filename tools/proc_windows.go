//go:build windows

package tools

import (
	"os"
	"os/exec"
	"syscall"
)

// newProcessGroup starts cmd in a new process group. Windows has no
// signal for a group: terminateGroup and killGroup end the command's own
// process only, and what it started may outlive it.
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
