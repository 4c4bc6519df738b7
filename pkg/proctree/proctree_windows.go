package proctree

import (
	"errors"
	"os"
	"os/exec"
	ossignal "os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a command tree is a Job Object. A child that must end with
// its owner (SessionAttr, GroupAttr) is started suspended, put in a job
// of its own that kills every process in it when its last handle closes
// (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE), and only then let run: nothing it
// starts can be created outside the job, and the owner's death, however
// it comes, closes the handle. The job's process list is the tree.

// keepsOrphans: a job holds every process started in it.
const keepsOrphans = true

// BecomeSubreaper has nothing to do: the job keeps the tree.
func BecomeSubreaper() error { return nil }

var defaultSignalsOnce sync.Once

// DefaultSignals catches Ctrl+Break in the supervisor, which shares the
// hidden console of the command it stops with it (see Terminate).
func DefaultSignals() {
	defaultSignalsOnce.Do(func() {
		sink := make(chan os.Signal, 1)
		ossignal.Notify(sink, os.Interrupt)
		go func() {
			for range sink {
			}
		}()
	})
}

// CloseInheritedFDs has nothing to do: Windows children inherit only the
// handles named to them (os.StartProcess lists them).
func CloseInheritedFDs() {}

// StdioTo makes f this process's stdout and stderr.
func StdioTo(f *os.File) error {
	self := windows.CurrentProcess()
	var h windows.Handle
	if err := windows.DuplicateHandle(self, windows.Handle(f.Fd()), self, &h, 0, false, windows.DUPLICATE_SAME_ACCESS); err != nil {
		return os.NewSyscallError("DuplicateHandle", err)
	}
	for _, std := range []uint32{windows.STD_OUTPUT_HANDLE, windows.STD_ERROR_HANDLE} {
		if err := windows.SetStdHandle(std, h); err != nil {
			return os.NewSyscallError("SetStdHandle", err)
		}
	}
	os.Stdout = os.NewFile(uintptr(h), "stdout")
	os.Stderr = os.Stdout
	return nil
}

// contained marks a child that Start puts in a job before it runs.
const contained = windows.CREATE_SUSPENDED

// SessionAttr starts the shell suspended, to be put in its job, as the
// leader of a process group of its own (Ctrl+Break reaches the group).
func SessionAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: contained | windows.CREATE_NEW_PROCESS_GROUP, HideWindow: true}
}

// DetachedAttr starts a supervisor that outlives mcode: in no job of
// mcode's (when the job mcode runs in allows it to leave), with a hidden
// console of its own that the command shares.
func DetachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW | windows.CREATE_BREAKAWAY_FROM_JOB}
}

// GroupAttr starts a helper suspended, to be put in its job.
func GroupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: contained | windows.CREATE_NEW_PROCESS_GROUP, HideWindow: true}
}

// Proc is one process as the Toolhelp snapshot shows it.
type Proc struct {
	PID   int
	PPID  int
	SID   int // unused on Windows
	State byte
	// Start is the creation time (100 ns units since 1601): with PID, it
	// names a process even after its PID is reused.
	Start uint64
	Comm  string
}

func (p Proc) Dead() bool { return p.State == 'Z' || p.State == 'X' }

// snapshot lists every process.
func snapshot() []Proc {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil
	}
	defer windows.CloseHandle(snap)
	var out []Proc
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		out = append(out, Proc{PID: int(e.ProcessID), PPID: int(e.ParentProcessID), State: 'R', Comm: windows.UTF16ToString(e.ExeFile[:])})
	}
	return out
}

// stillActive is GetExitCodeProcess's answer for a running process.
const stillActive = 259

// Read reads one process; ok is false when it is gone.
func Read(pid int) (Proc, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
			return Proc{PID: pid, State: 'R'}, true // there, and not ours to look at
		}
		return Proc{}, false
	}
	defer windows.CloseHandle(h)
	p := Proc{PID: pid, State: 'R'}
	var code uint32
	if windows.GetExitCodeProcess(h, &code) == nil && code != stillActive {
		p.State = 'X'
	}
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(h, &created, &exited, &kernel, &user) == nil {
		p.Start = uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime)
	}
	for _, s := range snapshot() {
		if s.PID == pid {
			p.PPID, p.Comm = s.PPID, s.Comm
			break
		}
	}
	return p, true
}

// Children lists pid's children. Windows does not re-parent orphans: a
// child outlives its parent with a stale parent id, which the job, not
// this list, keeps in reach.
func Children(pid int) []int {
	var kids []int
	for _, p := range snapshot() {
		if p.PPID == pid && p.PID != pid {
			kids = append(kids, p.PID)
		}
	}
	return kids
}

// HasChildren says whether this process has a child.
func HasChildren() bool { return len(Children(os.Getpid())) > 0 }

// AllPIDs lists every process.
func AllPIDs() []int {
	var pids []int
	for _, p := range snapshot() {
		pids = append(pids, p.PID)
	}
	return pids
}

// HasEnv cannot read another process's environment: nothing matches. A
// tree whose owner died needs no finding here: its job killed it.
func HasEnv(pid int, kv string) bool { return false }

// Terminate asks a process to end: Ctrl+Break to the process group it
// leads, when it is the main process of a job started here (a console
// program's handler, like a trap, then runs). Other processes have no
// such signal: ForceKill ends them after the grace period.
func Terminate(pid int) {
	if _, ok := jobOf(pid); ok {
		_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pid))
	}
}

// ForceKill ends a process with TerminateProcess (exit status 1).
func ForceKill(pid int) {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return
	}
	defer windows.CloseHandle(h)
	_ = windows.TerminateProcess(h, 1)
}

// Reap has nothing to do: Windows leaves no zombies.
func Reap(pid int) {}

func BlockingPipe() (r, w *os.File, err error) { return os.Pipe() }

func Pause(d time.Duration) { time.Sleep(d) }

func GrowPipe(f *os.File, size int) {}

var peekNamedPipe = sync.OnceValue(func() *windows.LazyProc {
	return windows.NewLazySystemDLL("kernel32.dll").NewProc("PeekNamedPipe")
})

// peek is how many bytes wait in a pipe; err is set once the writers
// are gone (ERROR_BROKEN_PIPE) or the handle is not a pipe.
func peek(f *os.File) (int, error) {
	var avail uint32
	r, _, err := peekNamedPipe().Call(f.Fd(), 0, 0, 0, uintptr(unsafe.Pointer(&avail)), 0)
	if r == 0 {
		return 0, err
	}
	return int(avail), nil
}

// PipeUnread is how many bytes wait in a pipe to be read.
func PipeUnread(f *os.File) int {
	n, _ := peek(f)
	return n
}

// WaitReadable waits, at most timeout, until a read of f would not
// block: data, or the end of the stream. Anonymous pipes cannot be
// polled: it peeks every few milliseconds.
func WaitReadable(f *os.File, timeout time.Duration) (bool, error) {
	deadline := time.Now().Add(timeout)
	for pause := time.Millisecond; ; pause = min(2*pause, 20*time.Millisecond) {
		if n, err := peek(f); n > 0 || err != nil {
			return true, nil // data, or EOF: a read will not block
		}
		if !time.Now().Before(deadline) {
			return false, nil
		}
		time.Sleep(min(pause, time.Until(deadline)))
	}
}

// ExitOf is the exit code; Windows has no signals.
func ExitOf(ps *os.ProcessState) (code int, sig string) { return ps.ExitCode(), "" }

// handlesVar tells a child which inherited handles stand for its
// descriptors 3, 4, … (Windows passes only stdin, stdout and stderr by
// position).
const handlesVar = "MCODE_INHERITED_HANDLES"

// InheritedFile is the file the parent passed as the fd-th entry of
// Spec.Files.
func InheritedFile(fd int, name string) *os.File {
	hs := strings.Split(os.Getenv(handlesVar), ",")
	if i := fd - 3; i >= 0 && i < len(hs) {
		if h, err := strconv.ParseUint(hs[i], 10, 64); err == nil {
			return os.NewFile(uintptr(h), name)
		}
	}
	// Not passed: what is written goes nowhere, as to a closed pipe.
	f, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	return f
}

// jobs maps the pid of each contained child's main process to its job.
var jobs struct {
	sync.Mutex
	m map[int]windows.Handle
}

func jobOf(pid int) (windows.Handle, bool) {
	jobs.Lock()
	defer jobs.Unlock()
	h, ok := jobs.m[pid]
	return h, ok
}

// newJob makes a job that kills its processes when its last handle
// closes.
func newJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, os.NewSyscallError("CreateJobObject", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, os.NewSyscallError("SetInformationJobObject", err)
	}
	return job, nil
}

// contain puts the suspended process pid in a new job and lets it run.
// On failure the process is killed: it never runs uncontained.
func contain(pid int) (err error) {
	defer func() {
		if err != nil {
			ForceKill(pid)
		}
	}()
	job, err := newJob()
	if err != nil {
		return err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		windows.CloseHandle(job)
		return os.NewSyscallError("OpenProcess", err)
	}
	err = windows.AssignProcessToJobObject(job, h)
	windows.CloseHandle(h)
	if err != nil {
		windows.CloseHandle(job)
		return os.NewSyscallError("AssignProcessToJobObject", err)
	}
	jobs.Lock()
	if jobs.m == nil {
		jobs.m = map[int]windows.Handle{}
	}
	jobs.m[pid] = job
	jobs.Unlock()
	if err := resume(pid); err != nil {
		release(pid)
		return err
	}
	return nil
}

// resume lets every thread of a suspended process run (a new process has
// one). os.StartProcess keeps the thread handle to itself, so the thread
// is found through a Toolhelp snapshot.
func resume(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return os.NewSyscallError("CreateToolhelp32Snapshot", err)
	}
	defer windows.CloseHandle(snap)
	resumed := false
	var e windows.ThreadEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Thread32First(snap, &e); err == nil; err = windows.Thread32Next(snap, &e) {
		if int(e.OwnerProcessID) != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, e.ThreadID)
		if err != nil {
			return os.NewSyscallError("OpenThread", err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return os.NewSyscallError("ResumeThread", err)
		}
		resumed = true
	}
	if !resumed {
		return errors.New("resuming the new process: no thread of it found")
	}
	return nil
}

// release closes the job of pid's tree, which kills what is left in it.
func release(pid int) {
	jobs.Lock()
	job, ok := jobs.m[pid]
	delete(jobs.m, pid)
	jobs.Unlock()
	if ok {
		windows.CloseHandle(job)
	}
}

// basicProcessIDList is JOBOBJECT_BASIC_PROCESS_ID_LIST with room for
// maxJobList processes.
const maxJobList = 4096

type basicProcessIDList struct {
	Assigned uint32
	Listed   uint32
	IDs      [maxJobList]uintptr
}

// jobMembers lists the living processes of the job pid leads.
func jobMembers(pid int) ([]Proc, bool) {
	job, ok := jobOf(pid)
	if !ok {
		return nil, false
	}
	list := new(basicProcessIDList)
	if err := windows.QueryInformationJobObject(job, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(list)), uint32(unsafe.Sizeof(*list)), nil); err != nil && !errors.Is(err, windows.ERROR_MORE_DATA) {
		return nil, true
	}
	var live []Proc
	for _, id := range list.IDs[:min(list.Listed, maxJobList)] {
		if p, ok := Read(int(id)); ok && !p.Dead() {
			live = append(live, p)
		}
	}
	if len(live) == 0 {
		release(pid)
	}
	return live, true
}

// TreeMembers lists the living processes of the job whose main process
// is leader; ok is false when leader leads no job started here.
func TreeMembers(leader int) ([]Proc, bool) { return jobMembers(leader) }

// groupMembers lists the processes of the job leader leads.
func groupMembers(leader int) []Proc {
	if live, ok := jobMembers(leader); ok {
		return live
	}
	return Descendants(leader)
}

// groupOnly lists what is left of the job whose main process was pgid.
func groupOnly(pgid int) []Proc {
	live, _ := jobMembers(pgid)
	return live
}

// Start starts a program and reaps it when it exits. Files past stderr
// are inherited by handle, named to the child in handlesVar. A child
// started with SessionAttr runs in a job of its own from its first
// instruction.
func Start(s Spec) (*Child, error) {
	files, closeFiles, err := s.files()
	if err != nil {
		return nil, err
	}
	defer closeFiles()
	env := dedupEnv(s.Env)
	sys := &syscall.SysProcAttr{}
	if s.Sys != nil {
		c := *s.Sys
		sys = &c
	}
	if len(files) > 3 {
		var names []string
		for _, f := range files[3:] {
			h := syscall.Handle(f.Fd())
			if err := windows.SetHandleInformation(windows.Handle(h), windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT); err != nil {
				return nil, os.NewSyscallError("SetHandleInformation", err)
			}
			sys.AdditionalInheritedHandles = append(sys.AdditionalInheritedHandles, h)
			names = append(names, strconv.FormatUint(uint64(h), 10))
		}
		env = append(env, handlesVar+"="+strings.Join(names, ","))
		files = files[:3]
	}
	attr := &os.ProcAttr{Dir: s.Dir, Env: env, Files: files, Sys: sys}
	p, err := os.StartProcess(s.Path, s.Args, attr)
	if err != nil && sys.CreationFlags&windows.CREATE_BREAKAWAY_FROM_JOB != 0 && errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		// mcode's own job does not let children leave it.
		sys.CreationFlags &^= windows.CREATE_BREAKAWAY_FROM_JOB
		p, err = os.StartProcess(s.Path, s.Args, attr)
	}
	if err != nil {
		return nil, err
	}
	if sys.CreationFlags&contained != 0 {
		if err := contain(p.Pid); err != nil {
			_, _ = p.Wait()
			return nil, err
		}
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

// containStarted puts a command StartGroup started, suspended, in its
// job and lets it run; on failure it is killed and waited for.
func containStarted(cmd *exec.Cmd) error {
	if err := contain(cmd.Process.Pid); err != nil {
		_ = cmd.Wait()
		return err
	}
	return nil
}
