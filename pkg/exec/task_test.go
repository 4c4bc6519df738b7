//go:build unix

package exec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

func str(m map[string]any, key string) string { s, _ := m[key].(string); return s }

func num(m map[string]any, key string) float64 { f, _ := m[key].(float64); return f }

func readMeta(t *testing.T, env *tool.Env, id string) taskMeta {
	t.Helper()
	var m taskMeta
	data, err := os.ReadFile(filepath.Join(env.DataDir, TasksDir, id, metaFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTaskAcrossProcesses: a task started by one mcode process is read,
// listed, stopped and waited on by others.
func TestTaskAcrossProcesses(t *testing.T) {
	requireLinux(t)
	env := testEnv(t, nil)
	s := sleepArg()
	cleanup(t, s)
	out, r, err := inProcess(t, env, Name, map[string]any{"command": "echo started; sleep " + s + "; echo never", "background": true})
	id := str(r, "task_id")
	if err != nil || id == "" || str(r, "status") != StatusRunning || str(r, "invocation") != ExplicitBackground {
		t.Fatalf("start: %v %v %q", r, err, out)
	}
	if !strings.Contains(out, "Started background task "+id) || !strings.Contains(out, "mcode task output "+id) {
		t.Errorf("start output %q", out)
	}
	waitFor(t, 10*time.Second, "the sleep to start", func() bool { return len(pidsWithArg(s)) == 1 })

	out, r, err = inProcess(t, env, TaskOutputName, map[string]any{"task_id": id, "wait": 0.3})
	if err != nil || str(r, "status") != StatusRunning || !strings.Contains(out, "started\n") || num(r, "next_offset") != 8 {
		t.Errorf("output: %q %v %v", out, r, err)
	}
	out, r, err = inProcess(t, env, TaskListName, map[string]any{})
	tasks, _ := r["tasks"].([]any)
	if err != nil || len(tasks) != 1 || str(tasks[0].(map[string]any), "status") != StatusRunning || !strings.Contains(out, id+"  running") {
		t.Errorf("list: %q %v %v", out, r, err)
	}

	out, r, err = inProcess(t, env, TaskStopName, map[string]any{"task_id": id})
	if err != nil || str(r, "status") != StatusStopped || r["was_running"] != true || !strings.Contains(out, "Stopped task "+id) {
		t.Errorf("stop: %q %v %v", out, r, err)
	}
	noneLeft(t, s)

	out, r, err = inProcess(t, env, TaskWaitName, map[string]any{"task_id": id})
	if err == nil || err.Code != tool.CodeInterrupted || str(r, "status") != StatusStopped || !strings.Contains(out, "started\n") || strings.Contains(out, "never") {
		t.Errorf("wait: %q %v %+v", out, r, err)
	}
	// Stopping again only reports.
	out, r, err = inProcess(t, env, TaskStopName, map[string]any{"task_id": id})
	if err != nil || r["was_running"] != false || !strings.Contains(out, "had already ended") {
		t.Errorf("second stop: %q %v %v", out, r, err)
	}
}

func TestTaskWaitReportsTheExitStatus(t *testing.T) {
	env := testEnv(t, nil)
	_, r, err := inProcess(t, env, Name, map[string]any{"command": "echo hi; sleep 0.2; exit 5", "background": true})
	if err != nil {
		t.Fatal(err)
	}
	out, w, err := inProcess(t, env, TaskWaitName, map[string]any{"task_id": str(r, "task_id")})
	if err == nil || err.Code != tool.CodeExitStatus || err.Message != "Command exited with code 5" || num(w, "exit_code") != 5 || str(w, "status") != StatusExited {
		t.Errorf("wait: %v %+v", w, err)
	}
	if out != "[task "+str(r, "task_id")+": exited(5)]\nhi\n" {
		t.Errorf("wait output %q", out)
	}
}

func TestAutoBackgroundKeepsTheSameProcess(t *testing.T) {
	env := testEnv(t, func(b *config.Bash) { b.AutoBackgroundAfter = time.Second })
	out, r, err := bash(t, env, map[string]any{"command": "echo one; sleep 2; echo two", "timeout": 30})
	// A call that returns while its command runs never exits 0.
	if err == nil || err.Code != tool.CodeBackgrounded || err.ExitCode() != tool.ExitBackgrounded ||
		r.Status != StatusRunning || r.TaskID == "" || r.Invocation != ManagedForeground {
		t.Fatalf("result %+v err %v", r, err)
	}
	if !strings.Contains(err.Hint, "mcode task wait "+r.TaskID) {
		t.Errorf("hint %q", err.Hint)
	}
	if !strings.Contains(out, "Still running after 1 seconds: moved to background task "+r.TaskID) || !strings.Contains(out, "Output so far:\none\n") {
		t.Errorf("output %q", out)
	}
	if m := readMeta(t, env, r.TaskID); m.PID != r.PID || m.Kind != KindAuto || !m.Background || m.TimeoutS != 30 {
		t.Errorf("meta %+v", m)
	}
	out, w, werr := inProcess(t, env, TaskWaitName, map[string]any{"task_id": r.TaskID})
	if werr != nil || str(w, "status") != StatusExited || num(w, "pid") != float64(r.PID) {
		t.Errorf("wait: %v %v", w, werr)
	}
	if !strings.HasSuffix(out, "]\none\ntwo\n") {
		t.Errorf("the command was restarted or lost output: %q", out)
	}
}

// Under CI a foreground call waits for its command, however long, and
// returns its status; an explicit auto_background still hands it over.
func TestNoAutoBackgroundUnderCI(t *testing.T) {
	env := testEnv(t, func(b *config.Bash) { b.AutoBackgroundAfter = 300 * time.Millisecond })
	env.Getenv = func(k string) string {
		if k == "CI" {
			return "true"
		}
		return notCI(k)
	}
	_, r, err := bash(t, env, map[string]any{"command": "sleep 1; exit 3"})
	if err == nil || err.Code != tool.CodeExitStatus || err.ExitCode() != 3 || r.TaskID != "" || r.Invocation != DirectForeground {
		t.Errorf("under CI: result %+v err %v", r, err)
	}
	_, r, err = bash(t, env, map[string]any{"command": "sleep 1", "auto_background": true})
	if err == nil || err.Code != tool.CodeBackgrounded || r.TaskID == "" {
		t.Errorf("explicit auto_background under CI: result %+v err %v", r, err)
	}
	if r.TaskID != "" {
		inProcess(t, env, TaskWaitName, map[string]any{"task_id": r.TaskID})
	}
}

func TestAutoBackgroundKeepsItsTimeLimit(t *testing.T) {
	requireLinux(t)
	env := testEnv(t, func(b *config.Bash) { b.AutoBackgroundAfter = 500 * time.Millisecond })
	s := sleepArg()
	cleanup(t, s)
	_, r, err := bash(t, env, map[string]any{"command": "sleep " + s, "timeout": 1.5})
	if err == nil || err.Code != tool.CodeBackgrounded || r.TaskID == "" {
		t.Fatalf("result %+v err %v", r, err)
	}
	_, w, werr := inProcess(t, env, TaskWaitName, map[string]any{"task_id": r.TaskID})
	if werr == nil || werr.Code != tool.CodeTimeout || werr.Message != "Command timed out after 1.5 seconds" || str(w, "status") != StatusTimedOut {
		t.Errorf("wait: %v %+v", w, werr)
	}
	noneLeft(t, s)
}

func TestKeepChildrenMakesATask(t *testing.T) {
	requireLinux(t)
	env := testEnv(t, nil)
	s := sleepArg()
	cleanup(t, s)
	out, r, err := bash(t, env, map[string]any{"command": "sleep " + s + " & echo parent done", "keep_children": true, "timeout": 10})
	if err != nil || r.Status != StatusExited || r.TaskID == "" || r.LeftoversAction != "kept" || len(r.Leftovers) != 1 {
		t.Fatalf("result %+v err %v", r, err)
	}
	if !strings.HasPrefix(out, "parent done\n") || !strings.Contains(out, "kept as background task "+r.TaskID) || r.Bytes != int64(len("parent done\n")) {
		t.Errorf("output %q, %d bytes", out, r.Bytes)
	}
	// The shell may have exited before its background child became sleep.
	waitFor(t, 10*time.Second, "the kept child to run sleep", func() bool { return len(pidsWithArg(s)) == 1 })
	_, l, _ := inProcess(t, env, TaskListName, map[string]any{})
	if tasks, _ := l["tasks"].([]any); len(tasks) != 1 || str(tasks[0].(map[string]any), "kind") != KindLeftovers {
		t.Errorf("list: %v", l)
	}
	if _, st, err := inProcess(t, env, TaskStopName, map[string]any{"task_id": r.TaskID}); err != nil || str(st, "status") != StatusStopped {
		t.Errorf("stop: %v %v", st, err)
	}
	noneLeft(t, s)
}

func TestLostTaskIsReportedAndStoppedByItsMarker(t *testing.T) {
	requireLinux(t)
	env := testEnv(t, nil)
	s := sleepArg()
	cleanup(t, s)
	_, r, err := inProcess(t, env, Name, map[string]any{"command": "setsid sleep " + s + " & wait", "background": true})
	if err != nil {
		t.Fatal(err)
	}
	id := str(r, "task_id")
	waitFor(t, 10*time.Second, "the sleep to start", func() bool { return len(pidsWithArg(s)) == 1 })
	m := readMeta(t, env, id)
	if err := syscall.Kill(m.SupervisorPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the supervisor to die", func() bool { return !supervisorAlive(m) })
	_, o, err := inProcess(t, env, TaskOutputName, map[string]any{"task_id": id})
	if err != nil || str(o, "status") != StatusLost {
		t.Errorf("output of a lost task: %v %v", o, err)
	}
	_, w, werr := inProcess(t, env, TaskWaitName, map[string]any{"task_id": id})
	if werr == nil || werr.Code != tool.CodeToolError || !strings.Contains(werr.Message, "was lost") || str(w, "status") != StatusLost {
		t.Errorf("wait on a lost task: %v %+v", w, werr)
	}
	if len(pidsWithArg(s)) != 1 {
		t.Fatal("the setsid sleep should have outlived its supervisor")
	}
	out, st, err := inProcess(t, env, TaskStopName, map[string]any{"task_id": id})
	if err != nil || str(st, "status") != StatusStopped || !strings.Contains(out, "ended 1 process by its job marker") {
		t.Errorf("stop: %q %v %v", out, st, err)
	}
	noneLeft(t, s)
}

// startCaller runs a bash call in a separate process and waits until its
// command runs.
func startCaller(t *testing.T, env *tool.Env, args map[string]any, sleep string) *osexec.Cmd {
	t.Helper()
	data, _ := json.Marshal(args)
	cfg, _ := json.Marshal(env.Config.Bash)
	c := osexec.Command(os.Args[0], toolArg, Name, env.DataDir, string(data), string(cfg))
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	waitFor(t, 10*time.Second, "the command to start", func() bool { return len(pidsWithArg(sleep)) > 0 })
	return c
}

func TestCallerKilledTakesTheTreeWithIt(t *testing.T) {
	requireLinux(t)
	for i, p := range []map[string]any{{}, {"auto_background": false}, {"timeout": 10}, {}} {
		if i == 3 { // the supervisor a spare, as under mcode bash
			t.Setenv(spareVar, "1")
		}
		env := testEnv(t, nil)
		s := sleepArg()
		cleanup(t, s)
		// The shell's child, not the shell: Pdeathsig would take the shell
		// alone; the supervisor sees the control pipe close and stops all.
		p["command"] = "sleep " + s + " & wait"
		c := startCaller(t, env, p, s)
		if err := c.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = c.Wait()
		noneLeft(t, s)
	}
}

func TestTaskOutputPages(t *testing.T) {
	env := testEnv(t, nil)
	_, r, err := inProcess(t, env, Name, map[string]any{"command": "seq 1 30000", "background": true})
	if err != nil {
		t.Fatal(err)
	}
	id := str(r, "task_id")
	out, o, err := inProcess(t, env, TaskOutputName, map[string]any{"task_id": id, "wait": 30, "all": true})
	if err != nil || str(o, "status") != StatusExited || !strings.Contains(out, "lines, ") || o["complete"] != false {
		t.Fatalf("summary: %v %v", o, err)
	}
	var all strings.Builder
	offset := 0.0
	for i := 0; ; i++ {
		out, o, err := inProcess(t, env, TaskOutputName, map[string]any{"task_id": id, "offset": offset})
		if err != nil || i > 20 {
			t.Fatalf("page %d: %v", i, err)
		}
		body := strings.TrimPrefix(out, "[task "+id+": exited(0)]\n")
		if len(body) > OutputCap {
			t.Errorf("page of %d bytes", len(body))
		}
		all.WriteString(body)
		offset = num(o, "next_offset")
		if o["complete"] == true {
			break
		}
	}
	want, _ := osexec.Command("seq", "1", "30000").Output()
	if all.String() != string(want) {
		t.Errorf("pages put together differ from the output (%d vs %d bytes)", all.Len(), len(want))
	}
	out, _, _ = inProcess(t, env, TaskOutputName, map[string]any{"task_id": id, "offset": offset})
	if !strings.Contains(out, fmt.Sprintf("(no output after offset %d)", int(offset))) {
		t.Errorf("past the end: %q", out)
	}
}

// TestTaskOutputNewSinceLastRead follows a task as Claude Code's
// BashOutput does: each read without an offset returns what came after
// the last one, readers running at once never get the same bytes, and the
// pieces put together are the whole output.
func TestTaskOutputNewSinceLastRead(t *testing.T) {
	env := testEnv(t, nil)
	_, r, err := inProcess(t, env, Name, map[string]any{"command": "seq 1 3000; sleep 0.3; seq 3001 40000", "background": true})
	if err != nil {
		t.Fatal(err)
	}
	id := str(r, "task_id")
	type piece struct {
		from int
		text string
	}
	var mu sync.Mutex
	var pieces []piece
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				out, o, err := inProcess(t, env, TaskOutputName, map[string]any{"task_id": id})
				if err != nil {
					t.Error(err)
					return
				}
				notice := out[strings.LastIndex(out[:len(out)-1], "\n")+1:]
				if !strings.HasPrefix(notice, "[task "+id+": ") {
					t.Errorf("no closing line: %q", notice)
					return
				}
				text := strings.TrimSuffix(out, notice)
				if strings.Contains(notice, unfinishedLine) {
					text = strings.TrimSuffix(text, "\n") // the line break before the closing line only
				}
				if got := int(num(o, "next_offset") - num(o, "offset")); got != len(text) {
					t.Errorf("offsets %v-%v for %d bytes", o["offset"], o["next_offset"], len(text))
				}
				if text != "" && !strings.Contains(notice, fmt.Sprintf("new output: bytes %d-%d", int(num(o, "offset")), int(num(o, "next_offset")))) {
					t.Errorf("closing line %q does not say where", notice)
				}
				mu.Lock()
				pieces = append(pieces, piece{int(num(o, "offset")), text})
				mu.Unlock()
				if o["complete"] == true {
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
			t.Error("never complete")
		}()
	}
	wg.Wait()
	slices.SortFunc(pieces, func(a, b piece) int { return a.from - b.from })
	var all strings.Builder
	for _, p := range pieces {
		if p.text == "" {
			continue
		}
		if p.from != all.Len() {
			t.Fatalf("a piece starts at %d, after %d bytes: read twice or skipped", p.from, all.Len())
		}
		all.WriteString(p.text)
	}
	want, _ := osexec.Command("sh", "-c", "seq 1 40000").Output()
	if all.String() != string(want) {
		t.Errorf("pieces put together differ from the output (%d vs %d bytes)", all.Len(), len(want))
	}
	out, o, _ := inProcess(t, env, TaskOutputName, map[string]any{"task_id": id})
	if o["next_offset"] != o["offset"] || !strings.Contains(out, "no new output since byte") || !strings.Contains(out, "all output read") {
		t.Errorf("after the end: %q", out)
	}
	if _, _, err := inProcess(t, env, TaskOutputName, map[string]any{"task_id": id, "all": true, "offset": 0}); err == nil {
		t.Error("all with offset: no usage error")
	}
}

func TestUnknownTask(t *testing.T) {
	env := testEnv(t, nil)
	for _, id := range []string{"b00000000", "../../etc", ""} {
		_, _, err := call[TaskInfo](t, t.Context(), env, TaskWaitTool(), map[string]any{"task_id": id})
		if err == nil || err.Code != tool.CodeNotFound || !strings.Contains(err.Hint, "no background tasks") {
			t.Errorf("%q: %+v", id, err)
		}
	}
}

func TestFinishedTasksAreCollectedAfterRetention(t *testing.T) {
	env := testEnv(t, nil)
	_, r, err := inProcess(t, env, Name, map[string]any{"command": "echo old", "background": true})
	if err != nil {
		t.Fatal(err)
	}
	id := str(r, "task_id")
	if _, _, err := inProcess(t, env, TaskWaitName, map[string]any{"task_id": id}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(env.DataDir, TasksDir, id)
	gcTasks(env.DataDir, time.Now())
	if _, err := os.Stat(dir); err != nil {
		t.Fatal("a fresh task was collected")
	}
	old := time.Now().Add(-TaskRetention - time.Hour)
	for _, p := range []string{dir, filepath.Join(dir, exitFile)} {
		os.Chtimes(p, old, old)
	}
	gcTasks(env.DataDir, time.Now())
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("an old finished task was kept: %v", err)
	}

	// A foreground call's spool goes after a day; a running task stays.
	_, r2, err := bash(t, env, map[string]any{"command": "seq 1 100000"})
	if err != nil || r2.FullOutputPath == "" {
		t.Fatal(r2, err)
	}
	s := sleepArg()
	cleanup(t, s)
	_, r3, err := inProcess(t, env, Name, map[string]any{"command": "sleep " + s, "background": true})
	if err != nil {
		t.Fatal(err)
	}
	running := filepath.Join(env.DataDir, TasksDir, str(r3, "task_id"))
	old = time.Now().Add(-SpoolRetention - time.Hour)
	for _, p := range []string{filepath.Dir(r2.FullOutputPath), r2.FullOutputPath, running, filepath.Join(running, metaFile)} {
		os.Chtimes(p, old, old)
	}
	gcTasks(env.DataDir, time.Now())
	if _, err := os.Stat(r2.FullOutputPath); !os.IsNotExist(err) {
		t.Errorf("an old spool was kept: %v", err)
	}
	if _, err := os.Stat(running); err != nil {
		t.Errorf("a running task was collected: %v", err)
	}
	inProcess(t, env, TaskStopName, map[string]any{"task_id": str(r3, "task_id")})
	noneLeft(t, s)
}

func TestSpoolOfACutOutputSurvivesTheCall(t *testing.T) {
	env := testEnv(t, nil)
	_, r, err := bash(t, env, map[string]any{"command": "seq 1 100000", "auto_background": false})
	if err != nil || r.FullOutputPath == "" {
		t.Fatalf("%+v %v", r, err)
	}
	data, _ := os.ReadFile(r.FullOutputPath)
	if !bytes.HasSuffix(data, []byte("\n100000\n")) {
		t.Errorf("spool %d bytes", len(data))
	}
	// It is no background task.
	_, l, _ := call[TaskListResult](t, t.Context(), env, TaskListTool(), map[string]any{})
	if len(l.Tasks) != 0 {
		t.Errorf("tasks %v", l.Tasks)
	}
}

// A prompt without a newline is shown while the task waits, and the
// closing line says the newline before it is not output.
func TestTaskOutputShowsAnUnfinishedLine(t *testing.T) {
	env := testEnv(t, nil)
	_, r, err := inProcess(t, env, Name, map[string]any{"command": "printf 'done\\nPassword: '; sleep 5", "background": true})
	if err != nil {
		t.Fatal(err)
	}
	id := str(r, "task_id")
	t.Cleanup(func() { inProcess(t, env, TaskStopName, map[string]any{"task_id": id}) })
	for range 100 {
		out, _, err := inProcess(t, env, TaskOutputName, map[string]any{"task_id": id})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "Password: ") {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if !strings.Contains(out, "Password: \n[task "+id+": ") || !strings.Contains(out, "line") || !strings.Contains(out, " ("+unfinishedLine+")") {
			t.Fatalf("output = %q", out)
		}
		return
	}
	t.Fatal("the prompt never came")
}
