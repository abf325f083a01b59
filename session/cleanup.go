package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Cleanup deletes the sessions of the store's own directory whose file
// has not changed since before now minus maxAge, with their subagents'
// files, as Claude Code does at start with cleanupPeriodDays. A session
// open in a Log (here or in another process) is kept. Claude Code's own
// sessions are left to Claude Code. It returns how many sessions it
// deleted; the error joins what could not be read or deleted.
func (s *Store) Cleanup(now time.Time, maxAge time.Duration) (int, error) {
	if maxAge <= 0 {
		return 0, fmt.Errorf("cleaning up sessions: period %v is not positive", maxAge)
	}
	cutoff := now.Add(-maxAge)
	root := filepath.Join(s.dir, "projects")
	projects, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("cleaning up sessions: %w", err)
	}
	var errs []error
	removed := 0
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		dir := filepath.Join(root, p.Name())
		entries, err := os.ReadDir(dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("cleaning up sessions: %w", err))
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if !e.Type().IsRegular() || !strings.HasSuffix(name, ".jsonl") {
				continue
			}
			fi, err := e.Info()
			if err != nil || !fi.ModTime().Before(cutoff) {
				continue
			}
			ok, err := removeSession(filepath.Join(dir, name))
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				removed++
			}
		}
		os.Remove(dir) // only when nothing is left in it
	}
	return removed, errors.Join(errs...)
}

// removeSession deletes the session file path and its folder of
// subagent files, unless a Log holds the file; ok reports a deletion.
func removeSession(path string) (ok bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false, fmt.Errorf("cleaning up session %s: %w", path, err)
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		if errors.Is(err, ErrInUse) {
			return false, nil
		}
		return false, fmt.Errorf("cleaning up session %s: %w", path, err)
	}
	// The lock is held while the file goes, so no Log opens it between
	// the check and the removal.
	if err := os.Remove(path); err != nil {
		return false, fmt.Errorf("cleaning up session %s: %w", path, err)
	}
	if err := os.RemoveAll(strings.TrimSuffix(path, ".jsonl")); err != nil {
		return true, fmt.Errorf("cleaning up session %s: %w", path, err)
	}
	return true, nil
}
