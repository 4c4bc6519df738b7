package exec

import (
	"fmt"
	"os"
	osexec "os/exec"
	"slices"
	"time"
)

const (
	// KillGrace is how long SIGTERM has to work (trap handlers run in it)
	// before SIGKILL.
	KillGrace = 3 * time.Second
	// drainAfterExit bounds the wait for the pipe's last bytes once every
	// process of the job is gone.
	drainAfterExit = 500 * time.Millisecond
	// killRounds bounds the SIGKILL sweeps against a tree that keeps forking.
	killRounds = 50
	// reapWait bounds the wait for a main process that survived SIGKILL.
	reapWait = 2 * time.Second
)

// jobSpec is one shell command to run.
type jobSpec struct {
	ID        string
	Shell     string
	Command   string
	Dir       string
	Env       []string
	SpoolPath string
	SpoolCap  int64
}

// job is a running shell command and its process tree. Its owner (the
// supervisor that started it) is a child subreaper with no other
// children, so every descendant stays a descendant of the owner until it
// dies, and every child of the owner is the job's.
type job struct {
	spec     jobSpec
	cmd      *osexec.Cmd
	pid      int
	started  time.Time
	capture  *capture
	mainDone chan struct{}
}

// startJob starts the shell with stdin on /dev/null and stdout and stderr
// on one pipe.
func startJob(spec jobSpec) (*job, error) {
	_ = becomeSubreaper() // without it, only the tree under the shell is reachable
	defaultSignals()
	closeInheritedFDs()
	spool, err := os.OpenFile(spec.SpoolPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating the output spool: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		spool.Close()
		return nil, err
	}
	growPipe(r)
	cmd := &osexec.Cmd{
		Path:        spec.Shell,
		Args:        []string{spec.Shell, "-c", spec.Command},
		Dir:         spec.Dir,
		Env:         append(slices.Clip(spec.Env), jobMarkerVar+"="+spec.ID),
		Stdout:      w,
		Stderr:      w,
		SysProcAttr: shellAttr(),
	}
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		spool.Close()
		return nil, err
	}
	j := &job{
		spec: spec, cmd: cmd, pid: cmd.Process.Pid, started: time.Now(),
		capture: newCapture(r, spool, spec.SpoolCap), mainDone: make(chan struct{}),
	}
	go j.capture.run()
	go func() {
		_ = cmd.Wait()
		close(j.mainDone)
	}()
	return j, nil
}

// exit is the main process's exit code and, when a signal killed it, the
// signal's name. Call it after mainDone.
func (j *job) exit() (int, string) {
	return exitOf(j.cmd.ProcessState)
}

// waitMain waits for the main process, at most d.
func (j *job) waitMain(d time.Duration) bool {
	select {
	case <-j.mainDone:
		return true
	case <-time.After(d):
		return false
	}
}

// members lists the job's living processes: the owner's children (the
// shell, and orphans re-parented to the owner) and all their descendants.
// Dead children of the owner are reaped on the way.
func (j *job) members() []proc {
	self := os.Getpid()
	roots := childrenOf(self)
	select {
	case <-j.mainDone:
	default:
		roots = append(roots, j.pid) // where childrenOf cannot see it
	}
	var live []proc
	seen := map[int]bool{}
	for len(roots) > 0 {
		pid := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		p, ok := readProc(pid)
		if !ok {
			continue
		}
		roots = append(roots, childrenOf(pid)...)
		if p.dead() {
			if p.PPID == self && pid != j.pid {
				reap(pid) // the shell is reaped by cmd.Wait
			}
			continue
		}
		live = append(live, p)
	}
	return live
}

// stopTree ends every process of the job (see stopProcs).
func (j *job) stopTree(grace time.Duration) []procRef {
	return stopProcs(j.members, grace)
}

// stopProcs ends every process members lists: SIGTERM to each (and
// SIGCONT, so a stopped one can act on it), up to grace for trap handlers
// to run, then SIGKILL until nothing is left. It returns the processes
// that outlived even SIGKILL (stuck in the kernel), which results report
// by pid.
func stopProcs(members func() []proc, grace time.Duration) []procRef {
	for _, p := range members() {
		terminate(p.PID)
	}
	deadline := time.Now().Add(grace)
	for pause := 5 * time.Millisecond; time.Now().Before(deadline); pause = min(2*pause, 100*time.Millisecond) {
		if len(members()) == 0 {
			return nil
		}
		time.Sleep(min(pause, time.Until(deadline)))
	}
	for round := 0; round < killRounds; round++ {
		m := members()
		if len(m) == 0 {
			return nil
		}
		for _, p := range m {
			forceKill(p.PID)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return refs(members())
}

// procRef names a process in a result.
type procRef struct {
	PID     int    `json:"pid"`
	Command string `json:"command"`
}

func refs(ps []proc) []procRef {
	if len(ps) == 0 {
		return nil
	}
	out := make([]procRef, len(ps))
	for i, p := range ps {
		out[i] = procRef{PID: p.PID, Command: p.Comm}
	}
	slices.SortFunc(out, func(a, b procRef) int { return a.PID - b.PID })
	return out
}
