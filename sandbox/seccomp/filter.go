package seccomp

import (
	"encoding/binary"
	"fmt"
	"runtime"

	"golang.org/x/net/bpf"
)

// archInfo is what the filter needs to know of one architecture: its
// AUDIT_ARCH_* value and its system call numbers (from the kernel's
// tables; the test compares them with golang.org/x/sys/unix's).
type archInfo struct {
	audit uint32
	// x32 is set when calls with the x32 bit (__X32_SYSCALL_BIT) share
	// the audit value: amd64.
	x32    bool
	socket uint32
	denied []uint32 // keyctl, add_key, request_key, io_uring_*
}

// arches are the architectures the filter is built for, by
// GOARCH.
var arches = map[string]archInfo{
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

// program returns the filter's instructions for the architecture
// named by GOARCH, or an error when it is not built for it.
func program(goarch string) ([]bpf.Instruction, error) {
	a, ok := arches[goarch]
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

// Filter returns the filter for this process's architecture as bwrap's
// --seccomp reads it: struct sock_filter entries in the machine's byte
// order.
func Filter() ([]byte, error) {
	prog, err := program(runtime.GOARCH)
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
