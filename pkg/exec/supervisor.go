package exec

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	ossignal "os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcode-dev/mcode/pkg/tool"

	"github.com/mcode-dev/mcode/pkg/proctree"
	"github.com/mcode-dev/mcode/pkg/sandbox"
)

// SupervisorArg is the hidden first argument that makes mcode a task
// supervisor: `mcode __exec-supervisor [TASKDIR]` (the folder, when known
// at the start, only names the task for ps; the spec carries it). cmd/
// starts the process (its hidden commands) before anything else: no
// command tree, no config; Supervise is its work.
const SupervisorArg = "__exec-supervisor"

// A supervisor is a detached mcode process that owns one command's process
// tree: it is the tree's subreaper, captures its output to the task
// folder, enforces its limits and writes its exit record. Because it, not
// the calling mcode, is the shell's parent, a foreground call can return a
// task id and exit while the command keeps running, without a restart.
//
// The caller talks to it over two pipes. Its stdin carries the spec (one
// JSON line) and then commands: "detach" (the caller is leaving; carry
// on), "stop" and "timeout" (end the tree now), "spool" (make the output
// file now: the run is about to become a task; answered by "spooled"), and
// "taken" (the caller has the record of a foreground run, which then needs
// no exit file). EOF
// before "detach" means the caller died, and the tree is stopped with it.
// File descriptor 3 carries events back, one JSON line each: started,
// failed, kept (the main process exited and its leftovers are kept
// running) and done. Its stderr is the events pipe too (the caller keeps
// what is not an event, for when the supervisor fails) until it may
// outlive the caller: a task, or a caller gone; it is then the task's
// supervisor.log, a file that a foreground run never makes.

// supervisorSpec is the first line a supervisor reads.
type supervisorSpec struct {
	// Dir is the task folder.
	Dir           string        `json:"dir"`
	Job           jobSpec       `json:"job"`
	Limit         time.Duration `json:"limit"`
	KeepChildren  bool          `json:"keep_children"`
	LeftoverLimit time.Duration `json:"leftover_limit"`
	// Detached: nobody waits for this run (explicit background).
	Detached bool `json:"detached"`
}

// event is one line from a supervisor.
type event struct {
	Event  string  `json:"event"`
	PID    int     `json:"pid,omitempty"`
	Error  string  `json:"error,omitempty"`
	Record *record `json:"record,omitempty"`
	// Sandbox is what the kernel took of the plan (started).
	Sandbox *sandbox.Applied `json:"sandbox,omitempty"`
}

// Supervisor control commands and events.
const (
	cmdDetach  = "detach"
	cmdStop    = "stop"
	cmdTimeout = "timeout"
	cmdTaken   = "taken"
	cmdSpool   = "spool"

	evStarted = "started"
	evFailed  = "failed"
	evKept    = "kept"
	evDone    = "done"
	evSpooled = "spooled"
)

// SupervisorIO are a supervisor's streams: the control pipe the caller
// writes commands to, the events pipe it reads, and stderr for what no
// caller will read.
type SupervisorIO struct {
	Control io.Reader
	Events  io.Writer
	Stderr  io.Writer
}

// SupervisorStreams are the streams of a supervisor process as the caller
// started it: stdin is the control pipe and fd 3 the events pipe.
func SupervisorStreams() SupervisorIO {
	// exec leaves fd 3 open: without close-on-exec the command would
	// inherit the events pipe (InheritedFile sets it).
	return SupervisorIO{Control: os.Stdin, Events: proctree.InheritedFile(3, "events"), Stderr: os.Stderr}
}

// Supervise is the work of a supervisor process: it reads the spec and
// the commands from sio.Control, runs the command and reports on
// sio.Events. It returns the process exit status.
func Supervise(sio SupervisorIO) int {
	var sendMu sync.Mutex
	send := func(ev event) {
		data, _ := json.Marshal(ev)
		sendMu.Lock()
		defer sendMu.Unlock()
		_, _ = sio.Events.Write(append(data, '\n')) // the caller may be gone: EPIPE is fine
	}
	ctl := bufio.NewReader(sio.Control)
	line, err := ctl.ReadBytes('\n')
	if len(line) == 0 && errors.Is(err, io.EOF) {
		return 0 // a spare whose call never came (see StartSpare)
	}
	var spec supervisorSpec
	if err == nil {
		err = json.Unmarshal(line, &spec)
	}
	if err == nil && spec.Dir == "" {
		err = errors.New("the spec names no task folder")
	}
	if err != nil {
		send(event{Event: evFailed, Error: "reading the spec: " + err.Error()})
		return 1
	}
	// The supervisor is its own session; only task stop (SIGTERM) and the
	// control pipe end it. SIGHUP and SIGINT belong to terminals it left:
	// they are caught and dropped, never ignored, because an ignored signal
	// would stay ignored in the command.
	ossignal.Notify(make(chan os.Signal, 1), syscall.SIGHUP, syscall.SIGINT)
	term := make(chan os.Signal, 1)
	ossignal.Notify(term, syscall.SIGTERM)

	logPath := filepath.Join(spec.Dir, supervisorLog)
	logged := sync.OnceFunc(func() {
		if err := logTo(logPath); err != nil {
			fmt.Fprintf(sio.Stderr, "%v\n", err)
		}
	})
	if spec.Detached {
		logged()
	}
	j, err := startJob(spec.Job)
	if err != nil {
		send(event{Event: evFailed, Error: err.Error()})
		return 1
	}
	send(event{Event: evStarted, PID: j.pid, Sandbox: j.sandbox})

	var detached, taken atomic.Bool
	detached.Store(spec.Detached)
	stop := make(chan stopRequest, 4)
	hungUp := make(chan struct{})
	go func() {
		defer close(hungUp)
		for {
			line, err := ctl.ReadString('\n')
			switch strings.TrimSpace(line) {
			case cmdDetach:
				logged()
				detached.Store(true)
			case cmdTaken:
				taken.Store(true)
			case cmdSpool:
				j.capture.materialize()
				send(event{Event: evSpooled})
			case cmdStop:
				stop <- stopRequest{Status: StatusStopped, Reason: "mcode was interrupted"}
			case cmdTimeout:
				stop <- stopRequest{Status: StatusTimedOut, Reason: "the call's deadline passed", Limit: time.Since(j.started).Round(time.Second)}
			}
			if err != nil {
				if !taken.Load() {
					logged() // the caller is gone
				}
				if !detached.Load() && !taken.Load() {
					select {
					case stop <- stopRequest{Status: StatusStopped, Reason: "mcode exited before the command finished"}:
					default: // the run is over: nobody reads stop any more
					}
				}
				return
			}
		}
	}()
	go func() {
		for range term {
			stop <- stopRequest{Status: StatusStopped, Reason: "stopped by mcode task stop"}
		}
	}()
	rec := j.drive(control{
		limit: spec.Limit, stop: stop,
		keepChildren: spec.KeepChildren, leftoverLimit: spec.LeftoverLimit,
		onKept: func(r record) {
			logged()
			send(event{Event: evKept, Record: &r})
		},
	})
	record := func(durable bool) {
		if err := writeRecord(spec.Dir, rec, durable); err != nil {
			logged()
			fmt.Fprintf(sio.Stderr, "writing the exit record: %v\n", err)
		}
	}
	if detached.Load() || rec.Kept {
		// A task: its record must be on disk before anyone hears of it.
		record(true)
		send(event{Event: evDone, Record: &rec})
		return 0
	}
	// A foreground run: the caller hears of its end first, and the exit
	// file is written only if the caller does not take the record (it
	// died, gave up, or handed the task over at this very moment).
	send(event{Event: evDone, Record: &rec})
	select {
	case <-hungUp:
	case <-time.After(takenWait):
	}
	if !taken.Load() {
		record(detached.Load())
	}
	return 0
}

// takenWait bounds a supervisor's wait for its caller to take the record
// of a foreground run; a caller that has not answered by then finds the
// exit file.
const takenWait = 5 * time.Second

// logTo makes path this process's stdout and stderr (a panic of the Go
// runtime goes to fd 2 too).
func logTo(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := proctree.StdioTo(f); err != nil {
		return fmt.Errorf("logging to %s: %w", path, err)
	}
	return nil
}

// supervisor is the caller's handle on a supervisor it started.
type supervisor struct {
	pid int
	exe string
	// spare: started by StartSpare, whose release reaps it once its run
	// is over (taken), after the response is out.
	spare  bool
	taken  atomic.Bool
	ctl    *os.File
	events chan event
	exited <-chan struct{}
	// said is the end of what it wrote that is not an event (a panic).
	saidMu sync.Mutex
	said   []string
	dir    string // set with the spec
	// startTime reads the supervisor's start time, which names it in
	// meta.json even after its pid is reused, when meta.json is written.
	startTime func() uint64
}

// supervisorExitWait bounds the wait for a supervisor that has sent its
// record to exit, so that it is reaped here (its resource use then counts
// as this call's) rather than by whoever inherits it. It only ever waits
// for an exit already under way: a longer wait would only add latency on a
// loaded machine.
const supervisorExitWait = 50 * time.Millisecond

// reaped waits for a supervisor that has finished to exit.
func (s *supervisor) reaped() {
	select {
	case <-s.exited:
	case <-time.After(supervisorExitWait):
	}
}

// supervisorEnv is a supervisor's own environment: what the Go runtime
// reads, and the time zone of the times it records. The command's
// environment comes with the spec, so a supervisor can start before it is
// known, and a long-lived one holds no credentials of its own.
func supervisorEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GODEBUG", "GOGC", "GOMEMLIMIT", "GOMAXPROCS", "GOTRACEBACK", "GOCOVERDIR", "TZ":
			env = append(env, kv)
		}
	}
	return env
}

// startSupervisor starts `mcode __exec-supervisor [DIR]` detached; it
// waits for its spec (send).
func startSupervisor(exe, dir string) (*supervisor, error) {
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, err
	}
	// argv[0] is mcode whatever the file is called (test binaries dispatch
	// on it).
	args := []string{"mcode", SupervisorArg}
	if dir != "" {
		args = append(args, dir)
	}
	child, err := proctree.Start(proctree.Spec{
		Path: exe, Args: args, Env: supervisorEnv(),
		Files: []*os.File{ctlR, nil, evW, evW},
		Sys:   proctree.DetachedAttr(),
	})
	ctlR.Close()
	evW.Close()
	if err != nil {
		ctlW.Close()
		evR.Close()
		return nil, fmt.Errorf("starting the supervisor %s: %w", exe, err)
	}
	// It is reaped if it ends while this process lives.
	s := &supervisor{pid: child.PID, exe: exe, ctl: ctlW, events: make(chan event, 4), exited: child.Done()}
	s.startTime = sync.OnceValue(func() uint64 {
		p, _ := proctree.Read(child.PID)
		return p.Start
	})
	go func() {
		defer close(s.events)
		defer evR.Close()
		sc := bufio.NewScanner(evR)
		sc.Buffer(make([]byte, 4<<10), 1<<20)
		for sc.Scan() {
			var ev event
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Event != "" {
				s.events <- ev
				continue
			}
			s.saidMu.Lock()
			s.said = append(s.said[max(0, len(s.said)-4):], sc.Text())
			s.saidMu.Unlock()
		}
	}()
	return s, nil
}

// start sends the spec: the supervisor starts the command.
func (s *supervisor) start(spec supervisorSpec) error {
	s.dir = spec.Dir
	line, err := json.Marshal(spec)
	if err == nil {
		_, err = s.ctl.Write(append(line, '\n'))
	}
	if err != nil {
		s.ctl.Close()
		return fmt.Errorf("sending the spec to the supervisor: %w", err)
	}
	return nil
}

// A spare is a supervisor started before the call that needs it is
// parsed: its start, a whole mcode process start, then runs while this
// process builds its command tree, reads its config and checks the call,
// instead of after. At most one waits; the first bash call takes it.
var spare struct {
	sync.Mutex
	s *supervisor
}

// StartSpare starts a spare supervisor of the mcode binary exe for the
// bash call this process is about to make. The returned func ends it if
// no call took it (it exits quietly when its control pipe closes without
// a spec, as it does when this process dies).
func StartSpare(exe string) (release func()) {
	s, err := startSupervisor(exe, "")
	if err != nil {
		return func() {}
	}
	s.spare = true
	spare.Lock()
	old := spare.s
	spare.s = s
	spare.Unlock()
	if old != nil {
		old.ctl.Close()
	}
	return func() {
		spare.Lock()
		unused := spare.s == s
		if unused {
			spare.s = nil
		}
		spare.Unlock()
		switch {
		case unused:
			s.ctl.Close()
		case s.taken.Load():
			s.reaped()
		}
	}
}

// takeSpare hands over the spare supervisor of exe, if there is one.
func takeSpare(exe string) *supervisor {
	spare.Lock()
	defer spare.Unlock()
	s := spare.s
	if s == nil || s.exe != exe {
		return nil
	}
	spare.s = nil
	return s
}

// launch starts the run's supervisor: the spare when there is one that
// takes the spec, else a new one.
func (o Options) launch(spec supervisorSpec) (*supervisor, error) {
	exe, err := o.executable()
	if err != nil {
		return nil, fmt.Errorf("finding the mcode binary: %w", err)
	}
	if s := takeSpare(exe); s != nil {
		if s.start(spec) == nil {
			return s, nil
		}
		// It died before its call came: start another.
	}
	s, err := startSupervisor(exe, spec.Dir)
	if err != nil {
		return nil, err
	}
	if err := s.start(spec); err != nil {
		return nil, err
	}
	return s, nil
}

// writeMeta records the task, naming its supervisor (read only now: a
// foreground call that ends in time never needs it, and reading another
// process's /proc entry costs the kernel work when it is reaped).
func (s *supervisor) writeMeta(m taskMeta) error {
	m.SupervisorStart = s.startTime()
	return writeMeta(s.dir, m)
}

// send writes one control command; a supervisor that is gone is ignored.
func (s *supervisor) send(command string) {
	_, _ = io.WriteString(s.ctl, command+"\n")
}

// detach lets the supervisor carry on alone.
func (s *supervisor) detach() {
	s.send(cmdDetach)
	s.ctl.Close()
}

// take tells the supervisor of a foreground run that its record has
// arrived: it exits without writing the exit file.
func (s *supervisor) take() {
	s.send(cmdTaken)
	s.ctl.Close()
	s.taken.Store(true)
}

// failure explains a supervisor that ended without a record.
func (s *supervisor) failure(ev event) error {
	msg := ev.Error
	if msg == "" {
		s.saidMu.Lock()
		said := strings.TrimSpace(strings.Join(s.said, "\n"))
		s.saidMu.Unlock()
		if s.dir != "" {
			data, _ := os.ReadFile(filepath.Join(s.dir, supervisorLog))
			said = strings.TrimSpace(said + "\n" + string(data))
		}
		msg = "the supervisor exited without a result"
		if said != "" {
			msg += ": " + lastLines(said, 5)
		}
	}
	return fmt.Errorf("%s", msg)
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// stopWait bounds the wait for a supervisor's record after a stop.
const stopWait = KillGrace + 5*time.Second

// runSupervised runs the command under a supervisor: explicit background
// calls return its task id at once; managed foreground calls wait for the
// result until autoAfter, then hand the task over.
func (o Options) runSupervised(ctx context.Context, rs *runSetup) (*tool.Response, error) {
	pl := rs.plan
	spec := supervisorSpec{
		Dir: rs.taskDir, Job: rs.job, Limit: pl.limit, KeepChildren: pl.keepChildren,
		LeftoverLimit: pl.leftoverLimit, Detached: pl.invocation == ExplicitBackground,
	}
	s, err := o.launch(spec)
	if err != nil {
		removeTaskDir(rs.taskDir)
		return nil, startError(rs, err)
	}
	ev, ok := <-s.events
	if !ok || ev.Event != evStarted {
		err := s.failure(ev)
		removeTaskDir(rs.taskDir)
		return nil, startError(rs, err)
	}
	rs.result.PID = ev.PID
	rs.result.Sandbox = rs.sandbox.status(ev.Sandbox)
	meta := taskMeta{
		ID: rs.job.ID, Command: rs.job.Command, Cwd: rs.job.Dir, Shell: rs.job.Shell,
		Invocation: pl.invocation, PID: ev.PID, SupervisorPID: s.pid,
		StartedAt: time.Now(), TimeoutS: pl.limit.Seconds(),
		EnvSanitize: rs.result.EnvSanitize, EnvRemoved: rs.result.EnvRemoved,
	}
	if pl.invocation == ExplicitBackground {
		meta.Background, meta.Kind = true, KindBackground
		if err := s.writeMeta(meta); err != nil {
			s.send(cmdStop)
			return nil, fmt.Errorf("recording the task: %w", err)
		}
		s.ctl.Close()
		gcTasks(rs.env.DataDir, time.Now())
		return rs.background(meta, nil), nil
	}

	stopLive := func() {}
	if rs.env.Live != nil {
		stopLive = sync.OnceFunc(showLive(rs.job.SpoolPath, rs.env.Live))
		defer stopLive()
	}
	// settle handles an event that may end the call; done is false for
	// events that do not.
	settle := func(ev event, ok bool) (resp *tool.Response, err error, done bool) {
		if ev.Event == evDone || ev.Event == evKept {
			stopLive() // before the output file may go
		}
		switch {
		case !ok || ev.Event == evFailed:
			return nil, fmt.Errorf("task %s: %w", rs.job.ID, s.failure(ev)), true
		case ev.Event == evKept:
			meta.Background, meta.Kind = true, KindLeftovers
			if err := s.writeMeta(meta); err != nil {
				s.send(cmdStop)
				return nil, fmt.Errorf("recording the task: %w", err), true
			}
			s.detach()
			resp, err := rs.keptLeftovers(meta, *ev.Record)
			return resp, err, true
		case ev.Event == evDone:
			s.take()
			resp, err := rs.finish(*ev.Record, fileView(rs.job.SpoolPath, &ev.Record.Output))
			if !s.spare {
				s.reaped() // else its exit overlaps the rest of the call (StartSpare)
			}
			return resp, err, true
		}
		return nil, nil, false
	}
	var auto <-chan time.Time
	if pl.autoAfter > 0 {
		t := time.NewTimer(pl.autoAfter)
		defer t.Stop()
		auto = t.C
	}
	for {
		select {
		case ev, ok := <-s.events:
			if resp, err, done := settle(ev, ok); done {
				return resp, err
			}
		case <-auto:
			select {
			case ev, ok := <-s.events: // it may have ended just now
				if resp, err, done := settle(ev, ok); done {
					return resp, err
				}
			default:
			}
			// Its output so far goes to its file before the response and
			// task output read it there.
			s.send(cmdSpool)
			if resp, err, done := s.awaitSpooled(settle); done {
				return resp, err
			}
			meta.Background, meta.Kind = true, KindAuto
			if err := s.writeMeta(meta); err != nil {
				auto = nil // keep waiting in the foreground
				rs.note("could not hand the command to the background (%v); waited for it instead", err)
				continue
			}
			s.detach()
			gcTasks(rs.env.DataDir, time.Now())
			return rs.background(meta, &pl.autoAfter), &tool.Error{Code: tool.CodeBackgrounded,
				Message: fmt.Sprintf("still running after %s: moved to background task %s, so there is no exit status yet", seconds(pl.autoAfter), meta.ID),
				Hint:    fmt.Sprintf("`mcode task wait %[1]s` waits for it and exits with the command's status; `mcode task output %[1]s` shows what is new; under CI, or with bash.autoBackgroundAfter: 0, a foreground call waits for its command", meta.ID)}
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				s.send(cmdTimeout) // the call's own deadline: a time-out
			} else {
				s.send(cmdStop)
			}
			giveUp := time.NewTimer(stopWait)
			defer giveUp.Stop()
			for {
				select {
				case ev, ok := <-s.events:
					if resp, err, done := settle(ev, ok); done {
						return resp, err
					}
				case <-giveUp.C:
					meta.Background, meta.Kind = true, KindAuto // so task stop can reach it
					_ = s.writeMeta(meta)
					return nil, &tool.Error{Code: tool.CodeInterrupted,
						Message: fmt.Sprintf("command told to stop, but its supervisor (pid %d) has not confirmed it after %s", meta.SupervisorPID, stopWait),
						Hint:    fmt.Sprintf("end it with mcode task stop %s", meta.ID)}
				}
			}
		}
	}
}

// spoolWait bounds the wait for a supervisor to make the output file.
const spoolWait = 2 * time.Second

// awaitSpooled waits for the answer to "spool"; an event that ends the
// call on the way is settled instead.
func (s *supervisor) awaitSpooled(settle func(event, bool) (*tool.Response, error, bool)) (*tool.Response, error, bool) {
	limit := time.NewTimer(spoolWait)
	defer limit.Stop()
	for {
		select {
		case ev, ok := <-s.events:
			if ok && ev.Event == evSpooled {
				return nil, nil, false
			}
			if resp, err, done := settle(ev, ok); done {
				return resp, err, true
			}
		case <-limit.C:
			return nil, nil, false
		}
	}
}

// livePoll is how often the output file is read for a person watching.
const livePoll = 50 * time.Millisecond

// showLive copies what the command writes to its output file to w as it
// comes, until the returned stop is called (which copies the rest).
func showLive(path string, w io.Writer) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var f *os.File
		defer func() {
			if f != nil {
				f.Close()
			}
		}()
		buf := make([]byte, 64<<10)
		drain := func() {
			if f == nil {
				var err error
				if f, err = os.Open(path); err != nil {
					return
				}
			}
			for {
				n, err := f.Read(buf)
				if n > 0 {
					_, _ = w.Write(buf[:n])
				}
				if err != nil || n == 0 {
					return
				}
			}
		}
		tick := time.NewTicker(livePoll)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				drain()
			case <-done:
				drain()
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// background is the response of a call that left a task running.
func (rs *runSetup) background(meta taskMeta, after *time.Duration) *tool.Response {
	r := &rs.result
	r.Status, r.TaskID = StatusRunning, meta.ID
	resp := &tool.Response{Result: r}
	follow := fmt.Sprintf("\nFollow it with `mcode task output %[1]s` (add --wait S to wait for it), `mcode task wait %[1]s`, or end it with `mcode task stop %[1]s`.", meta.ID)
	if after == nil {
		resp.Output, resp.Notices = withNotices(fmt.Sprintf("Started background task %s (pid %d): %s\n", meta.ID, meta.PID, oneLine(meta.Command, commandShown))+follow, r.Notes)
		return resp
	}
	head := fmt.Sprintf("Still running after %s: moved to background task %s (pid %d) without restarting it; its time limit of %s still applies.\n\nOutput so far:\n",
		seconds(*after), meta.ID, meta.PID, seconds(rs.plan.limit))
	view := fileView(rs.job.SpoolPath, nil)
	text, truncated := renderOutput(view, OutputCap-len(head)-len("\n")-len(follow)-len(withNotes("", r.Notes)))
	r.Bytes, r.Lines = view.Bytes, view.Lines
	if truncated {
		r.FullOutputPath = view.Path
		resp.Truncated = true
		resp.Continuation = &tool.Continuation{FullOutputPath: view.Path, Hint: readSpoolHint(view.Path)}
	}
	resp.Output, resp.Notices = withNotices(head+strings.TrimRight(text, "\n")+"\n"+follow, r.Notes)
	return resp
}

// keptLeftovers is the response of a call whose main process exited while
// the processes it left are kept running as a task.
func (rs *runSetup) keptLeftovers(meta taskMeta, rec record) (*tool.Response, error) {
	rs.result.TaskID = meta.ID
	rs.result.LeftoversAction = "kept"
	rs.note("%s still running when the command exited, kept as background task %s (%s): follow it with `mcode task output %s`, end it with `mcode task stop %s`",
		plural(len(rec.Leftovers), "process", "processes"), meta.ID, describe(rec.Leftovers), meta.ID, meta.ID)
	return rs.finish(rec, fileView(rs.job.SpoolPath, &rec.Output))
}
