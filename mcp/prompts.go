package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxPrompts bounds how many prompts of one server are offered.
const maxPrompts = 500

// Prompt is one prompt a server offers; the session offers it as the
// command /mcp__<server>__<prompt> (CommandName).
type Prompt struct {
	Name        string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// CommandName returns the command that runs a server's prompt, as Claude
// Code names it: mcp__<server>__<prompt> (without the slash), the server's
// name written as in its tools' names.
func CommandName(server, prompt string) string {
	return serverPrefix(server) + prompt
}

// ArgumentHint returns the hint editors show after a prompt's command:
// its arguments' names in order, in <> when required and [] when not.
func (p Prompt) ArgumentHint() string {
	var parts []string
	for _, a := range p.Arguments {
		if a.Required {
			parts = append(parts, "<"+a.Name+">")
		} else {
			parts = append(parts, "["+a.Name+"]")
		}
	}
	return strings.Join(parts, " ")
}

// prompts lists the server's prompts, within timeout; a server without
// the capability has none.
func (c *conn) prompts(timeout time.Duration) []Prompt {
	r := c.session.InitializeResult()
	if r == nil || r.Capabilities == nil || r.Capabilities.Prompts == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(c.ctx, timeout)
	defer cancel()
	var out []Prompt
	for p, err := range c.session.Prompts(ctx, nil) {
		if err != nil {
			c.m.opts.Logf("MCP server %q: listing prompts: %v", c.srv.Name, err)
			break
		}
		pr := Prompt{Name: p.Name, Description: p.Description}
		if pr.Description == "" {
			pr.Description = p.Title
		}
		for _, a := range p.Arguments {
			if a != nil {
				pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
		}
		out = append(out, pr)
		if len(out) >= maxPrompts {
			break
		}
	}
	return out
}

// GetPrompt runs a server's prompt with the arguments typed after its
// command, split on white space and given to the prompt's arguments in
// order (words beyond them are dropped), as Claude Code does. It returns
// the text of the prompt's messages, which the session sends as the
// user's prompt. Missing required arguments are an error naming them.
func (m *Manager) GetPrompt(ctx context.Context, server, prompt, args string) (string, error) {
	c, err := m.live(server)
	if err != nil {
		return "", err
	}
	st, _ := m.Status(server)
	var p *Prompt
	for i := range st.Prompts {
		if st.Prompts[i].Name == prompt {
			p = &st.Prompts[i]
		}
	}
	if p == nil {
		return "", fmt.Errorf("MCP server %q has no prompt %q", server, prompt)
	}
	values := make(map[string]string)
	words := strings.Fields(args)
	var missing, names []string
	for i, a := range p.Arguments {
		names = append(names, a.Name)
		switch {
		case i < len(words):
			values[a.Name] = words[i]
		case a.Required:
			missing = append(missing, a.Name)
		}
	}
	if len(missing) > 0 {
		what := "argument"
		if len(missing) > 1 {
			what = "arguments"
		}
		return "", fmt.Errorf("missing required %s: %s. Usage: /%s %s", what, strings.Join(missing, ", "), CommandName(server, prompt), strings.Join(names, " "))
	}
	ctx, cancel := c.callContext(ctx)
	defer cancel()
	res, err := c.session.GetPrompt(ctx, &sdk.GetPromptParams{Name: prompt, Arguments: values})
	if err != nil {
		return "", fmt.Errorf("MCP server %q: prompt %s: %w", server, prompt, err)
	}
	var parts []string
	for _, msg := range res.Messages {
		if msg == nil {
			continue
		}
		switch ct := msg.Content.(type) {
		case *sdk.TextContent:
			parts = append(parts, ct.Text)
		case *sdk.EmbeddedResource:
			if r := ct.Resource; r != nil && r.Blob == nil {
				parts = append(parts, fmt.Sprintf("[resource %s%s]\n%s", r.URI, mimeNote(r.MIMEType), r.Text))
			} else if r != nil {
				parts = append(parts, fmt.Sprintf("[binary resource %s%s: %d bytes, not shown]", r.URI, mimeNote(r.MIMEType), len(r.Blob)))
			}
		case *sdk.ResourceLink:
			parts = append(parts, describeLink(ct))
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image (%s, %d bytes) not shown]", ct.MIMEType, len(ct.Data)))
		default:
			parts = append(parts, fmt.Sprintf("[content of type %T omitted]", ct))
		}
	}
	text := strings.TrimSpace(strings.Join(parts, "\n\n"))
	if text == "" {
		return "", fmt.Errorf("MCP server %q: prompt %s returned no text", server, prompt)
	}
	return text, nil
}
