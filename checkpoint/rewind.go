package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Actions of a Change.
const (
	ActionWrite  = "write"  // the file's content or mode comes back
	ActionCreate = "create" // a file that was deleted comes back
	ActionDelete = "delete" // a file created since goes
)

// Change is what a rewind does to one file.
type Change struct {
	Path   string // slash-separated, relative to the folder
	Action string // ActionWrite, ActionCreate or ActionDelete
	// Mode is the file's mode after the rewind: 0644, 0755 or
	// os.ModeSymlink (zero for a deletion).
	Mode os.FileMode

	to entry // what the checkpoint has (zero for a deletion)
}

// Plan is what restoring a point would do.
type Plan struct {
	Point   Point
	Changes []Change
	// Conflicts are the paths of Changes that someone other than the
	// agent changed since the point (the user, in a buffer or on
	// disk): applying the plan would lose their change.
	Conflicts []string

	last Point // the end of the session's last turn, rewritten by Apply
}

// ConflictError is the error of applying a plan with conflicts without
// force.
type ConflictError struct{ Paths []string }

func (e *ConflictError) Error() string {
	return fmt.Sprintf("the rewind would overwrite changes made since the checkpoint by someone other than the agent in %s; nothing was restored (force it to overwrite them)", strings.Join(e.Paths, ", "))
}

// UnknownPointError is the error of a rewind to a point the session
// does not have.
type UnknownPointError struct {
	Session string
	N       int
	Have    []int // the session's prompts with a start point
}

func (e *UnknownPointError) Error() string {
	if len(e.Have) == 0 {
		return fmt.Sprintf("session %s has no checkpoint %d: it has no checkpoints", e.Session, e.N)
	}
	have := make([]string, len(e.Have))
	for i, n := range e.Have {
		have[i] = strconv.Itoa(n)
	}
	return fmt.Sprintf("session %s has no checkpoint %d: it has %s", e.Session, e.N, strings.Join(have, ", "))
}

// Plan computes what restoring the start point of the session's prompt
// n would do to the folder as it is now (buf gives the editor's texts).
func (s *Store) Plan(ctx context.Context, session string, n int, buf Buffers) (*Plan, error) {
	if !sessionRE.MatchString(session) {
		return nil, fmt.Errorf("session id %q cannot name checkpoints", session)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exists() {
		return nil, fmt.Errorf("rewinding session %s: %w (%s); its checkpoints are lost", session, ErrStoreGone, s.dir)
	}
	points, err := s.list(session)
	if err != nil {
		return nil, err
	}
	starts, ends := make(map[int]Point), make(map[int]Point)
	var have []int
	last := 0
	for _, p := range points {
		if p.Kind == Start {
			starts[p.N] = p
			have = append(have, p.N)
		} else {
			ends[p.N] = p
		}
		last = max(last, p.N)
	}
	target, ok := starts[n]
	if !ok {
		return nil, &UnknownPointError{Session: session, N: n, Have: have}
	}
	now, err := s.snapshot(ctx, buf)
	if err != nil {
		return nil, fmt.Errorf("rewinding session %s: %w", session, err)
	}
	plan := &Plan{Point: target}
	if p, ok := ends[last]; ok {
		plan.last = p
	} else {
		plan.last = Point{Session: session, N: last, Kind: End}
	}
	err = s.objs.diffTrees(now, target.tree, func(path string, cur, to *entry) {
		c := Change{Path: path}
		switch {
		case to == nil:
			c.Action = ActionDelete
		case cur == nil:
			c.Action, c.to, c.Mode = ActionCreate, *to, fileMode(to.mode)
		default:
			c.Action, c.to, c.Mode = ActionWrite, *to, fileMode(to.mode)
		}
		plan.Changes = append(plan.Changes, c)
	})
	if err != nil {
		return nil, fmt.Errorf("rewinding session %s: %w", session, err)
	}
	// What changed outside the agent's turns since the point: between
	// the end of each turn and the start of the next, and since the end
	// of the last. A turn without an end point (it crashed) counts as
	// changed by someone else throughout: nothing can tell.
	user := make(map[string]bool)
	for j := n; j <= last; j++ {
		from, ok := ends[j]
		if !ok {
			if from, ok = starts[j]; !ok {
				continue
			}
		}
		next := now
		if p, ok := starts[j+1]; ok {
			next = p.tree
		} else if j < last {
			continue
		}
		err := s.objs.diffTrees(from.tree, next, func(path string, _, _ *entry) { user[path] = true })
		if err != nil {
			return nil, fmt.Errorf("rewinding session %s: %w", session, err)
		}
	}
	for _, c := range plan.Changes {
		if user[c.Path] {
			plan.Conflicts = append(plan.Conflicts, c.Path)
		}
	}
	return plan, nil
}

func fileMode(mode uint32) os.FileMode {
	switch mode {
	case modeExec:
		return 0o755
	case modeSymlink:
		return os.ModeSymlink
	}
	return 0o644
}

// Editor applies a file's new text in the editor's buffer, when the file
// is open there.
type Editor interface {
	IsOpen(path string) bool
	WriteFile(ctx context.Context, path string, before, content []byte) error
}

// ApplyOptions say how to apply a plan.
type ApplyOptions struct {
	// Force applies a plan with conflicts, overwriting them.
	Force bool
	// Editor, when set, receives the restored text of each file open in
	// the editor after the disk is restored, so no buffer goes stale.
	Editor Editor
	// Buffers are the editor's texts, the before of those edits.
	Buffers Buffers
}

// Applied is what Apply did.
type Applied struct {
	Changes []Change
	// Warnings are what went wrong after the folder was restored: the
	// open files whose buffer the editor did not update (the disk has
	// the restored text), a failure to record the restored state.
	Warnings []string
}

// Apply restores the folder as plan says, all or nothing: when a step
// fails, what was done is undone and the error returned.
func (s *Store) Apply(ctx context.Context, plan *Plan, opt ApplyOptions) (*Applied, error) {
	if len(plan.Conflicts) > 0 && !opt.Force {
		return nil, &ConflictError{Paths: plan.Conflicts}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exists() {
		return nil, fmt.Errorf("rewinding: %w (%s)", ErrStoreGone, s.dir)
	}
	t := &txn{root: s.root}
	if err := t.prepare(s.objs, plan.Changes); err != nil {
		t.rollback()
		return nil, err
	}
	if err := t.commit(); err != nil {
		if rerr := t.rollback(); rerr != nil {
			return nil, fmt.Errorf("%w; undoing the part done failed too: %v", err, rerr)
		}
		return nil, err
	}
	t.finish()
	// The disk is now the point's; a stamp can no longer be trusted for
	// a file the rewind replaced (same size and second).
	for _, c := range plan.Changes {
		delete(s.stamp, c.Path)
	}
	out := &Applied{Changes: plan.Changes}
	// What the rewind did is the agent's: the end of the last turn
	// becomes the folder as restored, so a later rewind does not take
	// it for the user's change.
	if len(plan.Changes) > 0 {
		// Every difference from the point applied, the folder is the
		// point's tree.
		last := plan.last
		last.tree = plan.Point.tree
		if last.Time.IsZero() {
			last.Time = time.Now()
		}
		if err := s.writePoint(last); err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("recording the restored state: %v", err))
		}
	}
	if opt.Editor != nil {
		for i, c := range plan.Changes {
			abs := t.abs(c.Path)
			if c.Action == ActionDelete || c.Mode&os.ModeSymlink != 0 || !opt.Editor.IsOpen(abs) {
				continue
			}
			var before []byte
			if opt.Buffers != nil {
				before, _ = opt.Buffers.Text(abs)
			}
			if err := opt.Editor.WriteFile(ctx, abs, before, t.data[i]); err != nil {
				out.Warnings = append(out.Warnings, fmt.Sprintf("%s: %v", c.Path, err))
			}
		}
	}
	return out, nil
}

// txn applies changes to the folder so that they can be undone: new
// contents are staged in a folder beside the workspace's files, old ones
// moved there, and only renames touch the files themselves.
type txn struct {
	root    string
	changes []Change
	data    [][]byte // the new content of each change (nil for a deletion)
	stage   string   // the staging folder
	// Done so far, undone in reverse by rollback.
	moved   []string // paths moved to the stage (by index into changes, as "i")
	placed  []int    // changes whose new file is in place
	made    []string // folders created
	removed []string // empty folders removed
}

func (t *txn) abs(p string) string { return filepath.Join(t.root, filepath.FromSlash(p)) }

func (t *txn) staged(i int) string { return filepath.Join(t.stage, "new-"+strconv.Itoa(i)) }
func (t *txn) backup(i int) string { return filepath.Join(t.stage, "old-"+strconv.Itoa(i)) }

// prepare reads every new content, checks the folder can take it, and
// stages it. Nothing of the workspace changes.
func (t *txn) prepare(objs *objects, changes []Change) error {
	t.changes = changes
	t.data = make([][]byte, len(changes))
	deleted := make(map[string]bool)
	for _, c := range changes {
		if c.Action != ActionCreate {
			deleted[c.Path] = true
		}
	}
	for i, c := range changes {
		abs := t.abs(c.Path)
		if !filepath.IsLocal(filepath.FromSlash(c.Path)) {
			return fmt.Errorf("rewinding: %q is not a path inside %s", c.Path, t.root)
		}
		if c.Action == ActionDelete {
			continue
		}
		data, err := objs.readType(c.to.id, "blob")
		if err != nil {
			return fmt.Errorf("rewinding %s: %w", c.Path, err)
		}
		t.data[i] = data
		// A folder where the checkpoint has a file: only when the
		// rewind empties it.
		if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
			if err := emptiedBy(abs, t.root, deleted); err != nil {
				return err
			}
		}
		// A file where the checkpoint has a folder: only when the
		// rewind deletes it.
		for d := filepath.Dir(c.Path); d != "."; d = filepath.Dir(d) {
			fi, err := os.Lstat(t.abs(d))
			if err == nil && !fi.IsDir() && !deleted[filepath.ToSlash(d)] {
				return fmt.Errorf("rewinding %s: %s is a file now, and the checkpoint has a folder there; nothing was restored", c.Path, t.abs(d))
			}
		}
	}
	stage, err := mkdirTemp(t.root, ".agent-lsp-rewind-")
	if err != nil {
		return fmt.Errorf("rewinding: the workspace %s is not writable: %w; nothing was restored", t.root, err)
	}
	t.stage = stage
	for i, c := range changes {
		if c.Action == ActionDelete {
			continue
		}
		var err error
		if c.Mode&os.ModeSymlink != 0 {
			err = os.Symlink(string(t.data[i]), t.staged(i))
		} else {
			err = os.WriteFile(t.staged(i), t.data[i], c.Mode.Perm())
			if err == nil {
				err = os.Chmod(t.staged(i), c.Mode.Perm()) // whatever the umask
			}
		}
		if err != nil {
			return fmt.Errorf("rewinding %s: staging its content: %w; nothing was restored", c.Path, err)
		}
	}
	return nil
}

// emptiedBy fails unless every file under dir is among deleted.
func emptiedBy(dir, root string, deleted map[string]bool) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if !deleted[filepath.ToSlash(rel)] {
			return fmt.Errorf("rewinding: %s is a folder now (holding %s), and the checkpoint has a file there; nothing was restored", dir, p)
		}
		return nil
	})
}

// commit moves the old files aside, removes the folders left empty that
// the point does not have, and puts the new files in place.
func (t *txn) commit() error {
	keepDirs := make(map[string]bool) // folders of the files put back
	for _, c := range t.changes {
		if c.Action == ActionDelete {
			continue
		}
		for d := filepath.Dir(c.Path); d != "."; d = filepath.Dir(d) {
			keepDirs[filepath.ToSlash(d)] = true
		}
	}
	for i, c := range t.changes {
		if c.Action == ActionCreate {
			if _, err := os.Lstat(t.abs(c.Path)); err != nil {
				continue
			}
		}
		if err := rename(t.abs(c.Path), t.backup(i)); err != nil {
			if c.Action == ActionCreate || errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return fmt.Errorf("rewinding %s: %w", c.Path, err)
		}
		t.moved = append(t.moved, strconv.Itoa(i))
	}
	// Folders emptied by deletions go, deepest first, unless the point
	// has files in them.
	var dirs []string
	seen := make(map[string]bool)
	for _, c := range t.changes {
		if c.Action != ActionDelete {
			continue
		}
		for d := filepath.Dir(c.Path); d != "." && !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	for _, d := range dirs {
		if keepDirs[filepath.ToSlash(d)] {
			continue
		}
		if err := os.Remove(t.abs(d)); err == nil {
			t.removed = append(t.removed, d)
		}
	}
	for i, c := range t.changes {
		if c.Action == ActionDelete {
			continue
		}
		abs := t.abs(c.Path)
		if err := t.mkdirs(filepath.Dir(abs)); err != nil {
			return fmt.Errorf("rewinding %s: %w", c.Path, err)
		}
		if err := rename(t.staged(i), abs); err != nil {
			if fi, serr := os.Lstat(abs); serr == nil && fi.IsDir() {
				return fmt.Errorf("rewinding %s: %s is a folder now, and the checkpoint has a file there", c.Path, abs)
			}
			return fmt.Errorf("rewinding %s: %w", c.Path, err)
		}
		t.placed = append(t.placed, i)
	}
	return nil
}

// mkdirs creates dir and its missing parents, remembering them.
func (t *txn) mkdirs(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == t.root || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil {
			return err
		}
		t.made = append(t.made, missing[i])
	}
	return nil
}

// rollback undoes what commit did, in reverse, and removes the stage.
func (t *txn) rollback() error {
	var errs []error
	for k := len(t.placed) - 1; k >= 0; k-- {
		i := t.placed[k]
		if err := os.Rename(t.abs(t.changes[i].Path), t.staged(i)); err != nil {
			errs = append(errs, err)
		}
	}
	for k := len(t.made) - 1; k >= 0; k-- {
		if err := os.Remove(t.made[k]); err != nil {
			errs = append(errs, err)
		}
	}
	for k := len(t.removed) - 1; k >= 0; k-- {
		if err := os.Mkdir(t.abs(t.removed[k]), 0o755); err != nil {
			errs = append(errs, err)
		}
	}
	for k := len(t.moved) - 1; k >= 0; k-- {
		i, _ := strconv.Atoi(t.moved[k])
		if err := os.Rename(t.backup(i), t.abs(t.changes[i].Path)); err != nil {
			errs = append(errs, err)
		}
	}
	if t.stage != "" && len(errs) == 0 {
		os.RemoveAll(t.stage)
	}
	return errors.Join(errs...)
}

// finish removes the stage and the old files in it.
func (t *txn) finish() { os.RemoveAll(t.stage) }

// rename and mkdirTemp are os's, replaced by tests to make a step fail.
var (
	rename    = os.Rename
	mkdirTemp = os.MkdirTemp
)
