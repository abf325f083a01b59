// Package seccomp builds the seccomp filter that every sandboxed command
// runs under, and hands it to bwrap (--seccomp) through this program as a
// launcher.
//
// A network namespace does not stop connect() on a unix socket file, nor
// reach the kernel's keyrings; a read-only mount does not stop connecting
// to a socket either. The filter makes, for the command and everything it
// starts:
//   - socket(AF_UNIX, ...) fail with EPERM: no unix socket can be made,
//     so none outside the sandbox can be reached, in the filesystem
//     (agents', password managers', Docker's) or abstract. socketpair
//     stays allowed: its two ends reach only each other.
//   - keyctl, add_key and request_key fail with EPERM: the kernel
//     keyrings (the session keyring bwrap inherits, the user's) hold
//     tokens and Kerberos tickets, and are not separated by a mount,
//     network or (for the session keyring) user namespace.
//   - io_uring_setup, io_uring_enter and io_uring_register fail with
//     EPERM: io_uring's operations (IORING_OP_SOCKET, IORING_OP_CONNECT,
//     ...) are not system calls, so a filter on socket() does not see
//     them.
//   - a system call of another ABI than the sidecar's (i386's int 0x80
//     or x32 on amd64, arm32 on arm64) kill the process: those tables
//     have other numbers (i386 multiplexes sockets through socketcall,
//     whose arguments a filter cannot read), so they are not filtered
//     but refused whole.
//
// Everything else is allowed. The socket family is compared on the low
// 32 bits of the first argument only: the kernel reads it as an int, so
// a filter comparing all 64 bits would let socket(0x100000001, ...)
// through as AF_UNIX.
//
// The program is classic BPF assembled with golang.org/x/net/bpf (the
// build is static, without libseccomp). github.com/elastic/go-seccomp-bpf
// was not used: its policies send a call of a foreign architecture to the
// default action, which for this allow-by-default filter would let i386
// calls through unfiltered, and its argument conditions compare all 64
// bits.
//
// # The launcher
//
// bwrap reads --seccomp from a descriptor open in its own process, and a
// command may be started by another process than the sidecar (an ACP
// client's terminal runs the command line it is given), so no descriptor
// can be passed from the sidecar. Instead the command line starts with
// this program: a program that links this package, started with
// LauncherArg first, writes the filter to a pipe in this package's init
// and execs bwrap with --seccomp on it (BwrapArgs). The package imports
// little, so that its init runs before most others' in a large binary.
//
// For a sandbox whose way out is the network proxy (package netproxy),
// the launcher first connects to the proxy's unix socket, here, outside
// the sandbox and before the filter, and leaves the connection open
// across exec for the bridge inside, putting its descriptor in place of
// NetFDArg in bwrap's command line (BwrapNetArgs). The filter then
// covers the bridge and the command alike: neither can make a unix
// socket, and the one connection the bridge holds reaches only the
// proxy.
package seccomp
