// Package hooks runs hooks.before_tool, hooks.after_tool and
// hooks.on_error around a call: external commands that speak JSON on
// stdin and stdout (docs/guard.md, "Hooks"), each in a
// process group of its own that is ended with all its children, and the
// built-in redact step. A hook that fails blocks the call: fail closed.
package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/guard/redact"
	"github.com/mcode-dev/mcode/pkg/proctree"
	"github.com/mcode-dev/mcode/pkg/spawn"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// DefaultTimeout bounds a command hook that sets no timeout.
const DefaultTimeout = 10 * time.Second

// MaxAnswerBytes caps what a hook may print.
const MaxAnswerBytes = 16 << 20

// stopGrace is how long a timed-out hook gets between SIGTERM and SIGKILL.
const stopGrace = 500 * time.Millisecond

// JobVar marks every process of a hook (see run).
const JobVar = "MCODE_HOOK_JOB"

// drainWait bounds the wait for a hook's output pipes to close once its
// main process exited and its group was stopped: a process that left the
// group (setsid) may hold them for ever. What the hook wrote before it
// exited is read first.
const drainWait = 2 * time.Second

// Events.
const (
	BeforeTool = "before_tool"
	AfterTool  = "after_tool"
	OnError    = "on_error"
)

// Hooks is the compiled hooks configuration.
type Hooks struct {
	before, after, onError []hook
	// Environ is the environment of command hooks (nil: this process's,
	// without mcode's authority variables).
	Environ []string
}

type hook struct {
	event   string
	index   int
	tool    string
	command string
	timeout time.Duration
	redact  *redact.Redactor
}

func (h hook) name() string {
	what := h.command
	if h.redact != nil {
		what = "redact"
	}
	return fmt.Sprintf("hooks.%s[%d] (%s)", h.event, h.index, what)
}

// New compiles the configuration; nil when there is nothing to run.
func New(cfg config.Hooks) (*Hooks, error) {
	h := &Hooks{}
	var err error
	if h.before, err = compile(BeforeTool, cfg.BeforeTool); err != nil {
		return nil, err
	}
	if h.after, err = compile(AfterTool, cfg.AfterTool); err != nil {
		return nil, err
	}
	if h.onError, err = compile(OnError, cfg.OnError); err != nil {
		return nil, err
	}
	if len(h.before)+len(h.after)+len(h.onError) == 0 {
		return nil, nil
	}
	return h, nil
}

func compile(event string, list []config.Hook) ([]hook, error) {
	var out []hook
	for i, c := range list {
		h := hook{event: event, index: i, tool: c.Tool, command: c.Command, timeout: c.Timeout}
		if h.timeout <= 0 {
			h.timeout = DefaultTimeout
		}
		if len(c.Redact) > 0 {
			r, err := redact.New(c.Redact)
			if err != nil {
				return nil, fmt.Errorf("hooks.%s[%d].redact: %w", event, i, err)
			}
			h.redact = r
		}
		out = append(out, h)
	}
	return out, nil
}

// matches: the hook's tool is "*", a glob or one of the tool's names
// (web_fetch is also fetch).
func (h hook) matches(c *dispatch.Call) bool {
	if h.tool == "" || h.tool == "*" {
		return true
	}
	names := []string{c.Tool}
	if c.Def != nil {
		names = c.Def.Names()
	}
	for _, name := range names {
		if ok, _ := path.Match(h.tool, name); ok || h.tool == name {
			return true
		}
	}
	return false
}

// message is what a command hook reads on stdin.
type message struct {
	Event  string          `json:"event"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	Result *result         `json:"result,omitempty"`
	Error  *tool.Error     `json:"error,omitempty"`
}

// result is the part of a response a hook sees and may replace.
type result struct {
	Output string `json:"output"`
	Result any    `json:"result"`
}

// answer is what a command hook prints (every key optional).
type answer struct {
	Decision string          `json:"decision"`
	Reason   string          `json:"reason"`
	Args     json.RawMessage `json:"args"`
	Result   *result         `json:"result"`
}

func blocked(h hook, format string, args ...any) *tool.Error {
	return &tool.Error{Code: tool.CodeDenied,
		Message: fmt.Sprintf("%s blocked the call: %s", h.name(), fmt.Sprintf(format, args...)),
		Hint:    "a hook that fails, answers something that is not JSON or runs past its timeout blocks the call; fix the hook or its config (hooks." + h.event + ")"}
}

func toolName(c *dispatch.Call) string {
	if c.Def != nil {
		return c.Def.Name
	}
	return c.Tool
}

// Before implements dispatch.Hooks: the before_tool hooks, in order; each
// may replace the arguments or block the call.
func (hs *Hooks) Before(ctx context.Context, c *dispatch.Call) error {
	name := toolName(c)
	for _, h := range hs.before {
		if !h.matches(c) || h.redact != nil {
			continue
		}
		a, err := hs.run(ctx, h, c, message{Event: BeforeTool, Tool: name, Args: c.Args})
		if err != nil {
			return err
		}
		if len(a.Args) > 0 && !bytes.Equal(bytes.TrimSpace(a.Args), []byte("null")) {
			c.Args = a.Args
		}
	}
	return nil
}

// After implements dispatch.Hooks: on_error hooks when the call failed,
// then the after_tool hooks and redact steps, in order.
func (hs *Hooks) After(ctx context.Context, c *dispatch.Call, resp *tool.Response, err error) (*tool.Response, error) {
	name := toolName(c)
	if err != nil {
		te := tool.AsError(err)
		for _, h := range hs.onError {
			if !h.matches(c) || h.redact != nil {
				continue
			}
			if _, herr := hs.run(ctx, h, c, message{Event: OnError, Tool: name, Args: c.Args, Error: te}); herr != nil {
				te = &tool.Error{Code: te.Code, Exit: te.Exit, Message: te.Message + "; and " + herr.Error(), Hint: te.Hint}
			}
		}
		err = te
	}
	for _, h := range hs.after {
		if !h.matches(c) {
			continue
		}
		if h.redact != nil {
			resp, err = redactResponse(h.redact, resp, err)
			continue
		}
		if resp == nil {
			resp = &tool.Response{}
		}
		a, herr := hs.run(ctx, h, c, message{Event: AfterTool, Tool: name, Args: c.Args, Result: &result{Output: resp.Output, Result: resp.Result}, Error: tool.AsError(err)})
		if herr != nil {
			return nil, herr // the result is withheld
		}
		if a.Result != nil {
			resp.Output, resp.Result = a.Result.Output, a.Result.Result
		}
	}
	return resp, err
}

// redactResponse masks secrets in the output, the result, the error and
// the full-output file a tool left (bash's spool).
func redactResponse(r *redact.Redactor, resp *tool.Response, err error) (*tool.Response, error) {
	if resp != nil {
		cp := *resp
		cp.Output = r.String(cp.Output)
		cp.Result = r.Value(cp.Result)
		if cp.Continuation != nil && cp.Continuation.FullOutputPath != "" {
			redactFile(r, cp.Continuation.FullOutputPath)
		}
		resp = &cp
	}
	var te *tool.Error
	if errors.As(err, &te) {
		cp := *te
		cp.Message, cp.Hint = r.String(cp.Message), r.String(cp.Hint)
		err = &cp
	}
	return resp, err
}

// MaxRedactFileBytes bounds the full-output file redaction rewrites.
const MaxRedactFileBytes = 64 << 20

func redactFile(r *redact.Redactor, p string) {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxRedactFileBytes {
		return
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return
	}
	if masked := r.String(string(data)); masked != string(data) {
		_ = os.WriteFile(p, []byte(masked), fi.Mode().Perm())
	}
}

// run starts one command hook in its own process group, feeds it the
// message and reads its answer. Every failure blocks.
func (hs *Hooks) run(ctx context.Context, h hook, c *dispatch.Call, m message) (*answer, error) {
	in, err := json.Marshal(m)
	if err != nil {
		return nil, blocked(h, "cannot encode its input: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	cmd := exec.Command("/bin/sh", "-c", h.command)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr limited
	stdout.max, stderr.max = MaxAnswerBytes, 4096
	// The same environment policy and sandbox as bash's commands; a hook
	// that cannot be confined here does not run, and so blocks (a person
	// who wants it unconfined sets sandbox.mode).
	settings := spawn.Settings{}
	if c.Env != nil {
		settings = spawn.SettingsOf(c.Env)
		cmd.Dir = c.Env.Root // relative hook paths name files of the workspace
	}
	run := settings.Prepare(hs.environ())
	if run.Unenforceable != "" {
		return nil, blocked(h, "it cannot run confined here (%s)", run.Unenforceable)
	}
	// Pipes of its own, not exec's: Wait must return when the hook
	// exits, not when every process it left behind closes its output.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, blocked(h, "cannot start it: %v", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, blocked(h, "cannot start it: %v", err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	// Every process of the hook carries a marker, so that one which left
	// its group (setsid) is found and stopped with it.
	marker := JobVar + "=" + fsutil.RandomHex(8)
	cmd.Env = append(run.Env, marker)
	_, release, err := run.Start(cmd, proctree.StartGroup)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, blocked(h, "cannot start it: %v", err)
	}
	defer release() // once Wait has returned: every way out waits for done
	pid := cmd.Process.Pid
	var since uint64
	if p, ok := proctree.Read(pid); ok {
		since = p.Start
	}
	leftovers := func() []proctree.Proc { return proctree.Marked(marker, since) }
	outDone, errDone := readAll(outR, &stdout), readAll(errR, &stderr)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
		// The hook answered when its main process exited: what it left
		// behind goes, and what it wrote is read.
		proctree.StopReapedGroup(pid, 0)
		proctree.Stop(leftovers, 0)
		finishReading(outR, outDone)
		finishReading(errR, errDone)
	case <-ctx.Done():
		proctree.StopGroup(pid, stopGrace)
		proctree.Stop(leftovers, 0)
		<-done
		outR.Close()
		errR.Close()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, blocked(h, "it ran past its timeout of %s and was stopped with its children", h.timeout)
		}
		return nil, blocked(h, "the call was interrupted")
	}
	if werr != nil {
		return nil, blocked(h, "it failed (%v)%s", werr, stderrTail(stderr.String()))
	}
	if stdout.over {
		return nil, blocked(h, "it printed more than %d bytes", MaxAnswerBytes)
	}
	out := bytes.TrimSpace(stdout.Bytes())
	a := &answer{}
	if len(out) > 0 {
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		if err := dec.Decode(a); err != nil {
			return nil, blocked(h, "its answer is not a JSON object (%v): %.200q", err, out)
		}
	}
	switch a.Decision {
	case "", "allow":
	case "block", "deny":
		reason := a.Reason
		if reason == "" {
			reason = "no reason given"
		}
		return nil, blocked(h, "%s", reason)
	default:
		return nil, blocked(h, "its decision %q is neither allow nor block", a.Decision)
	}
	return a, nil
}

func stderrTail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return ": " + s
}

// authorityVars are never passed to a hook (an approval must not leak).
var authorityVars = []string{"MCODE_APPROVAL"}

func (hs *Hooks) environ() []string {
	env := hs.Environ
	if env == nil {
		env = os.Environ()
	}
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(authorityVars, k) || k == JobVar
	})
}

// readAll copies r into w until r ends or is closed; the channel closes
// then.
func readAll(r *os.File, w io.Writer) chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(w, r)
	}()
	return done
}

// finishReading waits for a pipe's reader once the hook has exited: to
// the end of the stream, or, when a process outside the hook's group
// still holds the pipe, until what is in it has been read (at most
// drainWait); then it closes the pipe.
func finishReading(r *os.File, done chan struct{}) {
	deadline := time.After(drainWait)
	for {
		select {
		case <-done:
			r.Close()
			return
		case <-deadline:
			r.Close()
			<-done
			return
		case <-time.After(20 * time.Millisecond):
			if proctree.PipeUnread(r) == 0 {
				r.Close()
				<-done
				return
			}
		}
	}
}

// limited is a buffer that stops growing at max.
type limited struct {
	bytes.Buffer
	max  int
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.max - l.Len(); len(p) > room {
		l.over = true
		if room > 0 {
			l.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return l.Buffer.Write(p)
}
