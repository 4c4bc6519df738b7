package exec

import (
	"os"
	"slices"
	"time"

	"github.com/mcode-dev/mcode/pkg/proctree"
	"github.com/mcode-dev/mcode/pkg/sandbox"
)

const (
	// KillGrace is how long SIGTERM has to work (trap handlers run in it)
	// before SIGKILL.
	KillGrace = 3 * time.Second
	// drainAfterExit bounds the wait for the pipe's last bytes once every
	// process of the job is gone.
	drainAfterExit = 500 * time.Millisecond
	// reapWait bounds the wait for a main process that survived SIGKILL.
	reapWait = 2 * time.Second
)

// jobSpec is one shell command to run.
type jobSpec struct {
	ID    string
	Shell string
	// Args is the shell's argv and Stdin what it reads before EOF (see
	// osshell.Invoke); no Args means Shell -c Command.
	Args      []string `json:",omitempty"`
	Stdin     string   `json:",omitempty"`
	Command   string
	Dir       string
	Env       []string
	SpoolPath string
	SpoolCap  int64
	// LazySpool makes the spool file only when it is needed (see
	// capture.lazy): a foreground run nobody watches live.
	LazySpool bool
	// Sandbox confines the shell and all it starts (nil: nothing does).
	Sandbox *sandbox.Plan `json:",omitempty"`
}

// job is a running shell command and its process tree. Its owner (the
// supervisor that started it) is a child subreaper with no other
// children, so every descendant stays a descendant of the owner until it
// dies, and every child of the owner is the job's.
type job struct {
	spec     jobSpec
	shell    *proctree.Child
	pid      int
	started  time.Time
	capture  *capture
	mainDone <-chan struct{}
	// sandbox is what the kernel took of the plan.
	sandbox *sandbox.Applied
}

// startJob starts the shell with stdin on /dev/null and stdout and stderr
// on one pipe.
func startJob(spec jobSpec) (*job, error) {
	_ = proctree.BecomeSubreaper() // without it, only the tree under the shell is reachable
	proctree.DefaultSignals()
	proctree.CloseInheritedFDs()
	r, w, err := proctree.BlockingPipe()
	if err != nil {
		return nil, err
	}
	capture, err := newCapture(r, spec.SpoolPath, spec.SpoolCap, spec.LazySpool)
	if err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	proctree.GrowPipe(r, pipeBufferSize)
	stdin, feed, err := spec.stdin()
	if err != nil {
		r.Close()
		w.Close()
		capture.closeSpoolLocked()
		return nil, err
	}
	path, argv := spec.Shell, spec.argv()
	if wrapped := sandbox.Wrap(spec.Sandbox, append([]string{spec.Shell}, argv[1:]...)); wrapped[0] != spec.Shell {
		path, argv = wrapped[0], wrapped // macOS: sandbox-exec runs the shell
	}
	var shell *proctree.Child
	// The sandbox confines the thread that starts the shell, and the
	// shell with all it starts; the rest of this process stays free to
	// write the output and the exit record.
	applied, release, err := sandbox.Start(spec.Sandbox, func() error {
		var err error
		shell, err = proctree.Start(proctree.Spec{
			Path:  path,
			Args:  argv,
			Dir:   spec.Dir,
			Env:   append(slices.Clip(spec.Env), jobMarkerVar+"="+spec.ID),
			Files: []*os.File{stdin, w, w},
			Sys:   proctree.SessionAttr(),
		})
		return err
	})
	w.Close()
	feed(err == nil)
	if err != nil {
		r.Close()
		capture.closeSpoolLocked()
		return nil, err
	}
	go func() {
		<-shell.Done()
		release() // the shell's parent-death signal is tied to that thread
	}()
	j := &job{
		spec: spec, shell: shell, pid: shell.PID, started: time.Now(),
		capture: capture, mainDone: shell.Done(),
	}
	if spec.Sandbox != nil {
		j.sandbox = &applied
	}
	go j.capture.run()
	return j, nil
}

// exit is the main process's exit code and, when a signal killed it, the
// signal's name. Call it after mainDone.
func (j *job) exit() (int, string) {
	return j.shell.Exit()
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
func (j *job) members() []proctree.Proc {
	if live, ok := proctree.TreeMembers(j.pid); ok {
		return live // the platform knows the tree (a Job Object, a session)
	}
	var roots []int
	select {
	case <-j.mainDone:
		if !proctree.HasChildren() {
			return nil // the common end: the shell left nothing behind
		}
	default:
		roots = append(roots, j.pid) // where Children cannot see it
	}
	self := os.Getpid()
	roots = append(roots, proctree.Children(self)...)
	var live []proctree.Proc
	seen := map[int]bool{}
	for len(roots) > 0 {
		pid := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		p, ok := proctree.Read(pid)
		if !ok {
			continue
		}
		roots = append(roots, proctree.Children(pid)...)
		if p.Dead() {
			if p.PPID == self && pid != j.pid {
				proctree.Reap(pid) // the shell is reaped by cmd.Wait
			}
			continue
		}
		live = append(live, p)
	}
	return live
}

// stopTree ends every process of the job (see proctree.Stop).
func (j *job) stopTree(grace time.Duration) []proctree.Ref {
	return proctree.Stop(j.members, grace)
}
