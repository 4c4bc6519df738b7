//go:build unix

package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/internal/peer"
	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"

	"github.com/mcode-dev/mcode/pkg/proctree"
)

// The test binary doubles as mcode's two process roles: a task
// supervisor (SupervisorArg), and a one-shot tool call (toolArg), so tests
// can run calls in separate processes and kill them.
const toolArg = "__test-tool"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case SupervisorArg:
			os.Exit(Supervise(SupervisorStreams()))
		case toolArg:
			os.Exit(toolMain(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

// spareVar makes toolMain start a spare supervisor first, as mcode bash
// does.
const spareVar = "MCODE_TEST_SPARE"

// toolMain runs `TOOL DATADIR ARGS-JSON [CONFIG-JSON]` and prints the
// response and error as one JSON line.
func toolMain(args []string) int {
	if os.Getenv(spareVar) != "" {
		exe, _ := os.Executable()
		defer StartSpare(exe)()
	}
	cfg := config.Defaults()
	if len(args) > 3 {
		if err := json.Unmarshal([]byte(args[3]), &cfg.Bash); err != nil {
			fmt.Println(err)
			return 2
		}
	}
	env := &tool.Env{Root: args[1], DataDir: args[1], Config: &cfg, Now: time.Now}
	t := toolByName(args[0])
	resp, err := t.Run(context.Background(), env, json.RawMessage(args[2]))
	out := callResult{Err: tool.AsError(err)}
	if resp != nil {
		out.Output = resp.Output
		out.Result, _ = json.Marshal(resp.Result)
	}
	data, _ := json.Marshal(out)
	fmt.Println(string(data))
	return 0
}

type callResult struct {
	Output string          `json:"output"`
	Result json.RawMessage `json:"result"`
	Err    *tool.Error     `json:"error"`
}

func toolByName(name string) *tool.Tool {
	for _, t := range []*tool.Tool{Tool(Options{}), TaskListTool(), TaskOutputTool(), TaskWaitTool(), TaskStopTool()} {
		if t.Name == name {
			return t
		}
	}
	panic("no tool " + name)
}

// testEnv is a workspace and data directory of the test's own.
func testEnv(t testing.TB, edit func(*config.Bash)) *tool.Env {
	t.Helper()
	cfg := config.Defaults()
	cfg.Bash.EnvSanitize = EnvOff
	if edit != nil {
		edit(&cfg.Bash)
	}
	dir := t.TempDir()
	env := &tool.Env{Root: dir, DataDir: filepath.Join(dir, ".mcode"), UserHome: dir, Config: &cfg, Now: time.Now,
		Getenv: notCI}
	t.Cleanup(func() { killTasksOf(env.DataDir) })
	return env
}

// notCI is the environment of a person's call: CI (and GitHub Actions)
// turn auto-background off, and the tests of it run in CI too.
func notCI(key string) string {
	if key == "CI" || key == "GITHUB_ACTIONS" {
		return ""
	}
	return os.Getenv(key)
}

// killTasksOf kills whatever a test left running under dataDir, even when
// it failed half-way: supervisors (by their task folder argument) and
// every process that carries the job marker of one of its tasks.
func killTasksOf(dataDir string) {
	entries, _ := os.ReadDir(filepath.Join(dataDir, TasksDir))
	for range 2 { // a process may fork while the first pass looks
		for _, pid := range proctree.AllPIDs() {
			cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			for _, e := range entries {
				dir := filepath.Join(dataDir, TasksDir, e.Name())
				if bytes.Contains(cmdline, []byte("\x00"+dir+"\x00")) || proctree.HasEnv(pid, jobMarkerVar+"="+e.Name()) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
	}
}

// call runs a tool in this process and decodes its result.
func call[R any](t *testing.T, ctx context.Context, env *tool.Env, tl *tool.Tool, args any) (string, R, *tool.Error) {
	t.Helper()
	data, _ := json.Marshal(args)
	resp, err := tl.Run(ctx, env, data)
	var r R
	var out string
	if resp != nil {
		out = resp.Output
		raw, _ := json.Marshal(resp.Result)
		if e := json.Unmarshal(raw, &r); e != nil {
			t.Fatalf("result: %v", e)
		}
	}
	var te *tool.Error
	if err != nil && !errors.As(err, &te) {
		t.Fatalf("untyped error: %v", err)
	}
	return out, r, te
}

func bash(t *testing.T, env *tool.Env, p map[string]any) (string, Result, *tool.Error) {
	t.Helper()
	return call[Result](t, context.Background(), env, Tool(Options{}), p)
}

// inProcess runs a tool call in a separate test-binary process.
func inProcess(t *testing.T, env *tool.Env, name string, args any) (string, map[string]any, *tool.Error) {
	t.Helper()
	data, _ := json.Marshal(args)
	cfg, _ := json.Marshal(env.Config.Bash)
	out, err := osexec.Command(os.Args[0], toolArg, name, env.DataDir, string(data), string(cfg)).Output()
	if err != nil {
		t.Fatalf("%s in a new process: %v\n%s", name, err, out)
	}
	var res callResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%s: %v: %s", name, err, out)
	}
	var m map[string]any
	_ = json.Unmarshal(res.Result, &m)
	return res.Output, m, res.Err
}

var uniq atomic.Int64

// sleepArg is a sleep duration no other process uses, so that a test can
// find exactly its own sleeps and nothing else.
func sleepArg() string {
	return fmt.Sprintf("%d.%03d", 900+os.Getpid()%99, uniq.Add(1))
}

// pidsWithArg lists the processes whose command line has arg as an argument.
func pidsWithArg(arg string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if p, ok := proctree.Read(pid); ok && p.Dead() {
			continue
		}
		for _, a := range bytes.Split(data, []byte{0}) {
			if string(a) == arg {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// noneLeft fails when a process with arg still runs (after a moment for
// the kernel to finish tearing it down), and kills it.
func noneLeft(t *testing.T, arg string) {
	t.Helper()
	var left []int
	for i := 0; i < 50; i++ {
		if left = pidsWithArg(arg); len(left) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("processes with %q still running: %v", arg, left)
	for _, pid := range left {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// cleanup kills anything a test left with arg, whatever happened.
func cleanup(t *testing.T, args ...string) {
	t.Cleanup(func() {
		for _, a := range args {
			for _, pid := range pidsWithArg(a) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

// waitFor polls cond until it holds, failing after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s after %s", what, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// within fails the test if f has not returned after limit: a liveness
// bound for calls that would otherwise hang for minutes, not a speed test.
func within[T any](t *testing.T, limit time.Duration, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(limit):
		t.Fatalf("the call did not return within %s", limit)
		panic("unreachable")
	}
}

// bashWithin is bash with a liveness bound (see within).
func bashWithin(t *testing.T, limit time.Duration, env *tool.Env, p map[string]any) (string, Result, *tool.Error) {
	t.Helper()
	type ret struct {
		out string
		r   Result
		err *tool.Error
	}
	v := within(t, limit, func() ret {
		out, r, err := bash(t, env, p)
		return ret{out, r, err}
	})
	return v.out, v.r, v.err
}

func requireLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process trees are tracked on Linux")
	}
}

func TestOutputExitCodeAndOrder(t *testing.T) {
	env := testEnv(t, nil)
	out, r, err := bash(t, env, map[string]any{"command": "echo a; echo b >&2; echo c"})
	if err != nil || out != "a\nb\nc\n" || *r.ExitCode != 0 || r.Status != StatusExited || r.Lines != 3 || r.Bytes != 6 {
		t.Errorf("out %q result %+v err %v", out, r, err)
	}
	if r.Invocation != ManagedForeground || r.Shell == "" || r.Cwd != env.Root || r.PID == 0 {
		t.Errorf("result %+v", r)
	}
	entries, _ := os.ReadDir(filepath.Join(env.DataDir, TasksDir))
	if len(entries) != 0 {
		t.Errorf("a short call left task folders behind: %v", entries)
	}
}

func TestExitStatusIsTheCommands(t *testing.T) {
	env := testEnv(t, nil)
	for _, c := range []struct {
		cmd    string
		code   int
		signal string
		hint   string
	}{
		{"echo out; exit 3", 3, "", ""},
		{"kill -KILL $$", 137, "SIGKILL", ""},
		{"no-such-command-xyz", 127, "", "command not found"},
	} {
		_, r, err := bash(t, env, map[string]any{"command": c.cmd, "timeout": 10})
		if err == nil || err.Code != tool.CodeExitStatus || err.ExitCode() != c.code || *r.ExitCode != c.code || r.Signal != c.signal {
			t.Errorf("%s: err %+v result exit %v signal %q", c.cmd, err, r.ExitCode, r.Signal)
			continue
		}
		if !strings.HasPrefix(err.Message, fmt.Sprintf("Command exited with code %d", c.code)) || !strings.Contains(err.Hint, c.hint) {
			t.Errorf("%s: %+v", c.cmd, err)
		}
	}
}

func TestNoOutputAndCatReturnsAtOnce(t *testing.T) {
	env := testEnv(t, nil)
	for cmd, want := range map[string]string{"cat": noOutput, `read x; echo "got:$x"`: "got:\n", "true": noOutput} {
		out, _, err := bashWithin(t, 30*time.Second, env, map[string]any{"command": cmd})
		if err != nil || out != want {
			t.Errorf("%s: %q, %v", cmd, out, err)
		}
	}
}

func TestTimeoutKillsEveryProcessEvenSetsid(t *testing.T) {
	requireLinux(t)
	env := testEnv(t, nil)
	a, b, c := sleepArg(), sleepArg(), sleepArg()
	cleanup(t, a, b, c)
	// A double fork into a new session, a plain background child, and a
	// foreground sleep: all out of the shell's reach but not of mcode's.
	cmd := fmt.Sprintf("(setsid sleep %s &); sleep %s & echo started; sleep %s", a, b, c)
	start := time.Now()
	out, r, err := bashWithin(t, 60*time.Second, env, map[string]any{"command": cmd, "timeout": 2})
	t.Logf("returned after %s", time.Since(start))
	if err == nil || err.Code != tool.CodeTimeout || err.Message != "Command timed out after 2 seconds" || err.ExitCode() != ExitTimeout {
		t.Errorf("error %+v", err)
	}
	if r.Status != StatusTimedOut || *r.ExitCode != ExitTimeout || r.Invocation != DirectForeground || !strings.HasPrefix(out, "started\n") || len(r.Survivors) != 0 {
		t.Errorf("out %q result %+v", out, r)
	}
	for _, arg := range []string{a, b, c} {
		noneLeft(t, arg)
	}
}

func TestTermTrapRuns(t *testing.T) {
	requireLinux(t)
	env := testEnv(t, nil)
	s := sleepArg()
	cleanup(t, s)
	marker := filepath.Join(env.Root, "cleaned")
	cmd := fmt.Sprintf("trap 'echo trapped; sleep 0.2; echo bye > %s; exit 7' TERM; echo waiting; sleep %s & wait", marker, s)
	out, r, err := bash(t, env, map[string]any{"command": cmd, "timeout": 1})
	if err == nil || err.Code != tool.CodeTimeout {
		t.Errorf("error %+v", err)
	}
	if !strings.Contains(out, "waiting\ntrapped\n") {
		t.Errorf("the TERM trap did not run: %q", out)
	}
	if data, _ := os.ReadFile(marker); string(data) != "bye\n" {
		t.Errorf("the trap's cleanup did not finish: %q", data)
	}
	if len(r.Survivors) != 0 {
		t.Errorf("survivors %v", r.Survivors)
	}
	noneLeft(t, s)
}

func TestTermIgnoredMeansKill(t *testing.T) {
	requireLinux(t)
	env := testEnv(t, nil)
	s := sleepArg()
	cleanup(t, s)
	start := time.Now()
	_, r, err := bash(t, env, map[string]any{"command": "trap '' TERM; sleep " + s + "; echo never", "timeout": 1})
	if err == nil || err.Code != tool.CodeTimeout || r.Status != StatusTimedOut {
		t.Errorf("error %+v result %+v", err, r)
	}
	if took := time.Since(start); took < time.Second+KillGrace-100*time.Millisecond {
		t.Errorf("SIGKILL came after %s, before the %s grace ended", took, KillGrace)
	}
	noneLeft(t, s)
}

func TestReturnsWhenMainExitsAndKillsLeftovers(t *testing.T) {
	requireLinux(t)
	env := testEnv(t, nil)
	s := sleepArg()
	cleanup(t, s)
	out, r, err := bashWithin(t, 30*time.Second, env, map[string]any{"command": "sleep " + s + " & echo done"})
	if err != nil || !strings.HasPrefix(out, "done\n") || r.LeftoversAction != "killed" || len(r.Leftovers) != 1 {
		t.Errorf("out %q result %+v err %v", out, r, err)
	}
	if !strings.Contains(out, "[mcode] 1 process was still running when the command exited and was killed") {
		t.Errorf("the output does not say what happened to the leftover: %q", out)
	}
	noneLeft(t, s)
}

func TestInterruptStopsTheTree(t *testing.T) {
	requireLinux(t)
	for _, auto := range []bool{false, true} { // direct, then under a supervisor
		env := testEnv(t, nil)
		s := sleepArg()
		cleanup(t, s)
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			waitFor(t, 20*time.Second, "the sleep to start", func() bool { return len(pidsWithArg(s)) > 0 })
			cancel()
		}()
		_, r, err := call[Result](t, ctx, env, Tool(Options{}), map[string]any{"command": "sleep " + s, "auto_background": auto})
		if err == nil || err.Code != tool.CodeInterrupted || r.Status != StatusStopped {
			t.Errorf("auto=%v: error %+v status %q", auto, err, r.Status)
		}
		noneLeft(t, s)
	}
}

func TestDeadlineOfTheCallIsATimeout(t *testing.T) {
	requireLinux(t)
	env := testEnv(t, nil)
	s := sleepArg()
	cleanup(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, r, err := call[Result](t, ctx, env, Tool(Options{}), map[string]any{"command": "sleep " + s})
	if err == nil || err.Code != tool.CodeTimeout || r.Status != StatusTimedOut || *r.ExitCode != ExitTimeout {
		t.Errorf("error %+v result %+v", err, r)
	}
	noneLeft(t, s)
}

func TestGitCommitWithoutMessageEnds(t *testing.T) {
	peer.Require(t, "git", "git")
	env := testEnv(t, nil)
	setup := "git init -q . && git config user.email t@example.com && git config user.name t && echo x > f && git add f"
	if _, _, err := bash(t, env, map[string]any{"command": setup}); err != nil {
		t.Fatalf("setup: %v", err)
	}
	for _, cmd := range []string{"git commit", "git commit -q -m first && echo y >> f && git commit -qam second && git rebase -i HEAD~1"} {
		out, _, err := bashWithin(t, 60*time.Second, env, map[string]any{"command": cmd, "timeout": 30})
		if err == nil || err.Code != tool.CodeExitStatus || !strings.Contains(strings.ToLower(out), "editor") {
			t.Errorf("%s: %+v, no word of the editor: %q", cmd, err, out)
		}
	}
}

func TestLargeOutputIsCutAndSpooled(t *testing.T) {
	env := testEnv(t, nil)
	out, r, err := bash(t, env, map[string]any{"command": "seq 1 200000"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > OutputCap || !strings.HasPrefix(out, "1\n2\n") || !strings.HasSuffix(out, "199999\n200000\n") {
		t.Errorf("output of %d bytes: %q … %q", len(out), out[:20], out[len(out)-20:])
	}
	if r.Lines != 200000 || r.FullOutputPath == "" || r.SpoolDroppedBytes != 0 {
		t.Errorf("result %+v", r)
	}
	want, _ := osexec.Command("seq", "1", "200000").Output()
	if got, _ := os.ReadFile(r.FullOutputPath); !bytes.Equal(got, want) {
		t.Errorf("the spool file holds %d bytes, want the %d of the whole output", len(got), len(want))
	}
	if !strings.Contains(out, "lines, ") || !strings.Contains(out, r.FullOutputPath) {
		t.Errorf("no marker naming the file in the output")
	}
}

func TestSpoolIsCapped(t *testing.T) {
	env := testEnv(t, func(b *config.Bash) { b.MaxSpoolMiB = 1 })
	out, r, err := bash(t, env, map[string]any{"command": "seq 1 1000000"})
	if err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(r.FullOutputPath)
	if info == nil || info.Size() != 1<<20 || r.SpoolDroppedBytes != r.Bytes-(1<<20) || r.Lines != 1000000 {
		t.Errorf("spool %v, result %+v", info, r)
	}
	if !strings.HasSuffix(out, "999999\n1000000\n") || !strings.Contains(out, "keeps the first 1.0 MiB of it") {
		t.Errorf("the tail beyond the spool is missing, or the marker does not say: %q", out[len(out)-200:])
	}
}

func TestANSIAndProgressAreCleanedButSpoolIsRaw(t *testing.T) {
	env := testEnv(t, nil)
	cmd := `printf '\033[32mok\033[0m\n'; for i in 1 2 3; do printf 'step %d/3\r' $i; done; echo; seq 1 10000`
	out, r, err := bash(t, env, map[string]any{"command": cmd})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "ok\nstep 3/3\n1\n") {
		t.Errorf("output %q", out[:40])
	}
	raw, _ := os.ReadFile(r.FullOutputPath)
	if !bytes.HasPrefix(raw, []byte("\x1b[32mok\x1b[0m\nstep 1/3\rstep 2/3\r")) {
		t.Errorf("spool is not raw: %q", raw[:40])
	}
}

// TestOutputStaysWithinTheCap: text that grows when cleaned (an invalid
// UTF-8 byte becomes a 3-byte U+FFFD) and the notes after it still fit in
// OutputCap.
func TestOutputStaysWithinTheCap(t *testing.T) {
	requireLinux(t)
	env := testEnv(t, nil)
	s := sleepArg()
	cleanup(t, s)
	for _, cmd := range []string{
		`yes "$(printf '\377')" | head -c 20000`,
		`yes "$(printf '\377')" | head -c 100000; sleep ` + s + ` & seq 1 20000`,
	} {
		out, r, err := bash(t, env, map[string]any{"command": cmd})
		if err != nil || len(out) > OutputCap || r.FullOutputPath == "" || !strings.Contains(out, "\uFFFD") {
			t.Errorf("%s: %d bytes of output, full_output_path %q, %v", cmd, len(out), r.FullOutputPath, err)
		}
	}
	noneLeft(t, s)
}

func TestCwd(t *testing.T) {
	env := testEnv(t, nil)
	if err := os.MkdirAll(filepath.Join(env.Root, "sub", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(env.Root, "file"), nil, 0o644)
	out, r, err := bash(t, env, map[string]any{"command": "pwd", "cwd": "sub/dir"})
	if err != nil || out != filepath.Join(env.Root, "sub", "dir")+"\n" || r.Cwd != filepath.Join(env.Root, "sub", "dir") {
		t.Errorf("out %q err %v", out, err)
	}
	_, _, err = bash(t, env, map[string]any{"command": "pwd", "cwd": "sub/dri"})
	if err == nil || err.Code != tool.CodeNotFound || !strings.Contains(err.Hint, "dir") {
		t.Errorf("missing cwd: %+v", err)
	}
	_, _, err = bash(t, env, map[string]any{"command": "pwd", "cwd": "file"})
	if err == nil || err.Code != tool.CodeNotADirectory {
		t.Errorf("file as cwd: %+v", err)
	}
	_, _, err = bash(t, env, map[string]any{"command": "  "})
	if err == nil || err.Code != tool.CodeInvalidArgs {
		t.Errorf("empty command: %+v", err)
	}
}

func TestTimeoutOverTheMaximumIsCut(t *testing.T) {
	env := testEnv(t, nil)
	out, r, err := bash(t, env, map[string]any{"command": "true", "timeout": 900})
	if err != nil || r.TimeoutS != 300 || r.RequestedTimeoutS == nil || *r.RequestedTimeoutS != 900 {
		t.Errorf("result %+v err %v", r, err)
	}
	if !strings.Contains(out, "[mcode] the requested timeout of 900 seconds was cut to the 300 seconds foreground maximum") {
		t.Errorf("output does not say the timeout was cut: %q", out)
	}
}

// envOf runs env in a child and returns the names it saw.
func envOf(t *testing.T, mode string, environ []string) (map[string]string, Result) {
	t.Helper()
	env := testEnv(t, func(b *config.Bash) { b.EnvSanitize = mode; b.EnvAllow = []string{"ALLOWED_*"} })
	out, r, err := call[Result](t, context.Background(), env, Tool(Options{Environ: func() []string { return environ }}),
		map[string]any{"command": "env"})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			seen[k] = v
		}
	}
	return seen, r
}

func TestEnvModesInTheChild(t *testing.T) {
	environ := append([]string{"PATH=" + os.Getenv("PATH")}, testEnviron[1:]...)
	for _, mode := range []string{EnvOff, EnvScrub, EnvStrict} {
		seen, r := envOf(t, mode, environ)
		_, want := sanitizeEnv(environ, mode, []string{"ALLOWED_*"}, "")
		if strings.Join(r.EnvRemoved, ",") != strings.Join(want, ",") || r.EnvSanitize != mode {
			t.Errorf("%s: env_removed %v, want %v", mode, r.EnvRemoved, want)
		}
		for _, name := range r.EnvRemoved {
			if _, ok := seen[name]; ok {
				t.Errorf("%s: the child still sees %s", mode, name)
			}
		}
		for _, kv := range environ {
			name, value, _ := strings.Cut(kv, "=")
			if _, removed := seen[name]; !removed && !strings.Contains(strings.Join(r.EnvRemoved, ","), name) && !overridden(name) && name != jobMarkerVar {
				t.Errorf("%s: %s was removed but not reported", mode, name)
			}
			if strings.Contains(strings.Join(r.EnvRemoved, ","), value) && len(value) > 2 {
				t.Errorf("%s: a value leaked into env_removed", mode)
			}
		}
		if seen["GIT_TERMINAL_PROMPT"] != "0" || seen["PAGER"] != "cat" || seen["GIT_EDITOR"] != "false" || seen["EDITOR"] != "false" {
			t.Errorf("%s: not non-interactive: %v", mode, seen)
		}
		if !strings.HasPrefix(seen[jobMarkerVar], "b") || seen[jobMarkerVar] == "parent" {
			t.Errorf("%s: job marker %q", mode, seen[jobMarkerVar])
		}
	}
	// scrub, exactly: the denylist and its INPUT_ aliases go, GH_TOKEN,
	// GITHUB_TOKEN and NPM_TOKEN stay.
	seen, _ := envOf(t, EnvScrub, environ)
	for _, kept := range []string{"GH_TOKEN", "GITHUB_TOKEN", "NPM_TOKEN", "AWS_ACCESS_KEY_ID", "DB_PASSWORD", "MCODE_HOME"} {
		if _, ok := seen[kept]; !ok {
			t.Errorf("scrub removed %s", kept)
		}
	}
}

func TestEnvModeAutoUnderCI(t *testing.T) {
	env := testEnv(t, func(b *config.Bash) { b.EnvSanitize = "" })
	_, r, err := call[Result](t, context.Background(), env, Tool(Options{Environ: func() []string {
		return []string{"PATH=" + os.Getenv("PATH"), "CI=true", "OPENAI_API_KEY=x"}
	}}), map[string]any{"command": "true"})
	if err != nil || r.EnvSanitize != EnvScrub || strings.Join(r.EnvRemoved, ",") != "OPENAI_API_KEY" {
		t.Errorf("result %+v err %v", r, err)
	}
}

func TestShimGoesFirstOnPath(t *testing.T) {
	env := testEnv(t, nil)
	shims := filepath.Join(env.Root, "shims")
	os.MkdirAll(shims, 0o755)
	os.WriteFile(filepath.Join(shims, "rm"), []byte("#!/bin/sh\necho \"shim rm $*\"\n"), 0o755)
	victim := filepath.Join(env.Root, "victim")
	os.WriteFile(victim, []byte("keep me"), 0o644)
	calls := 0
	opts := Options{Shims: func(ctx context.Context, e *tool.Env) (string, error) { calls++; return shims, nil }}
	out, _, err := call[Result](t, context.Background(), env, Tool(opts), map[string]any{"command": "rm victim; echo $PATH"})
	if err != nil || !strings.HasPrefix(out, "shim rm victim\n"+shims+":") || calls != 1 {
		t.Errorf("out %q err %v calls %d", out, err, calls)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the real rm ran: %v", err)
	}
	// The shim's failure refuses the command: it never runs.
	ran := filepath.Join(env.Root, "ran")
	opts.Shims = func(ctx context.Context, e *tool.Env) (string, error) {
		return "", errors.New("shims folder is read-only")
	}
	_, _, err = call[Result](t, context.Background(), env, Tool(opts), map[string]any{"command": "touch " + ran})
	if err == nil || err.Code != tool.CodeDenied || !strings.Contains(err.Message, "shims folder is read-only") {
		t.Errorf("error %+v", err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the command ran without its shim")
	}
	// bash.trashShim false: the hook is not even asked.
	env.Config.Bash.TrashShim = false
	calls = 0
	opts.Shims = func(ctx context.Context, e *tool.Env) (string, error) { calls++; return shims, nil }
	out, _, err = call[Result](t, context.Background(), env, Tool(opts), map[string]any{"command": "rm victim && echo removed"})
	if err != nil || out != "removed\n" || calls != 0 {
		t.Errorf("trashShim off: out %q err %v calls %d", out, err, calls)
	}
}

// TestPipelinesEndQuietly: the shell gets SIGPIPE at its default action in
// every mode, so `yes | head` ends without a broken-pipe message.
func TestPipelinesEndQuietly(t *testing.T) {
	env := testEnv(t, nil)
	for _, p := range []map[string]any{
		{"command": "yes | head -c 10", "auto_background": false},
		{"command": "yes | head -c 10"},
		{"command": "yes | head -c 10", "keep_children": true},
	} {
		out, r, err := bash(t, env, p)
		if err != nil || out != "y\ny\ny\ny\ny\n" || r.Bytes != 10 {
			t.Errorf("%v: %q %v", p, out, err)
		}
	}
}

// TestCommandGetsOnlyItsStreams: no descriptor of mcode or its supervisor
// leaks into the command. The shell execs ls, so no pipe or redirection of
// the shell's own can race with the listing; ls's own handle on the
// directory it lists is descriptor 3, so a leaked one would show as 3 and
// push ls's to 4.
func TestCommandGetsOnlyItsStreams(t *testing.T) {
	requireLinux(t)
	env := testEnv(t, nil)
	const cmd = "exec ls /proc/self/fd"
	for _, p := range []map[string]any{
		{"command": cmd, "auto_background": false},
		{"command": cmd},
	} {
		out, _, err := bash(t, env, p)
		if err != nil || out != "0\n1\n2\n3\n" {
			t.Errorf("%v: open descriptors %q, %v", p, out, err)
		}
	}
}

// TestOrphanWithoutMarkerIsStillFound: an orphan that cleared its
// environment and left the shell's session is still the job's.
func TestOrphanWithoutMarkerIsStillFound(t *testing.T) {
	requireLinux(t)
	env := testEnv(t, nil)
	for _, p := range []map[string]any{{"auto_background": false}, {}} {
		s := sleepArg()
		cleanup(t, s)
		p["command"] = "(env -i setsid sleep " + s + " &); sleep 0.5; echo ok"
		_, r, err := bash(t, env, p)
		if err != nil || r.LeftoversAction != "killed" {
			t.Errorf("%v: %+v %v", p, r, err)
		}
		noneLeft(t, s)
	}
}

func TestUnwritableDataDirRefusesCleanly(t *testing.T) {
	env := testEnv(t, nil)
	env.DataDir = filepath.Join(env.Root, "file")
	os.WriteFile(env.DataDir, nil, 0o644)
	marker := filepath.Join(env.Root, "ran")
	_, _, err := bash(t, env, map[string]any{"command": "touch " + marker})
	if err == nil || err.Code != tool.CodeToolError || !strings.Contains(err.Hint, "MCODE_HOME") {
		t.Errorf("%+v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
}

// TestSpareRunsTheCall: the spare supervisor started before the call is
// the one that runs it, in the foreground and in the background, with the
// call's environment and folder (it starts with neither); one nobody took
// exits without leaving anything.
func TestSpareRunsTheCall(t *testing.T) {
	requireLinux(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCODE_SPARE_TEST", "seen")
	env := testEnv(t, nil)
	release := StartSpare(exe)
	spare.Lock()
	s := spare.s
	spare.Unlock()
	out, r, terr := bash(t, env, map[string]any{"command": "echo $MCODE_SPARE_TEST; pwd; echo $PPID"})
	if terr != nil || out != fmt.Sprintf("seen\n%s\n%d\n", env.Root, s.pid) {
		t.Errorf("foreground through the spare (pid %d): %q %+v", s.pid, out, terr)
	}
	if takeSpare(exe) != nil {
		t.Error("the spare is still there after the call took it")
	}
	release()
	waitFor(t, 10*time.Second, "the spare to be reaped", func() bool { _, ok := proctree.Read(s.pid); return !ok })
	if r.Status != StatusExited || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Errorf("result %+v", r)
	}

	release = StartSpare(exe)
	spare.Lock()
	s = spare.s
	spare.Unlock()
	_, r, terr = bash(t, env, map[string]any{"command": "sleep 0.2; echo bg", "background": true})
	release() // a task's supervisor outlives the call
	if terr != nil || r.TaskID == "" {
		t.Fatalf("background through the spare: %+v %+v", r, terr)
	}
	if m := readMeta(t, env, r.TaskID); m.SupervisorPID != s.pid || !supervisorAlive(m) {
		t.Errorf("the task's supervisor is pid %d (alive %v), the spare was %d", m.SupervisorPID, supervisorAlive(m), s.pid)
	}
	out, _, terr = inProcess(t, env, TaskWaitName, map[string]any{"task_id": r.TaskID})
	if terr != nil || !strings.HasSuffix(out, "bg\n") {
		t.Errorf("wait: %q %+v", out, terr)
	}

	before, _ := os.ReadDir(filepath.Join(env.DataDir, TasksDir))
	release = StartSpare(exe)
	spare.Lock()
	s = spare.s
	spare.Unlock()
	release()
	waitFor(t, 10*time.Second, "the unused spare to exit", func() bool {
		select {
		case <-s.exited:
			return true
		default:
			return false
		}
	})
	if after, _ := os.ReadDir(filepath.Join(env.DataDir, TasksDir)); len(after) != len(before) {
		t.Errorf("an unused spare left %d task folders, there were %d", len(after), len(before))
	}
}
