//go:build !linux

package exec

import (
	"os"
	"syscall"
)

// Off Linux there is no child subreaper and no /proc: a job is its main
// process, stopped on time-out and interruption; descendants that outlive
// it are not tracked, and a task whose supervisor died is not detected as
// lost.

func becomeSubreaper() error { return nil }

func defaultSignals() {}

func closeInheritedFDs() {}

func shellAttr() *syscall.SysProcAttr { return nil }

func supervisorAttr() *syscall.SysProcAttr { return nil }

type proc struct {
	PID   int
	PPID  int
	SID   int
	State byte
	Start uint64
	Comm  string
}

func (p proc) dead() bool { return p.State == 'Z' || p.State == 'X' }

// readProc cannot look: it reports every process as running.
func readProc(pid int) (proc, bool) { return proc{PID: pid, State: 'R'}, true }

func childrenOf(pid int) []int { return nil }

func allPIDs() []int { return nil }

func hasEnv(pid int, kv string) bool { return false }

func terminate(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		if p.Signal(syscall.SIGTERM) != nil {
			_ = p.Kill()
		}
	}
}

func forceKill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func reap(pid int) {}

func growPipe(f *os.File) {}

func pipeUnread(f *os.File) int { return 0 }

func exitOf(ps *os.ProcessState) (int, string) { return ps.ExitCode(), "" }
