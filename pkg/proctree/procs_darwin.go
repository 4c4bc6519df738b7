package proctree

import (
	"bytes"
	"os"

	"golang.org/x/sys/unix"
)

// The process table comes from sysctl kern.proc, one call for all of it:
// macOS has no /proc.

// szomb is p_stat of a zombie (sys/proc.h).
const szomb = 5

// entry is one process of the table, with its process group.
type entry struct {
	Proc
	pgid int
}

func fromKinfo(k *unix.KinfoProc) entry {
	comm := k.Proc.P_comm[:]
	if i := bytes.IndexByte(comm, 0); i >= 0 {
		comm = comm[:i]
	}
	state := byte('R')
	if k.Proc.P_stat == szomb {
		state = 'Z'
	}
	start := uint64(k.Proc.P_starttime.Sec)*1_000_000 + uint64(k.Proc.P_starttime.Usec)
	return entry{Proc: Proc{PID: int(k.Proc.P_pid), PPID: int(k.Eproc.Ppid), State: state, Start: start, Comm: string(comm)},
		pgid: int(k.Eproc.Pgid)}
}

// table lists every process (nil when sysctl fails).
func table() []entry {
	ks, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	out := make([]entry, 0, len(ks))
	for i := range ks {
		out = append(out, fromKinfo(&ks[i]))
	}
	return out
}

// Read reads one process; ok is false when it is gone.
func Read(pid int) (Proc, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || k.Proc.P_pid != int32(pid) {
		return Proc{}, false
	}
	e := fromKinfo(k)
	e.SID, _ = unix.Getsid(pid)
	return e.Proc, true
}

// Children lists pid's children.
func Children(pid int) []int {
	var kids []int
	for _, e := range table() {
		if e.PPID == pid && e.PID != pid {
			kids = append(kids, e.PID)
		}
	}
	return kids
}

// HasChildren says whether this process has a child, living or not.
func HasChildren() bool { return len(Children(os.Getpid())) > 0 }

// AllPIDs lists every process.
func AllPIDs() []int {
	t := table()
	pids := make([]int, len(t))
	for i, e := range t {
		pids[i] = e.PID
	}
	return pids
}

// groupOnly lists the living processes whose process group or session
// is pgid (a shell started by SessionAttr leads both; a child that left
// its group with setpgid, as a shell's job control does, stays in the
// session).
func groupOnly(pgid int) []Proc {
	var live []Proc
	for _, e := range table() {
		if e.Dead() {
			continue
		}
		if e.pgid == pgid {
			live = append(live, e.Proc)
		} else if sid, err := unix.Getsid(e.PID); err == nil && sid == pgid {
			e.SID = sid
			live = append(live, e.Proc)
		}
	}
	return live
}

// TreeMembers lists the processes of the command tree whose main process
// (a session leader started by SessionAttr) is leader, from one read of
// the process table: this process's descendants, and what is left in
// leader's session or process group after its parent died and it went to
// launchd. ok is true: this is the whole answer.
func TreeMembers(leader int) (live []Proc, ok bool) {
	self := os.Getpid()
	t := table()
	kids := map[int][]int{}
	byPID := map[int]entry{}
	for _, e := range t {
		kids[e.PPID] = append(kids[e.PPID], e.PID)
		byPID[e.PID] = e
	}
	in := map[int]bool{self: true}
	stack := append([]int(nil), kids[self]...)
	for len(stack) > 0 {
		pid := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if in[pid] {
			continue
		}
		in[pid] = true
		stack = append(stack, kids[pid]...)
	}
	for _, e := range t {
		if in[e.PID] {
			continue
		}
		if e.pgid == leader {
			in[e.PID] = true
		} else if sid, err := unix.Getsid(e.PID); err == nil && sid == leader {
			in[e.PID] = true
		}
	}
	for pid := range in {
		if e, ok := byPID[pid]; ok && pid != self && !e.Dead() {
			live = append(live, e.Proc)
		}
	}
	return live, true
}
