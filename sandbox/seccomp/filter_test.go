package seccomp

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
)

// seccompData is struct seccomp_data as golang.org/x/net/bpf's VM reads
// it: the VM loads words big-endian (network order) where the kernel
// loads them in the machine's order, so each field is written big-endian
// and an argument's low half first, as on the little-endian machines the
// filter is built for.
func seccompData(arch, nr uint32, arg0 uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[seccompDataNr:], nr)
	binary.BigEndian.PutUint32(b[seccompDataArch:], arch)
	binary.BigEndian.PutUint32(b[seccompDataArg0:], uint32(arg0))
	binary.BigEndian.PutUint32(b[seccompDataArg0+4:], uint32(arg0>>32))
	return b
}

func TestSeccompProgram(t *testing.T) {
	const (
		eperm       = seccompRetErrno | errnoEPERM
		auditI386   = 0x40000003 // AUDIT_ARCH_I386
		auditARM    = 0x40000028 // AUDIT_ARCH_ARM
		afInet      = 2
		amd64Read   = 0
		amd64Pair   = 53 // socketpair
		amd64Socket = 41
		arm64Pair   = 199
	)
	tests := []struct {
		name   string
		goarch string
		arch   uint32
		nr     uint32
		arg0   uint64
		want   uint32
	}{
		{"amd64 socket(AF_UNIX)", "amd64", auditArchX8664, amd64Socket, afUnix, eperm},
		{"amd64 socket(AF_UNIX) with high bits set", "amd64", auditArchX8664, amd64Socket, 1<<32 | afUnix, eperm},
		{"amd64 socket(AF_INET)", "amd64", auditArchX8664, amd64Socket, afInet, seccompRetAllow},
		{"amd64 socketpair(AF_UNIX)", "amd64", auditArchX8664, amd64Pair, afUnix, seccompRetAllow},
		{"amd64 keyctl", "amd64", auditArchX8664, 250, 0, eperm},
		{"amd64 add_key", "amd64", auditArchX8664, 248, 0, eperm},
		{"amd64 request_key", "amd64", auditArchX8664, 249, 0, eperm},
		{"amd64 io_uring_setup", "amd64", auditArchX8664, 425, 0, eperm},
		{"amd64 io_uring_enter", "amd64", auditArchX8664, 426, 0, eperm},
		{"amd64 io_uring_register", "amd64", auditArchX8664, 427, 0, eperm},
		{"amd64 read", "amd64", auditArchX8664, amd64Read, afUnix, seccompRetAllow},
		{"amd64 x32 socket", "amd64", auditArchX8664, x32SyscallBit | amd64Socket, afUnix, seccompRetKillProcess},
		{"amd64 x32 read", "amd64", auditArchX8664, x32SyscallBit | amd64Read, 0, seccompRetKillProcess},
		{"amd64 i386 keyctl (int 0x80)", "amd64", auditI386, 288, 0, seccompRetKillProcess},
		{"amd64 i386 read", "amd64", auditI386, 3, 0, seccompRetKillProcess},
		{"arm64 socket(AF_UNIX)", "arm64", auditArchAArch64, 198, afUnix, eperm},
		{"arm64 socket(AF_INET6)", "arm64", auditArchAArch64, 198, 10, seccompRetAllow},
		{"arm64 socketpair(AF_UNIX)", "arm64", auditArchAArch64, arm64Pair, afUnix, seccompRetAllow},
		{"arm64 keyctl", "arm64", auditArchAArch64, 219, 0, eperm},
		{"arm64 add_key", "arm64", auditArchAArch64, 217, 0, eperm},
		{"arm64 request_key", "arm64", auditArchAArch64, 218, 0, eperm},
		{"arm64 io_uring_setup", "arm64", auditArchAArch64, 425, 0, eperm},
		{"arm64 read", "arm64", auditArchAArch64, 63, 0, seccompRetAllow},
		{"arm64 x32 bit is just a number", "arm64", auditArchAArch64, x32SyscallBit | 63, 0, seccompRetAllow},
		{"arm64 arm32 compat", "arm64", auditARM, 3, 0, seccompRetKillProcess},
		{"arm64 amd64 arch", "arm64", auditArchX8664, 0, 0, seccompRetKillProcess},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog, err := program(tt.goarch)
			if err != nil {
				t.Fatal(err)
			}
			vm, err := bpf.NewVM(prog)
			if err != nil {
				t.Fatal(err)
			}
			got, err := vm.Run(seccompData(tt.arch, tt.nr, tt.arg0))
			if err != nil {
				t.Fatal(err)
			}
			if uint32(got) != tt.want {
				t.Errorf("the filter returned %#x, want %#x", got, tt.want)
			}
		})
	}
}

func TestSeccompProgramOtherArch(t *testing.T) {
	if _, err := program("riscv64"); err == nil {
		t.Error("a filter was built for riscv64, whose system call numbers it does not know")
	}
}
