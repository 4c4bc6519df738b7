package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests drive the real `mcode mcp serve` process with the go-sdk
// client over stdio.

// connectServe starts c (mcode mcp serve) with its stdin and stdout as
// the client's transport; the test owns the process (to signal it).
func connectServe(t *testing.T, c *exec.Cmd) *mcp.ClientSession {
	cs, _ := connectServeStdin(t, c)
	return cs
}

// connectServeStdin is connectServe that also hands back the server's
// stdin, to close it.
func connectServeStdin(t *testing.T, c *exec.Cmd) (*mcp.ClientSession, io.WriteCloser) {
	t.Helper()
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = &testWriter{t: t}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		if c.ProcessState == nil {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcode-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatalf("connect to mcode mcp serve: %v", err)
	}
	return cs, stdin
}

// testWriter logs a process's stderr in the test's log.
type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Logf("stderr: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func TestMCPServeListsWhatToolsListShows(t *testing.T) {
	for _, role := range []string{"", "explore"} {
		t.Run("role="+role, func(t *testing.T) {
			args := []string{"mcp", "serve"}
			if role != "" {
				args = append(args, "--role", role)
			}
			c := mcodeCmd(t, args...)
			cs := connectServe(t, c)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			listArgs := []string{"tools", "list", "--format", "mcp"}
			if role != "" {
				listArgs = append(listArgs, "--role", role)
			}
			lc := mcodeCmd(t, listArgs...)
			lc.Dir = c.Dir
			out, err := lc.Output()
			if err != nil {
				t.Fatalf("tools list: %v", err)
			}
			var want struct {
				Result struct {
					Tools []map[string]any `json:"tools"`
				} `json:"result"`
			}
			if err := json.Unmarshal(out, &want); err != nil {
				t.Fatal(err)
			}
			var got []map[string]any
			for _, tl := range res.Tools {
				data, _ := json.Marshal(tl)
				var m map[string]any
				_ = json.Unmarshal(data, &m)
				got = append(got, m)
			}
			if len(got) == 0 {
				t.Fatal("no tools listed")
			}
			// The SDK lists tools by name; tools list in registration order.
			byName := func(a, b map[string]any) int { return strings.Compare(a["name"].(string), b["name"].(string)) }
			slices.SortFunc(want.Result.Tools, byName)
			slices.SortFunc(got, byName)
			if diff := cmp.Diff(want.Result.Tools, got); diff != "" {
				t.Errorf("tools/list differs from tools list --format mcp (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMCPServeCallsRead(t *testing.T) {
	c := mcodeCmd(t, "mcp", "serve")
	if err := os.WriteFile(filepath.Join(c.Dir, "a.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connectServe(t, c)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "a.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("read failed: %+v", res.Content)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "1→alpha") || !strings.Contains(text, "2→beta") {
		t.Errorf("read text = %q", text)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	if sc["kind"] != "text" || sc["bytes"] != float64(11) {
		t.Errorf("structuredContent = %v", res.StructuredContent)
	}

	// A schema violation comes back as isError with the usage error, so
	// that the model can correct itself.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": 7}})
	if err != nil {
		t.Fatal(err)
	}
	text = res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "error: usage:") || !strings.Contains(text, "hint: ") {
		t.Errorf("schema violation: isError=%v text=%q", res.IsError, text)
	}

	// A missing file: the error's code, message and hint.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "missing.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	text = res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "error: not_found:") {
		t.Errorf("missing file: isError=%v text=%q", res.IsError, text)
	}
}

// A cancelled bash call ends its whole process tree, and the server goes
// on serving.
func TestMCPServeCancelKillsBashTree(t *testing.T) {
	c := mcodeCmd(t, "mcp", "serve")
	cs := connectServe(t, c)
	marker := "mcode-mcp-cancel-" + filepath.Base(c.Dir)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{
			"command": "export MCODE_TEST_MARK=" + marker + "; sh -c 'sleep 300; echo done' & sleep 301 & wait",
		}})
		done <- err
	}()
	waitFor(t, func() bool { return len(pidsWith(marker)) >= 2 }, "the bash tree to start")
	cancel()
	if err := <-done; err == nil {
		t.Error("cancelled call returned no error")
	}
	waitFor(t, func() bool { return len(pidsWith(marker)) == 0 }, "the bash tree to end after notifications/cancelled")

	// The session still works.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "datetime", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("call after cancel: %v %+v", err, res)
	}
}

// Closing stdin ends the server at once, with exit 0, and a call in
// flight ends with it, its processes too; so does SIGTERM.
func TestMCPServeEndsOnStdinCloseAndSignal(t *testing.T) {
	for _, how := range []string{"stdin", "SIGTERM", "SIGINT"} {
		t.Run(how, func(t *testing.T) {
			c := mcodeCmd(t, "mcp", "serve")
			cs, stdin := connectServeStdin(t, c)
			marker := "mcode-mcp-end-" + how + "-" + filepath.Base(c.Dir)
			go func() {
				_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{
					"command": "export MCODE_TEST_MARK=" + marker + "; sleep 302",
				}})
			}()
			waitFor(t, func() bool { return len(pidsWith(marker)) >= 1 }, "the bash call to start")
			start := time.Now()
			switch how {
			case "stdin":
				_ = stdin.Close()
			case "SIGTERM":
				_ = c.Process.Signal(syscall.SIGTERM)
			case "SIGINT":
				_ = c.Process.Signal(syscall.SIGINT)
			}
			exited := make(chan error, 1)
			go func() { exited <- c.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("mcode mcp serve: %v, want exit 0", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("mcode mcp serve did not exit")
			}
			t.Logf("exited %s after %s", how, time.Since(start))
			if pids := pidsWith(marker); len(pids) > 0 {
				t.Errorf("processes left running after mcode mcp serve exited: %v", pids)
			}
		})
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pidsWith lists the live processes whose environment has
// MCODE_TEST_MARK=marker.
func pidsWith(marker string) []string {
	var pids []string
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		environ, err := os.ReadFile("/proc/" + p.Name() + "/environ")
		if err != nil || !strings.Contains("\x00"+string(environ), "\x00MCODE_TEST_MARK="+marker+"\x00") {
			continue
		}
		if stat, _ := os.ReadFile("/proc/" + p.Name() + "/stat"); strings.Contains(string(stat), ") Z ") {
			continue // a zombie has ended; its parent has yet to reap it
		}
		pids = append(pids, p.Name())
	}
	return pids
}

// The guard holds for MCP calls as for CLI calls: a denied call and an
// approval-required one answer isError with what to do; after a person
// runs `mcode approve ID`, the same call sent again runs, once.
func TestMCPServeGuard(t *testing.T) {
	c := mcodeCmd(t, "mcp", "serve")
	cfg := "guard:\n  rules:\n    - {tool: datetime, action: require_approval}\n    - {tool: glob, action: deny}\n"
	if err := os.WriteFile(filepath.Join(c.Dir, ".mcode.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connectServe(t, c)
	ctx := context.Background()
	call := func(name string) (*mcp.CallToolResult, string) {
		t.Helper()
		args := map[string]any{}
		if name == "glob" {
			args["pattern"] = "*"
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		var text string
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		return res, text
	}
	if res, text := call("glob"); !res.IsError || !strings.Contains(text, "error: denied: ") {
		t.Errorf("denied glob: isError=%v %q", res.IsError, text)
	}
	res, text := call("datetime")
	sc, _ := res.StructuredContent.(map[string]any)
	id, _ := sc["approval_id"].(string)
	if !res.IsError || id == "" || !strings.Contains(text, "error: approval_required: ") || !strings.Contains(text, "mcode approve "+id) {
		t.Fatalf("approval required: isError=%v structured=%v text=%q", res.IsError, res.StructuredContent, text)
	}
	approve := exec.Command("ptyrun", "code", "mcode", "approve", id)
	approve.Dir, approve.Env = c.Dir, c.Env
	if out, err := approve.CombinedOutput(); err != nil {
		t.Fatalf("mcode approve %s at a terminal: %v\n%s", id, err, out)
	}
	if res, text := call("datetime"); res.IsError {
		t.Fatalf("approved call: %q", text)
	}
	if res, _ := call("datetime"); !res.IsError {
		t.Error("the approval ran the call twice")
	}
	// approve and deny are a person's, never tools a client may call.
	for _, name := range []string{"approve", "deny"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"id": id}})
		if err == nil && !res.IsError {
			t.Errorf("tools/call %s was served: %+v", name, res)
		}
	}
}

// Under mcp serve a bash call moves to the background after 50 s (MCP
// clients' usual request limit is 60 s), not the command line's 100 s:
// the plan of a call shows it without waiting that long.
func TestMCPServeAutoBackgroundsSooner(t *testing.T) {
	c := mcodeCmd(t, "mcp", "serve")
	c.Env = append(c.Env, "CI=")
	cs := connectServe(t, c)
	for _, tc := range []struct {
		timeout float64
		want    string
	}{{50, "direct_foreground"}, {51, "managed_foreground"}} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash",
			Arguments: map[string]any{"command": "true", "timeout": tc.timeout}})
		if err != nil {
			t.Fatal(err)
		}
		sc, _ := res.StructuredContent.(map[string]any)
		if res.IsError || sc["invocation"] != tc.want {
			t.Errorf("timeout %v: invocation %v, want %s (isError %v)", tc.timeout, sc["invocation"], tc.want, res.IsError)
		}
	}
}

// mcp serve sends an image read as image content, which clients show;
// the structured result leaves the base64 out, as the CLI's JSON does.
func TestMCPServeSendsImageContent(t *testing.T) {
	c := mcodeCmd(t, "mcp", "serve")
	// A 1×1 PNG.
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")
	if err := os.WriteFile(filepath.Join(c.Dir, "dot.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connectServe(t, c)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "dot.png"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("isError %v, content %+v", res.IsError, res.Content)
	}
	img, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" || string(img.Data) != string(png) {
		t.Errorf("image content = %#v", res.Content[1])
	}
	sc, _ := res.StructuredContent.(map[string]any)
	media, _ := sc["media"].(map[string]any)
	if media == nil || media["data"] != nil || media["width"] != float64(1) {
		t.Errorf("structuredContent.media = %v", sc["media"])
	}
}

// A client that declares elicitation is asked, for its user, about a
// held call: accept runs it once, decline denies it; a client without
// the capability gets approval_required with the id, as before.
func TestMCPServeAsksTheClientsUser(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  string // "" for a client without elicitation
		wantErr string
	}{
		{"accept", "accept", ""},
		{"decline", "decline", "error: denied: "},
		{"cancel", "cancel", "error: denied: "},
		{"no capability", "", "error: approval_required: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mcodeCmd(t, "mcp", "serve")
			cfg := "guard:\n  rules:\n    - {tool: write, action: require_approval}\n"
			if err := os.WriteFile(filepath.Join(c.Dir, ".mcode.yaml"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			stdin, err := c.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := c.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			c.Stderr = &testWriter{t: t}
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { stdin.Close(); c.Process.Kill(); c.Wait() })
			var asked []string
			opts := &mcp.ClientOptions{}
			if tc.answer != "" {
				opts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = append(asked, req.Params.Message)
					return &mcp.ElicitResult{Action: tc.answer}, nil
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcode-test", Version: "1"}, opts).Connect(ctx, &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"file_path": "w.txt", "content": "x"}})
			if err != nil {
				t.Fatal(err)
			}
			var text string
			for _, ct := range res.Content {
				if tc, ok := ct.(*mcp.TextContent); ok {
					text += tc.Text
				}
			}
			_, statErr := os.Stat(filepath.Join(c.Dir, "w.txt"))
			if tc.wantErr == "" {
				if res.IsError || statErr != nil {
					t.Fatalf("accepted: isError=%v %q, file: %v", res.IsError, text, statErr)
				}
				if len(asked) != 1 || !strings.Contains(asked[0], `write {"content":"x","file_path":"w.txt"}`) {
					t.Errorf("the question does not name the call in full: %q", asked)
				}
				return
			}
			if !res.IsError || !strings.Contains(text, tc.wantErr) || statErr == nil {
				t.Errorf("isError=%v %q, file written: %v", res.IsError, text, statErr == nil)
			}
			if tc.answer == "" && len(asked) != 0 {
				t.Errorf("a client without the capability was asked: %q", asked)
			}
		})
	}
}
