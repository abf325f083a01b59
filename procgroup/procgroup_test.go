//go:build !windows

package procgroup

import (
	"os/exec"
	"testing"
	"time"
)

// TestKillEndsWhatTheLeaderStarted: a child the leader started in the
// background dies with the group.
func TestKillEndsWhatTheLeaderStarted(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 60 & wait")
	Set(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	if !Exists(pgid) {
		t.Fatal("the group does not exist after the start")
	}
	KillCmd(cmd)
	_ = cmd.Wait()
	// The background sleep is reparented and reaped by init: poll, with
	// the test's own bound.
	deadline := time.Now().Add(30 * time.Second)
	for Exists(pgid) {
		if time.Now().After(deadline) {
			t.Fatal("a process of the group outlived Kill")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
