// Package proctree finds and ends trees of processes: a command's own
// session or process group, the descendants of a process found through
// /proc, and the TERM → grace → KILL sequence that ends them. bash,
// MCP stdio servers, hooks and command tools all start processes that
// must never outlive the call that started them.
package proctree

import (
	"os/exec"
	"slices"
	"time"
)

// KillRounds bounds the SIGKILL sweeps against a tree that keeps forking.
const KillRounds = 50

// Ref names a process in a result.
type Ref struct {
	PID     int    `json:"pid"`
	Command string `json:"command"`
}

// Refs names processes, sorted by pid; nil for none.
func Refs(ps []Proc) []Ref {
	if len(ps) == 0 {
		return nil
	}
	out := make([]Ref, len(ps))
	for i, p := range ps {
		out[i] = Ref{PID: p.PID, Command: p.Comm}
	}
	slices.SortFunc(out, func(a, b Ref) int { return a.PID - b.PID })
	return out
}

// Stop ends every process members lists: SIGTERM to each (and SIGCONT,
// so a stopped one can act on it), up to grace for trap handlers to run,
// then SIGKILL until nothing is left. It returns the processes that
// outlived even SIGKILL (stuck in the kernel), which results report by
// pid.
func Stop(members func() []Proc, grace time.Duration) []Ref {
	if !keepsOrphans {
		members = remembering(members)
	}
	for _, p := range members() {
		Terminate(p.PID)
	}
	deadline := time.Now().Add(grace)
	for pause := 5 * time.Millisecond; time.Now().Before(deadline); pause = min(2*pause, 100*time.Millisecond) {
		if len(members()) == 0 {
			return nil
		}
		time.Sleep(min(pause, time.Until(deadline)))
	}
	for round := 0; round < KillRounds; round++ {
		m := members()
		if len(m) == 0 {
			return nil
		}
		for _, p := range m {
			ForceKill(p.PID)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return Refs(members())
}

// remembering sweeps, besides what members lists, every process it ever
// listed that still lives: where no subreaper holds a tree together, a
// process whose parent was killed first leaves the parent's tree, and only
// this memory still finds it. A process is known by its pid and start
// time, so a reused pid is never taken for it.
func remembering(members func() []Proc) func() []Proc {
	seen := map[int]uint64{}
	return func() []Proc {
		live := members()
		listed := make(map[int]bool, len(live))
		for _, p := range live {
			listed[p.PID] = true
			seen[p.PID] = p.Start
		}
		for pid, start := range seen {
			if listed[pid] {
				continue
			}
			if p, ok := Read(pid); ok && !p.Dead() && p.Start == start {
				live = append(live, p)
			} else {
				delete(seen, pid)
			}
		}
		return live
	}
}

// Descendants lists the living processes below pid and, while it lives,
// pid itself.
func Descendants(pid int) []Proc {
	var live []Proc
	seen := map[int]bool{}
	stack := []int{pid}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[p] {
			continue
		}
		seen[p] = true
		info, ok := Read(p)
		if !ok {
			continue
		}
		stack = append(stack, Children(p)...)
		if !info.Dead() {
			live = append(live, info)
		}
	}
	return live
}

// Marked lists the living processes that carry marker (KEY=VALUE) in
// their environment and started no earlier than since (the start time of
// the call's first process): what is left of a call whose processes left
// its tree and group (setsid, a double fork). Older processes are
// skipped without reading their environment.
func Marked(marker string, since uint64) []Proc {
	var out []Proc
	for _, pid := range AllPIDs() {
		if p, ok := Read(pid); ok && !p.Dead() && p.Start >= since && HasEnv(pid, marker) {
			out = append(out, p)
		}
	}
	return out
}

// StartGroup starts cmd as the leader of a process group of its own that
// dies with this process (Pdeathsig on Linux, a Job Object on Windows), for a helper process (an
// MCP server, a hook, a command tool) that must end with its call.
func StartGroup(cmd *exec.Cmd) error {
	cmd.SysProcAttr = GroupAttr()
	if err := cmd.Start(); err != nil {
		return err
	}
	return containStarted(cmd)
}

// StopGroup ends a process started with StartGroup and everything it
// started: its descendants and the members of its process group (a child
// that was re-parented stays in the group). Call it before cmd.Wait
// returns, while the pid still names the leader.
func StopGroup(pid int, grace time.Duration) []Ref {
	return Stop(func() []Proc { return groupMembers(pid) }, grace)
}

// StopReapedGroup ends what is left of the process group of a leader
// that already exited and was reaped (its pid may name another process
// by now; its group id cannot, while a member lives).
func StopReapedGroup(pgid int, grace time.Duration) []Ref {
	return Stop(func() []Proc { return groupOnly(pgid) }, grace)
}
