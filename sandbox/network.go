package sandbox

import (
	"os"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/netproxy"
	"github.com/agent-lsp/agent-lsp/sandbox/seccomp"
)

// Proxy is a sandbox's only way out, to the hosts the settings grant:
// the network proxy's socket and the command's ticket (package
// netproxy). The sandbox keeps its own network namespace; inside it a
// bridge listens on 127.0.0.1:netproxy.Port and passes each connection
// to the proxy, which the launcher connected outside the sandbox.
type Proxy struct {
	Addr, Token string
}

// bridgePath is where this program is shown inside a sandbox with a
// Proxy, to run the bridge.
const bridgePath = "/run/agent-lsp/bridge"

// launcherArgs is kernelArgs, through the proxy when p is set.
func launcherArgs(bwrap string, p *Proxy) []string {
	if p == nil {
		return kernelArgs(bwrap)
	}
	return seccomp.BwrapNetArgs(bwrap, p.Addr, p.Token)
}

// proxyMounts shows this program at bridgePath, read-only.
func proxyMounts(m *mountPlan, p *Proxy) {
	if p == nil {
		return
	}
	if exe, err := os.Executable(); err == nil {
		m.add(kindSystem, bridgePath, "--ro-bind", exe, bridgePath)
	}
}

// proxyEnv returns env with the variables that point HTTP clients at
// the bridge (netproxy.Env) in place of the sidecar's own proxy
// variables, when p is set.
func proxyEnv(env []string, p *Proxy) []string {
	if p == nil {
		return env
	}
	proxied := netproxy.Env()
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return slices.ContainsFunc(proxied, func(v string) bool { return sameKey(kv, v) })
	})
	return append(env, proxied...)
}

func sameKey(a, b string) bool {
	ka, _, _ := strings.Cut(a, "=")
	kb, _, _ := strings.Cut(b, "=")
	return ka == kb
}

// proxiedCommand returns argv run by the bridge when p is set.
func proxiedCommand(argv []string, p *Proxy) []string {
	if p == nil {
		return argv
	}
	return append([]string{bridgePath, netproxy.BridgeArg, seccomp.NetFDArg, "--"}, argv...)
}
