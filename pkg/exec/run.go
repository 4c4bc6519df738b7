package exec

import (
	"time"

	"github.com/mcode-dev/mcode/pkg/proctree"
)

// stopRequest asks a running job to end.
type stopRequest struct {
	Status string        // StatusStopped or StatusTimedOut
	Reason string        // said in the result
	Limit  time.Duration // for a time-out: the limit that ran out
}

// record is how a run ended. The owner writes it to the task's exit file
// and sends it to the caller.
type record struct {
	Status   string `json:"status"`
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// LimitS is the time limit that ran out (timed_out only).
	LimitS    float64        `json:"limit_s,omitempty"`
	StartedAt time.Time      `json:"started_at"`
	EndedAt   time.Time      `json:"ended_at"`
	Leftovers []proctree.Ref `json:"leftovers"`
	Kept      bool           `json:"leftovers_kept"`
	Survivors []proctree.Ref `json:"survivors"`
	Output    outputStats    `json:"output"`
}

// Limit is the limit that ran out.
func (r record) Limit() time.Duration { return time.Duration(r.LimitS * float64(time.Second)) }

// control is how the owner steers a job.
type control struct {
	limit time.Duration // stops the main process (0: never)
	stop  <-chan stopRequest
	// keepChildren keeps leftovers running as the task after the main
	// process exits, under leftoverLimit; onKept is told when that starts.
	keepChildren  bool
	leftoverLimit time.Duration
	onKept        func(record)
}

const (
	// leftoverPoll is how often kept leftovers are checked.
	leftoverPoll = 250 * time.Millisecond
	// settleLimit bounds the wait for the main process's last output
	// before the record of kept leftovers is sent.
	settleLimit = 200 * time.Millisecond
)

// drive runs the job to its end. It returns when the main process exits
// (not when the output pipe closes): leftovers are then killed, or kept
// running until they finish when keepChildren is set. A time-out or a stop
// request ends the whole tree.
func (j *job) drive(ctl control) record {
	rec := record{StartedAt: j.started, Status: StatusExited}
	var timeout <-chan time.Time
	if ctl.limit > 0 {
		t := time.NewTimer(ctl.limit)
		defer t.Stop()
		timeout = t.C
	}
	var req *stopRequest
	select {
	case <-j.mainDone:
	case <-timeout:
		req = &stopRequest{Status: StatusTimedOut, Reason: "time limit", Limit: ctl.limit}
	case r := <-ctl.stop:
		req = &r
	}
	if req != nil {
		rec.Survivors = j.stopTree(KillGrace)
		rec.apply(*req)
		j.waitMain(reapWait)
	}
	select {
	case <-j.mainDone:
		code, sig := j.exit()
		if rec.Status != StatusTimedOut {
			rec.ExitCode, rec.Signal = code, sig
		}
	default:
		rec.ExitCode, rec.Signal = 128+9, "SIGKILL" // stuck; reported among the survivors
	}
	if req == nil {
		if left := j.members(); len(left) > 0 {
			rec.Leftovers = proctree.Refs(left)
			if ctl.keepChildren {
				rec.Kept = true
				if ctl.onKept != nil {
					j.capture.settle(settleLimit)
					j.capture.materialize() // the task outlives the call
					snapshot := rec
					snapshot.Output = j.capture.stats()
					ctl.onKept(snapshot)
				}
				rec.Survivors = j.waitLeftovers(ctl, &rec)
			} else {
				rec.Survivors = j.stopTree(KillGrace)
			}
		}
	}
	j.capture.finish(drainAfterExit)
	rec.Output = j.capture.stats()
	rec.EndedAt = time.Now()
	return rec
}

func (r *record) apply(req stopRequest) {
	r.Status, r.Reason = req.Status, req.Reason
	if req.Status == StatusTimedOut {
		r.ExitCode = ExitTimeout
		r.LimitS = req.Limit.Seconds()
	}
}

// waitLeftovers lets kept leftovers run until they are all gone, the
// watchdog fires or a stop comes.
func (j *job) waitLeftovers(ctl control, rec *record) []proctree.Ref {
	var watchdog <-chan time.Time
	if ctl.leftoverLimit > 0 {
		t := time.NewTimer(ctl.leftoverLimit)
		defer t.Stop()
		watchdog = t.C
	}
	tick := time.NewTicker(leftoverPoll)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if len(j.members()) == 0 {
				return nil
			}
		case <-watchdog:
			rec.apply(stopRequest{Status: StatusTimedOut, Reason: "watchdog", Limit: ctl.leftoverLimit})
			return j.stopTree(KillGrace)
		case r := <-ctl.stop:
			rec.apply(r)
			return j.stopTree(KillGrace)
		}
	}
}
