package cmdtool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/proctree"
	"github.com/mcode-dev/mcode/pkg/spawn"
	"github.com/mcode-dev/mcode/pkg/tool"
)

const (
	// StopGrace is how long a stopped tool's processes have for their
	// traps between SIGTERM and SIGKILL.
	StopGrace = 2 * time.Second
	// drainWait bounds the wait for the pipes to close once the tree is
	// gone (a process that escaped the group may hold them).
	drainWait = time.Second
	// JobVar marks every process of a call, so that one which left the
	// process group (setsid) is still found and stopped.
	JobVar = "MCODE_TOOL_JOB"
)

// Result is a command tool's structured answer, unless it succeeded with
// JSON on stdout: then the result is that JSON.
type Result struct {
	Tool        string   `json:"tool"`
	Argv        []string `json:"argv"`
	ExitStatus  int      `json:"exit_status"`
	Signal      string   `json:"signal,omitempty"`
	StdoutBytes int64    `json:"stdout_bytes"`
	Stderr      string   `json:"stderr,omitempty"`
	StderrBytes int64    `json:"stderr_bytes"`
	// FullOutputPath holds the whole stdout when it outgrew memory.
	FullOutputPath string `json:"full_output_path,omitempty"`
	// Killed are processes still running when the call ended, stopped
	// with it; Survivors outlived even SIGKILL.
	Killed    int            `json:"killed,omitempty"`
	Survivors []proctree.Ref `json:"survivors,omitempty"`
}

// Run calls the command tool d with args (already checked against its
// schema).
func (d *Def) Run(ctx context.Context, env *tool.Env, environ []string, rawArgs json.RawMessage) (*tool.Response, error) {
	var args map[string]any
	dec := json.NewDecoder(bytes.NewReader(rawArgs))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil {
		return nil, tool.Errorf(tool.CodeUsage, "arguments of %s are not a JSON object: %v", d.Name, err)
	}
	argv := expandArgv(d.Command, args)
	prog, err := d.program(argv[0])
	if err != nil {
		return nil, err
	}
	// The same environment policy and sandbox as bash's commands.
	run := spawn.SettingsOf(env).Prepare(withoutKey(environ, JobVar))
	if err := run.Allowed(ctx); err != nil {
		return nil, err
	}
	cmd := exec.Command(prog, argv[1:]...)
	cmd.Dir = env.Root
	job := fsutil.RandomHex(8)
	cmd.Env = append(run.Env, JobVar+"="+job, "MCODE_ROOT="+env.Root)
	if d.Stdin != "none" {
		cmd.Stdin = bytes.NewReader(append(bytes.TrimSpace(rawArgs), '\n'))
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	stdout := newStream(MaxKeptBytes, OutputBytes, spoolDir(env.DataDir), d.Name)
	stderr := newStream(StderrTailBytes, StderrTailBytes, "", "")
	start := time.Now()
	_, release, err := run.Start(cmd, proctree.StartGroup)
	defer release()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, &tool.Error{Code: tool.CodeToolError,
			Message: fmt.Sprintf("command tool %s could not start %s: %v", d.Name, prog, unwrapExec(err)),
			Hint:    fmt.Sprintf("check command in its declaration (%s): the program must exist and be executable", d.Origin)}
	}
	// Processes of the call start after its leader: older ones are
	// skipped without reading their environment.
	var since uint64
	if p, ok := proctree.Read(cmd.Process.Pid); ok {
		since = p.Start
	}
	go stdout.drain(outR)
	go stderr.drain(errR)

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var waitErr error
	stopped := false
	select {
	case waitErr = <-exited:
	case <-ctx.Done():
		stopped = true
	}
	// Whatever is left of the tree goes with the call: on a stop, the
	// whole of it; after a normal exit, what the program left behind.
	// Every process seen while stopping counts: one caught in the middle
	// of an exec may be missed by the first look and found by the next.
	stoppedPIDs := map[int]bool{}
	members := func() []proctree.Proc {
		m := jobMembers(cmd.Process.Pid, job, since)
		for _, p := range m {
			stoppedPIDs[p.PID] = true
		}
		return m
	}
	var survivors []proctree.Ref
	if len(members()) > 0 {
		survivors = proctree.Stop(members, StopGrace)
	}
	killed := len(stoppedPIDs)
	if stopped {
		waitErr = <-exited
	}
	drained := true
	for _, s := range []*stream{stdout, stderr} {
		select {
		case <-s.done:
		case <-time.After(drainWait):
			drained = false
		}
	}
	stdout.mu.Lock()
	defer stdout.mu.Unlock()
	stderr.mu.Lock()
	defer stderr.mu.Unlock()

	code, sig := proctree.ExitOf(cmd.ProcessState)
	res := &Result{Tool: d.Name, Argv: argv, ExitStatus: code, Signal: sig,
		StdoutBytes: stdout.total, StderrBytes: stderr.total, Stderr: stderr.tailText(),
		FullOutputPath: stdout.spoolPath, Killed: killed, Survivors: survivors}
	text, truncated := stdout.shown(OutputBytes)
	resp := &tool.Response{Output: text, Result: res, Truncated: truncated}
	ok := !stopped && waitErr == nil && code == 0 && sig == ""
	if parsed := parseJSON(stdout.head); ok && stdout.complete() && drained && parsed != nil {
		// A tool that answers in JSON gives programs its own structure.
		resp.Result = parsed
	}
	if truncated && stdout.spoolPath != "" {
		resp.Continuation = &tool.Continuation{FullOutputPath: stdout.spoolPath,
			Hint: fmt.Sprintf("the whole output is in %s: mcode grep PATTERN %s, or mcode read %s --offset N", stdout.spoolPath, stdout.spoolPath, stdout.spoolPath)}
	}
	if resp.Output == "" {
		resp.Output = "(no output)"
	}
	elapsed := time.Since(start).Round(100 * time.Millisecond)
	switch {
	case stopped && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return resp, &tool.Error{Code: tool.CodeTimeout,
			Message: fmt.Sprintf("command tool %s timed out after %s; it and every process it started (%d) were stopped%s", d.Name, elapsed, killed, survivorNote(survivors)),
			Hint:    "raise the limit with --timeout (or timeout: in its declaration), or ask for less"}
	case stopped:
		return resp, &tool.Error{Code: tool.CodeInterrupted,
			Message: fmt.Sprintf("command tool %s was interrupted; it and every process it started (%d) were stopped%s", d.Name, killed, survivorNote(survivors)),
			Hint:    "nothing more runs; call it again to finish"}
	case waitErr != nil && code == 0 && sig == "":
		return resp, fmt.Errorf("command tool %s: %w", d.Name, waitErr)
	case code != 0 || sig != "":
		how := fmt.Sprintf("exited with code %d", code)
		if sig != "" {
			how = "was killed by " + sig
		}
		msg := fmt.Sprintf("command tool %s %s", d.Name, how)
		if tail := strings.TrimSpace(res.Stderr); tail != "" {
			msg += "; stderr: " + tail
		}
		return resp, &tool.Error{Code: tool.CodeToolError, Message: msg,
			Hint: "output has its stdout and result.stderr the end of its stderr; fix the arguments, or the program"}
	}
	if res.Killed > 0 {
		resp.Output += fmt.Sprintf("\n(note: %d process(es) it left running were stopped)", res.Killed)
	}
	return resp, nil
}

func survivorNote(s []proctree.Ref) string {
	if len(s) == 0 {
		return ""
	}
	pids := make([]string, len(s))
	for i, r := range s {
		pids[i] = fmt.Sprint(r.PID)
	}
	return "; still alive after SIGKILL: pid " + strings.Join(pids, ", ")
}

// jobMembers are the living processes of a call: the leader's
// descendants, and any started since the leader that carries the call's
// marker (re-parented, or in a session of its own).
func jobMembers(leader int, job string, since uint64) []proctree.Proc {
	seen := map[int]bool{}
	var out []proctree.Proc
	for _, p := range proctree.Descendants(leader) {
		seen[p.PID] = true
		out = append(out, p)
	}
	for _, p := range proctree.Marked(JobVar+"="+job, since) {
		if !seen[p.PID] {
			out = append(out, p)
		}
	}
	return out
}

// program resolves argv[0]: a bare name through PATH, a relative path
// with a slash against the folder of its declaration.
func (d *Def) program(name string) (string, error) {
	if strings.ContainsRune(name, '/') && !filepath.IsAbs(name) {
		name = filepath.Join(d.BaseDir, name)
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", &tool.Error{Code: tool.CodeToolError,
			Message: fmt.Sprintf("command tool %s: program %s: %v", d.Name, name, unwrapExec(err)),
			Hint:    fmt.Sprintf("check command in its declaration (%s): a bare name is looked up on PATH, a relative path is relative to %s", d.Origin, d.BaseDir)}
	}
	return p, nil
}

func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// parseJSON is stdout as JSON when the whole of it is one value.
func parseJSON(b []byte) any {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil
	}
	if _, err := dec.Token(); err == nil {
		return nil
	}
	return v
}

func withoutKey(environ []string, keys ...string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, key := range keys {
			if k == key || strings.HasPrefix(k, key+"_") {
				drop = true
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}
