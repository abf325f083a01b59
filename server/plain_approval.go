package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/diffs"
	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/schema"
)

// The plain-LSP door's approval dialog: a permission request (or the
// question to trust a folder) becomes window/showMessageRequest with
// the tool, what it would do and the choices as buttons.

// RequestPermission asks with window/showMessageRequest.
func (c *plainClient) RequestPermission(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
	if engine.IsTrustRequest(p) {
		return c.requestTrust(ctx, p)
	}
	if p.ToolCall.Kind == schema.KindSwitchMode {
		return c.requestChoice(ctx, p)
	}
	msg := approvalText(c.d.lsp.workspaceRoots(), p.ToolCall)
	titles := map[string]string{"Allow": "", "Always allow": "", "Reject": ""}
	buttons := []string{"Allow", "Always allow"}
	for _, o := range p.Options {
		switch o.Kind {
		case schema.AllowOnce:
			if titles["Allow"] != "" {
				// Another way to allow ("Run outside the sandbox"): a
				// button of its own, never the plain "Allow".
				titles[o.Name] = o.OptionID
				buttons = append(buttons, o.Name)
				break
			}
			titles["Allow"] = o.OptionID
		case schema.AllowAlways:
			titles["Always allow"] = o.OptionID
			// The action's title is short; the text says its scope.
			msg += "\n\n\"Always allow\" allows " + strings.TrimPrefix(o.Name, "Always allow ") + " from now on."
		case schema.RejectOnce:
			titles["Reject"] = o.OptionID
		}
	}
	res, err := c.ask(ctx, msg, append(buttons, "Reject")...)
	if err != nil {
		return nil, err
	}
	if res == nil || titles[res.Title] == "" {
		// Dismissed: treat as a rejection, never as consent.
		return &schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: titles["Reject"]}}, nil
	}
	return &schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: titles[res.Title]}}, nil
}

// requestChoice asks a question whose options are choices of their own
// (the plan's review: each option a mode) with window/showMessageRequest:
// the title and the text content (the plan), a button per option named
// as the agent names it. Dismissing it picks the rejecting option.
func (c *plainClient) requestChoice(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
	msg := "agent: " + p.ToolCall.Title
	for _, tc := range p.ToolCall.Content {
		if tc.Type == "content" && tc.Content != nil && tc.Content.Text != "" {
			msg += "\n\n" + truncateLines(tc.Content.Text, choiceLines)
		}
	}
	var titles []string
	ids := map[string]string{}
	reject := ""
	for _, o := range p.Options {
		titles = append(titles, o.Name)
		ids[o.Name] = o.OptionID
		if o.Kind == schema.RejectOnce || o.Kind == schema.RejectAlways {
			reject = o.OptionID
		}
	}
	res, err := c.ask(ctx, msg, titles...)
	if err != nil {
		return nil, err
	}
	choice := reject
	if res != nil && ids[res.Title] != "" {
		choice = ids[res.Title]
	}
	return &schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: choice}}, nil
}

// choiceLines bounds the lines of text a choice shows (the transcript
// holds all of it).
const choiceLines = 40

// requestTrust asks to trust a folder with window/showMessageRequest:
// "Trust" or "Not now". Dismissing it is "not now".
func (c *plainClient) requestTrust(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
	var trust, notNow string
	for _, o := range p.Options {
		switch o.Kind {
		case schema.AllowAlways, schema.AllowOnce:
			trust = o.OptionID
		default:
			notNow = o.OptionID
		}
	}
	msg := "agent: " + p.ToolCall.Title + ". Until you trust it, its hooks, MCP servers and settings that loosen the rules stay off."
	res, err := c.ask(ctx, msg, "Trust", "Not now")
	if err != nil {
		return nil, err
	}
	choice := notNow
	if res != nil && res.Title == "Trust" {
		choice = trust
	}
	return &schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: choice}}, nil
}

// ask sends window/showMessageRequest, a warning since what it asks
// about changes something, with a button per title. It returns the
// button chosen, or nil when the user dismissed the message.
func (c *plainClient) ask(ctx context.Context, msg string, titles ...string) (*protocol.MessageActionItem, error) {
	p := protocol.ShowMessageRequestParams{Type: protocol.MessageTypeWarning, Message: msg}
	for _, t := range titles {
		p.Actions = append(p.Actions, protocol.MessageActionItem{Title: t})
	}
	var res *protocol.MessageActionItem
	if err := c.d.lsp.c.peer.Call(ctx, "window/showMessageRequest", p, &res); err != nil {
		return nil, err
	}
	return res, nil
}

// approvalText is the text of an approval request: the tool (by name,
// not the model's description of the call), then what it would do: the
// command for Bash, the changed lines of an edit.
func approvalText(roots []string, tc schema.ToolCall) string {
	name := tc.ToolName()
	if name == "" {
		name, _, _ = strings.Cut(tc.Title, " ")
	}
	var in struct {
		Command string `json:"command"`
	}
	raw, _ := tc.RawInput.(json.RawMessage)
	if len(raw) > 0 && json.Unmarshal(raw, &in) == nil && in.Command != "" {
		shown, _ := schema.Visible(in.Command)
		msg := fmt.Sprintf("Agent wants to run %s:\n$ %s", name, truncateLines(shown, approvalLines))
		// The question's content after the command: where it will run.
		for i, c := range tc.Content {
			if i > 0 && c.Type == "content" && c.Content != nil && c.Content.Text != "" {
				msg += "\n\n" + strings.ReplaceAll(c.Content.Text, "**", "")
			}
		}
		return msg
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Agent wants to use %s", name)
	var where []string
	for _, l := range tc.Locations {
		where = append(where, relative(roots, l.Path))
	}
	if len(where) > 0 {
		b.WriteString(" on " + strings.Join(where, ", "))
	} else if tc.Title != "" && tc.Title != name {
		b.WriteString(": " + shorten(roots, tc.Title))
	}
	for _, c := range tc.Content {
		if c.Type != "diff" {
			continue
		}
		old := ""
		if c.OldText != nil {
			old = *c.OldText
		}
		b.WriteString("\n")
		if c.OldText == nil {
			fmt.Fprintf(&b, "\nnew file %s, %d lines:", relative(roots, c.Path), strings.Count(strings.TrimSuffix(c.NewText, "\n"), "\n")+1)
		}
		b.WriteString("\n" + changedLines(c.Path, old, c.NewText, approvalLines))
	}
	return b.String()
}

// approvalLines bounds the lines an approval request shows.
const approvalLines = 12

// changedLines are the removed (-) and added (+) lines of a change, at
// most limit of them.
func changedLines(path, old, new string, limit int) string {
	var lines []string
	for _, l := range strings.Split(diffs.Unified(path, old, new), "\n") {
		if strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++") {
			continue
		}
		if strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+") {
			lines = append(lines, l)
		}
	}
	return truncateLines(strings.Join(lines, "\n"), limit)
}

// truncateLines keeps the first limit lines of text.
func truncateLines(text string, limit int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) <= limit {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:limit], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-limit)
}
