//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Start runs start, which starts the child process (fork and exec from
// the calling thread, as os/exec and syscall.StartProcess do), on a new
// OS thread that pl confines first: only that thread and what it starts
// are confined, never the rest of this process, which goes on writing
// its records. The thread is kept, locked, until release is called: a
// child started with a parent-death signal gets it when the thread that
// started it ends. It is never unlocked, so the Go runtime ends it with
// its goroutine instead of reusing a confined thread.
//
// A nil plan runs start unconfined (danger-full-access). Call Wrap on
// the program first (it is Linux's no-op, and macOS's sandbox-exec).
func Start(pl *Plan, start func() error) (applied Applied, release func(), err error) {
	if pl == nil {
		return Applied{}, func() {}, start()
	}
	type outcome struct {
		applied Applied
		err     error
	}
	out := make(chan outcome, 1)
	hold := make(chan struct{})
	go func() {
		runtime.LockOSThread() // for good: see above
		a, err := confine(pl)
		if err != nil {
			err = fmt.Errorf("sandbox: %w", err)
		} else {
			err = start()
		}
		out <- outcome{a, err}
		if err == nil {
			<-hold
		}
	}()
	o := <-out
	if o.err != nil {
		return o.applied, func() {}, o.err
	}
	return o.applied, sync.OnceFunc(func() { close(hold) }), nil
}

// confine applies pl to the calling thread, which must be locked: the
// protected paths (a mount namespace, where the process may mount), the
// capabilities a sandboxed tree must not hold, no_new_privs, Landlock and
// the seccomp filter. Each is per thread; none uses TSYNC.
func confine(pl *Plan) (Applied, error) {
	a := Applied{LandlockABI: LandlockABI()}
	if a.LandlockABI < 1 {
		return a, errors.New("this kernel has no Landlock (or it is not enabled at boot): the sandbox cannot be enforced")
	}
	if len(pl.Protect)+len(pl.Pin) > 0 {
		if err := holdProtected(pl); err != nil {
			a.MountError = err.Error()
		} else {
			a.Mounts = true
		}
	}
	dropCapabilities()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return a, fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	ports, err := restrictLandlock(pl, a.LandlockABI)
	if err != nil {
		return a, err
	}
	a.NetPorts = ports
	if err := loadSeccomp(pl); err != nil {
		return a, err
	}
	a.Seccomp = true
	return a, nil
}

// holdProtected gives the thread a mount namespace of its own (private:
// nothing propagates back) in which each protected path is a read-only
// bind mount of itself, and each pinned folder a mount point that cannot
// be renamed or removed.
func holdProtected(pl *Plan) error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("unshare(CLONE_NEWNS): %w (no CAP_SYS_ADMIN here)", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	for _, d := range pl.Pin {
		if err := unix.Mount(d, d, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("pinning %s: %w", d, err)
		}
	}
	for _, p := range pl.Protect {
		if err := unix.Mount(p, p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("holding %s: %w", p, err)
		}
		var st unix.Statfs_t
		flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
		if unix.Statfs(p, &st) == nil {
			flags |= lockedMountFlags(int64(st.Flags))
		}
		if err := unix.Mount("", p, "", flags, ""); err != nil {
			return fmt.Errorf("holding %s read-only: %w", p, err)
		}
	}
	return nil
}

// lockedMountFlags are the flags of the mount under a path that a remount
// must keep (a mount namespace owned by another user namespace refuses
// to drop them).
func lockedMountFlags(st int64) uintptr {
	var f uintptr
	for _, m := range []struct {
		st int64
		ms uintptr
	}{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if st&m.st != 0 {
			f |= m.ms
		}
	}
	return f
}

// droppedCapabilities are the capabilities a sandboxed tree never gets,
// even as root: those that mount, trace, load kernel code, reach raw
// devices and sockets, bypass path checks by file handle, or set file
// capabilities on what it leaves behind.
var droppedCapabilities = []uintptr{
	unix.CAP_SYS_ADMIN, unix.CAP_SYS_PTRACE, unix.CAP_SYS_MODULE, unix.CAP_SYS_RAWIO, unix.CAP_SYS_BOOT,
	unix.CAP_SYS_TIME, unix.CAP_NET_ADMIN, unix.CAP_NET_RAW, unix.CAP_BPF, unix.CAP_PERFMON,
	unix.CAP_MAC_ADMIN, unix.CAP_MAC_OVERRIDE, unix.CAP_MKNOD, unix.CAP_LINUX_IMMUTABLE, unix.CAP_SYSLOG,
	unix.CAP_DAC_READ_SEARCH, unix.CAP_AUDIT_CONTROL, unix.CAP_SETFCAP, unix.CAP_SYS_CHROOT,
}

// dropCapabilities takes them out of the thread's bounding and
// inheritable sets (what an exec, root's included, can get back) and
// clears the ambient set. Without CAP_SETPCAP the bounding set cannot
// shrink; such a process holds none of these to pass on.
func dropCapabilities() {
	for _, c := range droppedCapabilities {
		_ = unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0)
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if unix.Capget(&hdr, &data[0]) != nil {
		return
	}
	for _, c := range droppedCapabilities {
		data[c/32].Inheritable &^= 1 << (c % 32)
	}
	_ = unix.Capset(&hdr, &data[0])
}

var (
	abiOnce sync.Once
	abi     int
)

// LandlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func LandlockABI() int {
	abiOnce.Do(func() {
		r, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
		if e == 0 {
			abi = int(r)
		}
	})
	return abi
}

// Landlock file system rights: those of each ABI, less the ones the
// sandbox leaves alone (ioctl on devices, and connecting to Unix sockets
// by path, which would need a rule per socket folder).
const (
	fsRead = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_EXECUTE
	// fileRights are the rights that apply to a file (the kernel refuses
	// folder rights on a rule for a file).
	fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
)

func handledFS(abi int) uint64 {
	all := uint64(1)<<13 - 1 // ABI 1
	if abi >= 2 {
		all |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		all |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	return all
}

// netPortAttr is struct landlock_net_port_attr.
type netPortAttr struct {
	allowed uint64
	port    uint64
}

const ruleNetPort = 2 // LANDLOCK_RULE_NET_PORT

// restrictLandlock builds the ruleset and restricts the calling thread.
// ports says whether TCP connects are filtered by port.
func restrictLandlock(pl *Plan, abi int) (ports bool, err error) {
	handled := handledFS(abi)
	attr := unix.LandlockRulesetAttr{Handled_access_fs: handled}
	if abi >= 4 {
		switch {
		case pl.NetOff:
			attr.Handled_access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		case len(pl.Ports) > 0:
			attr.Handled_access_net = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
			ports = true
		}
	}
	if abi >= 6 {
		// Signals stay within the run: a command may not signal mcode,
		// its supervisor's parent, or another task's processes.
		attr.Scoped = unix.LANDLOCK_SCOPE_SIGNAL
	}
	size := unsafe.Sizeof(attr)
	if attr.Handled_access_net == 0 && attr.Scoped == 0 {
		size = unsafe.Sizeof(attr.Handled_access_fs) // kernels before ABI 4 know this much
	}
	r, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return false, fmt.Errorf("landlock_create_ruleset: %w", e)
	}
	ruleset := int(r)
	defer unix.Close(ruleset)
	for _, rule := range pl.Rules {
		if err := addPathRule(ruleset, rule, handled); err != nil {
			return false, err
		}
	}
	if ports {
		for _, p := range pl.Ports {
			np := netPortAttr{allowed: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, port: uint64(p)}
			if _, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), ruleNetPort, uintptr(unsafe.Pointer(&np)), 0, 0, 0); e != 0 {
				return false, fmt.Errorf("landlock_add_rule(port %d): %w", p, e)
			}
		}
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); e != 0 {
		return false, fmt.Errorf("landlock_restrict_self: %w", e)
	}
	return ports, nil
}

// addPathRule adds one rule. The path is opened without following any
// symlink: the plan holds resolved paths, and one that became a symlink
// since was swapped by someone, who must not choose what is granted. A
// path gone since the plan was made is skipped.
func addPathRule(ruleset int, rule Rule, handled uint64) error {
	fd, err := unix.Openat2(unix.AT_FDCWD, rule.Path, &unix.OpenHow{
		Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if errors.Is(err, unix.ENOSYS) { // before Linux 5.6
		fd, err = unix.Open(rule.Path, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	}
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.ENOTDIR) {
			return nil
		}
		return fmt.Errorf("opening %s for its rule: %w", rule.Path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", rule.Path, err)
	}
	var access uint64
	switch {
	case rule.Access&AccessWrite != 0:
		access = handled
	case rule.Access&AccessRead != 0:
		access = fsRead
	default:
		access = unix.LANDLOCK_ACCESS_FS_READ_DIR
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= fileRights
	}
	access &= handled
	if access == 0 {
		return nil
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	if _, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); e != 0 {
		return fmt.Errorf("landlock_add_rule(%s): %w", rule.Path, e)
	}
	return nil
}

// Wrap is the argv that runs argv under pl: on Linux argv itself (Start
// confines the thread that starts it).
func Wrap(pl *Plan, argv []string) []string { return argv }

// Probe finds what this kernel offers. With mounts, it tries to make a
// mount namespace on a thread it then throws away.
func Probe(mounts bool) Kernel {
	k := Kernel{Platform: "linux", LandlockABI: LandlockABI(), Seccomp: seccompSupported && seccompAvailable()}
	if !mounts {
		return k
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		err := unix.Unshare(unix.CLONE_NEWNS)
		if err == nil {
			err = unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "")
		}
		done <- err
	}()
	if err := <-done; err != nil {
		k.MountError = "unshare(CLONE_NEWNS): " + err.Error()
	} else {
		k.Mounts = true
	}
	return k
}

// seccompAvailable says whether the kernel has seccomp filters.
func seccompAvailable() bool {
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return err == nil
}

// KernelOf is the kernel as a run found it.
func KernelOf(pl *Plan, a Applied) Kernel {
	k := Kernel{Platform: "linux", LandlockABI: a.LandlockABI, Seccomp: a.Seccomp, Mounts: a.Mounts, MountError: a.MountError}
	if pl != nil && len(pl.Protect)+len(pl.Pin) == 0 {
		k.Mounts, k.NothingToProtect = true, true
	}
	return k
}
