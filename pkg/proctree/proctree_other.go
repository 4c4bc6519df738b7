//go:build !linux

package proctree

import (
	"os"
	"syscall"
	"time"
)

// Off Linux there is no child subreaper and no /proc: a job is its main
// process, stopped on time-out and interruption; descendants that outlive
// it are not tracked, and a task whose supervisor died is not detected as
// lost.

func BecomeSubreaper() error { return nil }

func DefaultSignals() {}

func CloseInheritedFDs() {}

// StdioTo leaves stdout and stderr as they are.
func StdioTo(f *os.File) error { return nil }

func SessionAttr() *syscall.SysProcAttr { return nil }

func DetachedAttr() *syscall.SysProcAttr { return nil }

type Proc struct {
	PID   int
	PPID  int
	SID   int
	State byte
	Start uint64
	Comm  string
}

func (p Proc) Dead() bool { return p.State == 'Z' || p.State == 'X' }

// Read cannot look: it reports every process as running.
func Read(pid int) (Proc, bool) { return Proc{PID: pid, State: 'R'}, true }

func Children(pid int) []int { return nil }

// HasChildren cannot look: it says there may be some.
func HasChildren() bool { return true }

func AllPIDs() []int { return nil }

func HasEnv(pid int, kv string) bool { return false }

func Terminate(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		if p.Signal(syscall.SIGTERM) != nil {
			_ = p.Kill()
		}
	}
}

func ForceKill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func Reap(pid int) {}

func BlockingPipe() (r, w *os.File, err error) { return os.Pipe() }

func Pause(d time.Duration) { time.Sleep(d) }

func GrowPipe(f *os.File, size int) {}

func PipeUnread(f *os.File) int { return 0 }

func WaitReadable(f *os.File, timeout time.Duration) (bool, error) { return true, nil }

func ExitOf(ps *os.ProcessState) (int, string) { return ps.ExitCode(), "" }

// GroupAttr puts a child in a process group of its own.
func GroupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func groupMembers(leader int) []Proc { return Descendants(leader) }

func groupOnly(pgid int) []Proc { return nil }

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
