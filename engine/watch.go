package engine

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/agent-lsp/agent-lsp/watch"
)

// startWatching watches the session's workspace in the background, so
// that instruction files (CLAUDE.md, AGENTS.md) edited while the session
// runs take effect at the next model call. Walking a large tree takes a
// while: it never delays session/new.
func (s *Session) startWatching() {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.stopWatch = cancel
	s.mu.Unlock()
	s.watchDone = make(chan struct{})
	go func() {
		defer close(s.watchDone)
		w, err := watch.New(ctx, s.env.Roots, s.svc.cfg.Logf)
		if err != nil {
			s.svc.cfg.Logf("session %s: not watching the workspace: %v", s.ID, err)
			return
		}
		w.Subscribe(func(path string) {
			if slices.Contains(instructionFiles, filepath.Base(path)) {
				s.ReloadInstructions()
				s.notice(Status{Kind: StatusInfo, Message: "instructions reloaded: " + path + " changed"})
			}
			s.extensionChanged(ctx, path)
		})
		// The user's commands and skills live outside the workspace.
		if dirs := s.userExtensionDirs(); len(dirs) > 0 {
			if uw, err := watch.New(ctx, dirs, s.svc.cfg.Logf); err == nil {
				uw.Subscribe(func(path string) { s.extensionChanged(ctx, path) })
				defer uw.Close()
			} else {
				s.svc.cfg.Logf("session %s: not watching %v: %v", s.ID, dirs, err)
			}
		}
		<-ctx.Done()
		w.Close()
	}()
}

// stopWatching stops the workspace watcher and waits for it.
func (s *Session) stopWatching() {
	s.mu.Lock()
	stop := s.stopWatch
	s.mu.Unlock()
	if stop != nil {
		stop()
		<-s.watchDone
	}
}
