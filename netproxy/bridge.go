package netproxy

import (
	"fmt"
	"strings"
)

// BridgeArg, as the first argument of a program that links this package,
// makes it the bridge inside a sandbox (see bridge_linux.go): the rest
// of its command line is the control descriptor, "--" and the command.
const BridgeArg = "__agent-lsp-net-bridge"

// Port is the loopback port the bridge listens on inside the sandbox's
// own network namespace.
const Port = 3128

// Env returns the variables that point a command's clients at the
// bridge: HTTP_PROXY and HTTPS_PROXY (and their lowercase forms) for
// HTTP, ALL_PROXY as SOCKS5 with names resolved by the proxy
// (socks5h://, as Claude Code's sandbox runtime sets it; the one port
// speaks both), and NO_PROXY for the sandbox's own loopback.
func Env() []string {
	url := fmt.Sprintf("http://127.0.0.1:%d", Port)
	var env []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY"} {
		env = append(env, k+"="+url, strings.ToLower(k)+"="+url)
	}
	socks := fmt.Sprintf("socks5h://127.0.0.1:%d", Port)
	env = append(env, "ALL_PROXY="+socks, "all_proxy="+socks)
	return append(env, "NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1")
}
