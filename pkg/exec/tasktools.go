package exec

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/textenc"
	"github.com/mcode-dev/mcode/pkg/tool"

	"github.com/mcode-dev/mcode/pkg/proctree"
)

// Names of the task tools.
const (
	TaskListName   = "task_list"
	TaskOutputName = "task_output"
	TaskWaitName   = "task_wait"
	TaskStopName   = "task_stop"
)

const (
	// DefaultTaskWait is task_wait's time limit unless --timeout says
	// otherwise; the task keeps running when it passes.
	DefaultTaskWait = 10 * time.Minute
	// MaxTaskOutputWait caps task_output's wait.
	MaxTaskOutputWait = 10 * time.Minute
	// TaskOutputTimeout is task_output's default time limit: its longest
	// wait, and time to read the output after it.
	TaskOutputTimeout = MaxTaskOutputWait + time.Minute
	// TaskToolTimeout is the default time limit of task_list and
	// task_stop (a stop waits for the supervisor, then kills by marker).
	TaskToolTimeout = time.Minute
	// pollMin and pollMax pace the polling of a task's exit file.
	pollMin = 10 * time.Millisecond
	pollMax = 250 * time.Millisecond
)

var (
	//go:embed task_list.md
	taskListDescription string
	//go:embed task_list.schema.json
	taskListSchema string
	//go:embed task_output.md
	taskOutputDescription string
	//go:embed task_output.schema.json
	taskOutputSchema string
	//go:embed task_wait.md
	taskWaitDescription string
	//go:embed task_wait.schema.json
	taskWaitSchema string
	//go:embed task_stop.md
	taskStopDescription string
	//go:embed task_stop.schema.json
	taskStopSchema string
)

// TaskInfo is one task as the task tools report it.
type TaskInfo struct {
	TaskID     string     `json:"task_id"`
	Status     string     `json:"status"`
	ExitCode   *int       `json:"exit_code"`
	Signal     string     `json:"signal"`
	Reason     string     `json:"reason"`
	Command    string     `json:"command"`
	Cwd        string     `json:"cwd"`
	PID        int        `json:"pid"`
	Invocation string     `json:"invocation"`
	Kind       string     `json:"kind"`
	StartedAt  time.Time  `json:"started_at"`
	EndedAt    *time.Time `json:"ended_at"`
	DurationS  float64    `json:"duration_s"`
	// Bytes is the output so far (in the spool while running).
	Bytes          int64          `json:"bytes"`
	FullOutputPath string         `json:"full_output_path"`
	Leftovers      []proctree.Ref `json:"leftovers"`
	Survivors      []proctree.Ref `json:"survivors"`
}

func (t *task) info(now time.Time) TaskInfo {
	in := TaskInfo{
		TaskID: t.meta.ID, Status: t.status, Command: t.meta.Command, Cwd: t.meta.Cwd,
		PID: t.meta.PID, Invocation: t.meta.Invocation, Kind: t.meta.Kind, StartedAt: t.meta.StartedAt,
		FullOutputPath: spoolPath(t.dir),
	}
	end := now
	if r := t.rec; r != nil {
		if r.ExitCode >= 0 {
			code := r.ExitCode
			in.ExitCode = &code
		}
		in.Signal, in.Reason = r.Signal, r.Reason
		in.Leftovers, in.Survivors = r.Leftovers, r.Survivors
		in.Bytes = r.Output.Bytes
		ended := r.EndedAt
		in.EndedAt, end = &ended, ended
	} else if info, err := os.Stat(spoolPath(t.dir)); err == nil {
		in.Bytes = info.Size()
	}
	if t.corrupt != "" {
		in.Reason, in.StartedAt, in.DurationS = t.corrupt, time.Time{}, 0
		if r := t.rec; r != nil {
			in.StartedAt = r.StartedAt
			in.DurationS = r.EndedAt.Sub(r.StartedAt).Round(time.Millisecond).Seconds()
		}
		return in
	}
	in.DurationS = end.Sub(t.meta.StartedAt).Round(time.Millisecond).Seconds()
	return in
}

// statusLine is a task in one line: status, exit code, age.
func (in TaskInfo) statusLine() string {
	s := in.Status
	if in.Status == StatusExited && in.ExitCode != nil {
		s = fmt.Sprintf("exited(%d)", *in.ExitCode)
	}
	return s
}

// TaskListParams are task_list's parameters (none).
type TaskListParams struct{}

// TaskListResult lists the background tasks, newest first.
type TaskListResult struct {
	Tasks []TaskInfo `json:"tasks"`
}

// TaskListTool is task_list.
func TaskListTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: TaskListName, Mode: tool.Parallel, Timeout: TaskToolTimeout,
		Facts:       tool.Facts{ReadOnly: true, Idempotent: true, Tasks: true},
		Description: taskListDescription, Schema: taskListSchema, Data: templateData(),
	}, func(ctx context.Context, env *tool.Env, _ TaskListParams) (*tool.Response, error) {
		gcTasks(env.DataDir, time.Now())
		now := time.Now()
		res := TaskListResult{Tasks: []TaskInfo{}}
		var b strings.Builder
		for _, t := range listTasks(env.DataDir) {
			in := t.info(now)
			res.Tasks = append(res.Tasks, in)
			if t.status == StatusCorrupt {
				fmt.Fprintf(&b, "%s  %-11s %s\n", in.TaskID, in.statusLine(), oneLine(in.Reason, commandShown))
				continue
			}
			fmt.Fprintf(&b, "%s  %-11s %8s  pid %-7d %s\n", in.TaskID, in.statusLine(),
				(time.Duration(in.DurationS * float64(time.Second))).Round(time.Second), in.PID, oneLine(in.Command, commandShown))
		}
		if len(res.Tasks) == 0 {
			b.WriteString("no background tasks")
		}
		return &tool.Response{Output: strings.TrimRight(b.String(), "\n"), Result: res}, nil
	})
}

// commandShown is how much of a command a line of output quotes.
const commandShown = 80

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}

// TaskOutputParams are task_output's parameters.
type TaskOutputParams struct {
	TaskID string   `json:"task_id"`
	Offset *int64   `json:"offset,omitempty"`
	Wait   *float64 `json:"wait,omitempty"`
	// All is the whole output (its start and end within the cap), not
	// only what is new since the last read.
	All bool `json:"all,omitempty"`
}

// TaskOutputResult is a task's state and where its output was read.
type TaskOutputResult struct {
	TaskInfo
	// Offset and NextOffset are byte offsets in the output file; pass
	// NextOffset back to read only what came after.
	Offset     int64 `json:"offset"`
	NextOffset int64 `json:"next_offset"`
	// Complete: the task has ended and everything up to NextOffset was read.
	Complete bool `json:"complete"`
	// Remaining is how many bytes of output follow NextOffset now.
	Remaining int64 `json:"remaining"`
	// Lines is how many lines this read returned (new-output reads).
	Lines int `json:"lines"`
}

// TaskOutputTool is task_output.
func TaskOutputTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: TaskOutputName, Mode: tool.Parallel, Timeout: TaskOutputTimeout,
		Positional:  []string{"task_id"},
		Facts:       tool.Facts{ReadOnly: true, Tasks: true},
		Description: taskOutputDescription, Schema: taskOutputSchema, Data: templateData(),
	}, func(ctx context.Context, env *tool.Env, p TaskOutputParams) (*tool.Response, error) {
		t, err := loadTask(env.DataDir, p.TaskID)
		if err != nil {
			return nil, err
		}
		if p.Wait != nil && *p.Wait > 0 {
			d := min(durationOf(*p.Wait), MaxTaskOutputWait)
			waitCtx, cancel := context.WithTimeout(ctx, d)
			t.wait(waitCtx)
			cancel()
		}
		res := TaskOutputResult{TaskInfo: t.info(time.Now())}
		if p.All && p.Offset != nil {
			return nil, (&tool.Error{Code: tool.CodeUsage, Message: "all and offset both say where to read from"}).
				WithHint("pass all for the whole output, offset to read from a byte offset, or neither for what is new")
		}
		if p.All {
			resp, view := t.summary(res.TaskInfo, &res)
			res.NextOffset = view.SpoolBytes
			res.Complete = t.status != StatusRunning && !resp.Truncated
			return resp, t.moveCursor(res.NextOffset)
		}
		if p.Offset == nil {
			var resp *tool.Response
			err := t.readFromCursor(func(from int64) int64 {
				resp = t.newOutput(&res, from)
				return res.NextOffset
			})
			return resp, err
		}
		resp := &tool.Response{Result: &res}
		header := statusHeader(res.TaskInfo)
		chunk, next, size := readChunk(spoolPath(t.dir), *p.Offset, OutputCap-len(header))
		res.Offset, res.NextOffset = *p.Offset, next
		res.Complete = t.status != StatusRunning && next >= size
		text := textenc.CleanTerminal(chunk)
		if len(chunk) == 0 {
			text = fmt.Sprintf("(no output after offset %d)", *p.Offset)
		}
		resp.Output = header + text
		res.Remaining = size - next
		if next < size {
			resp.Truncated = true
			resp.Continuation = &tool.Continuation{NextOffset: int(next),
				Hint: fmt.Sprintf("more output follows: mcode task output %s --offset %d", t.meta.ID, next)}
		}
		return resp, t.moveCursor(next)
	})
}

// newOutput reads what the task wrote since from, the end of the last
// read. Its text is the output alone, then a line saying where the read
// was and what remains (the notices of -o text).
// unfinishedLine marks a read whose last line has no newline yet.
const unfinishedLine = "the last one without its newline"

func (t *task) newOutput(res *TaskOutputResult, from int64) *tool.Response {
	const noticeRoom = 200 // the closing line
	chunk, next, size := readChunk(spoolPath(t.dir), from, OutputCap-noticeRoom)
	if size < from {
		from = 0 // a cursor past the end: the output is not the one it was set on
		chunk, next, size = readChunk(spoolPath(t.dir), from, OutputCap-noticeRoom)
	}
	res.Offset, res.NextOffset, res.Remaining = from, next, size-next
	res.Complete = t.status != StatusRunning && next >= size
	text := textenc.CleanTerminal(chunk)
	res.Lines = strings.Count(text, "\n")
	// A line still being written (a prompt, or a pipe's 4 KiB block
	// ending mid-line) is shown now, and the closing line says its
	// newline is not in the output, so pieces put together are exact.
	unfinished := text != "" && !strings.HasSuffix(text, "\n")
	if unfinished {
		res.Lines++
		text += "\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[task %s: %s; ", t.meta.ID, res.statusLine())
	if len(chunk) == 0 {
		fmt.Fprintf(&b, "no new output since byte %d", from)
	} else {
		fmt.Fprintf(&b, "new output: bytes %d-%d, %s", from, next, plural(res.Lines, "line", "lines"))
	}
	if unfinished {
		b.WriteString(" (" + unfinishedLine + ")")
	}
	resp := &tool.Response{Result: res}
	switch {
	case res.Remaining > 0:
		fmt.Fprintf(&b, "; %d bytes more follow]", res.Remaining)
		resp.Truncated = true
		resp.Continuation = &tool.Continuation{NextOffset: int(next),
			Hint: fmt.Sprintf("run mcode task output %s again for the next part", t.meta.ID)}
	case t.status == StatusRunning:
		fmt.Fprintf(&b, "; still running: run mcode task output %s again for what comes next]", t.meta.ID)
	default:
		b.WriteString("; all output read]")
	}
	b.WriteByte('\n')
	resp.Notices = b.String()
	resp.Output = text + resp.Notices
	return resp
}

// summary renders a task's output the way bash does (its start and its
// end, the full file named when that cuts it) under its status line.
func (t *task) summary(in TaskInfo, result any) (*tool.Response, outputView) {
	var st *outputStats
	if t.rec != nil {
		st = &t.rec.Output
	}
	view := fileView(spoolPath(t.dir), st)
	header := statusHeader(in)
	text, truncated := renderOutput(view, OutputCap-len(header))
	resp := &tool.Response{Output: header + text, Result: result, Truncated: truncated}
	if truncated {
		resp.Continuation = &tool.Continuation{FullOutputPath: view.Path, Hint: readSpoolHint(view.Path)}
	}
	return resp, view
}

// statusHeader is the first line of a task's output text.
func statusHeader(in TaskInfo) string {
	if in.Status == StatusCorrupt {
		return fmt.Sprintf("[task %s: %s: %s]\n", in.TaskID, in.Status, in.Reason)
	}
	return fmt.Sprintf("[task %s: %s]\n", in.TaskID, in.statusLine())
}

// readChunk reads the spool from off, as much as fits in limit bytes once
// cleaned, ending on a whole line when more follows and a line end is
// near. It returns the bytes, the offset after them and the spool's size.
func readChunk(path string, off int64, limit int) (chunk []byte, next, size int64) {
	f, err := os.Open(path)
	if err != nil {
		return nil, off, 0
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil {
		size = info.Size()
	}
	if off >= size {
		return nil, off, size
	}
	chunk = readAt(f, off, min(int64(limit), size-off))
	if off+int64(len(chunk)) < size {
		if nl := bytes.LastIndexByte(chunk, '\n'); nl >= len(chunk)/2 {
			chunk = chunk[:nl+1]
		} else {
			chunk = trimPartialRuneEnd(chunk)
		}
	}
	if len(textenc.CleanTerminal(chunk)) > limit {
		chunk = fitStart(chunk, limit)
	}
	return chunk, off + int64(len(chunk)), size
}

// wait polls until the task is no longer running or ctx ends.
func (t *task) wait(ctx context.Context) {
	for pause := pollMin; t.status == StatusRunning; pause = min(2*pause, pollMax) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		t.refresh()
	}
}

// TaskIDParams name one task.
type TaskIDParams struct {
	TaskID string `json:"task_id"`
}

// TaskWaitTool is task_wait.
func TaskWaitTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: TaskWaitName, Mode: tool.Parallel, Timeout: DefaultTaskWait,
		Positional:  []string{"task_id"},
		Facts:       tool.Facts{ReadOnly: true, Idempotent: true, Tasks: true},
		Description: taskWaitDescription, Schema: taskWaitSchema, Data: templateData(),
	}, func(ctx context.Context, env *tool.Env, p TaskIDParams) (*tool.Response, error) {
		t, err := loadTask(env.DataDir, p.TaskID)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		t.wait(ctx)
		in := t.info(time.Now())
		if t.status == StatusRunning {
			return &tool.Response{Output: statusHeader(in) + "still running", Result: in}, &tool.Error{Code: tool.CodeTimeout,
				Message: fmt.Sprintf("task %s is still running after waiting %s", t.meta.ID, seconds(time.Since(start).Round(100*time.Millisecond))),
				Hint:    fmt.Sprintf("wait again (a longer --timeout waits longer), read what it printed so far with mcode task output %[1]s, or end it with mcode task stop %[1]s", t.meta.ID)}
		}
		return finishedTask(t, in)
	})
}

// finishedTask renders a task that has ended, with the error its status
// carries (as bash would report it).
func finishedTask(t *task, in TaskInfo) (*tool.Response, error) {
	resp, _ := t.summary(in, in)
	if t.status == StatusCorrupt {
		return resp, corruptError(t)
	}
	if t.status == StatusLost {
		return resp, &tool.Error{Code: tool.CodeToolError,
			Message: fmt.Sprintf("task %s was lost: its supervisor (pid %d) ended without recording how the command ended", t.meta.ID, t.meta.SupervisorPID),
			Hint:    fmt.Sprintf("its output so far is in %s; mcode task stop %s ends whatever is left of it", spoolPath(t.dir), t.meta.ID)}
	}
	return resp, statusError(*t.rec)
}

// corruptError is the error of waiting on a task whose record is corrupt.
func corruptError(t *task) error {
	return &tool.Error{Code: tool.CodeCorruptFile,
		Message: fmt.Sprintf("task %s cannot be followed: %s, so whether it still runs is unknown", t.meta.ID, t.corrupt),
		Hint:    fmt.Sprintf("its output is in %s (mcode task output %s reads it); mcode task stop %s ends whatever still carries its id", spoolPath(t.dir), t.meta.ID, t.meta.ID)}
}

// TaskStopResult says what stopping did.
type TaskStopResult struct {
	TaskInfo
	// WasRunning is false when the task had already ended.
	WasRunning bool `json:"was_running"`
}

// TaskStopTool is task_stop.
func TaskStopTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: TaskStopName, Mode: tool.Sequential, Timeout: TaskToolTimeout,
		Positional:  []string{"task_id"},
		Facts:       tool.Facts{Destructive: true, Idempotent: true, Processes: true, Tasks: true},
		Description: taskStopDescription, Schema: taskStopSchema, Data: templateData(),
	}, func(ctx context.Context, env *tool.Env, p TaskIDParams) (*tool.Response, error) {
		t, err := loadTask(env.DataDir, p.TaskID)
		if err != nil {
			return nil, err
		}
		res := TaskStopResult{WasRunning: t.status == StatusRunning || t.status == StatusLost}
		var note string
		switch t.status {
		case StatusRunning:
			note = t.stop(ctx)
		case StatusLost:
			note = t.stopLost("its supervisor was gone")
		case StatusCorrupt:
			var found int
			note, found = t.stopMarked("its record was corrupt")
			res.WasRunning = found > 0
		}
		res.TaskInfo = t.info(time.Now())
		var b strings.Builder
		switch {
		case !res.WasRunning:
			fmt.Fprintf(&b, "Task %s had already ended: %s.", t.meta.ID, res.statusLine())
		case t.status == StatusRunning:
			return &tool.Response{Output: note, Result: &res}, &tool.Error{Code: tool.CodeToolError,
				Message: fmt.Sprintf("task %s did not stop: %s", t.meta.ID, note),
				Hint:    "try again; its processes are listed by mcode task list"}
		default:
			fmt.Fprintf(&b, "Stopped task %s (pid %d): %s.", t.meta.ID, t.meta.PID, res.statusLine())
			if res.ExitCode != nil {
				fmt.Fprintf(&b, " The command ended with code %d.", *res.ExitCode)
			}
		}
		if note != "" {
			b.WriteString(" " + note)
		}
		if len(res.Survivors) > 0 {
			fmt.Fprintf(&b, " %s survived SIGKILL: %s.", plural(len(res.Survivors), "process", "processes"), describe(res.Survivors))
		}
		return &tool.Response{Output: b.String(), Result: &res}, nil
	})
}

// stop asks the task's supervisor to end it (SIGTERM: it stops the tree
// with the usual grace) and waits for its record. A supervisor that does
// not answer is killed and the tree is ended by its job marker.
func (t *task) stop(ctx context.Context) string {
	proctree.Terminate(t.meta.SupervisorPID)
	waitCtx, cancel := context.WithTimeout(ctx, stopWait)
	t.wait(waitCtx)
	cancel()
	if t.status != StatusRunning {
		return ""
	}
	if supervisorAlive(t.meta) {
		proctree.ForceKill(t.meta.SupervisorPID)
	}
	return t.stopLost(fmt.Sprintf("its supervisor (pid %d) did not answer within %s and was killed", t.meta.SupervisorPID, stopWait))
}

// stopLost ends what is left of a task whose supervisor is gone: every
// process that carries its job marker (never anything found by name), and
// records it as stopped.
func (t *task) stopLost(why string) string {
	note, _ := t.stopMarked(why)
	return note
}

// stopMarked is stopLost that also says how many processes it found.
func (t *task) stopMarked(why string) (string, int) {
	marker := jobMarkerVar + "=" + t.meta.ID
	members := func() []proctree.Proc {
		var out []proctree.Proc
		for _, pid := range proctree.AllPIDs() {
			if p, ok := proctree.Read(pid); ok && !p.Dead() && proctree.HasEnv(pid, marker) {
				out = append(out, p)
			}
		}
		return out
	}
	found := proctree.Refs(members())
	survivors := proctree.Stop(members, KillGrace)
	rec := record{
		Status: StatusStopped, ExitCode: -1, Reason: why, StartedAt: t.meta.StartedAt, EndedAt: time.Now(),
		Leftovers: found, Survivors: survivors,
	}
	if info, err := os.Stat(filepath.Join(t.dir, outputFile)); err == nil {
		rec.Output = outputStats{Bytes: info.Size(), SpoolBytes: info.Size()}
		rec.Output.Lines = fileView(spoolPath(t.dir), nil).Lines
	}
	_ = writeRecord(t.dir, rec, true)
	t.refresh()
	note := strings.ToUpper(why[:1]) + why[1:]
	if len(found) > 0 {
		note += fmt.Sprintf("; ended %s by its job marker: %s", plural(len(found), "process", "processes"), describe(found))
	}
	return note + ".", len(found)
}
