package server

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// workspace/executeCommand on the plain-LSP door: the commands its code
// actions carry, which start, steer and cancel turns and start a new
// session.

// Commands of the plain-LSP door.
const (
	cmdPrompt     = "agent.prompt"
	cmdCancel     = "agent.cancel"
	cmdNewSession = "agent.newSession"
)

var plainCommands = []string{cmdPrompt, cmdCancel, cmdNewSession}

func (d *plainDoor) executeCommand(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.ExecuteCommandParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	switch p.Command {
	case cmdPrompt:
		return nil, d.prompt(p.Arguments)
	case cmdCancel:
		d.mu.Lock()
		cancel := d.cancel
		d.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		return nil, nil
	case cmdNewSession:
		if !d.endSession() {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "agent.newSession: a turn is running; cancel it first (agent.cancel)")
		}
		d.logMessage(context.WithoutCancel(ctx), protocol.MessageTypeInfo, "agent: new session started")
		d.trail()
		return nil, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "workspace/executeCommand: unknown command %q (want one of %s)", p.Command, strings.Join(plainCommands, ", "))
}

// prompt starts a turn from agent.prompt's arguments: the prompt,
// then optionally a document URI and a range the prompt is about. The
// command returns at once; the turn runs in the background, reporting
// through progress, the transcript and log messages.
func (d *plainDoor) prompt(args []protocol.LSPAny) error {
	var text, docURI string
	var rng *protocol.Range
	if len(args) == 0 || json.Unmarshal(args[0], &text) != nil || strings.TrimSpace(text) == "" {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agent.prompt: the first argument must be the prompt text")
	}
	if len(args) > 1 && json.Unmarshal(args[1], &docURI) != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agent.prompt: the second argument must be a document URI")
	}
	if len(args) > 2 {
		rng = new(protocol.Range)
		if err := json.Unmarshal(args[2], rng); err != nil {
			return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agent.prompt: the third argument must be a range: %v", err)
		}
	}
	prompt := []schema.ContentBlock{schema.TextBlock(text)}
	if docURI != "" {
		path, err := documentPath("agent.prompt", docURI)
		if err != nil {
			return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		prompt = append(prompt, d.scopeBlock(path, docURI, rng))
	}

	if err := d.lsp.c.service().CheckProvider(); err != nil {
		// Say so now: the editor shows a failed command at once, while a
		// turn that fails later only reaches its log.
		return jsonrpc2.Errorf(codeAuthRequired, "%v", err)
	}
	d.mu.Lock()
	if d.running {
		// A second prompt steers the running turn: the engine gives it
		// to the model at its next call and it ends with that turn.
		// The command answers, and says so, once the engine has taken
		// the prompt in: said earlier, the model's next call could go
		// out before the prompt is queued, and the prompt would then
		// need a call of its own.
		sess, turnCtx := d.sess, d.ctx
		d.turns.Add(1)
		d.steering++
		d.mu.Unlock()
		taken := make(chan struct{})
		go func() {
			defer d.turns.Done()
			defer func() {
				d.mu.Lock()
				d.steering--
				d.idle.Broadcast()
				d.mu.Unlock()
			}()
			// Prompt calls the callback on every path.
			ctx := engine.WithEntered(turnCtx, func() { close(taken) })
			if _, err := sess.Prompt(ctx, prompt); err != nil {
				d.logMessage(context.WithoutCancel(turnCtx), protocol.MessageTypeError, "agent: "+err.Error())
			}
		}()
		<-taken
		d.logMessage(turnCtx, protocol.MessageTypeInfo, "agent: your message joins the running turn: "+firstLine(text))
		return nil
	}
	sess, pc, err := d.session()
	if err != nil {
		d.mu.Unlock()
		return failed("%v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.running, d.cancel, d.ctx = true, cancel, ctx
	d.stopTrailLocked()
	d.turns.Add(1)
	d.mu.Unlock()

	// free ends the turn for the door before its end is announced: an
	// editor that sends the next command as soon as it reads "done" must
	// not find the agent busy.
	free := func() {
		d.mu.Lock()
		for d.steering > 0 {
			d.idle.Wait()
		}
		d.running, d.cancel, d.ctx = false, nil, nil
		d.mu.Unlock()
	}
	go func() {
		defer d.turns.Done()
		defer cancel()
		pc.runTurn(ctx, sess, text, prompt, free)
	}()
	return nil
}

// documentText is the text of the document at path as the editor shows
// it: its buffer when open (unsaved text included), else the file, read
// only when it is a regular file of bounded size.
func (d *plainDoor) documentText(path string) (string, error) {
	if text, ok := d.lsp.overlay.Get(path); ok {
		return text, nil
	}
	b, err := (tools.DiskFS{}).ReadFile(path)
	return string(b), err
}

// scopeBlock embeds the document (or the range of it) the prompt is about.
func (d *plainDoor) scopeBlock(path, docURI string, rng *protocol.Range) schema.ContentBlock {
	text, err := d.documentText(path)
	if err != nil { // a FIFO or a huge file is a link instead
		return schema.ContentBlock{Type: schema.BlockResourceLink, URI: docURI, Name: filepath.Base(path)}
	}
	res := &schema.EmbeddedResource{URI: docURI, Text: text}
	if rng != nil {
		lines := strings.SplitAfter(text, "\n")
		start, end := int(rng.Start.Line), int(rng.End.Line)
		if start < len(lines) {
			end = min(end+1, len(lines))
			res.Text = strings.Join(lines[start:end], "")
			res.URI = fmt.Sprintf("%s#L%d-L%d", docURI, start+1, end)
		}
	}
	return schema.ContentBlock{Type: schema.BlockResource, Resource: res}
}
