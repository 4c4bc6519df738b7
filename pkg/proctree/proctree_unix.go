//go:build unix && !linux

package proctree

import (
	"os"
	"os/exec"
	ossignal "os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Off Linux there is no child subreaper: a process whose parent dies is
// re-parented to init (launchd), out of reach of its tree's owner. What
// is left to hold a tree together is its session and process group (a
// command's shell leads both), and the processes seen in it before its
// parent died (see Stop, which keeps sweeping them). procs_darwin.go
// lists processes through sysctl kern.proc; elsewhere (procs_bsd.go) they
// cannot be listed, and a tree is its main process.

// keepsOrphans: no subreaper holds on to a process whose parent died.
const keepsOrphans = false

func BecomeSubreaper() error { return nil }

var defaultSignalsOnce sync.Once

// DefaultSignals: see proctree_linux.go.
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

// CloseInheritedFDs is left to exec: without close_range, marking every
// descriptor would mean trying each number up to the limit.
func CloseInheritedFDs() {}

// StdioTo makes f this process's stdout and stderr.
func StdioTo(f *os.File) error {
	for _, fd := range []int{1, 2} {
		if err := unix.Dup2(int(f.Fd()), fd); err != nil {
			return os.NewSyscallError("dup2", err)
		}
	}
	return nil
}

// SessionAttr starts the shell in its own session and so its own process
// group, with no controlling terminal. There is no Pdeathsig: the tree
// ends with its owner through the control pipe instead.
func SessionAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// DetachedAttr detaches a supervisor from mcode's session and terminal.
func DetachedAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// GroupAttr puts a child in a process group of its own.
func GroupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// Proc is one process.
type Proc struct {
	PID   int
	PPID  int
	SID   int // session
	State byte
	// Start names the process with PID even after its PID is reused.
	Start uint64
	Comm  string
}

func (p Proc) Dead() bool { return p.State == 'Z' || p.State == 'X' }

// Terminate asks a process to end: SIGTERM, and SIGCONT so that a stopped
// process can act on it.
func Terminate(pid int) {
	_ = unix.Kill(pid, unix.SIGTERM)
	_ = unix.Kill(pid, unix.SIGCONT)
}

// ForceKill ends a process with SIGKILL.
func ForceKill(pid int) { _ = unix.Kill(pid, unix.SIGKILL) }

// Reap collects a dead child's exit status so it leaves no zombie.
func Reap(pid int) {
	var ws unix.WaitStatus
	_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
}

func BlockingPipe() (r, w *os.File, err error) { return os.Pipe() }

func Pause(d time.Duration) { time.Sleep(d) }

func GrowPipe(f *os.File, size int) {}

// ExitOf reads a wait status as the shell would report it: the exit code,
// or 128+N and the signal's name when signal N killed the process.
func ExitOf(ps *os.ProcessState) (code int, sig string) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return ps.ExitCode(), ""
	}
	if ws.Signaled() {
		return 128 + int(ws.Signal()), unix.SignalName(ws.Signal())
	}
	return ws.ExitStatus(), ""
}

// HasEnv cannot read another process's environment here: nothing matches.
func HasEnv(pid int, kv string) bool { return false }

// InheritedFile is descriptor fd, which this process's parent passed as
// the fd-th entry of Spec.Files, marked close-on-exec so that what this
// process starts does not inherit it too.
func InheritedFile(fd int, name string) *os.File {
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), name)
}

// Start starts a program with os.StartProcess and reaps it when it exits.
func Start(s Spec) (*Child, error) {
	files, closeFiles, err := s.files()
	if err != nil {
		return nil, err
	}
	defer closeFiles()
	p, err := os.StartProcess(s.Path, s.Args, &os.ProcAttr{Dir: s.Dir, Env: dedupEnv(s.Env), Files: files, Sys: s.Sys})
	if err != nil {
		return nil, err
	}
	c := &Child{PID: p.Pid, done: make(chan struct{})}
	go func() {
		if ps, err := p.Wait(); err == nil {
			c.code, c.sig = ExitOf(ps)
		}
		close(c.done)
	}()
	return c, nil
}

// groupMembers lists the living descendants of leader and every living
// process in its process group or session.
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

// containStarted has nothing to do: the process group holds the child
// from its start.
func containStarted(cmd *exec.Cmd) error { return nil }
