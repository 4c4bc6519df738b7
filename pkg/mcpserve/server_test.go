package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// testCaller is a call path over a real registry of two tools: "note", a
// sequential tool that records when it starts and ends, and "look", a
// parallel one; both validate their arguments against their schemas like
// every tool does.
type testCaller struct {
	reg *tool.Registry
	mu  sync.Mutex
	log []string
	// running counts calls in flight; maxSeq is the most sequential calls
	// ever seen running at once beside anything.
	running, maxWithSeq int
	seqRunning          bool
	hold                chan struct{} // a "note" with hold=true waits on it
}

type noteParams struct {
	Text  string `json:"text"`
	Hold  bool   `json:"hold,omitempty"`
	Sleep int    `json:"sleep_ms,omitempty"`
}

func newTestCaller(t testing.TB) *testCaller {
	c := &testCaller{hold: make(chan struct{})}
	schema := `{"type": "object", "properties": {"text": {"type": "string"}, "hold": {"type": "boolean"}, "sleep_ms": {"type": "integer"}}, "required": ["text"], "additionalProperties": false}`
	run := func(seq bool) tool.RunFunc[noteParams] {
		return func(ctx context.Context, env *tool.Env, p noteParams) (*tool.Response, error) {
			c.enter(p.Text, seq)
			defer c.leave(p.Text, seq)
			if p.Hold {
				select {
				case <-c.hold:
				case <-ctx.Done():
					return nil, &tool.Error{Code: tool.CodeInterrupted, Message: "cancelled"}
				}
			}
			time.Sleep(time.Duration(p.Sleep) * time.Millisecond)
			if p.Text == "fail" {
				return &tool.Response{Output: "partial"}, &tool.Error{Code: tool.CodeNotFound, Message: "no such note", Hint: "write it first"}
			}
			return &tool.Response{Output: "noted " + p.Text, Result: map[string]any{"text": p.Text}}, nil
		}
	}
	reg, err := tool.NewRegistry(
		tool.New(tool.Spec{Name: "note", Mode: tool.Sequential, Description: "Notes a text.", Schema: schema,
			Facts: tool.Facts{Destructive: true}}, run(true)),
		tool.New(tool.Spec{Name: "look", Mode: tool.Parallel, Description: "Looks at a text.", Schema: schema,
			Facts: tool.Facts{ReadOnly: true, Idempotent: true}}, run(false)),
	)
	if err != nil {
		t.Fatal(err)
	}
	c.reg = reg
	return c
}

func (c *testCaller) enter(text string, seq bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, "start "+text)
	c.running++
	if seq || c.seqRunning {
		c.maxWithSeq = max(c.maxWithSeq, c.running)
	}
	if seq {
		c.seqRunning = true
	}
}

func (c *testCaller) leave(text string, seq bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, "end "+text)
	c.running--
	if seq {
		c.seqRunning = false
	}
}

func (c *testCaller) Do(ctx context.Context, r dispatch.Request) *tool.Envelope {
	t, ok := c.reg.Lookup(r.Tool)
	if !ok {
		return tool.NewEnvelope(r.Tool, nil, &tool.Error{Code: tool.CodeUsage, Message: "unknown tool " + r.Tool})
	}
	resp, err := t.Run(ctx, &tool.Env{}, r.Args)
	return tool.NewEnvelope(r.Tool, resp, err)
}

func (c *testCaller) List(context.Context) ([]*tool.Tool, error) { return c.reg.Tools(), nil }

// pipeSession serves s on a pair of pipes and connects a go-sdk client
// through them: the stdio path, stamping included.
func pipeSession(t *testing.T, s *Server) (*mcp.ClientSession, func() error) {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), sr, sw) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	var stopErr error
	stop := func() error {
		once.Do(func() {
			_ = cw.Close() // the server's stdin ends
			defer cs.Close()
			select {
			case stopErr = <-done:
			case <-time.After(10 * time.Second):
				stopErr = errors.New("server did not stop")
			}
		})
		return stopErr
	}
	t.Cleanup(func() { _ = stop() })
	return cs, stop
}

func newServer(t *testing.T, c Caller) *Server {
	t.Helper()
	s, err := New(context.Background(), c, Options{Name: "mcode", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func callText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestResultShapes(t *testing.T) {
	c := newTestCaller(t)
	cs, _ := pipeSession(t, newServer(t, c))
	ctx := context.Background()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "look", Arguments: map[string]any{"text": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || callText(t, res) != "noted a" {
		t.Errorf("ok call: isError=%v text=%q", res.IsError, callText(t, res))
	}
	if sc, _ := res.StructuredContent.(map[string]any); sc["text"] != "a" {
		t.Errorf("structuredContent = %#v", res.StructuredContent)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "look", Arguments: map[string]any{"text": "fail"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "partial\nerror: not_found: no such note\nhint: write it first\n"; !res.IsError || callText(t, res) != want {
		t.Errorf("failed call: isError=%v text=%q, want %q", res.IsError, callText(t, res), want)
	}

	// Schema violations come back as tool errors the model can act on, not
	// as protocol errors.
	for _, args := range []any{map[string]any{"text": 3}, map[string]any{}, map[string]any{"text": "a", "extra": 1}, nil} {
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "look", Arguments: args})
		if err != nil {
			t.Fatalf("args %v: protocol error %v", args, err)
		}
		if text := callText(t, res); !res.IsError || !strings.Contains(text, "error: usage: ") {
			t.Errorf("args %v: isError=%v text=%q", args, res.IsError, text)
		}
	}

	// An unknown tool is the SDK's protocol error.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope"}); err == nil {
		t.Error("unknown tool: no error")
	}
}

func TestTextOfTruncatedAndArchived(t *testing.T) {
	out := "head"
	env := &tool.Envelope{OK: true, Output: &out, Truncated: true,
		Continuation: &tool.Continuation{NextOffset: 2001, Hint: "read on with offset 2001"}}
	if got, want := Text(env), "head\n[output was truncated: read on with offset 2001 (next_offset 2001)]\n"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

func TestImageContent(t *testing.T) {
	env := tool.NewEnvelope("read", &tool.Response{Output: "image 1×1", Result: map[string]any{"kind": "image"},
		Media: []tool.Media{{Type: "image", MIMEType: "image/png", Data: "iVBORw0KGgo="}}}, nil)
	res := Result(env)
	if len(res.Content) != 2 {
		t.Fatalf("content = %#v", res.Content)
	}
	img, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" || string(img.Data) != "\x89PNG\r\n\x1a\n" {
		t.Errorf("image content = %#v", res.Content[1])
	}
}

// Sequential calls run one at a time in the order they were sent, even
// when the client sends them all at once; parallel calls overlap.
func TestSequentialCallsKeepArrivalOrder(t *testing.T) {
	for round := range 5 {
		c := newTestCaller(t)
		s := newServer(t, c)
		cr, sw := io.Pipe()
		sr, cw := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- s.ServeStdio(context.Background(), sr, sw) }()
		// Raw JSON-RPC, written in one go, so arrival order is the order
		// on the wire and nothing waits for an answer in between.
		var msgs strings.Builder
		msgs.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
		msgs.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		const n = 20
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&msgs, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"note","arguments":{"text":"%d","sleep_ms":1}}}`+"\n", i, i)
		}
		go func() { _, _ = io.WriteString(cw, msgs.String()) }()
		dec := json.NewDecoder(cr)
		for got := 0; got < n+1; got++ {
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				t.Fatal(err)
			}
		}
		_ = cw.Close()
		if err := <-done; err != nil {
			t.Fatalf("serve: %v", err)
		}
		var want []string
		for i := 1; i <= n; i++ {
			want = append(want, fmt.Sprintf("start %d", i), fmt.Sprintf("end %d", i))
		}
		if !slices.Equal(c.log, want) {
			t.Fatalf("round %d: calls ran as\n%v\nwant\n%v", round, c.log, want)
		}
	}
}

func TestParallelCallsOverlapButNotWithSequential(t *testing.T) {
	c := newTestCaller(t)
	cs, _ := pipeSession(t, newServer(t, c))
	ctx := context.Background()
	var wg sync.WaitGroup
	call := func(name, text string) {
		defer wg.Done()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": text, "sleep_ms": 30}})
		if err != nil || res.IsError {
			t.Errorf("%s %s: %v %v", name, text, err, res)
		}
	}
	start := time.Now()
	for i := range 6 {
		wg.Add(1)
		go call("look", fmt.Sprint(i))
	}
	wg.Wait()
	if d := time.Since(start); d > 150*time.Millisecond {
		t.Logf("6 parallel calls of 30 ms took %s (a loaded machine?)", d)
	}
	for i := range 6 {
		wg.Add(2)
		go call("look", fmt.Sprint("l", i))
		go call("note", fmt.Sprint("n", i))
	}
	wg.Wait()
	if c.maxWithSeq > 1 {
		t.Errorf("a sequential call ran beside %d others", c.maxWithSeq-1)
	}
}

// notifications/cancelled reaches the running call, and a queued call
// that is cancelled gives up its place.
func TestCancelRunningAndQueued(t *testing.T) {
	c := newTestCaller(t)
	s := newServer(t, c)
	cs, _ := pipeSession(t, s)
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	go func() {
		_, err := cs.CallTool(ctx1, &mcp.CallToolParams{Name: "note", Arguments: map[string]any{"text": "held", "hold": true}})
		errs <- err
	}()
	waitLog(t, c, "start held")
	go func() {
		_, err := cs.CallTool(ctx2, &mcp.CallToolParams{Name: "note", Arguments: map[string]any{"text": "queued"}})
		errs <- err
	}()
	waitPending(t, s, 2)
	cancel2() // queued behind "held": never starts
	if err := <-errs; err == nil {
		t.Error("cancelled queued call: no error")
	}
	waitPending(t, s, 1) // the server has seen the cancellation
	cancel1()
	if err := <-errs; err == nil {
		t.Error("cancelled running call: no error")
	}
	waitLog(t, c, "end held")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "note", Arguments: map[string]any{"text": "after"}})
	if err != nil || res.IsError {
		t.Fatalf("call after cancels: %v %v", err, res)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.Contains(c.log, "start queued") {
		t.Errorf("the cancelled queued call ran: %v", c.log)
	}
}

func waitPending(t *testing.T, s *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.sched.mu.Lock()
		got := len(s.sched.pending)
		s.sched.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d calls pending, want %d", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func waitLog(t *testing.T, c *testCaller, entry string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		found := slices.Contains(c.log, entry)
		c.mu.Unlock()
		if found {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log", entry)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Closing the input ends the session and cancels what is in flight.
func TestStdinCloseCancelsCalls(t *testing.T) {
	c := newTestCaller(t)
	cs, stop := pipeSession(t, newServer(t, c))
	go func() {
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "note", Arguments: map[string]any{"text": "held", "hold": true}})
	}()
	waitLog(t, c, "start held")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	waitLog(t, c, "end held")
}

func TestCheckLoopback(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:0": "127.0.0.1:0", "127.3.4.5:8080": "127.3.4.5:8080", "[::1]:9": "[::1]:9", "localhost:1": "127.0.0.1:1",
	} {
		got, err := CheckLoopback(addr)
		if err != nil || got != want {
			t.Errorf("CheckLoopback(%q) = %q, %v; want %q", addr, got, err, want)
		}
	}
	for _, addr := range []string{"0.0.0.0:1", ":8080", "[::]:1", "10.0.0.1:1", "example.com:80", "127.0.0.1", "[::ffff:8.8.8.8]:1"} {
		if _, err := CheckLoopback(addr); tool.AsError(err).Code != tool.CodeUsage {
			t.Errorf("CheckLoopback(%q) = %v, want a usage error", addr, err)
		}
	}
}

func TestResolveToken(t *testing.T) {
	dir := t.TempDir()
	if tok, _ := ResolveToken("from-env", "from-config", dir); tok.Value != "from-env" || tok.File != "" {
		t.Errorf("env token: %+v", tok)
	}
	if tok, _ := ResolveToken("", "from-config", dir); tok.Value != "from-config" || tok.File != "" {
		t.Errorf("config token: %+v", tok)
	}
	path := filepath.Join(dir, "serve", "token")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := ResolveToken("", "", dir)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if tok.File != path || strings.TrimSpace(string(data)) != tok.Value || len(tok.Value) != 2*TokenBytes || fi.Mode().Perm() != 0o600 {
		t.Errorf("generated token %+v, file %q mode %v", tok, data, fi.Mode())
	}
	if again, _ := ResolveToken("", "", dir); again.Value == tok.Value {
		t.Error("a new start reused the token")
	}
}

// The HTTP checks: Host and Origin name this machine, the bearer token
// matches; only then does a request reach the SDK.
func TestHTTPChecks(t *testing.T) {
	c := newTestCaller(t)
	s := newServer(t, c)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.ServeHTTP(ctx, ln, "secret") }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	}()
	url := "http://" + ln.Addr().String() + Path
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	post := func(headers map[string]string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range headers {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	auth := "Bearer secret"
	cases := []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer secreT"}, http.StatusUnauthorized},
		{"basic auth", map[string]string{"Authorization": "Basic c2VjcmV0"}, http.StatusUnauthorized},
		{"evil host", map[string]string{"Authorization": auth, "Host": "evil.example:80"}, http.StatusForbidden},
		{"evil origin", map[string]string{"Authorization": auth, "Origin": "http://evil.example"}, http.StatusForbidden},
		{"null origin", map[string]string{"Authorization": auth, "Origin": "null"}, http.StatusForbidden},
		{"ok", map[string]string{"Authorization": auth}, http.StatusOK},
		{"ok localhost", map[string]string{"Authorization": "bearer secret", "Host": "localhost:1234", "Origin": "http://localhost:3000"}, http.StatusOK},
		{"ok ipv6 host", map[string]string{"Authorization": auth, "Host": "[::1]:5"}, http.StatusOK},
	}
	for _, tc := range cases {
		resp := post(tc.headers)
		if resp.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
		if tc.want == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer ") {
			t.Errorf("%s: WWW-Authenticate = %q", tc.name, resp.Header.Get("WWW-Authenticate"))
		}
	}

	// A go-sdk client with the token lists and calls the tools.
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	hc := &http.Client{Transport: bearerTransport{"secret"}}
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "note", Arguments: map[string]any{"text": "over http"}})
	if err != nil || res.IsError || callText(t, res) != "noted over http" {
		t.Fatalf("call over HTTP: %v %+v", err, res)
	}
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// Tools carry their annotations and the definitions' schemas.
func TestListTools(t *testing.T) {
	c := newTestCaller(t)
	cs, _ := pipeSession(t, newServer(t, c))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		got[tl.Name] = tl
	}
	if len(got) != 2 || got["look"] == nil || got["note"] == nil {
		t.Fatalf("tools = %+v", res.Tools)
	}
	if a := got["look"].Annotations; !a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint {
		t.Errorf("look's annotations = %+v", a)
	}
	if a := got["note"].Annotations; a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
		t.Errorf("note's annotations = %+v", a)
	}
	if got["note"].Description != "Notes a text." {
		t.Errorf("description = %q", got["note"].Description)
	}
}

// grantGuard holds back every call of "note" until a person grants the
// approval it issued; a granted approval runs once.
type grantGuard struct {
	mu      sync.Mutex
	granted map[string]bool
	used    map[string]bool
}

func (g *grantGuard) Decide(ctx context.Context, c *dispatch.Call) (dispatch.Decision, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c.Tool == "look" {
		return dispatch.Decision{Verdict: dispatch.Deny, Source: "rule", Rule: "look: deny", Reason: "rule look: deny refuses this call"}, nil
	}
	if c.Approval != "" && g.granted[c.Approval] && !g.used[c.Approval] {
		g.used[c.Approval] = true
		return dispatch.Decision{Verdict: dispatch.Allow, Source: "approval", ApprovalID: c.Approval}, nil
	}
	return dispatch.Decision{Verdict: dispatch.RequireApproval, Source: "rule", ApprovalID: "ap-" + string(c.Args)[9:10]}, nil
}

// Through the real dispatcher: a denied call and an approval-required one
// come back as isError with what to do; once a person grants the
// approval, the same call runs, once.
func TestDeniedAndApprovalRequired(t *testing.T) {
	c := newTestCaller(t)
	g := &grantGuard{granted: map[string]bool{}, used: map[string]bool{}}
	d := dispatch.New(dispatch.Options{Registry: c.reg, Env: &tool.Env{Root: t.TempDir()}, Timeout: -1, Guard: g})
	cs, _ := pipeSession(t, newServer(t, d))
	ctx := context.Background()
	call := func(name, text string) (*mcp.CallToolResult, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": text}})
		if err != nil {
			t.Fatal(err)
		}
		return res, callText(t, res)
	}
	if res, text := call("look", "x"); !res.IsError || !strings.Contains(text, "error: denied: rule look: deny refuses this call") {
		t.Errorf("denied call: isError=%v text=%q", res.IsError, text)
	}
	res, text := call("note", "a")
	if !res.IsError || !strings.Contains(text, "error: approval_required: ") || !strings.Contains(text, "mcode approve ap-a") ||
		!strings.Contains(text, "call note again with the same arguments") {
		t.Fatalf("approval required: isError=%v text=%q", res.IsError, text)
	}
	if sc, _ := res.StructuredContent.(map[string]any); sc["approval_id"] != "ap-a" {
		t.Errorf("structuredContent = %#v", res.StructuredContent)
	}
	// Not granted yet: held back again.
	if res, _ := call("note", "a"); !res.IsError {
		t.Fatal("ran before the approval was granted")
	}
	g.mu.Lock()
	g.granted["ap-a"] = true
	g.mu.Unlock()
	if res, text := call("note", "a"); res.IsError || text != "noted a" {
		t.Fatalf("granted call: isError=%v text=%q", res.IsError, text)
	}
	// The approval was good for one run.
	if res, _ := call("note", "a"); !res.IsError {
		t.Error("a used approval ran the call again")
	}
	// Another call's approval does not carry over.
	if res, _ := call("note", "b"); !res.IsError {
		t.Error("a call with other arguments ran on another's approval")
	}
}

// FuzzStampBody: any POST body comes out as the same JSON (or as it came,
// when it is none) with a ticket on each tools/call of a known tool, and
// every slot taken is given back.
func FuzzStampBody(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","arguments":{"text":"a"},"_meta":{"k":1}}}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"look"}},{"jsonrpc":"2.0","method":"notifications/initialized"}]`))
	f.Add([]byte(`{"id":null,"method":"tools/call","params":{"name":"note","_meta":[]}}`))
	c := newTestCaller(f)
	s, err := New(context.Background(), c, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(string(body)))
		slots, err := s.stampBody(r)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(r.Body)
		if json.Valid(body) != json.Valid(out) {
			t.Fatalf("stamping changed validity: %q -> %q", body, out)
		}
		if len(slots) > 0 && !strings.Contains(string(out), ticketKey) {
			t.Fatalf("slots taken but no ticket in %q", out)
		}
		for _, sl := range slots {
			sl.abandon()
		}
		s.sched.mu.Lock()
		defer s.sched.mu.Unlock()
		if len(s.sched.pending) != 0 || len(s.sched.unclaimed) != 0 {
			t.Fatalf("slots left behind: %d pending", len(s.sched.pending))
		}
	})
}

// A line that is not JSON-RPC gets a parse error answer; the session goes
// on.
func TestBadLineKeepsSession(t *testing.T) {
	s := newServer(t, newTestCaller(t))
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), sr, sw) }()
	go func() {
		_, _ = io.WriteString(cw, "not json\n"+
			`[{"jsonrpc":"2.0","id":9,"method":"ping"}]`+"\n"+
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	}()
	dec := json.NewDecoder(cr)
	var got []map[string]any
	for range 3 {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	_ = cw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	code := func(m map[string]any) any { e, _ := m["error"].(map[string]any); return e["code"] }
	if code(got[0]) != float64(-32700) || code(got[1]) != float64(-32700) || got[2]["result"] == nil {
		t.Errorf("answers = %v", got)
	}
}

// The HTTP server keeps no connection open for nothing: a refused
// request's connection closes with the answer, an idle keep-alive one
// after the idle timeout, a silent one after the read timeout, and past
// the cap a new one is closed as soon as it is accepted.
func TestHTTPConnectionBounds(t *testing.T) {
	serve := func(lim httpLimits) string {
		s := newServer(t, newTestCaller(t))
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- s.serveHTTP(ctx, ln, "secret", lim) }()
		t.Cleanup(func() { cancel(); <-served })
		return ln.Addr().String()
	}
	dial := func(addr string) net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// closedWithin reads what the server sends until it closes the
	// connection, and fails if that takes longer than d.
	closedWithin := func(c net.Conn, d time.Duration, what string) string {
		t.Helper()
		_ = c.SetReadDeadline(time.Now().Add(d))
		data, err := io.ReadAll(c)
		if err != nil {
			t.Fatalf("%s: the server kept the connection open for %s (%v); read %q", what, d, err, data)
		}
		return string(data)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	request := func(auth string) string {
		return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\n" + auth + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(init)) + init
	}

	// Idle and read timeouts far off: only the refusal closes it.
	addr := serve(httpLimits{conns: 8, idle: time.Minute, read: time.Minute})
	unauth := dial(addr)
	_, _ = io.WriteString(unauth, request(""))
	if got := closedWithin(unauth, 5*time.Second, "a request without the token"); !strings.HasPrefix(got, "HTTP/1.1 401") {
		t.Fatalf("answer without the token: %q", got)
	}
	addr = serve(httpLimits{conns: 8, idle: 300 * time.Millisecond, read: 300 * time.Millisecond})
	idle := dial(addr)
	_, _ = io.WriteString(idle, request("Authorization: Bearer secret\r\n"))
	if got := closedWithin(idle, 3*time.Second, "an idle keep-alive connection"); !strings.HasPrefix(got, "HTTP/1.1 200") {
		t.Fatalf("answer with the token: %q", got)
	}
	silent := dial(addr)
	closedWithin(silent, 3*time.Second, "a connection that sends nothing")

	// Five connections to four slots: whichever is accepted last is
	// closed at once, the other four stay open.
	addr = serve(httpLimits{conns: 4, idle: time.Minute, read: time.Minute})
	var conns []net.Conn
	for range 5 {
		conns = append(conns, dial(addr))
	}
	closed := make(chan int, len(conns))
	for i, c := range conns {
		go func() {
			_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
			if _, err := io.ReadAll(c); err == nil {
				closed <- i
				return
			}
			closed <- -1
		}()
	}
	var shut []int
	for range conns {
		if i := <-closed; i >= 0 {
			shut = append(shut, i)
		}
	}
	if len(shut) != 1 {
		t.Fatalf("%d of 5 connections to 4 slots were closed (%v), want exactly 1", len(shut), shut)
	}
	for i, c := range conns {
		if i != shut[0] {
			c.Close()
			break // one slot frees
		}
	}
	var again net.Conn
	deadline := time.Now().Add(5 * time.Second)
	for again == nil {
		// The freed slot may take a moment to be seen free.
		c := dial(addr)
		_, _ = io.WriteString(c, request(""))
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		buf := make([]byte, 12)
		if n, _ := io.ReadFull(c, buf); n == 12 && string(buf) == "HTTP/1.1 401" {
			again = c
		} else if time.Now().After(deadline) {
			t.Fatal("no connection is served once a slot is free")
		}
	}
	closedWithin(again, 3*time.Second, "a refused connection once a slot is free")
}
