//go:build windows

package hooks

import (
	"os"
	"os/exec"
	"syscall"
)

// newProcessGroup starts cmd in a new process group. Windows cannot
// signal a group: killGroup ends the hook's own process only.
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup ends the group's leader.
func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
