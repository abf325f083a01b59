package sandbox

import (
	"encoding/binary"
	"fmt"
	"runtime"

	"golang.org/x/net/bpf"
)

// The seccomp filter every sandboxed command runs under (bwrap
// --seccomp). A network namespace does not stop connect() on a unix
// socket file, nor reach the kernel's keyrings; a read-only mount does
// not stop connecting to a socket either. The filter makes, for the
// command and everything it starts:
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

// seccompArch is what the filter needs to know of one architecture: its
// AUDIT_ARCH_* value and its system call numbers (from the kernel's
// tables; the test compares them with golang.org/x/sys/unix's).
type seccompArch struct {
	audit uint32
	// x32 is set when calls with the x32 bit (__X32_SYSCALL_BIT) share
	// the audit value: amd64.
	x32    bool
	socket uint32
	denied []uint32 // keyctl, add_key, request_key, io_uring_*
}

// seccompArches are the architectures the filter is built for, by
// GOARCH.
var seccompArches = map[string]seccompArch{
	"amd64": {audit: auditArchX8664, x32: true, socket: 41, denied: []uint32{250, 248, 249, 425, 426, 427}},
	"arm64": {audit: auditArchAArch64, socket: 198, denied: []uint32{219, 217, 218, 425, 426, 427}},
}

const (
	auditArchX8664   = 0xc000003e // AUDIT_ARCH_X86_64
	auditArchAArch64 = 0xc00000b7 // AUDIT_ARCH_AARCH64
	x32SyscallBit    = 0x40000000 // __X32_SYSCALL_BIT

	seccompRetKillProcess = 0x80000000 // SECCOMP_RET_KILL_PROCESS
	seccompRetErrno       = 0x00050000 // SECCOMP_RET_ERRNO
	seccompRetAllow       = 0x7fff0000 // SECCOMP_RET_ALLOW
	errnoEPERM            = 1
	afUnix                = 1 // AF_UNIX

	// Offsets in struct seccomp_data: nr, arch, then (after the
	// instruction pointer) args[6] as u64. The filter is built only for
	// little-endian architectures, where an argument's low half comes
	// first.
	seccompDataNr   = 0
	seccompDataArch = 4
	seccompDataArg0 = 16
)

// seccompProgram returns the filter's instructions for the architecture
// named by GOARCH, or an error when it is not built for it.
func seccompProgram(goarch string) ([]bpf.Instruction, error) {
	a, ok := seccompArches[goarch]
	if !ok {
		return nil, fmt.Errorf("the seccomp filter is not built for %s", goarch)
	}
	kill := bpf.RetConstant{Val: seccompRetKillProcess}
	eperm := bpf.RetConstant{Val: seccompRetErrno | errnoEPERM}
	allow := bpf.RetConstant{Val: seccompRetAllow}
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: seccompDataArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: a.audit, SkipTrue: 1},
		kill,
		bpf.LoadAbsolute{Off: seccompDataNr, Size: 4},
	}
	if a.x32 {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: x32SyscallBit, SkipFalse: 1}, kill)
	}
	for _, nr := range a.denied {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1}, eperm)
	}
	return append(prog,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: a.socket, SkipTrue: 1},
		allow,
		bpf.LoadAbsolute{Off: seccompDataArg0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: afUnix, SkipFalse: 1},
		eperm,
		allow,
	), nil
}

// seccompFilter returns the filter for this process's architecture as
// bwrap's --seccomp reads it: struct sock_filter entries in the
// machine's byte order.
func seccompFilter() ([]byte, error) {
	prog, err := seccompProgram(runtime.GOARCH)
	if err != nil {
		return nil, err
	}
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("assembling the seccomp filter: %w", err)
	}
	out := make([]byte, 0, 8*len(raw))
	for _, ins := range raw {
		out = binary.NativeEndian.AppendUint16(out, ins.Op)
		out = append(out, ins.Jt, ins.Jf)
		out = binary.NativeEndian.AppendUint32(out, ins.K)
	}
	return out, nil
}
