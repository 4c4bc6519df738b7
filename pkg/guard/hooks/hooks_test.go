//go:build unix

package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/tool"
)

func newHooks(t *testing.T, cfg config.Hooks) *Hooks {
	t.Helper()
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func bashCall(cmd string) *dispatch.Call {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return &dispatch.Call{Request: dispatch.Request{Tool: "bash", Args: args}}
}

func denied(t *testing.T, err error, want ...string) {
	t.Helper()
	var te *tool.Error
	if !errors.As(err, &te) || te.Code != tool.CodeDenied {
		t.Fatalf("error %v, want denied", err)
	}
	for _, w := range want {
		if !strings.Contains(te.Message, w) {
			t.Errorf("message %q lacks %q", te.Message, w)
		}
	}
}

func TestBeforeHookReplacesArgsAndSeesTheCall(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen.json")
	h := newHooks(t, config.Hooks{BeforeTool: []config.Hook{
		{Tool: "read", Command: "echo '{\"decision\":\"block\"}'"}, // another tool's hook: not run
		{Tool: "bash", Command: "cat > " + seen + "; echo '{\"args\":{\"command\":\"echo replaced\"}}'"},
	}})
	c := bashCall("echo original")
	if err := h.Before(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if string(c.Args) != `{"command":"echo replaced"}` {
		t.Errorf("args %s", c.Args)
	}
	var m map[string]any
	data, _ := os.ReadFile(seen)
	if json.Unmarshal(data, &m) != nil || m["event"] != "before_tool" || m["tool"] != "bash" || m["args"].(map[string]any)["command"] != "echo original" {
		t.Errorf("the hook read %s", data)
	}
}

func TestFailingHooksBlock(t *testing.T) {
	for _, tc := range []struct{ command, want string }{
		{`echo '{"decision":"block","reason":"no pushes on Fridays"}'`, "no pushes on Fridays"},
		{"echo oops >&2; exit 3", "it failed (exit status 3): oops"},
		{"echo this is not json", "not a JSON object"},
		{`echo '{"decision":"maybe"}'`, "neither allow nor block"},
		{"exec /nonexistent/hook", "hooks.before_tool[0]"},
	} {
		h := newHooks(t, config.Hooks{BeforeTool: []config.Hook{{Command: tc.command}}})
		denied(t, h.Before(context.Background(), bashCall("ls")), tc.want)
	}
	for _, ok := range []string{"true", "echo '{}'", `echo '{"decision":"allow"}'`, "cat >/dev/null"} {
		h := newHooks(t, config.Hooks{BeforeTool: []config.Hook{{Command: ok}}})
		if err := h.Before(context.Background(), bashCall("ls")); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TestHangingHookIsStoppedWithItsChildren: a hook past its timeout blocks
// the call at once, and the process it left in the background dies too.
func TestHangingHookIsStoppedWithItsChildren(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	h := newHooks(t, config.Hooks{BeforeTool: []config.Hook{{
		Command: "sleep 60 & echo $! > " + pidFile + "; wait", Timeout: 300 * time.Millisecond}}})
	start := time.Now()
	err := h.Before(context.Background(), bashCall("ls"))
	denied(t, err, "past its timeout of 300ms")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("blocked after %s", d)
	}
	data, _ := os.ReadFile(pidFile)
	pid, perr := strconv.Atoi(strings.TrimSpace(string(data)))
	if perr != nil {
		t.Fatalf("pid file: %q", data)
	}
	deadline := time.Now().Add(3 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if strings.Contains(string(stat), ") Z ") {
			break // dead, waiting for its reaper
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hook's child %d outlived the hook", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestAfterHookReplacesTheResultAndOnErrorRuns(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "err.json")
	h := newHooks(t, config.Hooks{
		AfterTool: []config.Hook{{Command: `echo '{"result":{"output":"filtered","result":{"n":1}}}'`}},
		OnError:   []config.Hook{{Command: "cat > " + seen}},
	})
	resp, err := h.After(context.Background(), bashCall("ls"), &tool.Response{Output: "raw", Result: map[string]any{"n": 0}}, nil)
	if err != nil || resp.Output != "filtered" {
		t.Fatalf("%v %+v", err, resp)
	}
	_, err = h.After(context.Background(), bashCall("false"), &tool.Response{Output: ""}, &tool.Error{Code: tool.CodeExitStatus, Message: "Command exited with code 1", Exit: 1})
	if te := tool.AsError(err); te == nil || te.Code != tool.CodeExitStatus || te.Exit != 1 {
		t.Errorf("the tool's own error changed: %v", err)
	}
	data, _ := os.ReadFile(seen)
	if !strings.Contains(string(data), `"event":"on_error"`) || !strings.Contains(string(data), "exited with code 1") {
		t.Errorf("on_error read %s", data)
	}
	block := newHooks(t, config.Hooks{AfterTool: []config.Hook{{Command: "exit 1"}}})
	resp, err = block.After(context.Background(), bashCall("cat secrets"), &tool.Response{Output: "the secret"}, nil)
	denied(t, err, "hooks.after_tool[0]")
	if resp != nil {
		t.Errorf("a blocked result was handed on: %+v", resp)
	}
}

func TestRedactMasksOutputResultErrorAndTheFullOutputFile(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.log")
	secret := "AKIAIOSFODNN7EXAMPLE"
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"
	os.WriteFile(full, []byte("id "+secret+"\n"+key+"\n"), 0o600)
	h := newHooks(t, config.Hooks{AfterTool: []config.Hook{{Tool: "*", Redact: []string{"default", `token-[0-9]+`}}}})
	resp, err := h.After(context.Background(), bashCall("env"), &tool.Response{
		Output:       "key=" + secret + " token-12345\n" + key,
		Result:       struct{ Env []string }{[]string{"X=" + secret}},
		Continuation: &tool.Continuation{FullOutputPath: full},
	}, &tool.Error{Code: tool.CodeExitStatus, Message: "failed near " + secret})
	all, _ := json.Marshal(resp.Result)
	data, _ := os.ReadFile(full)
	for _, s := range []string{resp.Output, string(all), err.Error(), string(data)} {
		if strings.Contains(s, secret) || strings.Contains(s, "token-12345") || strings.Contains(s, "b3BlbnNzaC1rZXktdjEAAAAA") {
			t.Errorf("a secret survived: %s", s)
		}
		if !strings.Contains(s, "[REDACTED]") {
			t.Errorf("nothing masked in %q", s)
		}
	}
}

// A hook that answers at once but leaves a process holding its stdout
// returns when its main process exits, as bash and command tools do, with
// its answer; what it left behind is stopped, even out of its group.
func TestHookReturnsWhenItsMainProcessExits(t *testing.T) {
	dir := t.TempDir()
	for name, command := range map[string]string{
		"in its group": `echo '{"decision":"block","reason":"seen"}'; sleep 30 & echo $! > ` + filepath.Join(dir, "group.pid"),
		"setsid":       `echo '{"decision":"block","reason":"seen"}'; setsid sleep 30 & echo $! > ` + filepath.Join(dir, "setsid.pid"),
	} {
		t.Run(name, func(t *testing.T) {
			h := newHooks(t, config.Hooks{BeforeTool: []config.Hook{{Command: command, Timeout: 20 * time.Second}}})
			start := time.Now()
			denied(t, h.Before(context.Background(), bashCall("ls")), "seen")
			if d := time.Since(start); d > drainWait+3*time.Second {
				t.Fatalf("the hook took %s: it waited for the process it left behind", d)
			}
			pidFile := filepath.Join(dir, map[string]string{"in its group": "group.pid", "setsid": "setsid.pid"}[name])
			data, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			deadline := time.Now().Add(5 * time.Second)
			for pid > 0 && alive(pid) {
				if time.Now().After(deadline) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("the hook's background process %d outlived it", pid)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// A hook for a tool's other name (fetch for web_fetch) runs for it; a
// hook for another tool does not.
func TestHookMatchesAToolsOtherName(t *testing.T) {
	h := newHooks(t, config.Hooks{BeforeTool: []config.Hook{
		{Tool: "read", Command: "echo '{\"decision\":\"block\",\"reason\":\"read hook\"}'"},
		{Tool: "fetch", Command: "echo '{\"decision\":\"block\",\"reason\":\"no fetching today\"}'"},
	}})
	def := tool.New(tool.Spec{Name: "web_fetch", OtherNames: []string{"fetch"}, Schema: `{"type":"object"}`},
		func(context.Context, *tool.Env, map[string]any) (*tool.Response, error) { return nil, nil })
	c := &dispatch.Call{Request: dispatch.Request{Tool: "web_fetch", Args: json.RawMessage(`{"url":"https://example.com/"}`)}, Def: def}
	denied(t, h.Before(context.Background(), c), "no fetching today")
}
