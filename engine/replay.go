package engine

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/tools"
)

// replay sends a stored conversation to the client as the updates it
// would have seen live: each tool call as a tool_call with the title,
// kind, locations and input the live call showed, the user's answer to
// its permission request, and a tool_call_update with its final status
// and the content the live call ended with (an edit's diff, a command's
// console block); then a usage_update. It never calls the editor (no
// file is read): a file-changing call shows the change stored with its
// result, or the strings of its input. h holds what the session file
// records beside the messages (nil when it could not be read).
func (s *Session) replay(ctx context.Context, msgs []providers.Message, h *session.History) {
	var stored map[string]json.RawMessage
	var perms map[string]session.Permission
	if h != nil {
		stored, perms = h.ToolUseResults, h.Permissions
	}
	results := map[string]providers.Block{}
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == providers.BlockToolResult {
				results[b.ToolUseID] = b
			}
		}
	}
	for _, m := range msgs {
		for _, b := range m.Content {
			switch {
			case b.Type == providers.BlockText && m.Role == providers.RoleUser && isSystemReminder(b.Text):
				// Told to the model beside the user's words (the
				// editor's context): not something the user typed.
			case b.Type == providers.BlockImage && m.Role == providers.RoleUser && b.Source != nil && b.Source.Data != "":
				// An image the user attached: editors show it again.
				c := schema.ContentBlock{Type: schema.BlockImage, MimeType: b.Source.MediaType, Data: b.Source.Data}
				s.update(ctx, schema.Update{SessionUpdate: schema.UpdateUserMessageChunk, Content: &c})
			case b.Type == providers.BlockText && m.Role == providers.RoleUser:
				c := schema.TextBlock(b.Text)
				s.update(ctx, schema.Update{SessionUpdate: schema.UpdateUserMessageChunk, Content: &c})
			case b.Type == providers.BlockText:
				c := schema.TextBlock(b.Text)
				s.update(ctx, schema.Update{SessionUpdate: schema.UpdateAgentMessageChunk, Content: &c})
			case b.Type == providers.BlockThinking:
				c := schema.TextBlock(b.Thinking)
				s.update(ctx, schema.Update{SessionUpdate: schema.UpdateAgentThoughtChunk, Content: &c})
			case b.Type == providers.BlockToolUse:
				s.replayToolCall(ctx, b, results, stored[b.ID], perms)
			}
		}
	}
	if h != nil {
		s.replayUsage(ctx, h.Usage, true)
	}
}

func (s *Session) replayToolCall(ctx context.Context, use providers.Block, results map[string]providers.Block, stored json.RawMessage, perms map[string]session.Permission) {
	input := use.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	call := &schema.ToolCall{ToolCallID: use.ID, Title: s.callTitle(use.Name, nil), Kind: s.kindOf(use.Name), Status: schema.StatusPending, RawInput: input, Meta: schema.ToolMeta(use.Name)}
	t, ok := s.tools.lookup(use.Name)
	var diffs []schema.ToolCallContent
	var path string
	rp, isEdit := t.(tools.Replayer)
	if ok && isEdit {
		diffs, path = rp.Replay(input, stored)
	}
	switch {
	case ok && isEdit:
		// Not the tool's preview, which reads the file as it is now
		// (through the editor, on the ACP door).
		if path != "" {
			call.Title = s.callTitle(use.Name, &tools.Preview{Title: use.Name + " " + path, Paths: []string{path}})
			call.Locations = []schema.Location{{Path: path, Line: changedLine(diffs, stored)}}
		}
		call.Content = diffs
		withDescription(call, input)
	case ok:
		// The title and locations as the live turn showed them; the
		// other tools' previews read no file.
		if p, err := s.preview(ctx, t, input); err == nil {
			d := s.describe(use.ID, t, input, p)
			call.Title, call.Locations, call.Meta = d.Title, d.Locations, d.Meta
		}
	default:
		withDescription(call, input)
	}
	s.update(ctx, schema.Update{SessionUpdate: schema.UpdateToolCall, ToolCall: call})
	p, answered := perms[use.ID]
	if answered {
		s.update(ctx, permissionUpdate(use.ID, use.Name, p))
	}
	res, ok := results[use.ID]
	if !ok {
		return
	}
	end := &schema.ToolCall{ToolCallID: use.ID, Status: schema.StatusCompleted, Title: call.Title, Locations: call.Locations, Meta: schema.ToolMeta(use.Name)}
	if res.IsError {
		end.Status = schema.StatusFailed
	}
	var text strings.Builder
	for _, c := range res.Content {
		text.WriteString(c.Text)
	}
	refused := answered && p.Outcome != permAllowed
	switch {
	case isEdit && !res.IsError && len(diffs) > 0:
		end.Content = diffs // as the live call ended: its change
	case use.Name == "Bash" && !refused:
		if block, ok := replayConsole(input, text.String(), res.IsError); ok {
			end.Content = []schema.ToolCallContent{schema.TextContent(block)}
			break
		}
		fallthrough
	case text.Len() > 0:
		end.Content = []schema.ToolCallContent{schema.TextContent(truncateDisplay(text.String()))}
	}
	s.update(ctx, schema.Update{SessionUpdate: schema.UpdateToolCallUpdate, ToolCall: end})
}

// commandEnd matches how a Bash result says its command ran and failed:
// agent-lsp's notes ("[exit code 1]", a timeout, a cancel, a signal)
// and Claude Code's ("Exit code 1").
var commandEnd = regexp.MustCompile(`(?m)^\[(exit code \d+|the command (timed out|was cancelled)|terminated by signal|killed)|^Exit code \d+`)

// sandboxNoteStart is how the note that sandboxNote adds to a failed
// command's result starts.
const sandboxNoteStart = "\n(The command ran in agent-lsp's "

// replayConsole returns the console block a Bash call showed live: its
// command and output. ok is false for a call that showed text instead:
// one run in the background, or one that failed before it ran.
func replayConsole(input json.RawMessage, output string, isError bool) (block string, ok bool) {
	var in struct {
		Command    string `json:"command"`
		Background bool   `json:"run_in_background"`
	}
	if json.Unmarshal(input, &in) != nil || in.Command == "" || in.Background {
		return "", false
	}
	if isError && !commandEnd.MatchString(output) {
		return "", false
	}
	// The note on where a failed command ran is for the model: the live
	// call did not show it.
	if i := strings.LastIndex(output, sandboxNoteStart); i >= 0 && strings.HasSuffix(output, ")") {
		output = output[:i]
	}
	return schema.ConsoleBlock(in.Command, truncateDisplay(output)), true
}

// changedLine returns the 0-based first changed line of a replayed edit,
// known when its diff holds the whole file (a new file, or a stored
// result with the original file); nil for a diff of the input's
// snippets.
func changedLine(diffs []schema.ToolCallContent, stored json.RawMessage) *int {
	switch {
	case len(diffs) != 1:
		return nil
	case diffs[0].OldText == nil:
		zero := 0 // a new file
		return &zero
	case !strings.Contains(string(stored), `"originalFile`):
		return nil
	}
	old, new := *diffs[0].OldText, diffs[0].NewText
	line := 0
	for {
		i, j := strings.IndexByte(old, '\n'), strings.IndexByte(new, '\n')
		if i < 0 || j < 0 || old[:i] != new[:j] {
			return &line
		}
		old, new = old[i+1:], new[j+1:]
		line++
	}
}

// replayUsage sends the usage_update that ends a replay: the context
// the last response used, the window and, with withCost (usage holds
// every response of the session), what the session cost so far. A
// session file that records no usage sends none.
func (s *Session) replayUsage(ctx context.Context, usage []session.ResponseUsage, withCost bool) {
	var last *providers.Usage
	var cost float64
	price := s.svc.cfg.Price
	for i := range usage {
		if !usage[i].Sidechain {
			last = &usage[i].Usage
		}
		if price != nil && withCost {
			cost += price(usage[i].Usage)
		}
	}
	if last == nil {
		return
	}
	cost = s.conv.startCost(cost) // a resumed session goes on from what it cost
	used, size := last.ContextTokens(), s.svc.cfg.Window
	u := schema.Update{SessionUpdate: schema.UpdateUsage, Used: &used, Size: &size}
	if cost > 0 {
		u.Cost = &schema.Cost{Amount: cost, Currency: "USD"}
	}
	s.update(ctx, u)
}
