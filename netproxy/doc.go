// Package netproxy is the sandbox's only way out to the network: an
// HTTP proxy that runs in the sidecar, outside every sandbox, and lets a
// command reach a host only when the settings grant it
// (sandbox.network.allowedDomains matches it and deniedDomains does
// not), as Claude Code's sandbox runtime does.
//
// # Matching
//
// A pattern is a host name or IP literal, matched exactly without case
// and without a final dot, or "*.example.com", which matches every name
// that ends in ".example.com" but not example.com itself (MatchHost). A
// denied pattern beats an allowed one (Policy.Allows).
//
// # The way out
//
// The sandbox keeps a network namespace of its own: nothing in it can
// reach the host's network, loopback included. Inside, a bridge (this
// program started with BridgeArg, as the command's parent) listens on
// 127.0.0.1:Port and the command gets HTTP_PROXY and HTTPS_PROXY (and
// their lowercase forms) pointing there, and ALL_PROXY as socks5h://
// to the same port (Env). The
// sandbox's seccomp filter refuses socket(AF_UNIX) to the bridge as to
// the command, so the bridge cannot connect to the proxy's unix socket
// itself. Instead the sandbox's launcher, which runs outside the sandbox
// and before the filter, connects to the proxy's abstract unix socket
// (Server.Addr), presents the command's ticket (Ticket.Token), and
// leaves the connection open for the bridge; for every connection to its
// port, the bridge makes a socket pair (allowed: it reaches only itself)
// and passes one end over that connection. The proxy serves each end it
// receives as one client stream: CONNECT host:port tunnels (HTTPS, and
// anything else over TCP), plain HTTP requests with an absolute URL, and
// SOCKS5 CONNECT (a stream whose first byte is 5).
// The control connection only ever reaches the proxy, so a command that
// got hold of it could do no more than the bridge does.
//
// # Refusals
//
// A host the ticket's policy does not allow gets 403 with a body naming
// the host and the setting (curl shows it for plain HTTP; for CONNECT
// most clients show only the status). The ticket records it
// (Ticket.Refused), so the command's result can tell the model and the
// user which host to grant. A ticket may carry a question (Register's
// ask): a host neither allowed nor denied is then asked about while the
// connection waits.
//
// The proxy resolves names itself (the sandbox has no DNS). A name
// granted by a wildcard that resolves to this machine's loopback, a
// link-local address (cloud metadata) or an unspecified one is refused:
// only a grant naming the host exactly (localhost, 127.0.0.1) reaches
// the machine's own services.
//
// # Failing closed
//
// The sandbox never gets the host's network for named hosts. When the
// proxy cannot be reached or the ticket is unknown, or the bridge
// cannot listen, the command runs without network and the launcher or
// the bridge says so on its standard error.
package netproxy
