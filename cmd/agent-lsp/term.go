package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/diffs"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
)

// terminal is a small editor in the terminal: it starts agent-lsp as a
// child process, speaks the LSP door's protocol with it over stdio exactly
// as an editor plugin does, and prints what an editor would show.
type terminal struct {
	out   io.Writer
	color bool
	root  string
	// approve picks the answer to a permission request.
	approve func(p *schema.RequestPermissionParams) schema.PermissionOutcome

	cmd  *exec.Cmd
	conn jsonrpc2.Conn
	peer rpc.Peer

	mu      sync.Mutex
	last    string            // kind of the last thing printed, guarded by mu
	titles  map[string]string // tool call titles by id, guarded by mu
	edited  map[string]string // original text of files the agent edited, guarded by mu
	failed  int               // failed tool calls, guarded by mu
	applied int               // edits applied, guarded by mu
}

// startTerminal starts the agent as a child process with extra
// environment and connects to it.
func startTerminal(ctx context.Context, out io.Writer, root string, env []string) (*terminal, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the agent-lsp binary: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe, "--stdio")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	cmd.Dir = root
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", exe, err)
	}
	t := &terminal{
		out:    out,
		color:  isTerminal(out),
		root:   root,
		cmd:    cmd,
		titles: make(map[string]string),
		edited: make(map[string]string),
	}
	t.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(struct {
		io.Reader
		io.WriteCloser
	}{stdout, stdin}))
	t.peer = rpc.Peer{Conn: t.conn}
	t.conn.Go(ctx, t.handle)
	return t, nil
}

// isTerminal reports whether w is a character device.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && os.Getenv("NO_COLOR") == ""
}

// style wraps s in an ANSI style when printing to a terminal.
func (t *terminal) style(code, s string) string {
	if !t.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// session runs one prompt in a new session and shuts the agent down.
func (t *terminal) session(ctx context.Context, prompt string) (string, error) {
	var initRes json.RawMessage
	err := t.peer.Call(ctx, "initialize", map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          string(uri.File(t.root)),
		"workspaceFolders": []map[string]string{{"uri": string(uri.File(t.root)), "name": filepath.Base(t.root)}},
		"capabilities": map[string]any{
			"workspace": map[string]any{
				"applyEdit":     true,
				"workspaceEdit": map[string]any{"documentChanges": true, "resourceOperations": []string{"create"}},
			},
			"experimental": map[string]any{"agent": map[string]any{}},
		},
		"clientInfo": map[string]string{"name": "agent-lsp terminal"},
	}, &initRes)
	if err != nil {
		return "", fmt.Errorf("starting the agent: %w", err)
	}
	if err := t.peer.Notify(ctx, "initialized", map[string]any{}); err != nil {
		return "", err
	}
	var sess schema.NewSessionResult
	if err := t.peer.Call(ctx, "session/new", schema.NewSessionParams{Cwd: t.root, MCPServers: []schema.MCPServer{}}, &sess); err != nil {
		return "", fmt.Errorf("starting a session: %w", err)
	}
	fmt.Fprintf(t.out, "%s %s\n", t.style("1;36", "you>"), prompt)
	var res schema.PromptResult
	err = t.peer.Call(ctx, "session/prompt", schema.PromptParams{SessionID: sess.SessionID, Prompt: []schema.ContentBlock{schema.TextBlock(prompt)}}, &res)
	if ctx.Err() != nil {
		// Interrupted: tell the agent, then give it a moment to stop.
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = t.peer.Notify(cctx, "session/cancel", schema.SessionIDParams{SessionID: sess.SessionID})
		cancel()
	}
	fmt.Fprintln(t.out)
	if err != nil {
		return "", err
	}
	return res.StopReason, nil
}

// close shuts the agent down politely and waits for it to exit.
func (t *terminal) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = t.peer.Call(ctx, "shutdown", nil, nil)
	_ = t.peer.Notify(ctx, "exit", nil)
	done := make(chan error, 1)
	go func() { done <- t.cmd.Wait() }()
	select {
	case err := <-done:
		t.conn.Close()
		return err
	case <-ctx.Done():
		t.cmd.Process.Kill()
		t.conn.Close()
		return fmt.Errorf("agent did not exit after shutdown")
	}
}

func (t *terminal) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	params := json.RawMessage(append([]byte(nil), req.Params()...))
	switch req.Method() {
	case "session/update":
		var n schema.SessionNotification
		if err := json.Unmarshal(params, &n); err == nil {
			t.render(n.Update)
		}
		return nil, nil
	case "agent/status":
		var st struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(params, &st) == nil {
			t.line("status", t.style("33", "  ! "+st.Message))
		}
		return nil, nil
	case "session/request_permission":
		jsonrpc2.Async(ctx)
		var p schema.RequestPermissionParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		return rpc.Raw(schema.RequestPermissionResult{Outcome: t.permission(&p)})
	case "workspace/applyEdit":
		return rpc.Raw(t.applyEdit(params))
	}
	if !req.IsCall() {
		return nil, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "the terminal does not handle %s", req.Method())
}

// line prints a line of its own, ending any streamed text first.
func (t *terminal) line(kind, s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last == schema.UpdateAgentMessageChunk || t.last == schema.UpdateAgentThoughtChunk {
		fmt.Fprintln(t.out)
	}
	fmt.Fprintln(t.out, s)
	t.last = kind
}

// render prints one session update.
func (t *terminal) render(u schema.Update) {
	switch u.SessionUpdate {
	case schema.UpdateAgentMessageChunk, schema.UpdateAgentThoughtChunk:
		if u.Content == nil {
			return
		}
		t.mu.Lock()
		if t.last != u.SessionUpdate {
			if t.last == schema.UpdateAgentMessageChunk || t.last == schema.UpdateAgentThoughtChunk {
				fmt.Fprintln(t.out)
			}
			if u.SessionUpdate == schema.UpdateAgentMessageChunk {
				fmt.Fprint(t.out, t.style("1;32", "agent> "))
			} else {
				fmt.Fprint(t.out, t.style("2", "thinking> "))
			}
		}
		text := u.Content.Text
		if u.SessionUpdate == schema.UpdateAgentThoughtChunk {
			text = t.style("2", text)
		}
		fmt.Fprint(t.out, text)
		t.last = u.SessionUpdate
		t.mu.Unlock()
	case schema.UpdateToolCall:
		tc := u.ToolCall
		t.mu.Lock()
		t.titles[tc.ToolCallID] = tc.Title
		t.mu.Unlock()
	case schema.UpdateToolCallUpdate:
		t.renderToolUpdate(u.ToolCall)
	case schema.UpdatePlan:
		var b strings.Builder
		b.WriteString(t.style("1", "  plan:"))
		for _, e := range u.Entries {
			mark := "[ ]"
			switch e.Status {
			case "completed":
				mark = "[x]"
			case "in_progress":
				mark = "[~]"
			}
			fmt.Fprintf(&b, "\n    %s %s", mark, e.Content)
		}
		t.line("plan", b.String())
	}
}

func (t *terminal) renderToolUpdate(tc *schema.ToolCall) {
	t.mu.Lock()
	if tc.Title != "" {
		t.titles[tc.ToolCallID] = tc.Title
	}
	title := strings.ReplaceAll(t.titles[tc.ToolCallID], t.root+string(filepath.Separator), "")
	t.mu.Unlock()
	switch tc.Status {
	case schema.StatusInProgress:
		t.line("tool", t.style("36", "  ⏺ "+title))
	case schema.StatusCompleted:
		t.line("tool", t.style("32", "    ✓ ")+summarize(tc))
	case schema.StatusFailed:
		t.mu.Lock()
		t.failed++
		t.mu.Unlock()
		t.line("tool", t.style("31", "    ✗ ")+summarize(tc))
	}
}

// summarize returns a one-line summary of a finished tool call.
func summarize(tc *schema.ToolCall) string {
	for _, c := range tc.Content {
		switch {
		case c.Type == "diff":
			old := ""
			if c.OldText != nil {
				old = *c.OldText
			}
			add, del, _ := diffs.Stat(diffs.Unified(c.Path, old, c.NewText))
			return fmt.Sprintf("edited %s (+%d -%d)", c.Path, add, del)
		case c.Content != nil && c.Content.Text != "":
			text := c.Content.Text
			lines := strings.Count(text, "\n") + 1
			first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
			if len(first) > 100 {
				first = first[:100] + "…"
			}
			if lines > 1 {
				return fmt.Sprintf("%s (%d lines)", first, lines)
			}
			return first
		}
	}
	return "done"
}

// permission shows a permission request with its diff and gets an answer.
func (t *terminal) permission(p *schema.RequestPermissionParams) schema.PermissionOutcome {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", t.style("1;33", "  ? permission:"), strings.ReplaceAll(p.ToolCall.Title, t.root+string(filepath.Separator), ""))
	for _, c := range p.ToolCall.Content {
		if c.Type != "diff" {
			continue
		}
		old := ""
		if c.OldText != nil {
			old = *c.OldText
		}
		for _, l := range strings.Split(strings.TrimRight(diffs.Unified(relPath(t.root, c.Path), old, c.NewText), "\n"), "\n") {
			switch {
			case strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++"):
				l = t.style("32", l)
			case strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---"):
				l = t.style("31", l)
			}
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	if raw, ok := p.ToolCall.RawInput.(map[string]any); ok {
		if cmd, ok := raw["command"].(string); ok {
			fmt.Fprintf(&b, "    $ %s\n", cmd)
		}
	}
	var opts []string
	for _, o := range p.Options {
		opts = append(opts, o.Name)
	}
	fmt.Fprintf(&b, "    options: %s", strings.Join(opts, " | "))
	t.line("permission", b.String())
	out := t.approve(p)
	name := out.Outcome
	for _, o := range p.Options {
		if o.OptionID == out.OptionID {
			name = o.Name
		}
	}
	t.line("permission", t.style("33", "    → "+name))
	return out
}

func relPath(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// applyEdit applies a workspace edit to the files on disk: the terminal
// has no buffers, so it saves at once, as an editor that saves on apply.
func (t *terminal) applyEdit(params json.RawMessage) map[string]any {
	var p struct {
		Edit struct {
			Changes         map[string][]wireTextEdit `json:"changes"`
			DocumentChanges []json.RawMessage         `json:"documentChanges"`
		} `json:"edit"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return map[string]any{"applied": false, "failureReason": err.Error()}
	}
	type docEdit struct {
		uri   string
		edits []wireTextEdit
	}
	var all []docEdit
	for u, e := range p.Edit.Changes {
		all = append(all, docEdit{u, e})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].uri < all[j].uri })
	for _, dc := range p.Edit.DocumentChanges {
		var op struct {
			Kind         string `json:"kind"`
			URI          string `json:"uri"`
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
			Edits []wireTextEdit `json:"edits"`
		}
		if err := json.Unmarshal(dc, &op); err != nil {
			return map[string]any{"applied": false, "failureReason": err.Error()}
		}
		switch op.Kind {
		case "create":
			path := uri.URI(op.URI).FsPath()
			if _, err := os.Stat(path); os.IsNotExist(err) {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					return map[string]any{"applied": false, "failureReason": err.Error()}
				}
				if err := os.WriteFile(path, nil, 0o644); err != nil {
					return map[string]any{"applied": false, "failureReason": err.Error()}
				}
			}
		case "":
			all = append(all, docEdit{op.TextDocument.URI, op.Edits})
		default:
			return map[string]any{"applied": false, "failureReason": "unsupported resource operation " + op.Kind}
		}
	}
	for _, de := range all {
		path := uri.URI(de.uri).FsPath()
		old, err := os.ReadFile(path)
		if err != nil {
			return map[string]any{"applied": false, "failureReason": err.Error()}
		}
		edits := make([]diffs.TextEdit, len(de.edits))
		for i, e := range de.edits {
			edits[i] = diffs.TextEdit{Start: e.Range.Start, End: e.Range.End, NewText: e.NewText}
		}
		if err := os.WriteFile(path, []byte(diffs.Apply(string(old), edits)), 0o644); err != nil {
			return map[string]any{"applied": false, "failureReason": err.Error()}
		}
		t.mu.Lock()
		if _, seen := t.edited[path]; !seen {
			t.edited[path] = string(old)
		}
		t.applied++
		t.mu.Unlock()
	}
	return map[string]any{"applied": true}
}

type wireTextEdit struct {
	Range struct {
		Start diffs.Position `json:"start"`
		End   diffs.Position `json:"end"`
	} `json:"range"`
	NewText string `json:"newText"`
}
