//go:build windows

package procgroup

import (
	"os"
	"os/exec"
	"syscall"
)

// Set starts cmd in a new process group. Windows has no signal for a
// group: Terminate and Kill end the group's leader only, and what it
// started may outlive it.
func Set(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// Terminate ends the group's leader: Windows has no SIGTERM.
func Terminate(pgid int) { _ = Kill(pgid) }

// Kill ends the group's leader.
func Kill(pgid int) error {
	p, err := os.FindProcess(pgid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// Exists is false: without group signals there is nothing to wait for
// once the leader has been killed.
func Exists(int) bool { return false }
