package engine

import (
	"context"
	"sync"

	"github.com/agent-lsp/agent-lsp/watch"
)

// watcher is the watcher of a session's workspace.
type watcher struct {
	done chan struct{} // closed when it has stopped; set before the session is shared

	mu   sync.Mutex         // guards stop
	stop context.CancelFunc // stops it
}

// startWatching watches the session's workspace in the background, so
// that instruction files (CLAUDE.md, AGENTS.md) edited while the session
// runs take effect at the next model call. Walking a large tree takes a
// while: it never delays session/new.
func (s *Session) startWatching() {
	ctx, cancel := context.WithCancel(context.Background())
	wt := &s.tools.watch
	wt.mu.Lock()
	wt.stop = cancel
	wt.mu.Unlock()
	wt.done = make(chan struct{})
	go func() {
		defer close(wt.done)
		w, err := watch.New(ctx, s.tools.env.Roots, s.svc.cfg.Logf)
		if err != nil {
			s.svc.cfg.Logf("session %s: not watching the workspace: %v", s.ID, err)
			return
		}
		w.Subscribe(func(path string) {
			if s.isMemoryPath(path) {
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

// close stops the watcher and waits for it.
func (wt *watcher) close() {
	wt.mu.Lock()
	stop := wt.stop
	wt.mu.Unlock()
	if stop != nil {
		stop()
		<-wt.done
	}
}
