package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/mcp"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
)

// mcpResourceGroup is the tool group of the MCP resource tools.
const mcpResourceGroup = "mcp-resources"

// mcpStatus records a server's state: the resource tools are offered
// while a connected server has resources, and the editor hears of a
// change to the servers' prompts (its commands).
func (s *Session) mcpStatus(st mcp.Status) {
	m := &s.tools.mcp
	m.mu.Lock()
	if m.status == nil {
		m.status = make(map[string]mcp.Status)
	}
	old := m.status[st.Server]
	m.status[st.Server] = st
	resources := false
	for _, x := range m.status {
		resources = resources || (x.State == mcp.StateReady && x.HasResources)
	}
	changed := resources != m.resources
	m.resources = resources
	m.mu.Unlock()

	if changed {
		if resources {
			s.SetTools(mcpResourceGroup, mcp.ResourceTools(m.managers))
		} else {
			s.SetTools(mcpResourceGroup, nil)
		}
	}
	if !slices.Equal(promptNames(old), promptNames(st)) && s.client.isAnnounced() {
		s.announceCommandList(context.Background())
	}
}

// promptNames are the names of the prompts a ready server offers.
func promptNames(st mcp.Status) []string {
	if st.State != mcp.StateReady {
		return nil
	}
	var out []string
	for _, p := range st.Prompts {
		out = append(out, p.Name)
	}
	return out
}

// isAnnounced reports whether the editor knows the session.
func (c *sessionClient) isAnnounced() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.announced
}

// mcpStatuses returns the last state of every server, sorted by name.
func (s *Session) mcpStatuses() []mcp.Status {
	m := &s.tools.mcp
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.SortedFunc(maps.Values(m.status), func(a, b mcp.Status) int { return strings.Compare(a.Server, b.Server) })
}

// mcpPromptCommands are the commands of the connected servers' prompts,
// /mcp__<server>__<prompt>, with the prompt's description and arguments.
func (s *Session) mcpPromptCommands() []schema.Command {
	var out []schema.Command
	for _, st := range s.mcpStatuses() {
		if st.State != mcp.StateReady {
			continue
		}
		for _, p := range st.Prompts {
			cmd := schema.Command{Name: mcp.CommandName(st.Server, p.Name), Description: p.Description}
			if cmd.Description == "" {
				cmd.Description = fmt.Sprintf("Prompt %s of the MCP server %s", p.Name, st.Server)
			}
			if hint := p.ArgumentHint(); hint != "" {
				cmd.Input = &schema.CommandInput{Hint: hint}
			}
			out = append(out, cmd)
		}
	}
	return out
}

// mcpPromptCommand runs the prompt that a /mcp__<server>__<prompt>
// command names: prompts/get with the arguments typed after it, whose
// messages become the user's prompt. It reports false when name is no
// connected server's prompt.
func (s *Session) mcpPromptCommand(ctx context.Context, name, args string, prompt []schema.ContentBlock) (providers.Message, bool, error) {
	for _, st := range s.mcpStatuses() {
		if st.State != mcp.StateReady {
			continue
		}
		for _, p := range st.Prompts {
			if mcp.CommandName(st.Server, p.Name) != name {
				continue
			}
			mg := s.mcpOwner(st.Server)
			if mg == nil {
				return providers.Message{}, false, nil
			}
			text, err := mg.GetPrompt(ctx, st.Server, p.Name, args)
			if err != nil {
				return providers.Message{}, true, err
			}
			msg, err := withAttachments(providers.TextBlock(text), prompt)
			return msg, true, err
		}
	}
	return providers.Message{}, false, nil
}

// mcpOwner returns the manager that runs server, or nil.
func (s *Session) mcpOwner(server string) *mcp.Manager {
	for _, mg := range s.tools.mcp.managers() {
		if mg.Has(server) {
			return mg
		}
	}
	return nil
}

// mcpReconnectWait bounds how long /mcp reconnect waits for the server's
// new state before it answers.
const mcpReconnectWait = 60 * time.Second

// mcpCommand runs /mcp: with no argument it lists every server with its
// scope, state and counts; "reconnect <name>" reconnects one.
func (s *Session) mcpCommand(ctx context.Context, arg string) (string, bool, error) {
	verb, name, _ := strings.Cut(strings.TrimSpace(arg), " ")
	name = strings.TrimSpace(name)
	switch {
	case verb == "" || verb == "list" || verb == "status":
		s.say(ctx, s.mcpReport())
	case verb == "reconnect" && name == "":
		s.say(ctx, "Usage: /mcp reconnect <server>")
	case verb == "reconnect":
		s.say(ctx, s.mcpReconnect(ctx, name))
	default:
		s.say(ctx, fmt.Sprintf("Unknown /mcp argument %q: use /mcp to list the servers, /mcp reconnect <server> to reconnect one.", verb))
	}
	return schema.StopEndTurn, true, nil
}

// mcpReport lists the servers for /mcp.
func (s *Session) mcpReport() string {
	list := s.mcpStatuses()
	if len(list) == 0 {
		return "No MCP servers configured. Add them with `claude mcp add` (user or local scope, in ~/.claude.json), in the project's .mcp.json, or in the settings' mcpServers."
	}
	var b strings.Builder
	b.WriteString("MCP servers:\n")
	for _, st := range list {
		fmt.Fprintf(&b, "- %s (%s): %s\n", st.Server, st.Scope, describeMCPState(st))
	}
	b.WriteString("\nReconnect one with /mcp reconnect <server>.")
	return b.String()
}

// describeMCPState says a server's state for /mcp.
func describeMCPState(st mcp.Status) string {
	switch st.State {
	case mcp.StateReady:
		return fmt.Sprintf("connected, %s, %s, %s", plural(st.Tools, "tool"), plural(st.Resources, "resource"), plural(len(st.Prompts), "prompt"))
	case mcp.StateFailed:
		return fmt.Sprintf("failed: %v", st.Err)
	case mcp.StateNeedsAuth:
		return fmt.Sprintf("needs authorization: %v", st.Err)
	case mcp.StateBlocked:
		return fmt.Sprintf("blocked: %v", st.Err)
	case mcp.StateNeedsApproval:
		return "needs approval: add it to enabledMcpjsonServers (or set enableAllProjectMcpServers) in .claude/settings.local.json"
	case mcp.StateDisabled:
		return "disabled (disabledMcpjsonServers)"
	}
	return st.State.String()
}

// plural says n things.
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// mcpReconnect reconnects a server and says how it went, once it is
// ready or failed again.
func (s *Session) mcpReconnect(ctx context.Context, name string) string {
	mg := s.mcpOwner(name)
	if mg == nil {
		return fmt.Sprintf("No MCP server named %q. /mcp lists them.", name)
	}
	if err := mg.Reconnect(name); err != nil {
		return fmt.Sprintf("Cannot reconnect: %v", err)
	}
	deadline := time.Now().Add(mcpReconnectWait)
	for {
		st, ok := mg.Status(name)
		if ok && st.State != mcp.StateStarting {
			return fmt.Sprintf("Reconnected %s: %s", name, describeMCPState(st))
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return fmt.Sprintf("Reconnecting %s: it is still starting; /mcp shows its state.", name)
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// mcpMention finds @server:uri in a prompt, as Claude Code writes a
// mention of an MCP resource.
var mcpMention = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|\s)@([A-Za-z0-9_-]+):(\S+)`)
})

// mcpMentions reads the MCP resources a prompt mentions (@server:uri, a
// resource a connected server lists) and returns them as blocks to send
// with it, as Claude Code attaches them: "Full contents of resource:",
// the text, and a word not to read it again; a resource the permission
// rules keep from ReadMcpResourceTool, or that cannot be read, is said so
// in an <mcp-resource> block instead.
func (s *Session) mcpMentions(ctx context.Context, prompt []schema.ContentBlock) []providers.Block {
	text := promptText(prompt)
	if !strings.Contains(text, "@") {
		return nil
	}
	var out []providers.Block
	seen := map[string]bool{}
	listed := map[string][]mcp.Resource{}
	for _, m := range mcpMention().FindAllStringSubmatch(text, -1) {
		server, uri := m[1], strings.TrimRight(m[2], ".,;)")
		key := server + "\x00" + uri
		if seen[key] {
			continue
		}
		mg := s.mcpOwner(server)
		if mg == nil || !slices.Contains(mg.ResourceServers(), server) {
			continue
		}
		if _, ok := listed[server]; !ok {
			listed[server], _ = mg.ListResources(ctx, server)
		}
		if !slices.ContainsFunc(listed[server], func(r mcp.Resource) bool { return r.URI == uri }) {
			continue // not one of the server's resources, as in Claude Code
		}
		seen[key] = true
		unread := func(why string) {
			out = append(out, providers.TextBlock(fmt.Sprintf("<mcp-resource server=%q uri=%q>(%s)</mcp-resource>", server, uri, why)))
		}
		input, _ := json.Marshal(map[string]string{"server": server, "uri": uri})
		switch d := s.pipe.gate.policy.Decide(permission.Call{Tool: mcp.ReadResourceTool, Input: input, ReadOnly: true, Kind: schema.KindRead, Access: permission.AccessNone, Cwd: s.cwd}); d.Verdict {
		case permission.Allow:
		case permission.Deny:
			unread("Not read: this session's permissions do not allow it")
			continue
		default:
			unread(fmt.Sprintf("Not read: reading it needs permission. If you need it, call %s with this server and uri", mcp.ReadResourceTool))
			continue
		}
		content, err := mg.ReadResource(ctx, server, uri)
		if err != nil {
			unread(fmt.Sprintf("Not read: %v", err))
			continue
		}
		out = append(out,
			providers.TextBlock("Full contents of resource:"),
			providers.TextBlock(content),
			providers.TextBlock("Do NOT read this resource again unless you think it may have changed, since you already have the full contents."))
	}
	return out
}
