package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-lsp/agent-lsp/sandbox"
)

// Kinds of point.
const (
	Start = "start" // before the prompt ran
	End   = "end"   // after its turn
)

// refPrefix is where the points' refs live in the store.
const refPrefix = "refs/agent-lsp/checkpoints/"

// Buffers are the editor's texts of open files, which a snapshot stores
// in place of the disk's.
type Buffers interface {
	// Text returns the text of the file at the absolute path when the
	// editor has it open.
	Text(path string) ([]byte, bool)
}

// Point is one snapshot of a session's workspace.
type Point struct {
	Session string    `json:"session"`
	N       int       `json:"n"`    // the session's prompt, from 1
	Kind    string    `json:"kind"` // Start or End
	Prompt  string    `json:"prompt,omitempty"`
	Time    time.Time `json:"time"`
	// Data is the caller's (the engine keeps where the prompt starts in
	// the conversation).
	Data json.RawMessage `json:"data,omitempty"`

	tree oid
}

// Store keeps the checkpoints of one workspace folder. Its methods are
// safe for concurrent use; snapshots and rewinds run one at a time.
type Store struct {
	root string // the workspace folder, absolute
	dir  string // the private bare repository

	mu    sync.Mutex
	objs  *objects
	stamp map[string]cached // by slash path; guarded by mu
	last  []string          // the paths listed last time; guarded by mu
	ready bool              // dir exists and is a repository; guarded by mu
}

// cached is what a file was when last hashed.
type cached struct {
	size  int64
	mtime int64
	ino   uint64
	mode  os.FileMode
	entry entry
}

// Open returns the store of the workspace folder root, kept under
// stateDir/checkpoints. The repository is created at the first
// snapshot.
func Open(stateDir, root string) (*Store, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("checkpoints of %s: %w", root, err)
	}
	if stateDir == "" {
		return nil, fmt.Errorf("checkpoints of %s: no state directory", root)
	}
	sum := sha256.Sum256([]byte(abs))
	name := slugRE.ReplaceAllString(filepath.Base(abs), "-") + "-" + hex.EncodeToString(sum[:8]) + ".git"
	dir := filepath.Join(stateDir, "checkpoints", name)
	return &Store{root: abs, dir: dir, objs: newObjects(dir), stamp: make(map[string]cached)}, nil
}

var slugRE = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Dir returns the store's repository.
func (s *Store) Dir() string { return s.dir }

// Root returns the workspace folder.
func (s *Store) Root() string { return s.root }

// ErrStoreGone is matched (errors.Is) by the error of a rewind whose
// store was deleted.
var ErrStoreGone = errors.New("the checkpoint store was deleted")

// ensure creates the repository when it does not exist. Called with mu.
func (s *Store) ensure(ctx context.Context) error {
	if s.ready {
		if _, err := os.Stat(filepath.Join(s.dir, "objects")); err == nil {
			return nil
		}
		// Deleted under us: what was remembered of it is gone too.
		s.objs = newObjects(s.dir)
		s.stamp = make(map[string]cached)
		s.ready = false
	}
	if _, err := os.Stat(filepath.Join(s.dir, "HEAD")); err != nil {
		if err := os.MkdirAll(filepath.Dir(s.dir), 0o700); err != nil {
			return fmt.Errorf("creating the checkpoint store: %w", err)
		}
		if _, err := s.git(ctx, "", "init", "--bare", "-q", s.dir); err != nil {
			return fmt.Errorf("creating the checkpoint store %s: %w", s.dir, err)
		}
	}
	s.ready = true
	return nil
}

// exists reports whether the repository is there. Called with mu.
func (s *Store) exists() bool {
	_, err := os.Stat(filepath.Join(s.dir, "objects"))
	return err == nil
}

// git runs git with the sandbox's hardened environment.
func (s *Store) git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = sandbox.GitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return out, fmt.Errorf("git %s: %w: %s", args[0], err, msg)
		}
		return out, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

// inRepository reports whether root is inside a git work tree.
func (s *Store) inRepository() bool {
	for d := s.root; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

// listFiles returns the folder's files to snapshot, as slash paths:
// tracked files and untracked ones that are not ignored.
func (s *Store) listFiles(ctx context.Context) ([]string, error) {
	var out []byte
	var err error
	if s.inRepository() {
		out, err = s.git(ctx, s.root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	}
	if !s.inRepository() || err != nil {
		// Not a repository (or one git will not read, such as one
		// owned by another user): the private repository's empty
		// index makes every file untracked, and .gitignore files
		// still apply.
		out, err = s.git(ctx, s.root, "--git-dir="+s.dir, "--work-tree="+s.root, "ls-files", "-z", "--others", "--exclude-standard")
	}
	if err != nil {
		return nil, fmt.Errorf("listing the files of %s: %w", s.root, err)
	}
	inside := ""
	if rel, err := filepath.Rel(s.root, s.dir); err == nil && filepath.IsLocal(rel) {
		inside = filepath.ToSlash(rel) + "/"
	}
	var paths []string
	seen := make(map[string]bool)
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" || strings.HasSuffix(p, "/") || seen[p] || (inside != "" && strings.HasPrefix(p, inside)) {
			continue // nested repositories are not snapshotted
		}
		seen[p] = true
		paths = append(paths, p)
	}
	return paths, nil
}

// racyWindow is how long after its modification a file's stamp is not
// trusted: a change within the file system's timestamp granularity
// would leave the stamp as it was.
const racyWindow = time.Second

// snapshot stores the folder's files and returns the tree. Called with
// mu.
func (s *Store) snapshot(ctx context.Context, buf Buffers) (oid, error) {
	if err := s.ensure(ctx); err != nil {
		return oid{}, err
	}
	// List the files while looking again at the ones listed last time:
	// both mostly wait on the file system.
	type listing struct {
		paths []string
		err   error
	}
	listed := make(chan listing, 1)
	go func() {
		paths, err := s.listFiles(ctx)
		listed <- listing{paths, err}
	}()
	infos := s.statAll(s.last, nil)
	l := <-listed
	if l.err != nil {
		return oid{}, l.err
	}
	var missing []string
	for _, p := range l.paths {
		if _, ok := infos[p]; !ok {
			missing = append(missing, p)
		}
	}
	s.statAll(missing, infos)
	now := time.Now()
	files := make(map[string]entry, len(l.paths))
	stamps := make(map[string]cached, len(l.paths))
	var read []string // files to read and store
	for _, p := range l.paths {
		st := infos[p]
		abs := filepath.Join(s.root, filepath.FromSlash(p))
		if buf != nil {
			if text, ok := buf.Text(abs); ok {
				mode := uint32(modeFile)
				if st.err == nil && st.fi.Mode().IsRegular() && st.fi.Mode()&0o111 != 0 {
					mode = modeExec
				}
				id, err := s.objs.write("blob", text)
				if err != nil {
					return oid{}, err
				}
				files[p] = entry{mode: mode, id: id}
				continue
			}
		}
		if st.err != nil {
			continue // listed but gone (a tracked file deleted)
		}
		fi := st.fi
		c := cached{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ino: inode(fi), mode: fi.Mode()}
		if old, ok := s.stamp[p]; ok && old.size == c.size && old.mtime == c.mtime && old.ino == c.ino && old.mode == c.mode {
			files[p] = old.entry
			stamps[p] = old
			continue
		}
		if fi.Mode().IsRegular() || fi.Mode()&os.ModeSymlink != 0 {
			read = append(read, p)
		}
		// Folders (submodules), FIFOs, devices and sockets are not
		// stored.
	}
	stored := make([]cached, len(read))
	errs := make([]error, len(read))
	parallel(len(read), func(i int) {
		stored[i], errs[i] = s.store(read[i], infos[read[i]].fi)
	})
	for i, p := range read {
		if errors.Is(errs[i], fs.ErrNotExist) {
			continue
		}
		if errs[i] != nil {
			return oid{}, errs[i]
		}
		files[p] = stored[i].entry
		if now.Sub(time.Unix(0, stored[i].mtime)) > racyWindow {
			stamps[p] = stored[i]
		}
	}
	if err := ctx.Err(); err != nil {
		return oid{}, err
	}
	s.stamp, s.last = stamps, l.paths
	return s.objs.writeTree(files)
}

// store reads the file at the slash path p, of which fi was seen, and
// stores it as a blob.
func (s *Store) store(p string, fi os.FileInfo) (cached, error) {
	abs := filepath.Join(s.root, filepath.FromSlash(p))
	c := cached{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ino: inode(fi), mode: fi.Mode()}
	var data []byte
	var err error
	if fi.Mode()&os.ModeSymlink != 0 {
		c.entry.mode = modeSymlink
		var target string
		target, err = os.Readlink(abs)
		data = []byte(target)
	} else {
		c.entry.mode = modeFile
		if fi.Mode()&0o111 != 0 {
			c.entry.mode = modeExec
		}
		data, err = os.ReadFile(abs)
	}
	if err != nil {
		return c, fmt.Errorf("reading %s: %w", abs, err)
	}
	c.entry.id, err = s.objs.write("blob", data)
	return c, err
}

// statResult is what Lstat said of a path.
type statResult struct {
	fi  os.FileInfo
	err error
}

// statAll looks at the slash paths in parallel, adding to into (a new
// map when nil), which it returns.
func (s *Store) statAll(paths []string, into map[string]statResult) map[string]statResult {
	if into == nil {
		into = make(map[string]statResult, len(paths))
	}
	res := make([]statResult, len(paths))
	parallel(len(paths), func(i int) {
		res[i].fi, res[i].err = os.Lstat(filepath.Join(s.root, filepath.FromSlash(paths[i])))
	})
	for i, p := range paths {
		into[p] = res[i]
	}
	return into
}

// parallel calls fn(i) for i in [0, n) on a few goroutines, and returns
// when all calls have.
func parallel(n int, fn func(i int)) {
	workers := min(max(2*runtime.GOMAXPROCS(0), 4), 16, n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// Save snapshots the folder as point n of kind (Start or End) of the
// session, replacing what that point held.
func (s *Store) Save(ctx context.Context, p Point, buf Buffers) (Point, error) {
	if err := checkPoint(p.Session, p.N, p.Kind); err != nil {
		return p, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tree, err := s.snapshot(ctx, buf)
	if err != nil {
		return p, fmt.Errorf("checkpoint %d of session %s: %w", p.N, p.Session, err)
	}
	if p.Time.IsZero() {
		p.Time = time.Now()
	}
	p.tree = tree
	if err := s.writePoint(p); err != nil {
		return p, fmt.Errorf("checkpoint %d of session %s: %w", p.N, p.Session, err)
	}
	return p, nil
}

// writePoint writes p's commit and ref. Called with mu.
func (s *Store) writePoint(p Point) error {
	meta, err := json.Marshal(p)
	if err != nil {
		return err
	}
	stamp := strconv.FormatInt(p.Time.Unix(), 10) + " +0000"
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", p.tree)
	fmt.Fprintf(&b, "author agent-lsp <agent-lsp@localhost> %s\ncommitter agent-lsp <agent-lsp@localhost> %s\n\n", stamp, stamp)
	b.Write(meta)
	b.WriteByte('\n')
	commit, err := s.objs.write("commit", b.Bytes())
	if err != nil {
		return err
	}
	return writeFileAtomic(s.refPath(p.Session, p.N, p.Kind), []byte(commit.String()+"\n"), 0o644)
}

func (s *Store) refPath(session string, n int, kind string) string {
	return filepath.Join(s.dir, filepath.FromSlash(refPrefix), session, strconv.Itoa(n), kind)
}

// sessionRE is what a session id may be: it names a folder of refs.
var sessionRE = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$`)

func checkPoint(session string, n int, kind string) error {
	if !sessionRE.MatchString(session) {
		return fmt.Errorf("session id %q cannot name checkpoints", session)
	}
	if n < 1 {
		return fmt.Errorf("checkpoint %d: points are numbered from 1", n)
	}
	if kind != Start && kind != End {
		return fmt.Errorf("checkpoint kind %q: want %q or %q", kind, Start, End)
	}
	return nil
}

// List returns the session's points, by prompt and then kind (start
// before end).
func (s *Store) List(session string) ([]Point, error) {
	if !sessionRE.MatchString(session) {
		return nil, fmt.Errorf("session id %q cannot name checkpoints", session)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list(session)
}

// list is List, called with mu.
func (s *Store) list(session string) ([]Point, error) {
	base := filepath.Join(s.dir, filepath.FromSlash(refPrefix), session)
	dirs, err := os.ReadDir(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing the checkpoints of session %s: %w", session, err)
	}
	var points []Point
	for _, d := range dirs {
		n, err := strconv.Atoi(d.Name())
		if err != nil || n < 1 {
			continue
		}
		for _, kind := range []string{Start, End} {
			p, err := s.readPoint(session, n, kind)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			points = append(points, p)
		}
	}
	sort.Slice(points, func(i, j int) bool {
		if points[i].N != points[j].N {
			return points[i].N < points[j].N
		}
		return points[i].Kind == Start && points[j].Kind == End
	})
	return points, nil
}

// readPoint reads the point a ref names.
func (s *Store) readPoint(session string, n int, kind string) (Point, error) {
	ref, err := os.ReadFile(s.refPath(session, n, kind))
	if err != nil {
		return Point{}, err
	}
	id, err := parseOID(strings.TrimSpace(string(ref)))
	if err != nil {
		return Point{}, fmt.Errorf("checkpoint %d of session %s: %w", n, session, err)
	}
	data, err := s.objs.readType(id, "commit")
	if err != nil {
		return Point{}, fmt.Errorf("checkpoint %d of session %s: %w", n, session, err)
	}
	head, msg, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok || !bytes.HasPrefix(head, []byte("tree ")) {
		return Point{}, fmt.Errorf("checkpoint %d of session %s: commit %s is damaged", n, session, id)
	}
	var p Point
	if err := json.Unmarshal(msg, &p); err != nil {
		return Point{}, fmt.Errorf("checkpoint %d of session %s: commit %s: %w", n, session, id, err)
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	if p.tree, err = parseOID(string(line[len("tree "):])); err != nil {
		return Point{}, fmt.Errorf("checkpoint %d of session %s: %w", n, session, err)
	}
	p.Session, p.N, p.Kind = session, n, kind
	return p, nil
}

// Prune drops the session's points. Their objects stay until the store
// is garbage-collected, shared with the other sessions' points.
func (s *Store) Prune(session string) error {
	if !sessionRE.MatchString(session) {
		return fmt.Errorf("session id %q cannot name checkpoints", session)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.RemoveAll(filepath.Join(s.dir, filepath.FromSlash(refPrefix), session)); err != nil {
		return fmt.Errorf("pruning the checkpoints of session %s: %w", session, err)
	}
	return nil
}

// Copy gives session to the points of session from up to prompt upTo
// (all when 0), for a session forked from another.
func (s *Store) Copy(from, to string, upTo int) error {
	if !sessionRE.MatchString(from) || !sessionRE.MatchString(to) {
		return fmt.Errorf("copying checkpoints from %q to %q: bad session id", from, to)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	points, err := s.list(from)
	if err != nil {
		return err
	}
	for _, p := range points {
		if upTo > 0 && p.N > upTo {
			continue
		}
		p.Session = to
		if err := s.writePoint(p); err != nil {
			return fmt.Errorf("copying checkpoint %d of session %s: %w", p.N, from, err)
		}
	}
	return nil
}

// Drop removes the points of the session's prompt n (a prompt whose
// turn was rewound out of the conversation).
func (s *Store) Drop(session string, n int) error {
	if err := checkPoint(session, n, Start); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.RemoveAll(filepath.Join(s.dir, filepath.FromSlash(refPrefix), session, strconv.Itoa(n))); err != nil {
		return fmt.Errorf("dropping checkpoint %d of session %s: %w", n, session, err)
	}
	return nil
}

// Sessions returns the ids of the sessions that have points.
func (s *Store) Sessions() ([]string, error) {
	dirs, err := os.ReadDir(filepath.Join(s.dir, filepath.FromSlash(refPrefix)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing the sessions of the checkpoint store: %w", err)
	}
	var ids []string
	for _, d := range dirs {
		if d.IsDir() && sessionRE.MatchString(d.Name()) {
			ids = append(ids, d.Name())
		}
	}
	return ids, nil
}

// Sweep deletes the objects no point reaches any more (those of pruned
// sessions' points, once no other point shares them) that are older
// than grace: a younger object may belong to a point another process
// is writing. It returns how many it deleted.
func (s *Store) Sweep(grace time.Duration) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids, err := s.Sessions()
	if err != nil {
		return 0, err
	}
	live := make(map[oid]bool)
	var mark func(id oid) error
	mark = func(id oid) error {
		if live[id] {
			return nil
		}
		live[id] = true
		ents, err := s.objs.readTree(id)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if e.isTree() {
				if err := mark(e.id); err != nil {
					return err
				}
			} else {
				live[e.id] = true
			}
		}
		return nil
	}
	for _, session := range ids {
		points, err := s.list(session)
		if err != nil {
			return 0, err
		}
		for _, p := range points {
			ref, err := os.ReadFile(s.refPath(session, p.N, p.Kind))
			if err != nil {
				return 0, err
			}
			commit, err := parseOID(strings.TrimSpace(string(ref)))
			if err != nil {
				return 0, err
			}
			live[commit] = true
			if err := mark(p.tree); err != nil {
				return 0, fmt.Errorf("sweeping the checkpoint store: %w", err)
			}
		}
	}
	removed := 0
	cutoff := time.Now().Add(-grace)
	fans, err := os.ReadDir(s.objs.dir)
	if err != nil {
		return 0, fmt.Errorf("sweeping the checkpoint store: %w", err)
	}
	for _, fan := range fans {
		if len(fan.Name()) != 2 || !fan.IsDir() {
			continue
		}
		names, err := os.ReadDir(filepath.Join(s.objs.dir, fan.Name()))
		if err != nil {
			continue
		}
		for _, n := range names {
			id, err := parseOID(fan.Name() + n.Name())
			if err != nil || live[id] {
				continue
			}
			info, err := n.Info()
			if err != nil || info.ModTime().After(cutoff) {
				continue
			}
			if os.Remove(filepath.Join(s.objs.dir, fan.Name(), n.Name())) == nil {
				removed++
			}
		}
	}
	s.objs.mu.Lock()
	s.objs.known = make(map[oid]bool)
	s.objs.mu.Unlock()
	s.stamp = make(map[string]cached)
	return removed, nil
}
