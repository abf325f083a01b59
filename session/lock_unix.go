//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package session

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on f for as long as it stays
// open, so two Logs (in this process or another) never append to one
// session and a torn line is never cut while someone is writing it. When
// another holds it, the error is an *InUseError naming that process when
// the system tells.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		e := &InUseError{Path: f.Name()}
		e.PID, e.Command = lockHolder(f)
		return e
	}
	if err != nil {
		return fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	return nil
}
