package engine

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sync"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/tools"
)

// callPlan is how a tool call runs: whether (verdict), held how
// (confine) and why (reason). Its zero value is a command run in the
// read-only sandbox: a call whose plan nobody made runs read-only, and
// running unconfined is always chosen by name (permission.NotConfined).
type callPlan struct {
	verdict permission.Verdict
	confine permission.Confinement
	reason  string
	// decision is the policy's, for the question: the rule "allow
	// always" would add.
	decision permission.Decision
}

// gitWord finds git run by name in a command line (the confined sandbox,
// not this, is what keeps other spellings from the objects).
var gitWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(^|[\\s;&|(`$'\"/])git($|[\\s;&|)`'\"-])") })

// plan decides how call pc (its input as given) runs: the one place
// where the policy's decision, the sandbox this machine can give and the
// testing switches meet. The policy says whether the call may run
// without a question and, for a command, how it must be held; a command
// the sandbox cannot hold as asked is asked about instead (or refused,
// in the modes that never ask).
func (s *Session) plan(pc permission.Call, input json.RawMessage) callPlan {
	d := s.pipe.gate.policy.Decide(pc)
	if s.pipe.classifierOff && pc.Tool == "Bash" && d.Verdict == permission.Ask && d.Confine == permission.NotConfined {
		// Testing the sandbox alone: every command counts as read-only
		// and runs confined (deny rules still deny).
		d = permission.Decision{Verdict: permission.Allow, Reason: "classifier off: confined", Confine: permission.ConfineReadOnly}
	}
	if d.Verdict == permission.Allow && d.Confine == permission.ConfineRule && !s.pipe.confiner.Available() {
		// No bubblewrap: a rule-allowed command runs as the settings say,
		// as it did before the rule sandbox (documented in sandbox/doc.go).
		d.Confine = permission.NotConfined
	}
	if d.Verdict == permission.Allow && d.Confine != permission.NotConfined {
		why, linked := "", ""
		if d.Confine != permission.ConfineReadOnly && s.pipe.confiner.Available() {
			linked = sandbox.LinkedProtectedPath(s.tools.env.Roots)
		}
		switch {
		case tools.DisablesSandbox(input):
			why = "the command asks to run outside the sandbox (dangerouslyDisableSandbox)"
		case linked != "":
			// The writable sandboxes cannot keep a protected path that is
			// a symbolic link read-only, and refuse to run: ask instead.
			why = fmt.Sprintf("the sandbox cannot keep %s read-only (it is a symbolic link, which a command could replace)", linked)
		case gitWord().MatchString(pc.Command) && s.pipe.confiner.HidesGit(s.pipe.gate.policy.DenyReadGlobs()):
			// The confined sandbox hides this repository's objects (they
			// hold a denied file): git would fail there.
			why = "a repository here holds a file that the Read deny rules cover, so git commands need approval"
		}
		if why != "" {
			switch s.pipe.gate.policy.Mode() {
			case permission.DontAsk:
				return callPlan{verdict: permission.Deny, reason: fmt.Sprintf("Permission to use Bash was denied: %s, and the session is in dontAsk mode.", why), decision: d}
			case permission.Plan:
				return callPlan{verdict: permission.Deny, reason: fmt.Sprintf("Refused in plan mode, which never asks: %s. Plan without this command.", why), decision: d}
			}
			d = permission.Decision{Verdict: permission.Ask, Reason: why, Confine: permission.NotConfined}
		}
	}
	return callPlan{verdict: d.Verdict, confine: d.Confine, reason: d.Reason, decision: d}
}
