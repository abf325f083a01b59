package engine

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// optAllowOutside is the option that runs an approved shell command
// outside any sandbox, with the user's rights; "Allow" runs it in the
// write sandbox.
const optAllowOutside = "allow_outside"

// question is the permission request for call: its options (see
// permissionOptions; for a shell command that a sandbox would hold, also
// "Run outside the sandbox") and, for a shell command, the whole command
// in the tool call's content, since most clients show a question's
// title and content and nothing else (see commandContent).
func (s *Session) question(call *schema.ToolCall, input json.RawMessage, command, alwaysRule, rejectKey string) *schema.RequestPermissionParams {
	q := &schema.RequestPermissionParams{SessionID: s.ID, ToolCall: *call, Options: s.permissionOptions(alwaysRule, rejectKey)}
	if command == "" {
		return q
	}
	sandboxed := s.pipe.confiner.Available()
	if sandboxed {
		// After "Allow" and "Always allow", as an alternative to them:
		// clients that pick the first option of a kind pick "Allow".
		i := 1
		if alwaysRule != "" {
			i = 2
		}
		q.Options = slices.Insert(q.Options, i, schema.PermissionOption{OptionID: optAllowOutside, Name: "Run outside the sandbox", Kind: schema.AllowOnce})
	}
	w := where{
		sandboxed: sandboxed,
		network:   s.pipe.sandbox.Load().AllowsAllHosts(),
		hosts:     s.pipe.sandbox.Load().Hosts().Allowed,
		git:       gitWord().MatchString(command),
	}
	if sandboxed {
		w.linked = sandbox.LinkedProtectedPath(s.tools.env.Roots)
	}
	if tools.DisablesSandbox(input) {
		var in struct {
			Description string `json:"description"`
		}
		json.Unmarshal(input, &in)
		w.asked, w.reason = true, strings.TrimSpace(in.Description)
	}
	q.ToolCall.Content = append(append([]schema.ToolCallContent(nil), call.Content...), commandContent(command, w)...)
	return q
}

// where says where an approved command will run, for its question.
type where struct {
	sandboxed bool     // bubblewrap works: "Allow" runs it in the write sandbox
	network   bool     // the settings' sandbox allows every host
	hosts     []string // else the hosts it grants (sandbox.network.allowedDomains)
	linked    string   // a protected path that is a symbolic link: the write sandbox refuses to run
	git       bool     // the command runs git by name
	asked     bool     // the model asked to run it outside the sandbox
	reason    string   // the model's description of the call
}

// commandContent is what a shell command's question shows: the whole
// command, every line, as a code block with the characters a reader
// could not see written out (schema.Visible), then, in a second block,
// where it will run when allowed and when run outside the sandbox, and
// what the model said when it asked to leave the sandbox.
func commandContent(command string, w where) []schema.ToolCallContent {
	shown, replaced := schema.Visible(strings.TrimRight(command, "\n"))
	var words []string
	if replaced {
		words = append(words, "Characters that would not show are written out: `\\x1b` for a control character, `\\u202e` for an invisible or direction-changing one, `⟨N spaces⟩` for a long run of spaces.")
	}
	outside := "with your rights: it can change any of your files and reach the network"
	if w.git {
		outside += ", and git runs with this repository's git configuration (its hooks, filters and aliases)"
	}
	switch {
	case !w.sandboxed:
		words = append(words, "It will run outside any sandbox (bubblewrap cannot run here), "+outside+".")
	default:
		network := "no network"
		switch {
		case w.network:
			network = "the network (the settings' sandbox allows every host)"
		case slices.Contains(w.hosts, "*"):
			network = "the network less the settings' sandbox.network.deniedDomains"
		case len(w.hosts) > 0:
			network = "network access only to " + strings.Join(w.hosts, ", ") + " (the settings' sandbox.network.allowedDomains)"
		}
		allow := "**Allow** runs it in the write sandbox: the workspace is writable, everything else read-only, with " + network + " and your credentials hidden."
		if w.linked != "" {
			allow = "**Allow** cannot run it: the write sandbox cannot keep " + w.linked + " read-only (it is a symbolic link, which a command could replace), so it refuses to run."
		}
		words = append(words, allow, "**Run outside the sandbox** runs it "+outside+".")
	}
	if w.asked {
		reason := "and gave no reason."
		if w.reason != "" {
			r, _ := schema.Visible(w.reason)
			reason = "because: " + r
		}
		words = append(words, "The model asks to run it outside the sandbox, "+reason)
	}
	return []schema.ToolCallContent{
		schema.TextContent(schema.CodeBlock("sh", shown)),
		schema.TextContent(strings.Join(words, "\n\n")),
	}
}

// approvedConfinement is how a call the user approved with "Allow" or
// "Always allow" runs: a shell command in the write sandbox (the rule
// sandbox: the workspace writable, the rest read-only, the network as the
// settings' sandbox allows) when bubblewrap works, so that what the user
// read is all it can reach, and a path swapped for a link while the
// question waited cannot take it outside; outside any sandbox otherwise.
func (s *Session) approvedConfinement(command string) permission.Confinement {
	if command != "" && s.pipe.confiner.Available() {
		return permission.ConfineRule
	}
	return permission.NotConfined
}

// offered reports whether options hold the option id.
func offered(options []schema.PermissionOption, id string) bool {
	return slices.ContainsFunc(options, func(o schema.PermissionOption) bool { return o.OptionID == id })
}
