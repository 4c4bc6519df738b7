//go:build linux && amd64

package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompData is struct seccomp_data as the filter reads it. The BPF
// machine of x/net/bpf loads words big-endian, where the kernel loads
// them in the machine's order: each word is written so both read the
// same value.
func seccompData(arch uint32, nr uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], nr)
	binary.BigEndian.PutUint32(b[4:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], uint32(a)) // low word first, as on a little-endian machine
		binary.BigEndian.PutUint32(b[16+8*i+4:], uint32(a>>32))
	}
	return b
}

func TestSeccompProgram(t *testing.T) {
	errno := func(e unix.Errno) int { return int(unix.SECCOMP_RET_ERRNO | uint32(e)) }
	allow := int(unix.SECCOMP_RET_ALLOW)
	native := uint32(unix.AUDIT_ARCH_X86_64)
	for _, net := range []bool{false, true} {
		raw, err := seccompProgram(&Plan{NetOff: net})
		if err != nil {
			t.Fatal(err)
		}
		prog, ok := bpf.Disassemble(raw)
		if !ok {
			t.Fatal("the filter does not disassemble")
		}
		vm, err := bpf.NewVM(prog)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			data []byte
			want int
		}{
			{"read", seccompData(native, unix.SYS_READ), allow},
			{"ptrace", seccompData(native, unix.SYS_PTRACE, unix.PTRACE_ATTACH), errno(unix.EPERM)},
			{"unshare", seccompData(native, unix.SYS_UNSHARE, unix.CLONE_NEWNS), errno(unix.EPERM)},
			{"mount", seccompData(native, unix.SYS_MOUNT), errno(unix.EPERM)},
			{"io_uring_setup", seccompData(native, unix.SYS_IO_URING_SETUP), errno(unix.EPERM)},
			{"keyctl", seccompData(native, unix.SYS_KEYCTL), errno(unix.EPERM)},
			{"clone a thread", seccompData(native, unix.SYS_CLONE, unix.CLONE_VM|unix.CLONE_THREAD|unix.CLONE_SIGHAND), allow},
			{"clone a user namespace", seccompData(native, unix.SYS_CLONE, unix.CLONE_NEWUSER|uint64(unix.SIGCHLD)), errno(unix.EPERM)},
			{"clone3", seccompData(native, unix.SYS_CLONE3), errno(unix.ENOSYS)},
			{"TIOCSTI", seccompData(native, unix.SYS_IOCTL, 0, unix.TIOCSTI), errno(unix.EPERM)},
			{"TIOCSTI in a wide word", seccompData(native, unix.SYS_IOCTL, 0, 0xdead00000000|unix.TIOCSTI), errno(unix.EPERM)},
			{"TCGETS", seccompData(native, unix.SYS_IOCTL, 0, unix.TCGETS), allow},
			{"i386 int 0x80", seccompData(unix.AUDIT_ARCH_I386, 26 /* ptrace */), errno(unix.ENOSYS)},
			{"x32", seccompData(native, 0x40000000|unix.SYS_PTRACE), errno(unix.ENOSYS)},
			{"unix socket", seccompData(native, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_STREAM), allow},
			{"packet socket", seccompData(native, unix.SYS_SOCKET, unix.AF_PACKET, unix.SOCK_RAW), map[bool]int{false: errno(unix.EPERM), true: errno(unix.EACCES)}[net]},
			{"raw socket", seccompData(native, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_RAW|unix.SOCK_CLOEXEC), map[bool]int{false: errno(unix.EPERM), true: errno(unix.EACCES)}[net]},
			{"tcp socket", seccompData(native, unix.SYS_SOCKET, unix.AF_INET6, unix.SOCK_STREAM), map[bool]int{false: allow, true: errno(unix.EACCES)}[net]},
			{"udp socket", seccompData(native, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_DGRAM), map[bool]int{false: allow, true: errno(unix.EACCES)}[net]},
		} {
			got, err := vm.Run(c.data)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("network off %v, %s: %#x, want %#x", net, c.name, got, c.want)
			}
		}
	}
}
