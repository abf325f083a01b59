package procgroup

import "os/exec"

// KillCmd kills the group that cmd leads, and cmd itself, if it started.
func KillCmd(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = Kill(cmd.Process.Pid)
		_ = cmd.Process.Kill()
	}
}
