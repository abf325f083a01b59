package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/tools"
)

// charsPerToken is the rough ratio used to estimate tokens of text the
// model has not counted yet.
const charsPerToken = 4

// estimateTokens estimates the tokens of messages.
func estimateTokens(msgs []providers.Message) int64 {
	var n int64
	for _, m := range msgs {
		n += 4
		for _, b := range m.Content {
			n += blockTokens(b)
		}
	}
	return n
}

func blockTokens(b providers.Block) int64 {
	n := int64(8 + (len(b.Text)+len(b.Thinking)+len(b.Input))/charsPerToken)
	if b.Source != nil {
		n += 1600 // an image costs about this much
	}
	for _, c := range b.Content {
		n += blockTokens(c)
	}
	return n
}

// threshold is the context size at which the session compacts.
func (s *Session) threshold() int64 {
	return int64(float64(s.svc.cfg.Window) * s.svc.cfg.CompactAt)
}

// fitContext makes sure the next request fits the model's window:
// oversized tool results are cut first, then older turns are summarized.
func (s *Session) fitContext(ctx context.Context) error {
	// Tool results of the last message that alone would take more
	// than a quarter of the window are cut.
	s.conv.shrinkResults(s.svc.cfg.Window / 4)
	if s.conv.tokens() <= s.threshold() || s.autoCompactOff() {
		return nil
	}
	return s.compact(ctx, false)
}

// truncatedResult returns a tool result's text cut to fit half of limit
// tokens.
func truncatedResult(b providers.Block, limit int64) string {
	return tools.Truncate(resultText(b), int(limit)*charsPerToken/2)
}

// resultText is the text of a tool result block.
func resultText(b providers.Block) string {
	var text strings.Builder
	for _, c := range b.Content {
		text.WriteString(c.Text)
	}
	return text.String()
}

// compact replaces older turns by a model-written summary. Unless all is
// set, the most recent messages are kept verbatim.
func (s *Session) compact(ctx context.Context, all bool) error {
	p, err := s.svc.provider()
	if err != nil {
		return err
	}
	hist := s.History()
	cut := len(hist)
	if !all {
		cut = s.cutPoint(hist)
	}
	if cut == 0 {
		return nil
	}
	trigger := session.TriggerAuto
	if all {
		trigger = session.TriggerManual
	}
	if why := s.preCompactHooks(ctx, string(trigger), ""); why != "" {
		s.status(ctx, Status{Kind: StatusWarning, Message: "not compacted: " + why})
		return nil
	}
	summary, err := s.summarize(ctx, p, hist[:cut])
	if err != nil {
		return fmt.Errorf("compacting the conversation: %w", err)
	}
	kept := hist[cut:]
	head := providers.Message{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock(summaryPreamble + summary)}}
	if extra := s.postCompactHooks(ctx, string(trigger), summary); extra != "" {
		head.Content = append(head.Content, providers.TextBlock(extra))
	}
	if err := s.conv.compacted(head, kept, trigger); err != nil {
		s.svc.cfg.Logf("session %s: saving compaction: %v", s.ID, err)
	}
	s.forgetAttached()
	s.status(ctx, Status{Kind: StatusInfo, Message: fmt.Sprintf("compacted the conversation: %d earlier messages summarized, %d kept", cut, len(kept))})
	return nil
}

const summaryPreamble = "This session continues from an earlier conversation that ran out of context. Its summary:\n\n"

// cutPoint returns where to split the history: the earliest assistant
// message such that what follows fits in a third of the window. Cutting
// before an assistant message keeps every tool_use next to its result.
func (s *Session) cutPoint(hist []providers.Message) int {
	keep := s.svc.cfg.Window / 3
	cut := 0
	var tail int64
	for i := len(hist) - 1; i > 0; i-- {
		tail += estimateTokens(hist[i : i+1])
		if tail > keep {
			break
		}
		if hist[i].Role == providers.RoleAssistant {
			cut = i
		}
	}
	if cut == 0 {
		// Even the last exchange is too big: keep only the last
		// assistant message and what follows it.
		for i := len(hist) - 1; i > 0; i-- {
			if hist[i].Role == providers.RoleAssistant {
				return i
			}
		}
		return len(hist)
	}
	return cut
}

const summarizeInstructions = `Summarize the conversation below so that you can continue the work from the summary alone. Keep: the user's requests and constraints, decisions made, files read or changed (with paths) and why, commands run and their outcome, errors met, and what remains to do. Be specific and complete; leave out pleasantries.`

// summarize asks the model for a summary of msgs.
func (s *Session) summarize(ctx context.Context, p Provider, msgs []providers.Message) (string, error) {
	transcript := renderTranscript(msgs)
	budget := int(s.svc.cfg.Window/2) * charsPerToken
	transcript = tools.Truncate(transcript, budget)
	req := &providers.Request{
		Model:     s.Model(),
		System:    []providers.SystemBlock{{Text: "You write precise summaries of coding sessions."}},
		Messages:  []providers.Message{{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock(summarizeInstructions + "\n\n<conversation>\n" + transcript + "\n</conversation>")}}},
		MaxTokens: 4096,
	}
	resp, err := p.Stream(ctx, req, func(providers.Event) {})
	if err != nil {
		return "", err
	}
	summary := strings.TrimSpace(resp.Message.Text())
	if summary == "" {
		return "", fmt.Errorf("the model returned an empty summary")
	}
	return summary, nil
}

// renderTranscript renders messages as text for the summarizer.
func renderTranscript(msgs []providers.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, blk := range m.Content {
			switch blk.Type {
			case providers.BlockText:
				fmt.Fprintf(&b, "[%s] %s\n", m.Role, blk.Text)
			case providers.BlockToolUse:
				fmt.Fprintf(&b, "[tool call %s] %s\n", blk.Name, compactJSON(blk.Input))
			case providers.BlockToolResult:
				status := "result"
				if blk.IsError {
					status = "error"
				}
				fmt.Fprintf(&b, "[tool %s] %s\n", status, tools.Truncate(resultText(blk), 2000))
			}
		}
	}
	return b.String()
}

func compactJSON(raw json.RawMessage) string {
	s := string(raw)
	if len(s) > 1000 {
		s = s[:1000] + "…"
	}
	return s
}

// slashCommands are the commands the session handles itself.
var slashCommands = []schema.Command{
	{Name: "compact", Description: "Summarize the conversation so far to free context"},
	{Name: "clear", Description: "Forget the conversation and start over (nothing is sent to the model)"},
	{Name: "effort", Description: "Show or set how much effort the model spends: low, medium, high, xhigh, max or auto", Input: &schema.CommandInput{Hint: "low | medium | high | xhigh | max | auto"}},
	{Name: "memory", Description: "List the memory files loaded (CLAUDE.md, rules, auto memory), or open one in the editor", Input: &schema.CommandInput{Hint: "number, path, or user | project | local | auto"}},
	{Name: "init", Description: "Analyze the codebase and create or improve CLAUDE.md"},
	{Name: "rewind", Description: "List the checkpoints, or go back to before prompt N: /rewind N [code|conversation|both] [force]", Input: &schema.CommandInput{Hint: "checkpoint number"}},
	{Name: "context", Description: "Show what fills the context window, by part"},
	{Name: "export", Description: "Write the conversation to a text file", Input: &schema.CommandInput{Hint: "file name (optional)"}},
	{Name: "permissions", Description: "Show the permission rules, or change them: /permissions allow|ask|deny|remove <rule>", Input: &schema.CommandInput{Hint: "allow|ask|deny|remove <rule>"}},
	{Name: "hooks", Description: "List the configured hooks"},
	{Name: "mcp", Description: "List the MCP servers with their scope, state, tools, resources and prompts; /mcp reconnect <server> reconnects one", Input: &schema.CommandInput{Hint: "reconnect <server>"}},
}

// AnnounceCommands sends the available_commands_update, and the
// service's notices (settings problems) as warnings.
func (s *Session) AnnounceCommands(ctx context.Context) {
	s.announceCommandList(ctx)
	_, notices := s.svc.settings()
	for _, n := range notices {
		s.status(ctx, Status{Kind: StatusWarning, Message: n})
	}
	s.client.announce(ctx)
}

// slashCommand runs a prompt that is one of the session's own commands.
// It reports false when the prompt is not one.
func (s *Session) slashCommand(ctx context.Context, prompt []schema.ContentBlock) (string, bool, error) {
	text := strings.TrimSpace(promptText(prompt))
	name, arg, _ := strings.Cut(text, " ")
	say := func(msg string) { s.say(ctx, msg) }
	switch name {
	case "/effort":
		return s.effortCommand(ctx, arg)
	case "/memory":
		return s.memoryCommand(ctx, arg)
	case "/init":
		return s.initCommand(ctx, prompt)
	case "/rewind":
		return s.rewindCommand(ctx, strings.TrimSpace(strings.TrimPrefix(text, name)))
	case "/context":
		return s.contextCommand(ctx)
	case "/export":
		return s.exportCommand(ctx, arg)
	case "/permissions":
		return s.permissionsCommand(ctx, arg)
	case "/hooks":
		return s.hooksCommand(ctx)
	case "/mcp":
		return s.mcpCommand(ctx, arg)
	case "/clear":
		if err := s.conv.clear(); err != nil {
			s.svc.cfg.Logf("session %s: saving /clear: %v", s.ID, err)
		}
		s.cleared(ctx)
		s.forgetAttached()
		say("Conversation cleared.")
		return schema.StopEndTurn, true, nil
	case "/compact":
		if s.conv.isEmpty() {
			say("Nothing to compact yet.")
			return schema.StopEndTurn, true, nil
		}
		if err := s.compact(ctx, true); err != nil {
			if ctx.Err() != nil {
				return schema.StopCancelled, true, nil
			}
			return "", true, err
		}
		say("Conversation compacted.")
		return schema.StopEndTurn, true, nil
	}
	return "", false, nil
}
