package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// maxDescription bounds a tool's description, as Claude Code does: some
// servers describe their tools at great length.
const maxDescription = 2048

// tool is one tool of a server, as the model sees it.
type tool struct {
	c    *conn
	name string // the server's name for it
	spec tools.Spec
}

func newTool(c *conn, t *sdk.Tool) *tool {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	if len(desc) > maxDescription {
		cut := maxDescription
		for cut > 0 && desc[cut]&0xC0 == 0x80 {
			cut--
		}
		desc = desc[:cut] + "..."
	}
	return &tool{
		c:    c,
		name: t.Name,
		spec: tools.Spec{
			Name:        ToolName(c.srv.Name, t.Name),
			Description: desc,
			InputSchema: inputSchema(t.InputSchema),
			Kind:        schema.KindOther,
			ReadOnly:    t.Annotations != nil && t.Annotations.ReadOnlyHint,
			Access:      accessOf(t.Annotations),
		},
	}
}

// accessOf returns the access a tool's annotations declare: a read-only
// tool reads; one that says whether it is destructive changes things;
// one that says neither has undeclared access, the most restrictive.
func accessOf(a *sdk.ToolAnnotations) tools.Access {
	switch {
	case a == nil:
		return tools.AccessUndeclared
	case a.ReadOnlyHint:
		return tools.AccessRead
	case a.DestructiveHint != nil:
		return tools.AccessEdit
	}
	return tools.AccessUndeclared
}

// inputSchema returns the server's schema for a tool's input as JSON: an
// object schema, the only kind the model APIs take.
func inputSchema(s any) json.RawMessage {
	data, err := json.Marshal(s)
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return data
}

// Spec returns the tool's name (mcp__<server>__<tool>), the server's
// description and input schema; ReadOnly follows the tool's readOnlyHint,
// Access its readOnlyHint and destructiveHint.
func (t *tool) Spec() tools.Spec { return t.spec }

// Run calls the tool on its server. Whatever goes wrong comes back as an
// error result: the server's own tool errors, protocol errors, a server
// that stopped.
func (t *tool) Run(ctx context.Context, input json.RawMessage) *tools.Result {
	args, err := arguments(input)
	if err != nil {
		return tools.Errorf("%v", err)
	}
	if t.c.ctx.Err() != nil {
		return tools.Errorf("MCP server %q is not running", t.c.srv.Name)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(t.c.ctx, cancel)()
	if d := t.c.m.opts.CallTimeout; d > 0 {
		var cancelTimeout context.CancelFunc
		ctx, cancelTimeout = context.WithTimeout(ctx, d)
		defer cancelTimeout()
	}
	res, err := t.c.session.CallTool(ctx, &sdk.CallToolParams{Name: t.name, Arguments: args})
	if err != nil {
		switch {
		case t.c.ctx.Err() != nil:
			return tools.Errorf("MCP server %q stopped before %s returned", t.c.srv.Name, t.name)
		case errors.Is(ctx.Err(), context.DeadlineExceeded) && t.c.m.opts.CallTimeout > 0:
			return tools.Errorf("MCP server %q: %s did not return within %v", t.c.srv.Name, t.name, t.c.m.opts.CallTimeout)
		case ctx.Err() != nil:
			return tools.Errorf("cancelled")
		}
		return tools.Errorf("MCP server %q: calling %s: %v", t.c.srv.Name, t.name, err)
	}
	return toResult(res, t.c.m.opts.ResultBudget)
}

// arguments checks that input is a JSON object; empty input is {}.
func arguments(input json.RawMessage) (json.RawMessage, error) {
	in := bytes.TrimSpace(input)
	if len(in) == 0 || bytes.Equal(in, []byte("null")) {
		return json.RawMessage("{}"), nil
	}
	if in[0] != '{' || !json.Valid(in) {
		return nil, fmt.Errorf("the input must be a JSON object")
	}
	return json.RawMessage(in), nil
}

// Images the model APIs take, and the largest (base64) they take.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

const maxImage = 5 << 20

// toResult maps an MCP tool result to the model's: text joined, images as
// images, embedded resources inline, resource links described, the rest
// noted. Text beyond budget is cut with a note.
func toResult(res *sdk.CallToolResult, budget int) *tools.Result {
	out := &tools.Result{IsError: res.IsError}
	var text []string
	image := func(mime string, data []byte, what string) {
		enc := base64.StdEncoding.EncodeToString(data)
		switch {
		case !imageTypes[mime]:
			text = append(text, fmt.Sprintf("[%s omitted: %s images are not supported]", what, mime))
		case len(enc) > maxImage:
			text = append(text, fmt.Sprintf("[%s omitted: %d bytes is too large]", what, len(data)))
		default:
			out.Images = append(out.Images, tools.Image{MediaType: mime, Data: enc})
		}
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			text = append(text, c.Text)
		case *sdk.ImageContent:
			image(c.MIMEType, c.Data, "image")
		case *sdk.AudioContent:
			text = append(text, fmt.Sprintf("[audio (%s, %d bytes) omitted: audio is not supported]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			text = append(text, describeLink(c))
		case *sdk.EmbeddedResource:
			r := c.Resource
			switch {
			case r == nil:
			case r.Blob == nil:
				text = append(text, fmt.Sprintf("[resource %s%s]\n%s", r.URI, mimeNote(r.MIMEType), r.Text))
			case strings.HasPrefix(r.MIMEType, "image/"):
				image(r.MIMEType, r.Blob, "image resource "+r.URI)
			default:
				text = append(text, fmt.Sprintf("[resource %s%s: %d bytes of binary data omitted]", r.URI, mimeNote(r.MIMEType), len(r.Blob)))
			}
		default:
			text = append(text, fmt.Sprintf("[content of type %T omitted]", c))
		}
	}
	if len(res.Content) == 0 && res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			text = append(text, string(data))
		}
	}
	out.Content = tools.Truncate(strings.Join(text, "\n"), budget)
	// The model APIs refuse empty text blocks.
	switch {
	case out.Content != "":
	case len(out.Images) == 1:
		out.Content = "(1 image)"
	case len(out.Images) > 1:
		out.Content = fmt.Sprintf("(%d images)", len(out.Images))
	default:
		out.Content = "(no output)"
	}
	return out
}

func describeLink(l *sdk.ResourceLink) string {
	var b strings.Builder
	b.WriteString("[resource link] ")
	if l.Name != "" {
		fmt.Fprintf(&b, "%s: ", l.Name)
	}
	b.WriteString(l.URI)
	b.WriteString(mimeNote(l.MIMEType))
	if l.Description != "" {
		fmt.Fprintf(&b, " - %s", l.Description)
	}
	return b.String()
}

func mimeNote(mime string) string {
	if mime == "" {
		return ""
	}
	return " (" + mime + ")"
}
