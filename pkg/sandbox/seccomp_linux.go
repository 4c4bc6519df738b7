//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The seccomp filter refuses what would let a confined tree slip past
// Landlock or reach what it must not: namespaces and mounts (a new root,
// a bind of a protected path elsewhere), tracing and another process's
// memory (the supervisor's thread that started it is in its domain),
// io_uring (its requests bypass system call filters), the kernel keyring,
// BPF and perf, kernel modules and kexec, file handles (they open by
// inode, not path), stealing another process's descriptors, the
// terminal's input queue (TIOCSTI types into the person's shell), raw
// and packet sockets, and with network off every socket but local ones.
// A system call of another ABI (i386's int 0x80 on x86-64, x32) is
// refused whole, so nothing gets round the numbers below.
//
// The filter is assembled here with golang.org/x/net/bpf rather than
// github.com/elastic/go-seccomp-bpf: that library's syscall tables cost
// 0.7-4 ms of package init on every mcode start, and its program sends a
// foreign-ABI call to the default action, which for a deny-list like
// this one is "allow".

// deniedSyscalls fail with EPERM.
var deniedSyscalls = []uint32{
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PIDFD_GETFD,
	unix.SYS_UNSHARE, unix.SYS_SETNS, unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT,
	unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE, unix.SYS_OPEN_TREE_ATTR, unix.SYS_FSOPEN, unix.SYS_FSCONFIG,
	unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
	unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_KEYCTL,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT,
	unix.SYS_ACCT, unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_REBOOT, unix.SYS_QUOTACTL, unix.SYS_VHANGUP,
}

// namespaceFlags are clone's flags that make a namespace.
const namespaceFlags = unix.CLONE_NEWNS | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER |
	unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP

// Offsets in struct seccomp_data (little-endian: the low word of an
// argument comes first).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
)

// seccompProgram assembles the filter for a plan.
func seccompProgram(pl *Plan) ([]bpf.RawInstruction, error) {
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }
	var a asm
	a.op(bpf.LoadAbsolute{Off: offArch, Size: 4})
	a.jump(bpf.JumpEqual, nativeAudit, "", "enosys")
	a.op(bpf.LoadAbsolute{Off: offNr, Size: 4})
	if x32Bit != 0 {
		a.jump(bpf.JumpGreaterOrEqual, x32Bit, "enosys", "")
	}
	// clone3's flags are in memory a filter cannot read: refused with
	// ENOSYS, libc falls back to clone, whose flags it can.
	a.jump(bpf.JumpEqual, unix.SYS_CLONE3, "enosys", "")
	for _, nr := range deniedSyscalls {
		a.jump(bpf.JumpEqual, nr, "eperm", "")
	}
	a.jump(bpf.JumpEqual, unix.SYS_CLONE, "clone", "")
	a.jump(bpf.JumpEqual, unix.SYS_IOCTL, "ioctl", "")
	a.jump(bpf.JumpEqual, unix.SYS_SOCKET, "socket", "allow")

	a.label("clone")
	a.op(bpf.LoadAbsolute{Off: cloneFlagsOff, Size: 4})
	a.jump(bpf.JumpBitsSet, namespaceFlags, "eperm", "allow")

	a.label("ioctl")
	a.op(bpf.LoadAbsolute{Off: offArg1, Size: 4}) // the request is an unsigned int
	a.jump(bpf.JumpEqual, unix.TIOCSTI, "eperm", "")
	a.jump(bpf.JumpEqual, unix.TIOCLINUX, "eperm", "allow")

	a.label("socket")
	a.op(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	if pl.NetOff {
		a.jump(bpf.JumpEqual, unix.AF_UNIX, "allow", "")
		a.jump(bpf.JumpEqual, unix.AF_NETLINK, "allow", "eacces")
	} else {
		a.jump(bpf.JumpEqual, unix.AF_PACKET, "eperm", "")
		a.jump(bpf.JumpEqual, unix.AF_INET, "inet", "")
		a.jump(bpf.JumpEqual, unix.AF_INET6, "inet", "allow")
		a.label("inet")
		a.op(bpf.LoadAbsolute{Off: offArg1, Size: 4})
		a.op(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf}) // the type, without SOCK_NONBLOCK and SOCK_CLOEXEC
		a.jump(bpf.JumpEqual, unix.SOCK_RAW, "eperm", "allow")
	}

	// The verdicts, last: BPF only jumps forward.
	a.label("allow")
	a.op(bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW})
	a.label("eperm")
	a.op(bpf.RetConstant{Val: errno(unix.EPERM)})
	a.label("eacces")
	a.op(bpf.RetConstant{Val: errno(unix.EACCES)})
	a.label("enosys")
	a.op(bpf.RetConstant{Val: errno(unix.ENOSYS)})
	return a.assemble()
}

// loadSeccomp installs the filter on the calling thread only (no TSYNC).
func loadSeccomp(pl *Plan) error {
	prog, err := seccompProgram(pl)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER): %w", e)
	}
	return nil
}

// asm is a BPF program with named jump targets.
type asm struct {
	ins    []bpf.Instruction
	jumps  []pendingJump
	labels map[string]int
}

type pendingJump struct {
	at          int
	cond        bpf.JumpTest
	val         uint32
	yes, orElse string // "" is the next instruction
}

func (a *asm) op(i bpf.Instruction) { a.ins = append(a.ins, i) }

func (a *asm) jump(cond bpf.JumpTest, val uint32, yes, orElse string) {
	a.jumps = append(a.jumps, pendingJump{at: len(a.ins), cond: cond, val: val, yes: yes, orElse: orElse})
	a.ins = append(a.ins, nil)
}

func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.ins)
}

func (a *asm) assemble() ([]bpf.RawInstruction, error) {
	skip := func(from int, to string) (uint8, error) {
		if to == "" {
			return 0, nil
		}
		at, ok := a.labels[to]
		if !ok || at <= from || at-from-1 > 255 {
			return 0, fmt.Errorf("seccomp filter: bad jump from %d to %q", from, to)
		}
		return uint8(at - from - 1), nil
	}
	for _, j := range a.jumps {
		t, err := skip(j.at, j.yes)
		if err != nil {
			return nil, err
		}
		f, err := skip(j.at, j.orElse)
		if err != nil {
			return nil, err
		}
		a.ins[j.at] = bpf.JumpIf{Cond: j.cond, Val: j.val, SkipTrue: t, SkipFalse: f}
	}
	return bpf.Assemble(a.ins)
}
