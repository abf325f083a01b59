package tools

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/google/jsonschema-go/jsonschema"
)

var (
	//go:embed bash.md
	bashDescription string
	//go:embed bashoutput.md
	bashOutputDescription string
	//go:embed killbash.md
	killBashDescription string
)

// Bash timeouts.
const (
	BashDefaultTimeout = 2 * time.Minute
	BashMaxTimeout     = 10 * time.Minute
)

// bashTool is the Bash tool.
type bashTool struct{ env *Env }

type bashInput struct {
	Command         string `json:"command" jsonschema:"The command to execute"`
	Timeout         *int   `json:"timeout,omitempty" jsonschema:"Optional timeout in milliseconds (max 600000)"`
	Description     string `json:"description,omitempty" jsonschema:"Clear, concise description of what this command does in 5-10 words, in active voice."`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema:"Set to true to run this command in the background. Use BashOutput to read the output later."`
	// DangerouslyDisableSandbox asks the user to approve a command that
	// would otherwise run, unasked, in the confining sandbox (the engine
	// reads it; see DisablesSandbox).
	DangerouslyDisableSandbox bool `json:"dangerouslyDisableSandbox,omitempty" jsonschema:"Set to true to ask the user to run the command outside any sandbox (for the network, files outside the workspace, writing outside it), and say why in description; the user is asked whether to."`
}

var bashSchema = InputSchema[bashInput](func(s *jsonschema.Schema) {
	t := Property(s, "timeout")
	t.Minimum, t.Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(float64(BashMaxTimeout.Milliseconds()))
})

// DisablesSandbox reports whether a Bash call's input asks to run outside
// the confining sandbox, which takes the user's approval.
func DisablesSandbox(input json.RawMessage) bool {
	var in struct {
		Disable bool `json:"dangerouslyDisableSandbox"`
	}
	return json.Unmarshal(input, &in) == nil && in.Disable
}

func (t *bashTool) Spec() Spec {
	return Spec{
		Name:        "Bash",
		Description: bashDescription,
		InputSchema: bashSchema(),
		Kind:        schema.KindExecute,
		Access:      AccessExecute,
	}
}

func (t *bashTool) parse(input json.RawMessage) (bashInput, time.Duration, error) {
	var in bashInput
	if err := DecodeInput(input, &in); err != nil {
		return in, 0, err
	}
	if strings.TrimSpace(in.Command) == "" {
		return in, 0, fmt.Errorf("command: must not be empty")
	}
	timeout := BashDefaultTimeout
	if in.Timeout != nil {
		ms := *in.Timeout
		switch {
		case ms < 0:
			return in, 0, fmt.Errorf("timeout: must not be negative, got %d", ms)
		case time.Duration(ms)*time.Millisecond > BashMaxTimeout:
			return in, 0, fmt.Errorf("timeout: must be at most %d ms (10 minutes), got %d", BashMaxTimeout.Milliseconds(), ms)
		case ms > 0:
			timeout = time.Duration(ms) * time.Millisecond
		}
	}
	return in, timeout, nil
}

func (t *bashTool) Preview(_ context.Context, input json.RawMessage) (*Preview, error) {
	in, _, err := t.parse(input)
	if err != nil {
		return nil, err
	}
	return &Preview{Title: bashTitle(in), Command: in.Command, Paths: []string{t.env.Cwd}}, nil
}

// bashTitle names a command call in the user's words: "Run `go test
// ./...`", the command itself: its first line with the characters a
// reader could not see written out (schema.Visible), cut to bashTitleMax
// characters with "…", and "(+3 lines)" after it when the command has
// more lines. The model's description of the call is shown beside it,
// not instead of it; the whole command is in the permission question's
// content.
func bashTitle(in bashInput) string {
	cmd := strings.TrimSpace(in.Command)
	first, rest, more := strings.Cut(cmd, "\n")
	first, _ = schema.Visible(strings.TrimSpace(first))
	cut := more
	if r := []rune(first); len(r) > bashTitleMax {
		first, cut = strings.TrimSpace(string(r[:bashTitleMax-1])), true
	}
	if cut {
		first += " …"
	}
	title := "Run " + schema.InlineCode(first)
	switch n := strings.Count(rest, "\n") + 1; {
	case !more:
	case n == 1:
		title += " (+1 line)"
	default:
		title += fmt.Sprintf(" (+%d lines)", n)
	}
	return title
}

// bashTitleMax bounds the command shown in a Bash call's title.
const bashTitleMax = 80

// argv is the command line that runs command, through the sandbox
// wrapper when the session has one, and what to call once it has ended.
func (t *bashTool) argv(ctx context.Context, command string) ([]string, func(), error) {
	sh := "/bin/bash"
	if _, err := os.Stat(sh); err != nil {
		sh = "/bin/sh"
	}
	argv := []string{sh, "-c", command}
	release := func() {}
	if t.env.WrapCommand != nil {
		wrapped, rel, err := t.env.WrapCommand(ctx, argv)
		if err != nil {
			return nil, nil, fmt.Errorf("the sandbox refused the command: %v", err)
		}
		argv = wrapped
		if rel != nil {
			release = rel
		}
	}
	return argv, release, nil
}

func (t *bashTool) Run(ctx context.Context, input json.RawMessage) *Result {
	in, timeout, err := t.parse(input)
	if err != nil {
		return inputError(err)
	}
	if err := ctx.Err(); err != nil {
		return Errorf("the command was cancelled before it started")
	}
	if in.RunInBackground {
		// Refuse before starting anything.
		if err := t.env.shells.canAdd(t.env.maxShells()); err != nil {
			return Errorf("%v", err)
		}
	}
	argv, release, err := t.argv(ctx, in.Command)
	if err != nil {
		return Errorf("%v", err)
	}
	if t.env.Terminal != nil && !in.RunInBackground {
		defer release()
		return t.runInTerminal(ctx, in, argv, timeout)
	}
	s, err := startShell(argv, t.env.Cwd, release)
	if err != nil {
		return Errorf("%v", err)
	}
	if in.RunInBackground {
		s.command = in.Command
		id, err := t.env.shells.add(s, t.env.maxShells(), t.env.shellMaxAge())
		if err != nil {
			s.kill()
			return Errorf("%v", err)
		}
		return &Result{
			Content: fmt.Sprintf("Command running in background with ID: %s. Use BashOutput with bash_id %q to read its output and KillBash to stop it.", id, id),
			Title:   bashTitle(in),
		}
	}
	timedOut, err := s.wait(ctx, timeout)
	state, code, _ := s.status()
	res := bashResult(in, bashEnd{
		output: s.out.String(), cancelled: err != nil, timedOut: timedOut,
		timeout: timeout, code: code, state: state,
	})
	res.Display = []schema.ToolCallContent{schema.TextContent(schema.ConsoleBlock(in.Command, res.Content))}
	return res
}

// bashEnd is how a foreground command ended.
type bashEnd struct {
	output    string
	truncated bool // the start of output was cut
	cancelled bool
	timedOut  bool
	timeout   time.Duration
	code      int    // exit code; negative when a signal ended it
	state     string // how it ended when code is negative
}

// bashResult is the tool result for a foreground command: its output and
// a note on how it ended unless it succeeded.
func bashResult(in bashInput, e bashEnd) *Result {
	var b strings.Builder
	if e.truncated {
		fmt.Fprintf(&b, "[output truncated: only its last %d bytes were kept]\n", len(e.output))
	}
	b.WriteString(e.output)
	if e.output != "" && !strings.HasSuffix(e.output, "\n") {
		b.WriteByte('\n')
	}
	note := e.note()
	switch {
	case note != "":
		b.WriteString(note + "\n")
	case e.output == "":
		b.WriteString("(no output)\n")
	}
	return &Result{Title: bashTitle(in), Content: b.String(), IsError: note != ""}
}

// note says why a command failed, or is empty when it succeeded.
func (e bashEnd) note() string {
	switch {
	case e.cancelled:
		return "[the command was cancelled; it and every process it started were killed]"
	case e.timedOut:
		return fmt.Sprintf("[the command timed out after %v; it and every process it started were killed. Use a longer timeout (at most 600000 ms), or run_in_background for long-running commands]", e.timeout)
	case e.code > 0:
		return fmt.Sprintf("[exit code %d]", e.code)
	case e.code < 0:
		return fmt.Sprintf("[%s]", e.state)
	}
	return ""
}

// Close kills the session's background shells (see Env.Close).
func (t *bashTool) Close() { t.env.Close() }

// bashOutputTool is the BashOutput tool.
type bashOutputTool struct{ env *Env }

type bashOutputInput struct {
	BashID string `json:"bash_id" jsonschema:"The ID of the background shell to retrieve output from"`
	Filter string `json:"filter,omitempty" jsonschema:"Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read."`
}

var bashOutputSchema = InputSchema[bashOutputInput](nil)

func (t *bashOutputTool) Spec() Spec {
	return Spec{
		Name:        "BashOutput",
		Description: bashOutputDescription,
		InputSchema: bashOutputSchema(),
		Kind:        schema.KindExecute,
		ReadOnly:    true,
		Access:      AccessNone,
	}
}

func (t *bashOutputTool) Run(_ context.Context, input json.RawMessage) *Result {
	var in bashOutputInput
	if err := DecodeInput(input, &in); err != nil {
		return inputError(err)
	}
	var filter *regexp.Regexp
	if in.Filter != "" {
		re, err := regexp.Compile(in.Filter)
		if err != nil {
			return Errorf("invalid input: filter: invalid regex %q: %v", in.Filter, regexErr(err))
		}
		filter = re
	}
	s, ok := t.env.shells.get(in.BashID)
	if !ok {
		return unknownShell(t.env, "bash_id", in.BashID)
	}
	state, code, running := s.status()
	s.mu.Lock()
	out, next := s.out.Since(s.read)
	s.read = next
	s.mu.Unlock()
	if filter != nil {
		var kept []string
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(nil, BashOutputLimit*2)
		for sc.Scan() {
			if filter.MatchString(sc.Text()) {
				kept = append(kept, sc.Text())
			}
		}
		out = strings.Join(kept, "\n")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<status>%s</status>\n", state)
	if !running {
		fmt.Fprintf(&b, "<exit_code>%d</exit_code>\n", code)
	}
	fmt.Fprintf(&b, "<output>\n%s", out)
	if out != "" && !strings.HasSuffix(out, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("</output>\n")
	if running {
		fmt.Fprintf(&b, "(%s has run for %s: %s)\n", s.id, time.Since(s.started).Round(time.Second), s.command)
	}
	return &Result{Content: b.String(), Title: "Output of " + s.id}
}

func unknownShell(env *Env, field, id string) *Result {
	ids := env.shells.ids()
	if len(ids) == 0 {
		return Errorf("%s: no background shell %q: none has been started in this session", field, id)
	}
	return Errorf("%s: no background shell %q; the shells of this session are: %s", field, id, strings.Join(ids, ", "))
}

// killBashTool is the KillBash tool.
type killBashTool struct{ env *Env }

type killBashInput struct {
	ShellID string `json:"shell_id" jsonschema:"The ID of the background shell to kill"`
}

var killBashSchema = InputSchema[killBashInput](nil)

func (t *killBashTool) Spec() Spec {
	return Spec{
		Name:        "KillBash",
		Description: killBashDescription,
		InputSchema: killBashSchema(),
		Kind:        schema.KindExecute,
		Access:      AccessExecute,
	}
}

func (t *killBashTool) Run(_ context.Context, input json.RawMessage) *Result {
	var in killBashInput
	if err := DecodeInput(input, &in); err != nil {
		return inputError(err)
	}
	s, ok := t.env.shells.get(in.ShellID)
	if !ok {
		return unknownShell(t.env, "shell_id", in.ShellID)
	}
	if state, code, running := s.status(); !running {
		return Text(fmt.Sprintf("Shell %s had already ended (%s, exit code %d): %s", s.id, state, code, s.command))
	}
	s.kill()
	return &Result{Content: fmt.Sprintf("Successfully killed shell: %s (%s)", s.id, s.command), Title: "Kill " + s.id}
}
