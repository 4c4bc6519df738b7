// Package exec is the bash tool and its background tasks: a shell command
// run with a time limit that really stops every process it started,
// memory-bounded output spooled to a file, and an environment scrubbed of
// credentials. Commands still running after a while, or started with
// background, become tasks on disk that any later mcode process can read,
// wait on and stop (task_list, task_output, task_wait, task_stop).
package exec

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"

	"github.com/mcode-dev/mcode/pkg/proctree"
)

// Name is the bash tool's name.
const Name = "bash"

// Limits of the bash tool. The defaults of pkg/config's bash section are
// the same numbers (a test keeps them equal).
const (
	// DefaultTimeout applies when the call gives none.
	DefaultTimeout = 120 * time.Second
	// MaxTimeout caps a foreground call; a larger request is cut to it.
	MaxTimeout = 300 * time.Second
	// AutoBackgroundAfter is when a foreground call still running becomes
	// a background task, from the command line: under the 120 s a harness
	// such as Claude Code gives its own bash call, so the harness never
	// kills the work, and over most test suites (15 s, the seed's
	// figure, cost a model an extra call for nearly every real test run).
	AutoBackgroundAfter = 100 * time.Second
	// AutoBackgroundServe is the same under mcp serve: under the 60 s an
	// MCP client usually allows a request.
	AutoBackgroundServe = 50 * time.Second
	// BackgroundWatchdog is the least time a background task may run.
	BackgroundWatchdog = 30 * time.Minute
	// DefaultSpoolMiB caps the file that keeps the full output.
	DefaultSpoolMiB = 256
	// OutputCap is the most text output carries.
	OutputCap = 24 * 1024
	// HeadPercent of OutputCap shows the start of a long output; the rest
	// shows its end.
	HeadPercent = 45
	// ExitTimeout is the exit status of a command that ran out of time.
	ExitTimeout = 124
)

// Invocations: how a call ran (docs/bash.md, result.invocation).
const (
	DirectForeground   = "direct_foreground"
	ManagedForeground  = "managed_foreground"
	ExplicitBackground = "explicit_background"
)

// Statuses of a run and of a task.
const (
	StatusRunning  = "running"
	StatusExited   = "exited"
	StatusTimedOut = "timed_out"
	StatusStopped  = "stopped"
	StatusLost     = "lost"
	// StatusCorrupt is a task whose meta.json cannot be read: what runs
	// and whether it still does are unknown, its output is still there.
	StatusCorrupt = "corrupt"
)

// Params are the bash tool's parameters.
type Params struct {
	Command        string   `json:"command"`
	Timeout        *float64 `json:"timeout,omitempty"`
	Background     bool     `json:"background,omitempty"`
	KeepChildren   bool     `json:"keep_children,omitempty"`
	Cwd            string   `json:"cwd,omitempty"`
	AutoBackground *bool    `json:"auto_background,omitempty"`
	// Sandbox runs the command under this mode instead of the policy's: a
	// stricter one always, a looser one once a person approved the call.
	Sandbox string `json:"sandbox,omitempty"`
}

// Result is what a bash call reports besides its output.
type Result struct {
	Command    string `json:"command"`
	Cwd        string `json:"cwd"`
	Shell      string `json:"shell"`
	Invocation string `json:"invocation"`
	// Status is exited, timed_out or stopped; running when the command
	// became a background task.
	Status   string `json:"status"`
	ExitCode *int   `json:"exit_code"`
	Signal   string `json:"signal"`
	PID      int    `json:"pid"`
	// TimeoutS is the time limit applied; RequestedTimeoutS is what the
	// call asked for when it was cut to the maximum.
	TimeoutS          float64  `json:"timeout_s"`
	RequestedTimeoutS *float64 `json:"requested_timeout_s"`
	TaskID            string   `json:"task_id"`
	Bytes             int64    `json:"bytes"`
	Lines             int64    `json:"lines"`
	// FullOutputPath keeps the raw output when output was cut.
	FullOutputPath    string `json:"full_output_path"`
	SpoolDroppedBytes int64  `json:"spool_dropped_bytes"`
	// Leftovers are processes still running when the main process exited;
	// LeftoversAction says whether they were killed or kept as a task.
	Leftovers       []proctree.Ref `json:"leftovers"`
	LeftoversAction string         `json:"leftovers_action"`
	// Survivors outlived SIGKILL.
	Survivors   []proctree.Ref `json:"survivors"`
	EnvSanitize string         `json:"env_sanitize"`
	EnvRemoved  []string       `json:"env_removed"`
	// Sandbox is the sandbox the command ran in.
	Sandbox *SandboxResult `json:"sandbox"`
	Notes   []string       `json:"notes"`
}

// Options are what the bash tool needs from its host.
type Options struct {
	// Shims, when set and bash.trashShim is on, is called before each run
	// and returns a folder to put first on PATH (the rm shim). An error
	// refuses the command: it never runs without the shim.
	Shims func(ctx context.Context, env *tool.Env) (dir string, err error)
	// Environ is the environment commands inherit (default os.Environ).
	Environ func() []string
	// Executable is the mcode binary that runs supervisors (default
	// os.Executable).
	Executable func() (string, error)
	// Trash, when set, names the folders the rm shim deletes into: the
	// sandbox keeps them writable while the shim is on.
	Trash func(env *tool.Env) []string
}

var (
	//go:embed bash.md
	bashDescription string
	//go:embed bash.schema.json
	bashSchema string
)

// templateData are the limits the descriptions and schemas quote (built
// when a tool is, not at init).
func templateData() map[string]any {
	return map[string]any{
		"DefaultTimeoutS":      int(DefaultTimeout / time.Second),
		"MaxTimeoutS":          int(MaxTimeout / time.Second),
		"AutoBackgroundS":      int(AutoBackgroundAfter / time.Second),
		"AutoBackgroundServeS": int(AutoBackgroundServe / time.Second),
		"ExitBackgrounded":     tool.ExitBackgrounded,
		"WatchdogMin":          int(BackgroundWatchdog / time.Minute),
		"OutputCapKiB":         OutputCap / 1024,
		"HeadPercent":          HeadPercent,
		"KillGraceS":           int(KillGrace / time.Second),
		"ExitTimeout":          ExitTimeout,
		"TaskOutputCapKiB":     OutputCap / 1024,
		"DefaultTaskWaitS":     int(DefaultTaskWait / time.Second),
		"TaskOutputMaxWaitS":   int(MaxTaskOutputWait / time.Second),
		"TaskListName":         TaskListName,
		"TaskOutputName":       TaskOutputName,
		"TaskWaitName":         TaskWaitName,
		"TaskStopName":         TaskStopName,
		"BashName":             Name,
		"StatusRunning":        StatusRunning,
		"StatusExited":         StatusExited,
		"StatusTimedOut":       StatusTimedOut,
		"StatusStopped":        StatusStopped,
		"StatusLost":           StatusLost,
		"StatusCorrupt":        StatusCorrupt,
		"TaskRetentionDays":    int(TaskRetention / (24 * time.Hour)),
		"ExitApproval":         tool.ExitApprovalRequired,
	}
}

// Tool is the bash tool.
func Tool(o Options) *tool.Tool {
	return tool.New(tool.Spec{
		Name: Name, Mode: tool.Sequential,
		Positional: []string{"command"},
		Facts:      tool.Facts{Destructive: true, OpenWorld: true, Processes: true},
		Aliases:    map[string]tool.Alias{"run_in_background": {Param: "background"}},
		// No generic deadline: bash enforces its own limits and reports
		// them (Command timed out after N seconds, exit 124).
		Timeout:     0,
		Escalation:  escalation,
		Description: bashDescription, Schema: bashSchema, Data: templateData(),
	}, o.run)
}

func (o Options) environ() []string {
	if o.Environ != nil {
		return o.Environ()
	}
	return os.Environ()
}

func (o Options) executable() (string, error) {
	if o.Executable != nil {
		return o.Executable()
	}
	return os.Executable()
}

// plan is how a call will run.
type plan struct {
	invocation string
	// limit stops the command (0: never); requested is what the call
	// asked for (0: nothing), capped says the request was cut.
	limit     time.Duration
	requested time.Duration
	capped    bool
	// autoAfter hands a managed call to the background (0: never).
	autoAfter time.Duration
	// leftoverLimit is the watchdog of leftovers kept as a task.
	leftoverLimit time.Duration
	keepChildren  bool
}

// makePlan applies the limits: foreground calls get the default time limit
// unless they ask for one, at most the maximum; background calls have a
// watchdog of the larger of BackgroundWatchdog and the request.
func makePlan(p Params, cfg config.Bash) plan {
	var requested time.Duration
	if p.Timeout != nil && *p.Timeout > 0 {
		requested = durationOf(*p.Timeout)
	}
	pl := plan{requested: requested, keepChildren: p.KeepChildren, leftoverLimit: max(BackgroundWatchdog, requested)}
	if p.Background {
		pl.invocation = ExplicitBackground
		pl.limit = requested
		if pl.limit == 0 {
			pl.limit = BackgroundWatchdog
		}
		return pl
	}
	pl.limit = requested
	if pl.limit == 0 {
		pl.limit = cfg.DefaultTimeout
	}
	if pl.limit > cfg.MaxTimeout {
		pl.limit, pl.capped = cfg.MaxTimeout, true
	}
	auto := cfg.AutoBackgroundAfter > 0 && (p.AutoBackground == nil || *p.AutoBackground)
	switch {
	case auto && pl.limit > cfg.AutoBackgroundAfter:
		pl.invocation, pl.autoAfter = ManagedForeground, cfg.AutoBackgroundAfter
	case p.KeepChildren:
		pl.invocation = ManagedForeground // its leftovers may become a task
	default:
		pl.invocation = DirectForeground
	}
	return pl
}

// runSetup is everything a run needs, resolved before anything starts.
type runSetup struct {
	env     *tool.Env
	plan    plan
	job     jobSpec
	taskDir string
	result  Result
	sandbox *sandboxRun
}

func (o Options) run(ctx context.Context, env *tool.Env, p Params) (*tool.Response, error) {
	cfg := config.Defaults().Bash
	if env.Config != nil {
		cfg = env.Config.Bash
	}
	if strings.TrimSpace(p.Command) == "" {
		return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: "command is empty", Hint: "pass the shell command to run, e.g. mcode bash 'ls -la'"}
	}
	for _, f := range [...]struct{ name, value string }{{"command", p.Command}, {"cwd", p.Cwd}} {
		if i := strings.IndexByte(f.value, 0); i >= 0 {
			return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: fmt.Sprintf("%s has a NUL byte at offset %d", f.name, i),
				Hint: "a command line cannot carry NUL bytes; let the command make them, e.g. printf '\\0'"}
		}
	}
	if env.Role == tool.RoleExplore {
		// An explore agent cannot read, wait on or stop tasks, so it may
		// not start one (no background run without task_output).
		if p.Background || p.KeepChildren {
			return nil, &tool.Error{Code: tool.CodeDenied,
				Message: "role explore cannot start background tasks: it has no task_output to read them",
				Hint:    "run the command in the foreground, within its time limit"}
		}
		cfg.AutoBackgroundAfter = 0
	}
	if p.AutoBackground == nil && (isTruthy(env.LookupEnv("CI")) || isTruthy(env.LookupEnv("GITHUB_ACTIONS"))) {
		// A script or CI job branches on the command's status: a call
		// that returned while its command still ran would fool it.
		cfg.AutoBackgroundAfter = 0
	}
	pl := makePlan(p, cfg)
	cwd, err := workDir(env, p.Cwd)
	if err != nil {
		return nil, err
	}
	environ := o.environ()
	mode := envMode(cfg.EnvSanitize, environ)
	var shimDir string
	if o.Shims != nil && cfg.TrashShim {
		if shimDir, err = o.Shims(ctx, env); err == nil && shimDir != "" {
			// A relative folder on PATH (a relative MCODE_HOME) is looked
			// up from wherever the command is: after a cd, rm would be the
			// system's.
			shimDir, err = filepath.Abs(shimDir)
		}
		if err != nil {
			return nil, &tool.Error{Code: tool.CodeDenied,
				Message: fmt.Sprintf("command not run: the rm shim could not be set up (%v), and bash never runs without it", err),
				Hint:    "fix the shims folder in MCODE_HOME, or set bash.trashShim: false to run with the system rm"}
		}
	}
	childEnv, removed := sanitizeEnv(environ, mode, cfg.EnvAllow, shimDir)
	var trashDirs []string
	if shimDir != "" && o.Trash != nil {
		trashDirs = o.Trash(env)
	}
	sb, err := o.sandboxOf(ctx, env, p.Sandbox, childEnv, trashDirs)
	if err != nil {
		return nil, err
	}
	sh, inv, err := invocation(ctx, env, cfg.Shell, p.Command)
	if err != nil {
		return nil, err
	}
	id, dir, err := newTaskDir(env.DataDir)
	if err != nil {
		code := tool.CodeToolError
		if errors.Is(err, fs.ErrPermission) {
			code = tool.CodePermission
		}
		return nil, &tool.Error{Code: code, Message: fmt.Sprintf("command not run: cannot create its task folder: %v", err),
			Hint: "MCODE_HOME must be a writable folder (it keeps each command's full output)"}
	}
	rs := &runSetup{
		env: env, plan: pl, taskDir: dir, sandbox: sb,
		job: jobSpec{
			ID: id, Shell: sh.Path, Args: inv.Args, Stdin: inv.Stdin, Command: p.Command, Dir: cwd, Env: append(childEnv, inv.Env...),
			Sandbox:   sb.plan,
			SpoolPath: spoolPath(dir), SpoolCap: int64(cfg.MaxSpoolMiB) << 20,
			// The live view and a background task read the file as it
			// grows.
			LazySpool: env.Live == nil && pl.invocation != ExplicitBackground,
		},
		result: Result{
			Command: p.Command, Cwd: cwd, Shell: sh.Path, Invocation: pl.invocation,
			TimeoutS: pl.limit.Seconds(), EnvSanitize: mode, EnvRemoved: removed,
		},
	}
	if sb.unenforced != "" {
		rs.note("ran without the sandbox, as a person approved: %s", sb.unenforced)
	}
	if pl.capped {
		rs.result.RequestedTimeoutS = p.Timeout
		rs.note("the requested timeout of %s was cut to the %s foreground maximum; use background for longer commands",
			secondsText(*p.Timeout), seconds(pl.limit))
	}
	resp, err := o.runSupervised(ctx, rs)
	if env.Live != nil && resp != nil && rs.result.Status != StatusRunning {
		// The person saw the output as it came; only the status is news.
		resp.Shown = true
	}
	return resp, err
}

func (rs *runSetup) note(format string, args ...any) {
	rs.result.Notes = append(rs.result.Notes, fmt.Sprintf(format, args...))
}

// workDir resolves cwd against the workspace root and checks it.
func workDir(env *tool.Env, cwd string) (string, error) {
	if cwd == "" {
		return env.Root, nil
	}
	abs := env.Abs(cwd)
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fsutil.NotFound(cwd, abs)
	case err != nil:
		return "", &tool.Error{Code: tool.CodePermission, Message: fmt.Sprintf("cwd %s: %v", cwd, err)}
	case !info.IsDir():
		return "", &tool.Error{Code: tool.CodeNotADirectory, Message: fmt.Sprintf("cwd %s is not a directory", cwd),
			Hint: "pass the folder to run the command in"}
	}
	return abs, nil
}

func startError(rs *runSetup, err error) error {
	return &tool.Error{Code: tool.CodeToolError,
		Message: fmt.Sprintf("could not start %s: %v", rs.job.Shell, err),
		Hint:    "check that the shell exists and the cwd is readable"}
}

// finish turns a finished run into the response: rendered output, the
// spool kept only when output was cut, the error that carries the status.
func (rs *runSetup) finish(rec record, view outputView) (*tool.Response, error) {
	r := &rs.result
	r.Bytes, r.Lines = rec.Output.Bytes, rec.Output.Lines
	r.Status, r.Signal = rec.Status, rec.Signal
	code := rec.ExitCode
	r.ExitCode = &code
	r.Survivors = rec.Survivors
	r.Leftovers = rec.Leftovers
	if len(rec.Leftovers) > 0 && r.LeftoversAction == "" {
		r.LeftoversAction = "killed"
		rs.note("%s still running when the command exited and %s killed (%s); pass keep_children to keep them as a background task",
			plural(len(rec.Leftovers), "process was", "processes were"), pronoun(len(rec.Leftovers)), describe(rec.Leftovers))
	}
	if len(rec.Survivors) > 0 {
		rs.note("%s survived SIGKILL: %s", plural(len(rec.Survivors), "process", "processes"), describe(rec.Survivors))
	}
	if rec.Output.SpoolError != "" {
		rs.note("the full-output file stopped early: %s", rec.Output.SpoolError)
	}
	text, truncated := renderOutput(view, OutputCap-len(withNotes("", r.Notes)))
	if truncated && rec.Output.Unspooled {
		// Short, but its clean text is not (invalid UTF-8 triples): the
		// file it names is made from the bytes that came with the record.
		if err := os.WriteFile(view.Path, view.Tail, 0o600); err != nil {
			rs.note("the full-output file could not be written: %v", err)
			text, _ = renderOutput(view, OutputCap-len(withNotes("", r.Notes)))
		}
	}
	resp := &tool.Response{Result: r, Truncated: truncated}
	if truncated {
		r.FullOutputPath = view.Path
		r.SpoolDroppedBytes = rec.Output.Bytes - rec.Output.SpoolBytes
		resp.Continuation = &tool.Continuation{FullOutputPath: view.Path, Hint: readSpoolHint(view.Path)}
		gcTasks(rs.env.DataDir, time.Now())
	} else if r.TaskID == "" {
		removeTaskDir(rs.taskDir)
	}
	resp.Output, resp.Notices = withNotices(text, r.Notes)
	err := statusError(rec)
	if rs.sandbox != nil && rs.sandbox.plan != nil && r.Sandbox != nil && rec.ExitCode != 0 {
		if ds := rs.sandbox.policy.Denials(text, rs.job.Dir); len(ds) > 0 {
			r.Sandbox.Denied = ds
			if te, ok := err.(*tool.Error); ok {
				te.Hint = rs.sandbox.policy.DenialHint(ds)
			}
		}
	}
	return resp, err
}

func readSpoolHint(path string) string {
	return fmt.Sprintf("the full output is in %s: search it with `mcode grep PATTERN %s` or page it with `mcode read %s --offset N`; do not re-run a command that may have side effects just to see more of its output", path, path, path)
}

// statusError is the error a finished run reports: none for exit 0.
func statusError(rec record) error {
	switch rec.Status {
	case StatusTimedOut:
		return &tool.Error{Code: tool.CodeTimeout,
			Message: fmt.Sprintf("Command timed out after %s", seconds(rec.Limit())),
			Hint:    fmt.Sprintf("raise timeout (at most %s in the foreground), or run it with background and follow it with mcode task output", seconds(MaxTimeout))}
	case StatusStopped:
		return &tool.Error{Code: tool.CodeInterrupted, Message: "Command stopped: " + rec.Reason}
	}
	if rec.ExitCode == 0 {
		return nil
	}
	e := &tool.Error{Code: tool.CodeExitStatus, Message: fmt.Sprintf("Command exited with code %d", rec.ExitCode), Exit: rec.ExitCode}
	switch {
	case rec.Signal != "":
		e.Message += " (killed by " + rec.Signal + ")"
	case rec.ExitCode == 127:
		e.Hint = "command not found: check its name and PATH"
	case rec.ExitCode == 126:
		e.Hint = "the file is not executable: check its mode, or run it through its interpreter"
	}
	return e
}

// withNotes appends the notes to the output, one per line. What it adds
// to an empty text is the most it adds to any: OutputCap less that is the
// room for the text.
// withNotices is withNotes, and the end of it that is notices rather than
// the command's output: the notes, and "(no output)" standing for none.
func withNotices(text string, notes []string) (out, notices string) {
	out = withNotes(text, notes)
	if text == noOutput {
		return out, out
	}
	return out, out[len(text):]
}

func withNotes(text string, notes []string) string {
	if len(notes) == 0 {
		return text
	}
	var b strings.Builder
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	for _, n := range notes {
		b.WriteString("\n[mcode] " + n)
	}
	return b.String()
}

// durationOf turns a number of seconds into a Duration, saturating where
// Durations end (292 years) instead of wrapping around to a negative one,
// which would mean no time limit at all.
func durationOf(secs float64) time.Duration {
	if secs >= math.MaxInt64/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(secs * float64(time.Second))
}

func seconds(d time.Duration) string { return secondsText(d.Seconds()) }

func secondsText(s float64) string {
	switch {
	case s >= 1e15:
		return fmt.Sprintf("%g seconds", s)
	case s == math.Trunc(s):
		return fmt.Sprintf("%d seconds", int64(s))
	}
	return fmt.Sprintf("%.1f seconds", s)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func pronoun(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

func describe(ps []proctree.Ref) string {
	parts := make([]string, 0, len(ps))
	for i, p := range ps {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ps)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("pid %d %s", p.PID, p.Command))
	}
	return strings.Join(parts, ", ")
}
