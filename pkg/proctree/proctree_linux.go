//go:build linux

package proctree

import (
	"bytes"
	"errors"
	"math"
	"os"
	ossignal "os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var (
	subreaperOnce sync.Once
	subreaperErr  error
)

// BecomeSubreaper makes this process the child subreaper of everything it
// starts: a descendant orphaned by a double fork or a setsid is re-parented
// here instead of to init, so the whole tree stays in reach and is reaped.
func BecomeSubreaper() error {
	subreaperOnce.Do(func() {
		subreaperErr = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	})
	return subreaperErr
}

var defaultSignalsOnce sync.Once

// DefaultSignals makes sure the shell starts with SIGPIPE and SIGINT at
// their default action: signals this process ignores (as it may have been
// started) would stay ignored in the command, and `yes | head` would then
// end with "yes: Broken pipe" instead of quietly. Caught signals are reset
// by exec, so catching them here is enough.
func DefaultSignals() {
	defaultSignalsOnce.Do(func() {
		sink := make(chan os.Signal, 1)
		ossignal.Notify(sink, unix.SIGPIPE)
		if ossignal.Ignored(unix.SIGINT) {
			ossignal.Notify(sink, unix.SIGINT)
		}
		go func() {
			for range sink {
			}
		}()
	})
}

var inheritedOnce sync.Once

// CloseInheritedFDs marks every descriptor above stderr close-on-exec.
// Descriptors this process inherited without that flag (a caller's pipe)
// would otherwise pass to the command, and a daemon it leaves behind
// could hold the caller's pipe open for ever. Go opens its own with the
// flag set, so doing it once is enough. close_range(2) does it in one
// call; listing /proc/self/fd (kernels before 5.11) leaves a dentry per
// descriptor that the kernel walks again when this process is reaped.
func CloseInheritedFDs() {
	inheritedOnce.Do(func() {
		if unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC) == nil {
			return
		}
		f, err := os.Open("/proc/self/fd")
		if err != nil {
			return
		}
		names, _ := f.Readdirnames(-1)
		f.Close()
		for _, n := range names {
			if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
				unix.CloseOnExec(fd)
			}
		}
	})
}

// HasChildren says whether this process has a child, living or not yet
// reaped, without reading /proc: waitid answers ECHILD only when there is
// none. A subreaper with no child has no living descendant either.
func HasChildren() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT|unix.WALL, nil)
	return !errors.Is(err, unix.ECHILD)
}

// StdioTo makes f this process's stdout and stderr, where the Go runtime
// writes a panic too.
func StdioTo(f *os.File) error {
	for _, fd := range []int{1, 2} {
		if err := unix.Dup3(int(f.Fd()), fd, 0); err != nil {
			return os.NewSyscallError("dup3", err)
		}
	}
	return nil
}

// SessionAttr starts the shell in its own session, so its own process group
// and no controlling terminal (nothing can open /dev/tty and wait for a
// person), and kills it if its parent dies.
func SessionAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// DetachedAttr detaches a supervisor from mcode's session and terminal,
// so it outlives mcode when the task goes to the background.
func DetachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// Proc is one process as /proc/PID/stat shows it.
type Proc struct {
	PID   int
	PPID  int
	SID   int // session
	State byte
	// Start is the start time in clock ticks since boot: with PID, it
	// names a process even after its PID is reused.
	Start uint64
	Comm  string
}

func (p Proc) Dead() bool { return p.State == 'Z' || p.State == 'X' }

// Read reads /proc/PID/stat; ok is false when the process is gone.
func Read(pid int) (p Proc, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	return ParseStat(data)
}

// ParseStat parses "pid (comm) state ppid pgrp session … starttime …";
// comm may hold spaces and parentheses, so fields count from the last ')'.
func ParseStat(data []byte) (Proc, bool) {
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return Proc{}, false
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(data[:open])))
	if err != nil {
		return Proc{}, false
	}
	fields := bytes.Fields(data[end+1:])
	const stateField, ppidField, sidField, startField = 0, 1, 3, 19 // stat fields 3, 4, 6 and 22
	if len(fields) <= startField || len(fields[stateField]) == 0 {
		return Proc{}, false
	}
	ppid, err1 := strconv.Atoi(string(fields[ppidField]))
	sid, err2 := strconv.Atoi(string(fields[sidField]))
	start, err3 := strconv.ParseUint(string(fields[startField]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return Proc{}, false
	}
	return Proc{PID: pid, PPID: ppid, SID: sid, State: fields[stateField][0], Start: start, Comm: string(data[open+1 : end])}, true
}

var (
	childrenFileOnce sync.Once
	childrenFileOK   bool
)

// Children lists pid's children from /proc/PID/task/*/children, or from
// a scan of /proc on kernels built without that file.
func Children(pid int) []int {
	childrenFileOnce.Do(func() {
		_, err := os.Stat("/proc/self/task/" + strconv.Itoa(unix.Gettid()) + "/children")
		childrenFileOK = err == nil
	})
	if !childrenFileOK {
		return scanChildren(pid)
	}
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	tids, _ := f.Readdirnames(-1)
	f.Close()
	var kids []int
	for _, tid := range tids {
		data, err := os.ReadFile(dir + "/" + tid + "/children")
		if err != nil {
			continue
		}
		for _, field := range bytes.Fields(data) {
			if n, err := strconv.Atoi(string(field)); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids
}

// AllPIDs lists every process in /proc.
func AllPIDs() []int {
	f, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	pids := make([]int, 0, len(names))
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

func scanChildren(parent int) []int {
	var kids []int
	for _, pid := range AllPIDs() {
		if p, ok := Read(pid); ok && p.PPID == parent {
			kids = append(kids, pid)
		}
	}
	return kids
}

// HasEnv says whether the process was started with the exact NAME=VALUE
// entry kv in its environment. Processes of other users are unreadable
// and never match.
func HasEnv(pid int, kv string) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	return bytes.HasPrefix(data, []byte(kv+"\x00")) || bytes.Contains(data, []byte("\x00"+kv+"\x00"))
}

// Terminate asks a process to end: SIGTERM, and SIGCONT so that a stopped
// process can act on it. A process already gone is not an error.
func Terminate(pid int) {
	_ = unix.Kill(pid, unix.SIGTERM)
	_ = unix.Kill(pid, unix.SIGCONT)
}

// ForceKill ends a process with SIGKILL.
func ForceKill(pid int) {
	_ = unix.Kill(pid, unix.SIGKILL)
}

// Reap collects a dead child's exit status so it leaves no zombie.
func Reap(pid int) {
	var ws unix.WaitStatus
	_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
}

// BlockingPipe is a pipe whose ends block, outside Go's poller: a reader
// that only ever waits on it spends one read per chunk instead of a read,
// a poll and a wake-up through the scheduler. Its reads take no deadline.
func BlockingPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}

// Pause sleeps in the kernel, without a Go timer: a pause of
// microseconds then costs one system call and no wake-up of another
// thread.
func Pause(d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}

// GrowPipe enlarges a pipe's buffer so a chatty command blocks less often
// on it; failure (the per-user pipe quota) only costs speed.
func GrowPipe(f *os.File, size int) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) {
			_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, size)
		})
	}
}

// PipeUnread is how many bytes wait in a pipe to be read (FIONREAD, which
// Linux spells TIOCINQ).
func PipeUnread(f *os.File) int {
	n := 0
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.TIOCINQ) })
	}
	return n
}

// ExitOf reads a wait status as the shell would report it: the exit code,
// or 128+N and the signal's name when signal N killed the process.
func ExitOf(ps *os.ProcessState) (code int, sig string) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return ps.ExitCode(), ""
	}
	return exitOf(ws)
}

// GroupAttr puts a child in a process group of its own and kills it if
// this process dies.
func GroupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// groupMembers lists the living descendants of leader and every living
// process whose process group is leader's.
func groupMembers(leader int) []Proc {
	live := Descendants(leader)
	seen := map[int]bool{}
	for _, p := range live {
		seen[p.PID] = true
	}
	for _, p := range groupOnly(leader) {
		if !seen[p.PID] {
			live = append(live, p)
		}
	}
	return live
}

// groupOnly lists the living processes whose process group is pgid.
func groupOnly(pgid int) []Proc {
	var live []Proc
	for _, pid := range AllPIDs() {
		if pg, err := unix.Getpgid(pid); err == nil && pg == pgid {
			if p, ok := Read(pid); ok && !p.Dead() {
				live = append(live, p)
			}
		}
	}
	return live
}

// Start starts a program, as os/exec would, and reaps it when it exits.
// It goes round os.StartProcess, whose first start in a process first
// checks that pidfds work by forking a throw-away child: a bash call's
// supervisor and the call itself each start one process, on the call's
// critical path, and would each pay for that check.
func Start(s Spec) (*Child, error) {
	files, closeFiles, err := s.files()
	if err != nil {
		return nil, err
	}
	defer closeFiles()
	fds := make([]uintptr, len(files))
	for i, f := range files {
		fds[i] = f.Fd()
	}
	pid, _, err := syscall.StartProcess(s.Path, s.Args, &syscall.ProcAttr{Dir: s.Dir, Env: dedupEnv(s.Env), Files: fds, Sys: s.Sys})
	runtime.KeepAlive(files)
	if err != nil {
		return nil, &os.PathError{Op: "fork/exec", Path: s.Path, Err: err}
	}
	c := &Child{PID: pid, done: make(chan struct{})}
	go func() {
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
				break
			}
		}
		c.code, c.sig = exitOf(ws)
		close(c.done)
	}()
	return c, nil
}

func exitOf(ws syscall.WaitStatus) (code int, sig string) {
	if ws.Signaled() {
		return 128 + int(ws.Signal()), unix.SignalName(ws.Signal())
	}
	return ws.ExitStatus(), ""
}
