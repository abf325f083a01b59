package engine

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/agent-lsp/agent-lsp/netproxy"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/settings"
)

// setSandbox prepares the sandbox shell commands run in, from the
// settings. A sandbox that cannot run is reported once per process.
func (s *Session) setSandbox(st *settings.Settings) {
	sb, warning := sandbox.New(st.Sandbox, s.tools.env.Roots)
	s.pipe.sandbox.Store(sb)
	if warning != "" {
		s.svc.warnOnce("sandbox: "+warning, func(msg string) {
			s.notice(Status{Kind: StatusWarning, Message: msg})
		})
	}
}

// setConfiner prepares the confinement of the commands that run without
// a question, whatever the settings say, and tells the policy whether it
// can rely on it. That bubblewrap is missing is reported once per
// process.
func (s *Session) setConfiner(policy *permission.Policy) {
	c, warning := sandbox.NewConfiner(s.tools.env.Roots)
	s.pipe.confiner = c
	policy.SetUnconfined(!c.Available())
	// AGENT_LSP_CLASSIFIER=off is for testing the sandbox alone (issue
	// 25): every Bash command that would ask runs confined instead. It
	// needs bubblewrap; without it the switch does nothing.
	s.pipe.classifierOff = os.Getenv("AGENT_LSP_CLASSIFIER") == "off" && c.Available()
	if s.pipe.classifierOff {
		s.svc.warnOnce("sandbox: AGENT_LSP_CLASSIFIER=off: every shell command runs confined without a question (a testing switch)", func(msg string) {
			s.notice(Status{Kind: StatusWarning, Message: msg})
		})
	}
	if warning != "" {
		s.svc.warnOnce("sandbox: "+warning, func(msg string) {
			s.notice(Status{Kind: StatusWarning, Message: msg})
		})
	}
}

// confinementKey is the context key of a tool call's confinement.
type confinementKey struct{}

// withConfinement records how tightly the tool call that runs with ctx
// must be confined (see permission.Confinement), as its plan says.
func withConfinement(ctx context.Context, c permission.Confinement) context.Context {
	return context.WithValue(ctx, confinementKey{}, c)
}

// confinementOf returns the confinement withConfinement recorded in ctx;
// a context without one (a call nobody planned) gets the zero value, the
// read-only sandbox.
func confinementOf(ctx context.Context) permission.Confinement {
	c, _ := ctx.Value(confinementKey{}).(permission.Confinement)
	return c
}

// wrapCommand is the Bash tool's runner (tools.Env.WrapCommand): it
// runs argv held as the plan of the tool call that runs with ctx says.
func (s *Session) wrapCommand(ctx context.Context, argv []string) ([]string, func(), error) {
	return s.wrapConfined(ctx, confinementOf(ctx), s.withHookEnv(argv))
}

// wrapConfined runs a shell command's argv the way its tool call was
// allowed: confined (read-only, or with the workspace writable in
// acceptEdits) when only the classifier allowed it; in the rule sandbox
// when one of the user's allow rules did or the user approved it; in the
// configured sandbox when the user chose to run it outside the sandbox
// or the mode is bypassPermissions. A command outside any sandbox still runs in
// its own PID namespace when bubblewrap works, so that cancel kills all
// it started.
func (s *Session) wrapConfined(ctx context.Context, level permission.Confinement, argv []string) ([]string, func(), error) {
	if level == permission.ConfineReadOnly {
		return s.pipe.confiner.Wrap(argv, sandbox.Options{Deny: s.pipe.gate.policy.DenyReadGlobs(), Filesystem: s.pipe.sandbox.Load().Filesystem()})
	}
	// The command may change the workspace: what the confiner found
	// there (repositories, denied files) must be looked for again, now
	// and once the command has ended (a background one, later).
	s.pipe.confiner.Invalidate()
	var (
		wrapped []string
		release func()
		err     error
	)
	endProxy := func() {}
	switch sb := s.pipe.sandbox.Load(); {
	case level == permission.ConfineRule && s.pipe.confiner.Available():
		// A rule allowed the command: the rule sandbox, whatever the
		// settings' sandbox says (its network and extra writable folders
		// are followed). Without bubblewrap it runs as before: in the
		// configured sandbox, or unconfined.
		var proxy *sandbox.Proxy
		proxy, endProxy = s.proxyFor(ctx, sb)
		wrapped, release, err = s.pipe.confiner.Wrap(argv, sandbox.Options{Rule: true, Network: sb.AllowsAllHosts(), Proxy: proxy, Filesystem: sb.Filesystem(), Deny: s.pipe.gate.policy.DenyReadGlobs(), ReadOnly: s.pipe.gate.policy.DenyEditGlobs()})
	case level == permission.ConfineWorkspace:
		wrapped, release, err = s.pipe.confiner.Wrap(argv, sandbox.Options{Writable: true, Deny: s.pipe.gate.policy.DenyReadGlobs(), ReadOnly: s.pipe.gate.policy.DenyEditGlobs(), Filesystem: sb.Filesystem()})
	case sb.Active():
		var proxy *sandbox.Proxy
		proxy, endProxy = s.proxyFor(ctx, sb)
		wrapped, release, err = sb.WrapVia(argv, proxy)
	default:
		wrapped, release, err = sb.Wrap(argv)
		if err == nil {
			wrapped = s.pipe.confiner.Contain(wrapped)
		}
	}
	if err != nil {
		endProxy()
		return nil, nil, err
	}
	return wrapped, func() {
		release()
		endProxy()
		s.pipe.confiner.Invalidate()
	}, nil
}

// proxyFor returns a sandboxed command's way out to the hosts the
// settings grant (sandbox.network.allowedDomains less deniedDomains),
// through the process's network proxy, and the function that ends it
// once the command has ended; nil when the settings grant no host, or
// every host (the sandbox then has the host's network). A host neither
// granted nor denied is asked about while the command waits (askHost).
// The ticket is kept under the tool call's id for refusedNote. When the
// proxy cannot start, the command runs without network.
func (s *Session) proxyFor(ctx context.Context, sb *sandbox.Sandbox) (*sandbox.Proxy, func()) {
	if sb.AllowsAllHosts() || !sb.Hosts().Grants() {
		return nil, func() {}
	}
	srv, err := netproxy.Shared()
	if err != nil {
		s.svc.warnOnce("sandbox: the network proxy cannot start, so sandboxed commands run without network: "+err.Error(), func(msg string) {
			s.notice(Status{Kind: StatusWarning, Message: msg})
		})
		return nil, func() {}
	}
	t := srv.Register(sb.Hosts(), s.askHost(ctx))
	if id := toolCallID(ctx); id != "" {
		s.pipe.tickets.Store(id, t)
	}
	return &sandbox.Proxy{Addr: t.Addr(), Token: t.Token()}, t.Close
}

// refusedNote is what a Bash result adds when the proxy refused hosts
// to the command of tool call id: the hosts, and the setting that
// grants them. It forgets the call's ticket.
func (s *Session) refusedNote(id string) string {
	v, ok := s.pipe.tickets.LoadAndDelete(id)
	if !ok {
		return ""
	}
	hosts := v.(*netproxy.Ticket).Refused()
	if len(hosts) == 0 {
		return ""
	}
	return fmt.Sprintf("\n(The sandbox refused the connection to %s: only the hosts in the settings' %s reach the network from the sandbox (it was not granted, or the user refused it when asked). If the command needs it, the user can add it there; do not try to go around the proxy.)", strings.Join(hosts, ", "), netproxy.Setting)
}

// sandboxNote is what a failed Bash result adds so the model knows the
// command ran held, and why it may have failed: no network, a folder the
// sandbox did not grant (named, with the setting that grants it), files
// outside the workspace read-only. Empty for a command that ran as the
// user's settings say and met no missing grant.
func (s *Session) sandboxNote(level permission.Confinement, output string) string {
	sb := s.pipe.sandbox.Load()
	grant := ""
	if (level != permission.NotConfined && s.pipe.confiner.Available()) || sb.Active() {
		grant = s.pipe.confiner.GrantNote(output, sb.Filesystem())
	}
	switch {
	case level != permission.ConfineRule || !s.pipe.confiner.Available():
		// The classifier's sandboxes are described in the Bash tool's
		// description; a failing grep there should stay short.
		return grant
	case sb.Hosts().Grants() && !sb.AllowsAllHosts():
		return "\n(The command ran in agent-lsp's write sandbox, where commands allowed by a rule or approved by the user run: it reaches only the hosts the settings' sandbox.network.allowedDomains grants, through a proxy (HTTP_PROXY), it sees the workspace, the system's folders and the granted toolchain folders, read-only outside the workspace, and an empty home. If it failed for that reason, run it again with dangerouslyDisableSandbox: true and say why in its description: the user is asked whether to run it outside the sandbox.)" + grant
	case sb.AllowsAllHosts():
		return "\n(The command ran in agent-lsp's write sandbox, where commands allowed by a rule or approved by the user run: it sees the workspace, the system's folders and the granted toolchain folders, read-only outside the workspace, and an empty home. If it failed for that reason, run it again with dangerouslyDisableSandbox: true and say why in its description: the user is asked whether to run it outside the sandbox.)" + grant
	default:
		return "\n(The command ran in agent-lsp's write sandbox, where commands allowed by a rule or approved by the user run: there is no network (the settings' sandbox.network.allowedDomains does not list \"*\"), it sees the workspace, the system's folders and the granted toolchain folders, read-only outside the workspace, and an empty home. If it failed for that reason, run it again with dangerouslyDisableSandbox: true and say why in its description: the user is asked whether to run it outside the sandbox.)" + grant
	}
}
