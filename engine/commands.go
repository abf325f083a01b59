package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
)

// Custom slash commands are Claude Code's: markdown files under
// .claude/commands (the project's, then the user's ~/.claude/commands),
// named by their file name. A subfolder is a namespace: it shows in the
// description ("(project:frontend)") and the command may also be typed
// with it ("/frontend:component"), which tells apart two commands of the
// same name.
//
// They are prompts the user types, as CLAUDE.md is text the user keeps in
// the repository, so an untrusted folder's commands are offered too: what
// they could do beyond words goes through the permission gate (their
// !`command` spans run as Bash calls, asked like any; their @file
// references are read as Read would, deny and ask rules honoured), and
// their allowed-tools only narrows the tools of the turn (see
// restrictTools), never widening what the rules allow.

// maxCommandFiles bounds the command files read from one folder.
const maxCommandFiles = 500

// userCommand is a custom command (or a skill the user invokes).
type userCommand struct {
	name      string // as typed, without the slash
	namespace string // subfolders joined by ":", or ""
	scope     string // "project" or "user"
	path      string
	meta      mdMeta
	body      string
	skill     *skill // set for a skill invoked as a command
}

// qualified is the command's name with its namespace.
func (c *userCommand) qualified() string {
	if c.namespace == "" {
		return c.name
	}
	return c.namespace + ":" + c.name
}

// description is what the editor shows: the frontmatter's description
// (or the body's first line) and where the command comes from.
func (c *userCommand) description() string {
	d := c.meta.get("description")
	if d == "" {
		d, _, _ = strings.Cut(strings.TrimSpace(c.body), "\n")
		d = strings.TrimLeft(d, "# ")
		if len(d) > 100 {
			d = d[:100] + "…"
		}
	}
	where := c.scope
	if c.namespace != "" {
		where += ":" + c.namespace
	}
	if c.skill != nil {
		where += ", skill"
	}
	return strings.TrimSpace(d + " (" + where + ")")
}

// commandDirs are the folders commands are read from, project first.
func (s *Session) commandDirs(sub string) []struct{ dir, scope string } {
	dirs := []struct{ dir, scope string }{{filepath.Join(s.cwd, ".claude", sub), "project"}}
	if home := s.svc.cfg.Home; home != "" && home != os.DevNull {
		if user := filepath.Join(home, ".claude", sub); user != dirs[0].dir {
			dirs = append(dirs, struct{ dir, scope string }{user, "user"})
		}
	}
	return dirs
}

// readExtensionFile reads a command or skill file: a project's as
// instruction files are read (no links out of the folder, Read rules
// honoured), the user's own as they are.
func (s *Session) readExtensionFile(dir, scope, path string) (string, bool) {
	if scope == "project" && !s.projectFileOK(dir, path) {
		return "", false
	}
	b, err := readInstructionFile(path, s.tools.env.Roots)
	if err != nil {
		s.svc.cfg.Logf("session %s: %v", s.ID, err)
		return "", false
	}
	return string(b), true
}

// userCommands returns the custom commands, project ones first, then the
// user's, then the skills; a name already taken is skipped.
func (s *Session) userCommands() []userCommand {
	var out []userCommand
	taken := map[string]bool{}
	for _, sc := range slashCommands {
		taken[sc.Name] = true
	}
	for _, d := range s.commandDirs("commands") {
		n := 0
		_ = filepath.WalkDir(d.dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(e.Name(), ".md") || n >= maxCommandFiles {
				return nil
			}
			n++
			text, ok := s.readExtensionFile(d.dir, d.scope, path)
			if !ok {
				return nil
			}
			rel, _ := filepath.Rel(d.dir, path)
			c := userCommand{name: strings.TrimSuffix(filepath.Base(rel), ".md"), scope: d.scope, path: path}
			if ns := filepath.Dir(rel); ns != "." {
				c.namespace = strings.ReplaceAll(filepath.ToSlash(ns), "/", ":")
			}
			c.meta, c.body = splitMeta(text)
			if taken[c.qualified()] {
				return nil
			}
			taken[c.qualified()] = true
			out = append(out, c)
			return nil
		})
	}
	for _, sk := range s.skills() {
		if !taken[sk.name] {
			taken[sk.name] = true
			out = append(out, userCommand{name: sk.name, scope: sk.scope, path: sk.path, meta: sk.meta, body: sk.body, skill: &sk})
		}
	}
	return out
}

// commandList is every command the editor may offer: the session's own,
// then the custom ones. A custom command is announced by its plain name
// unless two share it, then by its namespaced name.
func (s *Session) commandList() []schema.Command {
	list := slices.Clone(slashCommands)
	cmds := s.userCommands()
	count := map[string]int{}
	for _, c := range cmds {
		count[c.name]++
	}
	for _, c := range cmds {
		name := c.name
		if count[name] > 1 || slices.ContainsFunc(slashCommands, func(b schema.Command) bool { return b.Name == name }) {
			name = c.qualified()
		}
		cmd := schema.Command{Name: name, Description: c.description()}
		if hint := c.meta.get("argument-hint"); hint != "" {
			cmd.Input = &schema.CommandInput{Hint: hint}
		} else if strings.Contains(c.body, "$ARGUMENTS") || argRef().MatchString(c.body) {
			cmd.Input = &schema.CommandInput{Hint: "arguments"}
		}
		list = append(list, cmd)
	}
	return append(list, s.mcpPromptCommands()...)
}

// announceCommandList sends available_commands_update.
func (s *Session) announceCommandList(ctx context.Context) {
	s.update(ctx, schema.Update{SessionUpdate: schema.UpdateAvailableCommands, AvailableCommands: s.commandList()})
}

// findCommand returns the custom command typed as name (plain or
// namespaced).
func (s *Session) findCommand(name string) (*userCommand, bool) {
	cmds := s.userCommands()
	for i := range cmds {
		if cmds[i].qualified() == name {
			return &cmds[i], true
		}
	}
	for i := range cmds {
		if cmds[i].name == name {
			return &cmds[i], true
		}
	}
	return nil, false
}

var (
	// Compiled on first use, not at start-up (issue 21).
	argRef     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$([1-9][0-9]?)`) })
	bashSpan   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("!`([^`\n]+)`") })
	fileRef    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[\s(])@([^\s)]+)`) })
	maxRefSize = 256 << 10
)

// splitArgs splits a command's arguments as a shell would split words,
// honouring single and double quotes.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// substituteArgs puts the arguments into a command's body: $ARGUMENTS is
// all of them, $1, $2... each one. A body that uses neither gets them
// appended, as Claude Code does.
func substituteArgs(body, args string) string {
	words := splitArgs(args)
	used := strings.Contains(body, "$ARGUMENTS") || argRef().MatchString(body)
	body = strings.ReplaceAll(body, "$ARGUMENTS", args)
	body = argRef().ReplaceAllStringFunc(body, func(m string) string {
		n, _ := strconv.Atoi(m[1:])
		if n <= len(words) {
			return words[n-1]
		}
		return ""
	})
	if !used && strings.TrimSpace(args) != "" {
		body = strings.TrimRight(body, "\n") + "\n\nARGUMENTS: " + args
	}
	return body
}

// expandCommand turns a prompt that invokes a custom command into the
// message the model gets. It reports false when the prompt is not one.
// The command's !`command` spans run first, each as a Bash call through
// the permission gate (the editor sees and may refuse it) with its output
// put in its place; its @file references are read through the editor's
// buffers; its model and allowed-tools apply to this turn.
func (s *Session) expandCommand(ctx context.Context, prompt []schema.ContentBlock) (providers.Message, bool, error) {
	text := strings.TrimSpace(promptText(prompt))
	if !strings.HasPrefix(text, "/") {
		return providers.Message{}, false, nil
	}
	name, args, _ := strings.Cut(text[1:], " ")
	if name == "" {
		return providers.Message{}, false, nil
	}
	name, args = strings.TrimSpace(name), strings.TrimSpace(args)
	if before, after, ok := strings.Cut(name, "\n"); ok {
		name, args = before, strings.TrimSpace(after+" "+args)
	}
	c, ok := s.findCommand(name)
	if !ok {
		return s.mcpPromptCommand(ctx, name, args, prompt)
	}
	body := substituteArgs(c.body, args)
	if c.skill != nil {
		s.activateSkill(ctx, c.skill)
	}
	body = bashSpan().ReplaceAllStringFunc(body, func(m string) string {
		return s.commandBash(ctx, c, bashSpan().FindStringSubmatch(m)[1])
	})
	if ctx.Err() != nil {
		return providers.Message{}, true, ctx.Err()
	}
	body = s.expandFileRefs(body)
	if model := c.meta.get("model"); model != "" {
		s.turn.setModel(model)
	}
	if allowed := c.meta.list("allowed-tools"); len(allowed) > 0 {
		s.restrictTools("/"+c.qualified(), allowed)
	}
	head := fmt.Sprintf("<command-name>/%s</command-name>\n", c.qualified())
	if args != "" {
		head += fmt.Sprintf("<command-args>%s</command-args>\n", args)
	}
	msg, err := withAttachments(providers.TextBlock(head+"\n"+body), prompt)
	return msg, true, err
}

// withAttachments is the user message of a command: its text, then what
// else the prompt held (attached files, images).
func withAttachments(text providers.Block, prompt []schema.ContentBlock) (providers.Message, error) {
	msg := providers.Message{Role: providers.RoleUser, Content: []providers.Block{text}}
	if others := slices.DeleteFunc(slices.Clone(prompt), func(b schema.ContentBlock) bool { return b.Type == schema.BlockText }); len(others) > 0 {
		rest, err := userMessage(others)
		if err != nil {
			return msg, err
		}
		msg.Content = append(msg.Content, rest.Content...)
	}
	return msg, nil
}

// commandBash runs one !`command` span of a custom command as a Bash call
// through the gate and returns what replaces it: the output, or why it
// did not run.
func (s *Session) commandBash(ctx context.Context, c *userCommand, command string) string {
	if ctx.Err() != nil {
		return "(not run: cancelled)"
	}
	input, _ := json.Marshal(map[string]string{"command": command, "description": "Run for /" + c.qualified()})
	id := "cmd_" + uuid.NewString()
	s.update(ctx, schema.Update{SessionUpdate: schema.UpdateToolCall, ToolCall: &schema.ToolCall{
		ToolCallID: id, Title: "Bash", Kind: s.kindOf("Bash"), Status: schema.StatusPending,
	}})
	res := s.runTool(ctx, providers.Block{Type: providers.BlockToolUse, ID: id, Name: "Bash", Input: input})
	var out strings.Builder
	for _, b := range res.Content {
		out.WriteString(b.Text)
	}
	if res.IsError {
		return fmt.Sprintf("(the command `%s` did not run or failed: %s)", command, strings.TrimSpace(out.String()))
	}
	return strings.TrimRight(out.String(), "\n")
}

// expandFileRefs appends the content of each @file a command names: a
// file in the workspace, read through the editor's buffers, that Read
// could open without asking.
func (s *Session) expandFileRefs(body string) string {
	var files []string
	seen := map[string]bool{}
	for _, m := range fileRef().FindAllStringSubmatch(body, -1) {
		ref := strings.TrimRight(m[2], ".,;:")
		path, err := s.tools.env.Resolve(ref)
		if err != nil || seen[path] {
			continue
		}
		seen[path] = true
		if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
			if !s.tools.env.Files.IsOpen(path) {
				continue
			}
		}
		d := s.pipe.gate.policy.Decide(permission.Call{Tool: "Read", Paths: []string{path}, ReadOnly: true, Kind: schema.KindRead, Cwd: s.cwd})
		if d.Verdict != permission.Allow {
			files = append(files, fmt.Sprintf("<file path=%q>(not included: the permission rules do not let it be read without asking)</file>", ref))
			continue
		}
		content, err := s.tools.env.Files.ReadFile(path)
		if err != nil {
			continue
		}
		if len(content) > maxRefSize {
			content = content[:maxRefSize]
		}
		s.tools.env.Reads.Saw(path, content)
		files = append(files, fmt.Sprintf("<file path=%q>\n%s\n</file>", ref, strings.TrimRight(string(content), "\n")))
	}
	if len(files) == 0 {
		return body
	}
	return strings.TrimRight(body, "\n") + "\n\n" + strings.Join(files, "\n\n")
}

// restrictTools narrows the tools of the running turn to those named by
// an allowed-tools list (a command's or an active skill's). Entries are
// permission rules ("Bash(git status:*)"); only their tool names count:
// the list never allows a call the rules would ask about, whoever wrote
// it, so a project's command cannot widen what an untrusted repository
// may do. A second list narrows further.
func (s *Session) restrictTools(source string, allowed []string) {
	set := map[string]bool{}
	for _, a := range allowed {
		if n := toolNameOf(a); n != "" {
			set[n] = true
		}
	}
	s.turn.restrict(source, set)
}

// requestModel is the model the next call asks: the one a command chose
// for the turn, else the session's.
func (s *Session) requestModel() string {
	if m := s.turn.chosenModel(); m != "" {
		return m
	}
	return s.Model()
}
