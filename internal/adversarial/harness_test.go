package adversarial_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
)

// world is one batch's workspace and its canaries, for one mode.
type world struct {
	off     string // how the classifier is taken out of the way (corpusRun.off)
	base    string // everything below lives here
	ws      string // the workspace (a git repository)
	outside string // a folder outside the workspace: secrets, markers, repositories
	marks   string // outside/marks: payloads that ran leave ran-<id> here
	home    string // HOME of the sidecar
	state   string // AGENT_LSP_HOME: the session store

	apiKey  string            // the sidecar's ANTHROPIC_API_KEY: a canary too
	envBlob string            // the git object id of .env, which a model can learn without reading it
	secrets map[string]string // name -> unique secret text that must not reach the model
	canary  *listener

	before map[string]string // snapshot of watched files: path -> hash
}

// canaryParent is where worlds are made: /var/tmp when possible, since an
// auto-run sandbox has a private /tmp and a test dir there could hide an
// outside write.
func canaryParent() string {
	if fi, err := os.Stat("/var/tmp"); err == nil && fi.IsDir() {
		if f, err := os.CreateTemp("/var/tmp", "probe-"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return "/var/tmp"
		}
	}
	return os.TempDir()
}

func token() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// newWorld builds the workspace of b and its canaries, for a run with
// the classifier taken out of the way as off says (see corpusRun).
func newWorld(t *testing.T, b *batch, off string) *world {
	t.Helper()
	base, err := os.MkdirTemp(canaryParent(), "agent-lsp-adv-")
	if err != nil {
		t.Fatal(err)
	}
	base, _ = filepath.EvalSymlinks(base)
	t.Cleanup(func() {
		// Payloads may have left read-only folders behind.
		filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(base)
	})
	w := &world{
		off:  off,
		base: base, ws: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside"),
		home: filepath.Join(base, "home"), state: filepath.Join(base, "state"),
		apiKey: "sk-ant-canary-" + token(),
		secrets: map[string]string{
			"outside": "SECRET-OUTSIDE-" + token(),
			"home":    "SECRET-HOME-" + token(),
			"env":     "SECRET-DOTENV-" + token(),
			"private": "SECRET-PRIVATE-" + token(),
			"other":   "SECRET-OTHERREPO-" + token(),
		},
	}
	w.marks = filepath.Join(w.outside, "marks")
	w.canary = newListener(t)
	user := b.user
	if user == "" {
		user = defaultUserSettings
	}
	switch off {
	case "rule":
		user = allowBash(t, user, false)
	case "sandbox":
		user = allowBash(t, user, true)
	case "bypass":
		user = withSandbox(t, user)
	}
	files := map[string]string{
		// outside the workspace
		"outside/secret.txt":    w.secrets["outside"] + "\n",
		"outside/dir/notes.txt": "nothing\n" + w.secrets["outside"] + "\n",
		"outside/marks/.keep":   "",
		"home/.ssh/id_rsa":      w.secrets["home"] + "\n",
		// credentials no list names (issue 29 item 1: the sandboxes
		// grant, they do not mask a list of known secrets)
		"home/.config/acme-cli/token":         w.secrets["home"] + "\n",
		"home/.zsh_history":                   "export TOKEN=" + w.secrets["home"] + "\n",
		"home/.local/state/devtool/auth.json": `{"token":"` + w.secrets["home"] + `"}` + "\n",
		"home/projects/other/.env":            "KEY=" + w.secrets["home"] + "\n",
		"outside/xdg/acme-cli/token":          w.secrets["outside"] + "\n",
		"home/.claude/settings.json":          w.expand(user, "setup"),
		"home/.bashrc":                        "# bashrc\n",
		// the workspace
		"ws/README.md":         "# project\nhello\n",
		"ws/main.go":           "package main\n\nfunc main() {}\n",
		"ws/docs/a.txt":        "alpha\n",
		"ws/.env":              "API_TOKEN=" + w.secrets["env"] + "\n",
		"ws/private/notes.txt": "private " + w.secrets["private"] + "\n",
	}
	for _, f := range b.files {
		files["ws/"+f.path] = w.expand(f.content, "setup")
	}
	for name, text := range files {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{w.state, filepath.Join(w.outside, "other")} {
		os.MkdirAll(d, 0o755)
	}
	// A bare repository outside for pushes, and a repository outside
	// that a .git file may point at.
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", "-c", "core.hooksPath=/dev/null"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+w.home, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(w.outside, "init", "-q", "--bare", "remote.git")
	os.WriteFile(filepath.Join(w.outside, "other", "otherfile.txt"), []byte(w.secrets["other"]+"\n"), 0o644)
	git(filepath.Join(w.outside, "other"), "init", "-q")
	git(filepath.Join(w.outside, "other"), "add", "-A")
	git(filepath.Join(w.outside, "other"), "commit", "-q", "-m", "other")
	git(w.ws, "init", "-q")
	git(w.ws, "add", "-A")
	git(w.ws, "commit", "-q", "-m", "initial")
	git(w.ws, "remote", "add", "origin", filepath.Join(w.outside, "remote.git"))
	if out, err := exec.Command("git", "-C", w.ws, "rev-parse", "HEAD:.env").Output(); err == nil {
		w.envBlob = strings.TrimSpace(string(out))
	}
	for _, line := range b.sh {
		cmd := exec.Command("sh", "-c", w.expand(line, "setup"))
		cmd.Dir = w.ws
		cmd.Env = append(os.Environ(), "HOME="+w.home, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("batch %s: setup %q: %v\n%s", b.name, line, err, out)
		}
	}
	if b.name == "kernel" {
		w.canary.serveUnix(t, w.expand("{{sock}}", "setup"))
	}
	w.before = w.snapshot(t)
	return w
}

// withSandbox turns the configured sandbox on in the settings JSON.
func withSandbox(t *testing.T, settingsJSON string) string {
	var st map[string]any
	if err := json.Unmarshal([]byte(settingsJSON), &st); err != nil {
		t.Fatalf("user settings %s: %v", settingsJSON, err)
	}
	st["sandbox"] = map[string]any{"enabled": true}
	b, _ := json.Marshal(st)
	return string(b)
}

// allowBash adds a Bash allow rule to the settings JSON, and with
// sandbox, turns the configured sandbox on (the write sandbox of the
// commands the user approved).
func allowBash(t *testing.T, settingsJSON string, sandbox bool) string {
	var st map[string]any
	if err := json.Unmarshal([]byte(settingsJSON), &st); err != nil {
		t.Fatalf("user settings %s: %v", settingsJSON, err)
	}
	perms, _ := st["permissions"].(map[string]any)
	if perms == nil {
		perms = map[string]any{}
	}
	allowed, _ := perms["allow"].([]any)
	perms["allow"] = append(allowed, "Bash")
	st["permissions"] = perms
	if sandbox {
		st["sandbox"] = map[string]any{"enabled": true}
	}
	b, _ := json.Marshal(st)
	return string(b)
}

// expand replaces the corpus placeholders in s for case id.
func (w *world) expand(s, id string) string {
	return strings.NewReplacer(
		"{{id}}", id,
		"{{mark}}", filepath.Join(w.marks, "ran-"+id),
		"{{out}}", w.marks,
		"{{outside}}", w.outside,
		"{{secret}}", filepath.Join(w.outside, "secret.txt"),
		"{{home}}", w.home,
		"{{userhome}}", userHome(),
		"{{ws}}", w.ws,
		"{{url}}", w.canary.url+"/"+id,
		"{{sock}}", filepath.Join(w.ws, "agent.sock"),
		"{{hostport}}", strings.TrimPrefix(w.canary.url, "http://"),
		"{{port}}", w.canary.url[strings.LastIndex(w.canary.url, ":")+1:],
		"{{nl}}", "\n",
		"{{envblob}}", w.envBlob,
	).Replace(s)
}

// watched reports whether a file of the snapshot is one whose change is
// harm. Inside the workspace that is everything but git's own
// bookkeeping and files named edit-* (the targets of harmless edits in
// acceptEdits); outside it, everything but the session store and the
// markers (which are reported one by one).
func (w *world) watched(rel string) bool {
	switch {
	case rel == "state/trust.json":
		return true // trust is the user's answer alone
	case strings.HasPrefix(rel, "state/"), strings.HasPrefix(rel, "outside/marks/"):
		return false
	case strings.HasPrefix(rel, "home/.claude/projects/"), strings.HasPrefix(rel, "home/.cache/"),
		strings.HasPrefix(rel, "home/.local/state/"):
		// The sidecar's own state, which it may write.
		return false
	case (w.off == "rule" || w.off == "sandbox" || w.off == "bypass") && strings.HasPrefix(rel, "ws/") && !protected(rel):
		return false // the user allowed Bash: workspace writes are theirs
	case strings.HasPrefix(rel, "ws/.git/"):
		// Config, hooks and refs: what a command that only reads
		// must never change.
		return rel == "ws/.git/config" || rel == "ws/.git/commondir" || rel == "ws/.git/config.worktree" || strings.HasPrefix(rel, "ws/.git/hooks/") ||
			strings.HasPrefix(rel, "ws/.git/info/") || strings.HasPrefix(rel, "ws/.git/refs/") ||
			rel == "ws/.git/packed-refs" || rel == "ws/.git/HEAD"
	case strings.HasPrefix(rel, "outside/remote.git/"), strings.HasPrefix(rel, "outside/other/.git/"):
		// Pushes and fetches change refs and objects: watch refs.
		return strings.Contains(rel, "/refs/") || strings.HasSuffix(rel, "/config") || strings.Contains(rel, "/hooks/")
	}
	return !strings.HasPrefix(filepath.Base(rel), "edit-")
}

// protected reports whether rel (below the world's base) is one of the
// workspace files that stay read-only even for approved commands (issue 17
// point 3).
func protected(rel string) bool {
	// realgit is the git directory a .git file names in the corpus's
	// [r2-gitdir-inside]; commondir moves git's config elsewhere, and
	// config.worktree is read as config too.
	for _, gitDir := range []string{"ws/.git/", "ws/realgit/"} {
		if rel == gitDir+"config" || rel == gitDir+"commondir" || rel == gitDir+"config.worktree" ||
			strings.HasPrefix(rel, gitDir+"hooks/") || strings.HasPrefix(rel, gitDir+"info/") {
			return true
		}
	}
	// locked/ is what [edit-deny-script]'s Edit deny rule covers;
	// githooks/ is the hooks folder [principle]'s git config names.
	for _, dir := range []string{"ws/.claude/", "ws/locked/", "ws/githooks/", "ws/.idea/", "ws/.zed/", "ws/.helix/", "ws/.devcontainer/"} {
		if strings.HasPrefix(rel, dir) || rel+"/" == dir {
			return true
		}
	}
	return rel == "ws/.mcp.json" || rel == "ws/.git" || rel == "ws/.nvim.lua" || rel == "ws/proj.code-workspace"
}

// snapshot hashes every watched file below base (symlinks by target).
func (w *world) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(w.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(w.base, p)
		if d.IsDir() {
			return nil
		}
		if !w.watched(rel) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "symlink:" + target
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			out[rel] = "unreadable"
			return nil
		}
		sum := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(sum[:8]) + " " + snippet(string(b))
		return nil
	})
	return out
}

func snippet(s string) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// changes lists the watched files created, changed or removed since the
// world was built.
func (w *world) changes(t *testing.T) []string {
	now := w.snapshot(t)
	var out []string
	for p, h := range now {
		if old, ok := w.before[p]; !ok {
			out = append(out, fmt.Sprintf("created %s: %s", p, h))
		} else if old != h {
			out = append(out, fmt.Sprintf("changed %s: %s", p, h))
		}
	}
	for p := range w.before {
		if _, ok := now[p]; !ok {
			out = append(out, "removed "+p)
		}
	}
	sort.Strings(out)
	return out
}

// markers returns the names of the ran-* markers that payloads left, and
// any other file in the marker folder.
func (w *world) markers() (ids []string, other []string) {
	entries, _ := os.ReadDir(w.marks)
	for _, e := range entries {
		if e.Name() == ".keep" {
			continue
		}
		if strings.HasPrefix(e.Name(), "ran-") {
			ids = append(ids, e.Name())
		} else {
			other = append(other, e.Name())
		}
	}
	return ids, other
}

// listener is the loopback canary HTTP server: any request is a leak.
type listener struct {
	url string
	mu  sync.Mutex // guards hits
	hit []string
}

func newListener(t *testing.T) *listener {
	l := &listener{}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
		h, _ := json.Marshal(r.Header)
		l.mu.Lock()
		l.hit = append(l.hit, fmt.Sprintf("%s %s headers=%s body=%q", r.Method, r.URL.Path, h, body))
		l.mu.Unlock()
		rw.WriteHeader(http.StatusOK)
		io.WriteString(rw, "canary\n")
	}))
	t.Cleanup(srv.Close)
	l.url = srv.URL
	return l
}

// serveUnix makes the canary listen on a unix socket at path too (an
// agent's or a dev server's socket in the workspace): any connection is a
// leak, recorded with the first bytes it sends (payloads send their id).
func (l *listener) serveUnix(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.SetReadDeadline(time.Now().Add(2 * time.Second))
			buf := make([]byte, 256)
			n, _ := io.ReadAtLeast(conn, buf, 1)
			conn.Close()
			l.mu.Lock()
			l.hit = append(l.hit, fmt.Sprintf("unix socket %s: %q", path, buf[:n]))
			l.mu.Unlock()
		}
	}()
}

func (l *listener) hits() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.hit...)
}

// client is the ACP client: it rejects every permission request and
// records what happened to each tool call.
type client struct {
	t     *testing.T
	w     *world
	cmd   *exec.Cmd
	peer  rpc.Peer
	conn  jsonrpc2.Conn
	stdin io.WriteCloser
	errb  *bytes.Buffer
	done  chan struct{} // closed when the process has exited

	mu     sync.Mutex          // guards the fields below
	answer string              // the option kind to choose for the cases' calls; "" rejects
	asked  map[string][]string // toolCallId -> titles of the permission requests
	ran    map[string]bool     // toolCallId -> reported in_progress (authorized to run)
	status map[string]string   // toolCallId -> last status
	other  []string            // permission requests for no known tool call (trust, ...)
	reads  []string            // fs/read_text_file paths
	writes []string            // fs/write_text_file paths
}

type pipeRWC struct {
	io.Reader
	io.WriteCloser
}

// start runs the sidecar's ACP door in the world's workspace and
// initializes it.
func start(t *testing.T, w *world, extraEnv ...string) *client {
	t.Helper()
	cmd := exec.Command(binary, "acp")
	cmd.Dir = w.ws
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.home,
		"USER=adversary", "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(w.home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(w.home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(w.home, ".cache"),
		"AGENT_LSP_HOME=" + w.state,
		"AGENT_LSP_MANAGED_SETTINGS=" + filepath.Join(w.base, "no-managed-settings.json"),
		"ANTHROPIC_API_KEY=" + w.apiKey,
	}, extraEnv...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, w: w, cmd: cmd, stdin: stdin, errb: &bytes.Buffer{}, done: make(chan struct{}),
		asked: map[string][]string{}, ran: map[string]bool{}, status: map[string]string{}}
	cmd.Stderr = &lockedWriter{w: c.errb, mu: &c.mu}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		close(c.done)
	}()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewNDJSONStream(pipeRWC{stdout, stdin}))
	c.peer = rpc.Peer{Conn: c.conn, CancelNotice: rpc.ACPCancelNotice}
	c.conn.Go(context.Background(), c.handle)
	t.Cleanup(func() { c.stop() })
	var res map[string]any
	if err := c.call(30*time.Second, "initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": false},
		"clientInfo":         map[string]string{"name": "adversarial-corpus", "version": "1"},
	}, &res); err != nil {
		t.Fatalf("initialize: %v\n%s", err, c.stderr())
	}
	return c
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (c *client) stderr() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.errb.String()
	if len(s) > 4000 {
		s = "…" + s[len(s)-4000:]
	}
	return s
}

// stop closes the sidecar's stdin and waits for it to exit (killing it
// after a while).
func (c *client) stop() {
	c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		c.t.Errorf("the sidecar did not exit 10s after its stdin closed; killing it\n%s", c.stderr())
		c.cmd.Process.Kill()
		<-c.done
	}
	c.conn.Close()
}

func (c *client) call(timeout time.Duration, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return c.peer.Call(ctx, method, params, result)
}

func (c *client) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	params := json.RawMessage(append([]byte(nil), req.Params()...))
	method := strings.Clone(req.Method())
	if !req.IsCall() {
		if method == "session/update" {
			var sn schema.SessionNotification
			if json.Unmarshal(params, &sn) == nil && sn.Update.ToolCall != nil {
				tc := sn.Update.ToolCall
				c.mu.Lock()
				if tc.Status != "" {
					c.status[tc.ToolCallID] = tc.Status
				}
				if tc.Status == schema.StatusInProgress {
					c.ran[tc.ToolCallID] = true
				}
				c.mu.Unlock()
			}
		}
		return nil, nil
	}
	jsonrpc2.Async(ctx)
	switch method {
	case "session/request_permission":
		var p schema.RequestPermissionParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		c.mu.Lock()
		if strings.HasPrefix(p.ToolCall.ToolCallID, "toolu_") {
			c.asked[p.ToolCall.ToolCallID] = append(c.asked[p.ToolCall.ToolCallID], p.ToolCall.Title)
		} else if strings.HasPrefix(p.ToolCall.ToolCallID, "host-") {
			// A sandboxed command asks to reach a host the settings do
			// not grant (network-hosts): rejected below, like the rest.
		} else {
			c.other = append(c.other, p.ToolCall.ToolCallID+": "+p.ToolCall.Title)
		}
		answer := c.answer
		c.mu.Unlock()
		if answer != "" && strings.HasPrefix(p.ToolCall.ToolCallID, "toolu_") {
			// A batch that plays a user who clicks "always allow" on
			// its (harmless) calls; questions about anything else
			// (folder trust) are still rejected.
			for _, o := range p.Options {
				if o.Kind == answer {
					return rpc.Raw(schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: o.OptionID}})
				}
			}
		}
		for _, o := range p.Options {
			if o.Kind == schema.RejectOnce {
				return rpc.Raw(schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: o.OptionID}})
			}
		}
		return rpc.Raw(schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "cancelled"}})
	case "fs/read_text_file":
		var p struct {
			Path  string `json:"path"`
			Line  int    `json:"line"`
			Limit int    `json:"limit"`
		}
		json.Unmarshal(params, &p)
		c.mu.Lock()
		c.reads = append(c.reads, p.Path)
		c.mu.Unlock()
		// The editor's own policy: it refuses to hand out private/.
		if strings.Contains(p.Path, "/private/") {
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "the editor refuses to read %s", p.Path)
		}
		b, err := os.ReadFile(p.Path)
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%v", err)
		}
		text := string(b)
		if p.Line > 0 || p.Limit > 0 {
			lines := strings.SplitAfter(text, "\n")
			from := max(p.Line-1, 0)
			from = min(from, len(lines))
			to := len(lines)
			if p.Limit > 0 {
				to = min(from+p.Limit, len(lines))
			}
			text = strings.Join(lines[from:to], "")
		}
		return rpc.Raw(map[string]string{"content": text})
	case "fs/write_text_file":
		var p struct {
			Path    string `json:"path"`
			Content string `json:"content"`
		}
		json.Unmarshal(params, &p)
		c.mu.Lock()
		c.writes = append(c.writes, p.Path)
		c.mu.Unlock()
		// The editor refuses to save into private/, too.
		if strings.Contains(p.Path, "/private/") {
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "the editor refuses to write %s", p.Path)
		}
		// An editor saves where it is told, following symlinks.
		if err := os.WriteFile(p.Path, []byte(p.Content), 0o644); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%v", err)
		}
		return rpc.Raw(nil)
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "the client does not handle %s", method)
}

// outcome is what happened to a tool call.
// otherQuestions lists the permission requests that were not about a
// case's tool call (folder trust, ...).
func (c *client) otherQuestions() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.other...)
}

// reached reports whether the call was seen at all (any status).
func (c *client) reached(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status[id] != ""
}

func (c *client) outcome(id string) (verdict string, askedAndRan bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	asked, ran := len(c.asked[id]) > 0, c.ran[id]
	switch {
	case asked:
		return ask, ran
	case ran:
		return allow, false
	}
	return deny, false
}

// toolUseID is the id of case id's tool call.
func toolUseID(id string) string { return "toolu_" + strings.ReplaceAll(id, ".", "_") }

// toolInput is the JSON input of case c.
func (w *world) toolInput(c *tcase) string {
	in := w.expand(c.input, c.id)
	if c.tool != "Bash" || strings.HasPrefix(in, "{\"") {
		return in
	}
	b, _ := json.Marshal(map[string]any{"command": in, "timeout": 10000, "description": "corpus case " + c.id})
	return string(b)
}

// toolResults returns the text of each tool_result in the model's
// requests, by tool_use_id.
func toolResults(reqs []fake.Request) map[string]string {
	out := map[string]string{}
	for _, r := range reqs {
		var body struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if r.Decode(&body) != nil {
			continue
		}
		for _, m := range body.Messages {
			var blocks []struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
			}
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "tool_result" {
					out[b.ToolUseID] = string(b.Content)
				}
			}
		}
	}
	return out
}

// userHome is the home of the user running the tests (not the world's).
func userHome() string {
	h, _ := os.UserHomeDir()
	return h
}
