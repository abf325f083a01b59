package main

import (
	"log"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/session"
)

// cleanupOnce runs the session cleanup once per process, at the first
// configuration.
var cleanupOnce sync.Once

// cleanupSessions deletes agent-lsp's sessions untouched for more than
// days days (the settings' cleanupPeriodDays), as Claude Code does with
// its own at start.
func cleanupSessions(store *session.Store, days int) {
	cleanupOnce.Do(func() {
		n, err := store.Cleanup(time.Now(), time.Duration(days)*24*time.Hour)
		if err != nil {
			log.Printf("sessions: %v", err)
		}
		if n > 0 {
			log.Printf("sessions: deleted %d sessions untouched for more than %d days (cleanupPeriodDays)", n, days)
		}
	})
}
