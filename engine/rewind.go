package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/checkpoint"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// rewinding is what a session knows of its checkpoints (package
// checkpoint): a snapshot of the workspace before each of the user's
// prompts and after its turn, kept in the state directory beside the
// session files, so they survive a restart and list by session id.
type rewinding struct {
	mu      sync.Mutex
	store   *checkpoint.Store // nil until opened
	off     error             // why the session has no checkpoints, once known
	next    int               // the next prompt's number; 0 until read from the store
	running int               // the running prompt's number, 0 when none has a start point

	// pendingMu guards pending, the running prompt's start point while
	// it is being taken: closed when it is saved or failed. Nothing that
	// can change files (a tool, a hook) runs before it is closed.
	pendingMu sync.Mutex
	pending   chan struct{}
}

// position is where a prompt starts in the conversation, kept in its
// start point to rewind the conversation there.
type position struct {
	// History is how many messages the model's context held; Blocks,
	// when the prompt was merged into the last of them (a user
	// message), how many blocks that message had.
	History int `json:"history"`
	Blocks  int `json:"blocks"`
	// Log is how many messages the session file's live chain held,
	// after the boundary Boundary ("" for none).
	Log      int    `json:"log"`
	Boundary string `json:"boundary,omitempty"`
}

// errNoCheckpoints is the error of the rewind methods when sessions are
// not persisted: the checkpoints live beside the session files.
var errNoCheckpoints = errors.New("checkpoints are kept with the session files, and sessions are not persisted in this configuration")

// checkpoints returns the session's store, opening it the first time.
func (s *Session) checkpoints() (*checkpoint.Store, error) {
	r := &s.rewind
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.store != nil || r.off != nil {
		return r.store, r.off
	}
	if s.svc.cfg.Store == nil {
		r.off = errNoCheckpoints
		return nil, r.off
	}
	r.store, r.off = checkpoint.Open(s.svc.cfg.Store.Dir(), s.cwd)
	if r.store != nil {
		s.pruneGone(r.store)
	}
	return r.store, r.off
}

// pruneAfter is how long the points of a session whose file is gone are
// kept: a new session's file may not be written yet.
const pruneAfter = time.Hour

// pruneGone drops the points of the folder's sessions whose file was
// deleted, and the objects only they used: checkpoints go with their
// session.
func (s *Session) pruneGone(store *checkpoint.Store) {
	ids, err := store.Sessions()
	if err != nil {
		s.svc.cfg.Logf("session %s: %v", s.ID, err)
		return
	}
	pruned := false
	for _, id := range ids {
		if id == s.ID || !s.svc.cfg.Store.Gone(s.cwd, id) {
			continue
		}
		if _, err := s.svc.Session(id); err == nil {
			continue // open in this process
		}
		points, err := store.List(id)
		if err != nil || len(points) > 0 && time.Since(points[len(points)-1].Time) < pruneAfter {
			continue
		}
		if err := store.Prune(id); err != nil {
			s.svc.cfg.Logf("session %s: %v", s.ID, err)
			continue
		}
		pruned = true
	}
	if pruned {
		if _, err := store.Sweep(pruneAfter); err != nil {
			s.svc.cfg.Logf("session %s: %v", s.ID, err)
		}
	}
}

// buffers gives a snapshot the editor's text of the files open there.
type buffers struct{ files tools.FileSystem }

func (b buffers) Text(path string) ([]byte, bool) {
	if b.files == nil || !b.files.IsOpen(path) {
		return nil, false
	}
	data, err := b.files.ReadFile(path)
	return data, err == nil
}

// checkpointTimeout bounds a snapshot, which the turn's first tool waits for.
const checkpointTimeout = 10 * time.Second

// checkpointStart begins the snapshot of the workspace and records the
// conversation's position before a prompt runs; the history does not
// hold the prompt yet. The snapshot is taken while the model is asked
// (it waits on the network, the snapshot on the disk), so a prompt's
// start does not wait for it; awaitCheckpoint holds back everything that
// can change files until it is saved. A failure is logged: the prompt
// runs without a checkpoint.
func (s *Session) checkpointStart(ctx context.Context, prompt []schema.ContentBlock) {
	if s.agent != nil {
		return // a subagent's turns are its parent's
	}
	data, _ := json.Marshal(s.position())
	text := promptText(prompt)
	done := make(chan struct{})
	r := &s.rewind
	r.pendingMu.Lock()
	r.pending = done
	r.pendingMu.Unlock()
	go func() {
		defer close(done)
		s.saveStart(ctx, text, data)
	}()
}

// saveStart saves the running prompt's start point: the workspace as
// the editor's buffers show it, and the conversation's position data.
func (s *Session) saveStart(ctx context.Context, prompt string, data []byte) {
	store, err := s.checkpoints()
	if store == nil {
		if !errors.Is(err, errNoCheckpoints) {
			s.svc.cfg.Logf("session %s: no checkpoints: %v", s.ID, err)
		}
		return
	}
	r := &s.rewind
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.known(store, s.ID); err != nil {
		s.svc.cfg.Logf("session %s: %v", s.ID, err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, checkpointTimeout)
	defer cancel()
	if checkpointStall != nil {
		checkpointStall()
	}
	p := checkpoint.Point{Session: s.ID, N: r.next, Kind: checkpoint.Start, Prompt: prompt, Data: data}
	if _, err := store.Save(ctx, p, buffers{s.tools.env.Files}); err != nil {
		s.svc.cfg.Logf("session %s: %v", s.ID, err)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// A folder too large to snapshot would hold every turn's
			// first tool by the timeout: the session goes on without.
			r.store, r.off = nil, fmt.Errorf("the workspace is too large to checkpoint within %s; this session has no checkpoints", checkpointTimeout)
			s.status(context.WithoutCancel(ctx), Status{Kind: StatusWarning, Message: r.off.Error()})
		}
		return
	}
	r.running = r.next
	r.next++
}

// checkpointStall, set by tests, runs before a start point is saved: it
// holds the snapshot back to show that no tool runs before it.
var checkpointStall func()

// awaitCheckpoint waits until the running prompt's start point is
// saved (or failed): called before anything that can change the
// workspace runs, so the checkpoint holds the files as they were before
// the prompt.
func (s *Session) awaitCheckpoint() {
	r := &s.rewind
	r.pendingMu.Lock()
	done := r.pending
	r.pendingMu.Unlock()
	if done != nil {
		<-done
	}
}

// known reads the next prompt's number from the store the first time:
// a resumed session goes on from its last point. Called with mu.
func (r *rewinding) known(store *checkpoint.Store, id string) error {
	if r.next > 0 {
		return nil
	}
	points, err := store.List(id)
	if err != nil {
		return err
	}
	r.next = 1
	if len(points) > 0 {
		r.next = points[len(points)-1].N + 1
	}
	return nil
}

// checkpointEnd records the workspace after the turn, so that a later
// rewind tells the agent's changes from the user's.
func (s *Session) checkpointEnd() {
	s.awaitCheckpoint()
	r := &s.rewind
	r.pendingMu.Lock()
	r.pending = nil
	r.pendingMu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running == 0 || r.store == nil {
		return
	}
	// The turn may have been cancelled: the end is recorded anyway.
	ctx, cancel := context.WithTimeout(context.Background(), checkpointTimeout)
	defer cancel()
	if _, err := r.store.Save(ctx, checkpoint.Point{Session: s.ID, N: r.running, Kind: checkpoint.End}, buffers{s.tools.env.Files}); err != nil {
		s.svc.cfg.Logf("session %s: %v", s.ID, err)
	}
	r.running = 0
}

// position returns where the next prompt starts in the conversation.
func (s *Session) position() position {
	c := &s.conv
	c.mu.Lock()
	p := position{History: len(c.history), Blocks: -1}
	if n := len(c.history); n > 0 && c.history[n-1].Role == providers.RoleUser {
		p.Blocks = len(c.history[n-1].Content)
	}
	c.mu.Unlock()
	if c.log != nil {
		p.Log, p.Boundary = c.log.Len(), c.log.Boundary()
	}
	return p
}

// Checkpoints lists the session's checkpoints: one per prompt, with the
// prompt's text, oldest first.
func (s *Session) Checkpoints() ([]schema.Checkpoint, error) {
	s.awaitCheckpoint() // the running prompt's point is listed once saved
	store, err := s.checkpoints()
	if err != nil {
		return nil, err
	}
	points, err := store.List(s.ID)
	if err != nil {
		return nil, err
	}
	out := []schema.Checkpoint{}
	for _, p := range points {
		if p.Kind == checkpoint.Start {
			out = append(out, schema.Checkpoint{Checkpoint: p.N, Prompt: p.Prompt, Time: p.Time.UTC().Format(time.RFC3339)})
		}
	}
	return out, nil
}

// Rewind restores the session to before its prompt p.Checkpoint: the
// workspace's files (restore "code"), the conversation ("conversation")
// or both. Files someone other than the agent changed since are
// conflicts: nothing is applied unless p.Force. A preview applies
// nothing. No turn may run meanwhile.
func (s *Session) Rewind(ctx context.Context, p schema.RewindParams) (*schema.RewindResult, error) {
	runCtx, err := s.begin(ctx, nil)
	if errors.Is(err, ErrBusy) {
		return nil, errors.New("a prompt is running in this session; wait for it to end or cancel it before rewinding")
	}
	if err != nil {
		return nil, err
	}
	res, err := s.rewindTo(runCtx, p)
	s.turn.end(schema.StopEndTurn, nil)
	return res, err
}

// rewindTo is Rewind in a session marked as running.
func (s *Session) rewindTo(ctx context.Context, p schema.RewindParams) (*schema.RewindResult, error) {
	code := p.Restore == schema.RestoreCode || p.Restore == schema.RestoreBoth
	conv := p.Restore == schema.RestoreConversation || p.Restore == schema.RestoreBoth
	if !code && !conv {
		return nil, fmt.Errorf("restore %q: want %q, %q or %q", p.Restore, schema.RestoreCode, schema.RestoreConversation, schema.RestoreBoth)
	}
	store, err := s.checkpoints()
	if err != nil {
		return nil, err
	}
	r := &s.rewind
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.known(store, s.ID); err != nil {
		return nil, err
	}
	plan, err := store.Plan(ctx, s.ID, p.Checkpoint, buffers{s.tools.env.Files})
	if err != nil {
		return nil, err
	}
	var pos position
	if conv {
		if err := json.Unmarshal(plan.Point.Data, &pos); err != nil {
			return nil, fmt.Errorf("checkpoint %d has no position in the conversation: %w", p.Checkpoint, err)
		}
		if err := s.checkRewindable(pos, p.Checkpoint); err != nil {
			return nil, err
		}
	}
	res := &schema.RewindResult{Changes: []schema.RewindChange{}}
	if code {
		for _, c := range plan.Changes {
			res.Changes = append(res.Changes, schema.RewindChange{Path: filepath.Join(s.cwd, filepath.FromSlash(c.Path)), Action: c.Action})
		}
		for _, c := range plan.Conflicts {
			res.Conflicts = append(res.Conflicts, filepath.Join(s.cwd, filepath.FromSlash(c)))
		}
	}
	if p.Preview || (code && len(plan.Conflicts) > 0 && !p.Force) {
		return res, nil
	}
	if code {
		applied, err := store.Apply(ctx, plan, checkpoint.ApplyOptions{Force: p.Force, Editor: s.tools.env.Files, Buffers: buffers{s.tools.env.Files}})
		if err != nil {
			return nil, err
		}
		res.Warnings = applied.Warnings
	}
	if conv {
		if err := s.conv.rewindTo(pos); err != nil {
			return nil, err
		}
		// The rewound prompts' points go: their turns are no longer in
		// the conversation, and the next prompt takes their number.
		for n := p.Checkpoint; n < r.next; n++ {
			if err := store.Drop(s.ID, n); err != nil {
				return nil, err
			}
		}
		r.next = p.Checkpoint
		if !code && p.Checkpoint > 1 {
			// The files stay as the rewound turns left them: the
			// agent's doing, not the user's, for a later rewind.
			end := checkpoint.Point{Session: s.ID, N: p.Checkpoint - 1, Kind: checkpoint.End}
			if _, err := store.Save(ctx, end, buffers{s.tools.env.Files}); err != nil {
				res.Warnings = append(res.Warnings, err.Error())
			}
		}
	}
	res.Applied = true
	return res, nil
}

// checkRewindable fails when the conversation cannot go back to pos: a
// compaction or /clear since replaced what came before.
func (s *Session) checkRewindable(pos position, n int) error {
	now := s.position()
	if now.Boundary != pos.Boundary || now.History < pos.History || now.Log < pos.Log {
		return fmt.Errorf("the conversation was compacted or cleared after prompt %d: it can no longer go back there (the code can: restore %q)", n, schema.RestoreCode)
	}
	return nil
}

// rewindTo cuts the conversation back to pos: what the model is sent,
// and the session file's live chain (a tombstone for the lines after
// it, from which the next message chains on).
func (c *conversation) rewindTo(pos position) error {
	c.mu.Lock()
	c.history = c.history[:pos.History]
	if n := len(c.history); n > 0 && pos.Blocks >= 0 && c.history[n-1].Role == providers.RoleUser && pos.Blocks < len(c.history[n-1].Content) {
		last := &c.history[n-1]
		last.Content = append([]providers.Block(nil), last.Content[:pos.Blocks]...)
	}
	c.counted = 0
	c.shown = nil
	c.mu.Unlock()
	if c.log == nil {
		return nil
	}
	if err := c.log.Delete(c.log.Len() - pos.Log); err != nil {
		return fmt.Errorf("rewinding the session file: %w", err)
	}
	return nil
}

// rewindCommand runs /rewind [n] [code|conversation|both] [force]: with
// no point it lists them, else it rewinds (both, by default) and says
// what it did.
func (s *Session) rewindCommand(ctx context.Context, args string) (string, bool, error) {
	say := func(msg string) { s.say(ctx, msg) }
	fields := strings.Fields(args)
	if len(fields) == 0 {
		points, err := s.Checkpoints()
		if err != nil {
			say("No checkpoints: " + err.Error())
			return schema.StopEndTurn, true, nil
		}
		if len(points) == 0 {
			say("No checkpoints yet: one is taken before each prompt.")
			return schema.StopEndTurn, true, nil
		}
		var b strings.Builder
		b.WriteString("Checkpoints (`/rewind N` restores the code and the conversation to before prompt N; add `code` or `conversation` for one of them, `force` to overwrite your own changes):\n")
		for _, p := range points {
			fmt.Fprintf(&b, "%d. %s\n", p.Checkpoint, oneLine(p.Prompt, 80))
		}
		say(b.String())
		return schema.StopEndTurn, true, nil
	}
	p := schema.RewindParams{SessionID: s.ID, Restore: schema.RestoreBoth}
	n, err := strconv.Atoi(fields[0])
	if err != nil {
		say(fmt.Sprintf("/rewind: %q is not a checkpoint number; `/rewind` lists them.", fields[0]))
		return schema.StopEndTurn, true, nil
	}
	p.Checkpoint = n
	for _, f := range fields[1:] {
		switch f {
		case schema.RestoreCode, schema.RestoreConversation, schema.RestoreBoth:
			p.Restore = f
		case "force":
			p.Force = true
		default:
			say(fmt.Sprintf("/rewind: unknown word %q; use code, conversation, both or force.", f))
			return schema.StopEndTurn, true, nil
		}
	}
	res, err := s.rewindTo(ctx, p)
	switch {
	case err != nil:
		say("Nothing was rewound: " + err.Error())
	case !res.Applied:
		say(fmt.Sprintf("Nothing was rewound: these files were changed since checkpoint %d by someone other than the agent:\n%s\n`/rewind %d %s force` overwrites them.", n, strings.Join(res.Conflicts, "\n"), n, p.Restore))
	default:
		msg := fmt.Sprintf("Rewound to before prompt %d (%s): %d files restored.", n, p.Restore, len(res.Changes))
		if p.Restore == schema.RestoreConversation {
			msg = fmt.Sprintf("Rewound the conversation to before prompt %d.", n)
		}
		for _, w := range res.Warnings {
			msg += "\n" + w
		}
		say(msg)
	}
	return schema.StopEndTurn, true, nil
}

// oneLine returns text's first line, cut to n runes.
func oneLine(text string, n int) string {
	text, _, _ = strings.Cut(strings.TrimSpace(text), "\n")
	if r := []rune(text); len(r) > n {
		return string(r[:n]) + "…"
	}
	return text
}

// ForkAt starts a new session from the stored session id as it was
// before its prompt n: the conversation up to there, and the checkpoints
// before it.
func (s *Service) ForkAt(ctx context.Context, id string, n int, opts SessionOptions) (*Session, error) {
	if n < 1 {
		return nil, fmt.Errorf("checkpoint %d: checkpoints are numbered from 1", n)
	}
	opts.Fork = true
	if s.cfg.Store == nil {
		return nil, errNoCheckpoints
	}
	src, err := checkpoint.Open(s.cfg.Store.Dir(), opts.Cwd)
	if err != nil {
		return nil, err
	}
	points, err := src.List(id)
	if err != nil {
		return nil, err
	}
	var start *checkpoint.Point
	for i := range points {
		if points[i].N == n && points[i].Kind == checkpoint.Start {
			start = &points[i]
		}
	}
	if start == nil {
		var have []int
		for _, p := range points {
			if p.Kind == checkpoint.Start {
				have = append(have, p.N)
			}
		}
		return nil, &checkpoint.UnknownPointError{Session: id, N: n, Have: have}
	}
	var pos position
	if err := json.Unmarshal(start.Data, &pos); err != nil {
		return nil, fmt.Errorf("checkpoint %d has no position in the conversation: %w", n, err)
	}
	sess, err := s.ResumeSession(ctx, id, opts, false)
	if err != nil {
		return nil, err
	}
	err = sess.checkRewindable(pos, n)
	if err == nil {
		err = sess.conv.rewindTo(pos)
	}
	if err == nil {
		err = src.Copy(id, sess.ID, n-1)
	}
	if err != nil {
		s.CloseSession(sess.ID)
		return nil, fmt.Errorf("forking session %s at checkpoint %d: %w", id, n, err)
	}
	return sess, nil
}
