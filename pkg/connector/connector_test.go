//go:build unix

package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcode-dev/mcode/internal/mcptest"
	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// TestMain lets the test binary play an MCP server (mcptest) when the
// connector starts it with MCPTEST_MODE set.
func TestMain(m *testing.M) {
	// The warden's environment is the server's: check for it first.
	if len(os.Args) > 1 && os.Args[1] == WardenArg {
		status, err := Ward(os.Args[2:])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(127)
		}
		os.Exit(status)
	}
	if code, ok := mcptest.Main(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

type fixture struct {
	t      *testing.T
	dir    string
	starts string
	conn   *Connector
}

// newFixture configures one test server per mode, named after it.
func newFixture(t *testing.T, modes ...string) *fixture {
	t.Helper()
	dir := t.TempDir()
	fx := &fixture{t: t, dir: dir, starts: filepath.Join(dir, "starts")}
	cfg := &config.Config{McpServers: map[string]config.McpServer{}}
	for _, m := range modes {
		cfg.McpServers[m] = fx.server(m, 5*time.Second)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	fx.conn = &Connector{Servers: Servers(cfg, nil), DataDir: filepath.Join(dir, "home"), Root: dir,
		Getenv: os.Getenv, Version: "test", WardenExe: self}
	return fx
}

func (fx *fixture) server(mode string, timeout time.Duration) config.McpServer {
	return config.McpServer{Command: os.Args[0], Timeout: timeout, Env: map[string]string{
		mcptest.ModeVar:   mode,
		mcptest.StartsVar: fx.starts,
		mcptest.MarkerVar: filepath.Join(fx.dir, "cancelled"),
		mcptest.ChildVar:  filepath.Join(fx.dir, "child.pid"),
	}}
}

func (fx *fixture) startCount() int {
	data, _ := os.ReadFile(fx.starts)
	return strings.Count(string(data), "\n")
}

func codeOf(err error) tool.Code {
	var te *tool.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return ""
}

func TestListCachesAndASearchStartsNoServer(t *testing.T) {
	fx := newFixture(t, mcptest.ModeOK)
	tools, statuses, err := fx.conn.Tools(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(statuses) != 1 || statuses[0].Status != StatusReached || statuses[0].ToolCount != 6 || statuses[0].ProtocolVersion == "" {
		t.Fatalf("statuses = %+v", statuses)
	}
	if len(tools) != 6 || fx.startCount() != 1 {
		t.Fatalf("%d tools, %d starts", len(tools), fx.startCount())
	}
	hits := Rank(tools, "echo")
	if len(hits) == 0 || hits[0].Tool.Qualified() != "ok__echo" {
		t.Fatalf("hits = %+v", hits)
	}
	// Warm: from the cache, no server started.
	if _, statuses, _ = fx.conn.Tools(context.Background(), ""); statuses[0].Status != StatusCached || fx.startCount() != 1 {
		t.Fatalf("warm listing: %+v, %d starts", statuses, fx.startCount())
	}
	// --refresh asks again.
	fx.conn.Refresh = true
	if _, statuses, _ = fx.conn.Tools(context.Background(), ""); statuses[0].Status != StatusReached || fx.startCount() != 2 {
		t.Fatalf("refresh: %+v, %d starts", statuses, fx.startCount())
	}
}

func TestCacheIsKeyedByConfigAndExpires(t *testing.T) {
	fx := newFixture(t, mcptest.ModeOK)
	s := fx.conn.Servers[0]
	if _, err := fx.conn.listLive(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, ok := loadListing(fx.conn.DataDir, s, now); !ok {
		t.Fatal("fresh listing not loaded")
	}
	full, _ := loadListing(fx.conn.DataDir, s, now)
	idx, ok := loadIndex(fx.conn.DataDir, s, now)
	if !ok || len(idx.Tools) != len(full.Tools) || idx.ProtocolVersion != full.ProtocolVersion {
		t.Fatalf("index %+v does not match the listing %+v", idx, full)
	}
	for i, tl := range idx.Tools {
		f := full.Tools[i]
		if tl.Name != f.Name || tl.Description != f.Description || tl.summary() != tool.FirstLine(f.Description) ||
			strings.Join(tl.Params, ",") != strings.Join(paramNames(f.InputSchema), ",") {
			t.Errorf("index entry %+v, listing %+v", tl, f)
		}
	}
	if _, ok := loadIndex(fx.conn.DataDir, s, now.Add(CacheTTL+time.Minute)); ok {
		t.Fatal("index older than the TTL was used")
	}
	if _, ok := loadListing(fx.conn.DataDir, s, now.Add(CacheTTL+time.Minute)); ok {
		t.Fatal("listing older than the TTL was used")
	}
	changed := s
	changed.Config.Args = []string{"--other"}
	if _, ok := loadListing(fx.conn.DataDir, changed, now); ok {
		t.Fatal("listing of another config was used")
	}
}

func TestCall(t *testing.T) {
	fx := newFixture(t, mcptest.ModeOK)
	ctx := context.Background()
	resp, err := fx.conn.Call(ctx, "ok__echo", json.RawMessage(`{"message":"hi"}`))
	if err != nil || resp.Output != "echo: hi" {
		t.Fatalf("echo: %v, %+v", err, resp)
	}
	// SERVER/TOOL works too.
	if resp, err = fx.conn.Call(ctx, "ok/structured", json.RawMessage(`{"a":2,"b":3}`)); err != nil {
		t.Fatalf("structured: %v", err)
	}
	r := resp.Result.(map[string]any)
	if got, _ := json.Marshal(r["structuredContent"]); string(got) != `{"sum":5}` || r["isError"] != false {
		t.Fatalf("structured result %+v", r)
	}
	resp, err = fx.conn.Call(ctx, "ok__fail", nil)
	if codeOf(err) != tool.CodeToolError || !strings.Contains(err.Error(), "the disk is full") || resp == nil || resp.Result.(map[string]any)["isError"] != true {
		t.Fatalf("fail: %v, %+v", err, resp)
	}
	if _, err = fx.conn.Call(ctx, "ok__badstructured", nil); codeOf(err) != tool.CodeServerError || !strings.Contains(err.Error(), `field "sum"`) {
		t.Fatalf("badstructured: %v", err)
	}
	resp, err = fx.conn.Call(ctx, "ok__image", nil)
	if err != nil || !strings.Contains(resp.Output, "[image image/png") {
		t.Fatalf("image: %v, %+v", err, resp)
	}
	blocks := resp.Result.(map[string]any)["content"].([]json.RawMessage)
	if len(blocks) != 2 || !strings.Contains(string(blocks[1]), `"type":"image"`) {
		t.Fatalf("image blocks %s", blocks)
	}
	if _, err = fx.conn.Call(ctx, "ok__nosuch", nil); codeOf(err) != tool.CodeNotFound {
		t.Fatalf("unknown tool: %v", err)
	}
	if _, err = fx.conn.Call(ctx, "nosuch__echo", nil); codeOf(err) != tool.CodeNotFound {
		t.Fatalf("unknown server: %v", err)
	}
}

func TestBadArgumentsAreRefusedBeforeAnyServerStarts(t *testing.T) {
	fx := newFixture(t, mcptest.ModeOK)
	if _, _, err := fx.conn.Tools(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	before := fx.startCount()
	_, err := fx.conn.Call(context.Background(), "ok__echo", json.RawMessage(`{"message": 3}`))
	if codeOf(err) != tool.CodeUsage || !strings.Contains(err.Error(), `"message"`) {
		t.Fatalf("err = %v", err)
	}
	if _, err = fx.conn.Call(context.Background(), "ok__echo", json.RawMessage(`{}`)); codeOf(err) != tool.CodeUsage || !strings.Contains(err.Error(), `"message"`) {
		t.Fatalf("missing field: %v", err)
	}
	if fx.startCount() != before {
		t.Fatalf("a server started for a call refused locally (%d starts, want %d)", fx.startCount(), before)
	}
}

func TestBrokenServers(t *testing.T) {
	fx := newFixture(t, mcptest.ModeOK, mcptest.ModeCrash, mcptest.ModeNonJSON)
	fx.conn.Servers = append(fx.conn.Servers, Server{Name: "missing", Config: config.McpServer{Command: "/nonexistent/mcp-server"}})
	tools, statuses, err := fx.conn.Tools(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 6 {
		t.Fatalf("a broken server took the others' tools with it: %d tools", len(tools))
	}
	byName := map[string]ServerStatus{}
	for _, s := range statuses {
		byName[s.Name] = s
	}
	crash := byName[mcptest.ModeCrash]
	if crash.Error == nil || crash.Error.Code != tool.CodeServerUnavailable ||
		!strings.Contains(crash.Error.Message, "cannot be opened") || !strings.Contains(crash.Error.Message, "exit status 7") {
		t.Fatalf("crash: %+v", crash.Error)
	}
	if e := byName[mcptest.ModeNonJSON].Error; e == nil || e.Code != tool.CodeServerUnavailable {
		t.Fatalf("nonjson: %+v", e)
	}
	if e := byName["missing"].Error; e == nil || e.Code != tool.CodeServerUnavailable || !strings.Contains(e.Message, "/nonexistent/mcp-server") {
		t.Fatalf("missing: %+v", e)
	}
	// A failed listing is not cached.
	entries, _ := filepath.Glob(filepath.Join(fx.conn.DataDir, CacheDir, "*.json"))
	if len(entries) != 1 {
		t.Fatalf("cache holds %d listings, want only the working server's", len(entries))
	}
}

func TestHangingServerIsStoppedAtItsTimeLimit(t *testing.T) {
	fx := newFixture(t)
	fx.conn.Servers = []Server{{Name: "hang", Config: fx.server(mcptest.ModeHang, 700*time.Millisecond)}}
	start := time.Now()
	_, statuses, _ := fx.conn.Tools(context.Background(), "")
	if e := statuses[0].Error; e == nil || e.Code != tool.CodeTimeout || !strings.Contains(e.Message, "700ms") {
		t.Fatalf("hang: %+v", statuses[0])
	}
	if d := time.Since(start); d > 700*time.Millisecond+exitGrace+termGrace+2*time.Second {
		t.Fatalf("a hanging server held the listing for %s", d)
	}
	assertNoProcess(t, "hang")
}

// A tool whose schema does not compile is left out of the listing, with
// the reason, and a call of it is refused as the tool's fault.
func TestMalformedSchemaIsTheServersFault(t *testing.T) {
	fx := newFixture(t, mcptest.ModeBadSchema)
	tools, statuses, _ := fx.conn.Tools(context.Background(), "")
	if len(tools) != 0 || statuses[0].Error != nil || len(statuses[0].Skipped) != 1 ||
		statuses[0].Skipped[0].Name != "broken" || !strings.Contains(statuses[0].Skipped[0].Reason, "missing") {
		t.Fatalf("listing: %v %+v", tools, statuses)
	}
	before := fx.startCount()
	_, err := fx.conn.Call(context.Background(), "badschema__broken", json.RawMessage(`{"x": 1}`))
	if codeOf(err) != tool.CodeToolError || !strings.Contains(err.Error(), "inputSchema") {
		t.Fatalf("err = %v", err)
	}
	if fx.startCount() != before {
		t.Fatal("a server started for a tool whose schema does not compile")
	}
}

func TestTimeoutCancelsTheCallAndKillsTheTree(t *testing.T) {
	fx := newFixture(t, mcptest.ModeOK)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	_, err := fx.conn.Call(ctx, "ok__slow", nil)
	if codeOf(err) != tool.CodeTimeout || !strings.Contains(err.Error(), "notifications/cancelled") || !strings.Contains(err.Error(), "1.5s") {
		t.Fatalf("err = %v", err)
	}
	// The server heard notifications/cancelled before it was stopped.
	marker, rerr := os.ReadFile(filepath.Join(fx.dir, "cancelled"))
	if rerr != nil || !strings.Contains(string(marker), "cancelled") {
		t.Fatalf("the server never saw the cancellation: %v %q", rerr, marker)
	}
	// The child the server started is gone with it.
	data, rerr := os.ReadFile(filepath.Join(fx.dir, "child.pid"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	pid, _ := strconv.Atoi(string(data))
	if pid <= 0 || processAlive(pid) {
		t.Fatalf("the server's child %d outlived the call", pid)
	}
}

func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(stat), ") Z ")
}

// assertNoProcess fails if a process of this test binary in mode is left.
func assertNoProcess(t *testing.T, mode string) {
	t.Helper()
	self, _ := os.Executable()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		exe, _ := os.Readlink("/proc/" + e.Name() + "/exe")
		env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if exe == self && strings.Contains(string(env), mcptest.ModeVar+"="+mode+"\x00") && processAlive(pid) {
			t.Fatalf("server process %d (mode %s) is still running", pid, mode)
		}
	}
}

func TestServersFilterAndNames(t *testing.T) {
	cfg := &config.Config{McpServers: map[string]config.McpServer{"b": {Command: "x"}, "a": {URL: "http://127.0.0.1:1/mcp"}, "c": {Command: "y"}}}
	got := Servers(cfg, []string{"C", "a"})
	if len(got) != 2 || got[0].Name != "a" || got[1].Name != "c" || got[0].Transport() != TransportHTTP || got[1].Transport() != TransportStdio {
		t.Fatalf("Servers = %+v", got)
	}
	for in, want := range map[string][2]string{
		"everything__echo": {"everything", "echo"}, "a__b__c": {"a", "b__c"}, "files/read_file": {"files", "read_file"},
		"a/b__c": {"a", "b__c"},
	} {
		s, n, ok := SplitName(in)
		if !ok || s != want[0] || n != want[1] {
			t.Errorf("SplitName(%q) = %q, %q, %v", in, s, n, ok)
		}
	}
	if got := QualifiedName("srv", "files.read/all"); got != "srv__files_read_all" {
		t.Errorf("QualifiedName with . and / = %q", got)
	}
	long := QualifiedName("srv", strings.Repeat("x", 100))
	if len(long) != MaxNameLength || long == QualifiedName("srv", strings.Repeat("x", 101)) {
		t.Errorf("long names %q are not cut to %d and told apart", long, MaxNameLength)
	}
	for _, bad := range []string{"echo", "__echo", "everything__", "/x", ""} {
		if _, _, ok := SplitName(bad); ok {
			t.Errorf("SplitName(%q) accepted", bad)
		}
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cret", "EMPTY": ""}
	getenv := func(k string) string { return env[k] }
	for in, want := range map[string]string{
		"Bearer ${TOKEN}":          "Bearer s3cret",
		"${MISSING}x":              "x",
		"${EMPTY:-fallback}":       "fallback",
		"${TOKEN:-fallback}":       "s3cret",
		`echo "$1" $HOME ${TOKEN}`: `echo "$1" $HOME s3cret`,
		"${unclosed":               "${unclosed",
		"":                         "",
	} {
		if got := expand(in, getenv); got != want {
			t.Errorf("expand(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHTTP reaches a go-sdk streamable HTTP server on loopback: headers
// with ${VAR} expanded, a call, and a timed-out call whose cancellation
// reaches the server.
func TestHTTP(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "cancelled")
	t.Setenv(mcptest.MarkerVar, marker)
	var mu sync.Mutex
	var auth []string
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcptest.NewServer(mcptest.ModeOK) }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		mcpHandler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	fx := newFixture(t)
	fx.conn.Getenv = func(k string) string { return map[string]string{"TOKEN": "s3cret"}[k] }
	fx.conn.Servers = []Server{{Name: "web", Config: config.McpServer{URL: srv.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}}}
	resp, err := fx.conn.Call(context.Background(), "web__echo", json.RawMessage(`{"message":"over http"}`))
	if err != nil || resp.Output != "echo: over http" {
		t.Fatalf("echo: %v %+v", err, resp)
	}
	mu.Lock()
	if len(auth) == 0 || auth[0] != "Bearer s3cret" {
		t.Errorf("Authorization headers sent: %q", auth)
	}
	mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err = fx.conn.Call(ctx, "web__slow", nil); codeOf(err) != tool.CodeTimeout || !strings.Contains(err.Error(), "notifications/cancelled") {
		t.Fatalf("slow: %v", err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		if data, err := os.ReadFile(marker); err == nil && strings.Contains(string(data), "cancelled") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the HTTP server never saw the cancellation")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A call after a lookup that had to ask the server (a cold cache) uses
// the session the lookup opened: one start, not two; a lookup whose call
// never comes leaves no server running once the connector is closed.
func TestLookupThenCallStartsTheServerOnce(t *testing.T) {
	fx := newFixture(t, mcptest.ModeOK)
	ctx := context.Background()
	if _, err := fx.conn.Find(ctx, "ok__echo"); err != nil {
		t.Fatal(err)
	}
	resp, err := fx.conn.Call(ctx, "ok__echo", json.RawMessage(`{"message":"hi"}`))
	if err != nil || resp.Output != "echo: hi" {
		t.Fatalf("echo: %v, %+v", err, resp)
	}
	if n := fx.startCount(); n != 1 {
		t.Fatalf("a cold lookup and its call started the server %d times", n)
	}
	fx.conn.Refresh = true // the lookup must ask again
	if _, err := fx.conn.Find(ctx, "ok__echo"); err != nil {
		t.Fatal(err)
	}
	if n := fx.startCount(); n != 2 {
		t.Fatalf("%d starts after the second lookup", n)
	}
	parked := fx.conn.parking().idle["ok"]
	if parked == nil || parked.proc == nil {
		t.Fatal("the lookup parked no session")
	}
	fx.conn.Close()
	if status := parked.proc.exited(5 * time.Second); status == "" {
		t.Fatal("the parked server still runs after Close")
	}
	if len(fx.conn.parking().idle) != 0 {
		t.Fatal("Close left sessions parked")
	}
}

// An HTTP server that redirects to another origin never gets the
// configured headers to it (they are its credentials), and the redirect
// is not followed; within its own origin a redirect keeps them.
func TestHTTPRedirectNeverCarriesHeadersToAnotherOrigin(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Api-Key"))
		mu.Unlock()
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer other.Close()
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1) + "/mcp"
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcptest.NewServer(mcptest.ModeOK) }, nil)
	var sawAuth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, otherURL, http.StatusTemporaryRedirect)
		case "/old":
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
		default:
			mu.Lock()
			sawAuth = append(sawAuth, r.Header.Get("Authorization"))
			mu.Unlock()
			mcpHandler.ServeHTTP(w, r)
		}
	}))
	defer srv.Close()
	headers := map[string]string{"Authorization": "Bearer s3cret", "X-Api-Key": "k3y"}

	fx := newFixture(t)
	fx.conn.Servers = []Server{{Name: "web", Config: config.McpServer{URL: srv.URL + "/away", Headers: headers}}}
	_, err := fx.conn.Call(context.Background(), "web__echo", json.RawMessage(`{"message":"x"}`))
	mu.Lock()
	for _, got := range leaked {
		if strings.Contains(got, "s3cret") || strings.Contains(got, "k3y") {
			t.Errorf("the other origin received the configured headers: %q", got)
		}
	}
	mu.Unlock()
	if err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Fatalf("a redirect to another origin: %v", err)
	}

	fx.conn.Servers = []Server{{Name: "same", Config: config.McpServer{URL: srv.URL + "/old", Headers: headers}}}
	resp, err := fx.conn.Call(context.Background(), "same__echo", json.RawMessage(`{"message":"moved"}`))
	if err != nil || resp.Output != "echo: moved" {
		t.Fatalf("a redirect within the origin: %v %+v", err, resp)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sawAuth) == 0 || sawAuth[0] != "Bearer s3cret" {
		t.Errorf("the server's own origin lost its headers: %q", sawAuth)
	}
}

// An HTTP server that answers with an endless body fails the call at
// MaxMessageBytes, instead of being read into memory for ever.
func TestHTTPEndlessBodyIsCapped(t *testing.T) {
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(`{"jsonrpc":"2.0","id":1,"result":{"pad":"` + strings.Repeat("x", 64<<10))
		for r.Context().Err() == nil && sent.Load() < 4*MaxMessageBytes {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	fx := newFixture(t)
	fx.conn.Servers = []Server{{Name: "flood", Config: config.McpServer{URL: srv.URL + "/mcp", Timeout: 20 * time.Second}}}
	_, statuses, _ := fx.conn.Tools(context.Background(), "")
	if e := statuses[0].Error; e == nil || !strings.Contains(e.Message, "exceeds") {
		t.Fatalf("an endless body: %+v", statuses[0])
	}
	if n := sent.Load(); n >= 4*MaxMessageBytes {
		t.Fatalf("the server could send %d bytes: the body was read past its limit", n)
	}
}
