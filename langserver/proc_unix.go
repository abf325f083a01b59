//go:build unix

package langserver

import (
	"os/exec"
	"syscall"
)

// setGroup makes cmd the leader of a new process group, so that the
// children a server starts (tsserver under typescript-language-server)
// end with it.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group of cmd.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
	}
}
