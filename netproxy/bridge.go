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

// Env returns the variables that point a command's HTTP clients at the
// bridge: HTTP_PROXY, HTTPS_PROXY and ALL_PROXY (and their lowercase
// forms), and NO_PROXY for the sandbox's own loopback.
func Env() []string {
	url := fmt.Sprintf("http://127.0.0.1:%d", Port)
	var env []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		env = append(env, k+"="+url, strings.ToLower(k)+"="+url)
	}
	return append(env, "NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1")
}
