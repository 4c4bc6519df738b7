package connector

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/proctree"
	"github.com/mcode-dev/mcode/pkg/spawn"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// StderrTailBytes is how much of a stdio server's stderr is kept for
// error messages: the end, where the reason usually is.
const StderrTailBytes = 4096

// Grace periods of a server's shutdown: after its stdin closes it has
// exitGrace to leave; then its process group gets SIGTERM, and termGrace
// later SIGKILL.
const (
	exitGrace = 200 * time.Millisecond
	termGrace = 1 * time.Second
)

// JobVar marks every process of a stdio server (see startProcess).
const JobVar = "MCODE_MCP_SERVER_JOB"

// inheritedEnv is what a stdio server gets of mcode's environment, as
// the MCP reference clients do: enough to run a program, no secrets.
// Its config's env adds to it.
var inheritedEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR", "TZ"}

// ServedVar marks an MCP server that an mcode started: when that server
// is mcode too (mcp serve), it does not start mcode again for its own
// listing — the workspace config it reads would name it once more, for
// ever.
const ServedVar = "MCODE_MCP_SERVED"

var errRecursion = errors.New("this mcode is itself an MCP server that an mcode started, and the server would be mcode again: it would start itself without end, so it is not started (mcp serve does not start the servers of its own config for itself)")

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// process is a running stdio server: its own process group, its stdio
// pipes, the tail of its stderr.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	tail   *tailBuffer

	done      chan struct{} // closed when the leader has been reaped
	waitErr   error
	marker    string // JobVar=ID, in the environment of each of its processes
	since     uint64 // the start time of its first process
	stderrEOF chan struct{}
	stopOnce  sync.Once
}

// startProcess starts a stdio server in its own process group, killed
// with mcode if mcode dies (SIGKILL included: the leader's parent-death
// signal, and its stdin reaching EOF).
//
// With warden (mcode's own executable) the server runs below a warden
// process (Warden) that takes its whole tree down even when mcode is
// killed with SIGKILL.
func startProcess(s Server, dir string, getenv func(string) string, warden string, settings spawn.Settings) (*process, error) {
	c := s.Config
	inherited := make([]string, 0, len(inheritedEnv))
	for _, k := range inheritedEnv {
		if v := getenv(k); v != "" {
			inherited = append(inherited, k+"="+v)
		}
	}
	// What it inherits goes through the environment policy; what its
	// config gives it, it was given on purpose.
	run := settings.Prepare(inherited)
	if run.Unenforceable != "" {
		return nil, &tool.Error{Code: tool.CodeServerUnavailable,
			Message: fmt.Sprintf("MCP server %s was not started: %s", s.Name, run.Unenforceable),
			Hint:    fmt.Sprintf("a person who wants it to run unconfined sets mcpServers.%s.sandbox.mode: danger-full-access in the user config", s.Name)}
	}
	env := slices.Clip(run.Env)
	for k, v := range c.Env {
		env = append(env, k+"="+expand(v, getenv))
	}
	// Every process of the server carries a marker, so that one which
	// left its group and tree is found and stopped with it.
	marker := JobVar + "=" + fsutil.RandomHex(8)
	env = append(env, marker)
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = expand(a, getenv)
	}
	command := expand(c.Command, getenv)
	cmd := exec.Command(command, args...)
	if warden != "" {
		// Resolved here, so that a missing command is named as such.
		path, err := exec.LookPath(command)
		if err != nil {
			return nil, err
		}
		if getenv(ServedVar) != "" && sameFile(path, warden) {
			return nil, errRecursion
		}
		cmd = exec.Command(warden, append([]string{WardenArg, path}, args...)...)
	}
	env = append(env, ServedVar+"=1")
	cmd.Env = env
	cmd.Dir = dir

	// Our own pipes, not exec's: Wait must not wait on a grandchild that
	// keeps stderr open, nor close stdout under the reader.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = wardenAttr()
	// The warden runs inside the sandbox too: it only starts, watches and
	// stops the server's tree, and the server inherits the sandbox.
	_, release, err := run.Start(cmd, (*exec.Cmd).Start)
	if err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, err
	}
	closeAll(inR, outW, errW)
	p := &process{cmd: cmd, stdin: inW, stdout: outR, tail: &tailBuffer{max: StderrTailBytes},
		done: make(chan struct{}), stderrEOF: make(chan struct{}), marker: marker}
	if info, ok := proctree.Read(cmd.Process.Pid); ok {
		p.since = info.Start
	}
	go func() {
		_, _ = io.Copy(p.tail, errR)
		errR.Close()
		close(p.stderrEOF)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		release() // the warden's parent-death signal is tied to the thread that started it
		close(p.done)
	}()
	return p, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// exited reports how the leader ended, waiting up to d for it; "" while
// it runs.
func (p *process) exited(d time.Duration) string {
	select {
	case <-p.done:
	case <-time.After(d):
		return ""
	}
	// Let the stderr reader take what the server wrote before it died.
	select {
	case <-p.stderrEOF:
	case <-time.After(100 * time.Millisecond):
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.String()
	}
	if p.waitErr != nil {
		return p.waitErr.Error()
	}
	return "exit status 0"
}

// stop ends the server and everything it started: stdin closed first
// (the MCP way to ask a stdio server to leave), then the process tree's
// TERM → grace → KILL. It returns once the leader is reaped and nothing
// of the group is left.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		p.stdin.Close()
		pid := p.cmd.Process.Pid
		select {
		case <-p.done:
			// The leader left and was reaped: its pid may name another
			// process now, its group cannot while a member lives.
			proctree.StopReapedGroup(pid, termGrace)
		case <-time.After(exitGrace):
			proctree.StopGroup(pid, termGrace)
		}
		<-p.done
		proctree.Stop(func() []proctree.Proc { return proctree.Marked(p.marker, p.since) }, termGrace)
		p.stdout.Close()
	})
}

// stderrTail is the end of the server's stderr, cleaned for a message.
func (p *process) stderrTail() string {
	return strings.TrimSpace(p.tail.String())
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	lost bool
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.lost = true
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lost {
		return "…" + strings.ToValidUTF8(string(t.buf), "")
	}
	return string(t.buf)
}

// describeStartError says why a stdio server's program did not start.
func describeStartError(s Server, err error) string {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return fmt.Sprintf("command %q of MCP server %s: %v", s.Config.Command, s.Name, ee.Err)
	}
	return fmt.Sprintf("starting MCP server %s: %v", s.Name, err)
}
