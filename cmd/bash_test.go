package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/pkg/exec"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// TestMain lets the test binary be what mcode starts itself as (a bash
// task supervisor, an MCP server's warden), as mcode is (f.Executable is
// the test binary): every bash call starts a supervisor.
func TestMain(m *testing.M) {
	if _, hidden := hiddenCommands[firstArg()]; hidden {
		os.Exit(Main())
	}
	os.Exit(m.Run())
}

func firstArg() string {
	if len(os.Args) > 1 {
		return os.Args[1]
	}
	return ""
}

func TestNewCmdBashAndTaskFlagsEqualArgs(t *testing.T) {
	cases := []struct {
		argv  []string
		stdin string
		want  map[string]any
	}{
		{[]string{"bash", "echo hi"}, "", map[string]any{"command": "echo hi"}},
		{[]string{"bash", "x", "--timeout", "2"}, "", map[string]any{"command": "x", "timeout": 2.0}},
		{[]string{"bash", "x", "--timeout", "2m"}, "", map[string]any{"command": "x", "timeout": 120.0}},
		{[]string{"--timeout", "7", "bash", "x"}, "", map[string]any{"command": "x", "timeout": 7.0}},
		{[]string{"bash", "x", "--keep-children", "--auto-background=false", "--cwd", "sub"}, "", map[string]any{"command": "x", "keep_children": true, "auto_background": false, "cwd": "sub"}},
		{[]string{"bash", "--args", `{"command":"y","background":true}`, "--cwd", "d"}, "", map[string]any{"command": "y", "background": true, "cwd": "d"}},
		{[]string{"bash", "-"}, "for f in *; do\n  echo \"$f\"\ndone\n", map[string]any{"command": "for f in *; do\n  echo \"$f\"\ndone"}},
		{[]string{"task", "list"}, "", map[string]any{}},
		{[]string{"task", "output", "b1", "--offset", "10", "--wait", "1.5"}, "", map[string]any{"task_id": "b1", "offset": int64(10), "wait": 1.5}},
		{[]string{"task", "output", "b1", "--wait", "2m"}, "", map[string]any{"task_id": "b1", "wait": 120.0}},
		{[]string{"task", "wait", "b1", "--timeout", "30m"}, "", map[string]any{"task_id": "b1"}},
		{[]string{"task", "stop", "b1"}, "", map[string]any{"task_id": "b1"}},
	}
	for _, c := range cases {
		f, bufs := testFactory(t, nil)
		bufs.in.WriteString(c.stdin)
		var got *CallOptions
		root := NewCmdRoot(f)
		for _, sc := range root.Commands() {
			if sc.Name() == "bash" || sc.Name() == "task" {
				root.RemoveCommand(sc)
			}
		}
		capture := func(o *CallOptions) error { got = o; return nil }
		root.AddCommand(NewCmdBash(f, capture), NewCmdTask(f, capture))
		root.SetArgs(c.argv)
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v", c.argv, err)
		}
		if diff := cmp.Diff(c.want, got.Args); diff != "" {
			t.Errorf("%v (-want +got):\n%s", c.argv, diff)
		}
		// bash's --timeout is its own: the generic per-call deadline stays off.
		if c.argv[0] != "task" && f.Global.Timeout != "" {
			t.Errorf("%v: the global --timeout was set to %q", c.argv, f.Global.Timeout)
		}
		if c.argv[1] == "wait" && f.Global.Timeout != "30m" {
			t.Errorf("task wait --timeout is the global limit, got %q", f.Global.Timeout)
		}
	}
}

func TestBashThroughTheCLI(t *testing.T) {
	f, bufs := testFactory(t, nil)
	code, m := runJSON(t, f, bufs, "bash", "echo out; exit 3", "--timeout", "10")
	res := m["result"].(map[string]any)
	if code != 3 || errCode(m) != "exit_status" || m["output"] != "out\n" || res["exit_code"] != 3.0 || res["timeout_s"] != 10.0 {
		t.Errorf("exit %d, %v", code, m)
	}
	f, bufs = testFactory(t, nil)
	code, m = runJSON(t, f, bufs, "bash", "sleep 30", "--timeout", "1")
	if code != tool.ExitTimeout || errCode(m) != "timeout" || !strings.Contains(m["error"].(map[string]any)["message"].(string), "after 1 seconds") {
		t.Errorf("exit %d, %v", code, m)
	}
	f, bufs = testFactory(t, nil)
	code, m = runJSON(t, f, bufs, "bash")
	if code != tool.ExitUsage || errCode(m) != "usage" {
		t.Errorf("no command: exit %d, %v", code, m)
	}
	f, bufs = testFactory(t, nil)
	code, m = runJSON(t, f, bufs, "task", "output", "nosuch")
	if code != tool.ExitFailure || errCode(m) != "not_found" {
		t.Errorf("unknown task: exit %d, %v", code, m)
	}
}

// TestSupervisorEntryIsFirst: mcode started as a supervisor speaks the
// supervisor's protocol at once; it builds no command tree and reads no
// config (cobra would answer an unknown command with an envelope and exit
// 2), and a foreground run leaves nothing in its folder.
func TestSupervisorEntryIsFirst(t *testing.T) {
	dir := t.TempDir()
	spec, _ := json.Marshal(map[string]any{
		"dir": dir,
		"job": map[string]any{"ID": "bt1", "Shell": "/bin/sh", "Command": "echo hi", "Dir": dir,
			"SpoolPath": filepath.Join(dir, "output.log"), "SpoolCap": 1 << 20, "LazySpool": true},
	})
	evR, evW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	c := osexec.Command(os.Args[0], exec.SupervisorArg)
	c.Env = append(os.Environ(), "MCODE_CONFIG="+filepath.Join(dir, "no-such.yaml"))
	c.Stdin, c.Stdout, c.Stderr, c.ExtraFiles = ctlR, &out, &errOut, []*os.File{evW}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	ctlR.Close()
	evW.Close()
	if _, err := ctlW.Write(append(spec, '\n')); err != nil {
		t.Fatal(err)
	}
	var events []string
	sc := bufio.NewScanner(evR)
	for sc.Scan() {
		var ev struct {
			Event  string `json:"event"`
			Record *struct {
				ExitCode int `json:"exit_code"`
				Output   struct {
					Tail []byte `json:"tail"`
				} `json:"output"`
			} `json:"record"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not an event: %q", sc.Text())
		}
		events = append(events, ev.Event)
		if ev.Event == "done" {
			if ev.Record == nil || ev.Record.ExitCode != 0 || string(ev.Record.Output.Tail) != "hi\n" {
				t.Errorf("done: %+v", ev.Record)
			}
			_, _ = ctlW.Write([]byte("taken\n"))
			ctlW.Close()
		}
	}
	if err := c.Wait(); err != nil || !slices.Equal(events, []string{"started", "done"}) {
		t.Errorf("supervisor: %v, events %v", err, events)
	}
	if out.Len()+errOut.Len() > 0 {
		t.Errorf("the supervisor printed %q / %q", out.String(), errOut.String())
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("a foreground run left %v in its folder", left)
	}
}
