package sandbox

import "github.com/agent-lsp/agent-lsp/sandbox/seccomp"

// kernelArgs returns what every sandbox's command line starts with in
// place of bwrap's path: bwrap through the launcher that gives it the
// seccomp filter (no unix sockets, no keyrings, no io_uring), in a user
// namespace of its own even for root (see package seccomp).
func kernelArgs(bwrap string) []string { return seccomp.BwrapArgs(bwrap) }

// kernelReady returns why kernelArgs cannot work here, or "": no sandbox
// may run then.
func kernelReady() string { return seccomp.Ready() }
