package connector

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/sandbox"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// ClientName is how mcode introduces itself to MCP servers.
const ClientName = "mcode"

// cancelNoticeWait bounds the wait for notifications/cancelled to leave
// after a call timed out, so that the server hears of it before mcode
// closes the connection.
const cancelNoticeWait = time.Second

// session is one connection to one server.
type session struct {
	server Server
	cs     *mcp.ClientSession
	proc   *process // stdio only
	cancel *event   // set once notifications/cancelled has been sent
}

// event happens once.
type event struct {
	once sync.Once
	ch   chan struct{}
}

func newEvent() *event { return &event{ch: make(chan struct{})} }
func (s *event) fire() { s.once.Do(func() { close(s.ch) }) }

// cancelledMethod marks the message that tells a server a call is dropped.
var cancelledMethod = []byte(`"notifications/cancelled"`)

// connect starts or reaches the server and completes the MCP handshake.
// A server that cannot be started or does not speak MCP is
// server_unavailable, with its stderr tail and exit status.
func (c *Connector) connect(ctx context.Context, s Server) (*session, error) {
	sess := &session{server: s, cancel: newEvent()}
	var transport mcp.Transport
	if s.Transport() == TransportHTTP {
		headers := map[string]string{}
		for k, v := range s.Config.Headers {
			headers[k] = expand(v, c.Getenv)
		}
		endpoint := expand(s.Config.URL, c.Getenv)
		u, err := url.Parse(endpoint)
		if err != nil {
			return nil, &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("mcpServers.%s.url %q is not a URL: %v", s.Name, endpoint, err),
				Hint: fmt.Sprintf("set mcpServers.%s.url to the server's MCP endpoint, e.g. http://127.0.0.1:3001/mcp", s.Name)}
		}
		ht := &headerTransport{headers: headers, origin: origin(u), cancel: sess.cancel}
		transport = &mcp.StreamableClientTransport{
			Endpoint:             endpoint,
			HTTPClient:           &http.Client{Transport: ht, CheckRedirect: ht.checkRedirect},
			DisableStandaloneSSE: true,
			MaxRetries:           1,
		}
	} else {
		dir := c.Root
		if s.Config.Cwd != "" {
			dir = (&tool.Env{Root: c.Root, UserHome: c.Getenv("HOME")}).Abs(expand(s.Config.Cwd, c.Getenv))
		}
		settings := c.Spawn
		if settings.Root == "" {
			settings.Root, settings.DataDir = c.Root, c.DataDir
		}
		if settings.Sandbox.Mode == "" {
			settings.Sandbox = config.Defaults().Sandbox
		}
		settings.Sandbox = sandbox.Override(settings.Sandbox, s.Config.Sandbox)
		p, err := startProcess(s, dir, c.Getenv, c.WardenExe, settings)
		var te *tool.Error
		if errors.As(err, &te) {
			return nil, te
		}
		if err != nil {
			return nil, &tool.Error{Code: tool.CodeServerUnavailable, Message: describeStartError(s, err),
				Hint: fmt.Sprintf("check mcpServers.%s.command and args in the config; the command must be on PATH or an absolute path", s.Name)}
		}
		sess.proc = p
		transport = &mcp.IOTransport{Reader: p.stdout, Writer: &watchWriter{w: p.stdin, cancel: sess.cancel}}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: ClientName, Version: c.Version}, &mcp.ClientOptions{
		// Honest capabilities: mcode offers no roots, sampling or elicitation.
		Capabilities: &mcp.ClientCapabilities{},
	})
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		defer sess.close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, sess.unavailable("did not complete the MCP handshake", err)
	}
	sess.cs = cs
	return sess, nil
}

// unavailable describes a server that failed before it could serve:
// the cause, how the process ended, the tail of its stderr.
func (s *session) unavailable(what string, cause error) *tool.Error {
	msg := fmt.Sprintf("MCP server %s %s: %v", s.server.Name, what, cause)
	hint := fmt.Sprintf("check that mcpServers.%s points at a working MCP server", s.server.Name)
	if s.proc != nil {
		if status := s.proc.exited(300 * time.Millisecond); status != "" {
			msg += "; it exited (" + status + ")"
		}
		if tail := s.proc.stderrTail(); tail != "" {
			msg += "; its stderr ends with:\n" + tail
		} else {
			msg += "; it wrote nothing on stderr"
		}
		hint = fmt.Sprintf("run the command of mcpServers.%s by hand to see it fail, then fix its command, args, env or cwd", s.server.Name)
	} else {
		hint = fmt.Sprintf("check that mcpServers.%s.url is an MCP endpoint (streamable HTTP) that is running, and its headers", s.server.Name)
	}
	return &tool.Error{Code: tool.CodeServerUnavailable, Message: msg, Hint: hint}
}

// protocolVersion is the version the server agreed on.
func (s *session) protocolVersion() string {
	if s.cs == nil || s.cs.InitializeResult() == nil {
		return ""
	}
	return s.cs.InitializeResult().ProtocolVersion
}

// close ends the connection and, for stdio, the server's whole process
// group.
func (s *session) close() {
	if s.cs != nil {
		done := make(chan struct{})
		go func() { _ = s.cs.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(exitGrace + termGrace):
		}
	}
	if s.proc != nil {
		s.proc.stop()
	}
}

// awaitCancelNotice waits until notifications/cancelled has been sent
// (the SDK sends it in the background when a call's context ends).
func (s *session) awaitCancelNotice() bool {
	select {
	case <-s.cancel.ch:
		return true
	case <-time.After(cancelNoticeWait):
		return false
	}
}

// watchWriter is a stdio server's stdin; it notices when the
// notifications/cancelled message has been written.
type watchWriter struct {
	w      io.WriteCloser
	cancel *event
}

func (w *watchWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err == nil && bytes.Contains(p, cancelledMethod) {
		w.cancel.fire()
	}
	return n, err
}

func (w *watchWriter) Close() error { return w.w.Close() }

// MaxMessageBytes bounds one message from an HTTP server, as the stdio
// transport bounds a line (and the SDK an event of a stream): a server
// that sends an endless body fails the call instead of filling memory.
const MaxMessageBytes = mcp.DefaultMaxLineLength

// headerTransport adds the configured headers to every request to the
// server's own origin (never to another: they carry its credentials),
// bounds what it answers, and notices a delivered
// notifications/cancelled.
type headerTransport struct {
	headers map[string]string
	origin  string // scheme://host:port of the configured URL
	cancel  *event
}

// origin is a URL's scheme, host and port, as browsers compare them.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// checkRedirect follows a redirect within the server's origin only: one
// to another origin would take the call's arguments (and, with Go's
// rules for a RoundTripper's headers, its credentials) elsewhere.
func (h *headerTransport) checkRedirect(req *http.Request, via []*http.Request) error {
	if o := origin(req.URL); o != h.origin {
		return fmt.Errorf("the MCP server redirected to another origin (%s), which mcode does not follow", o)
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if origin(req.URL) == h.origin {
		for k, v := range h.headers {
			req.Header.Set(k, v)
		}
	}
	isCancel := false
	if req.Body != nil && req.Method == http.MethodPost {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		isCancel = bytes.Contains(body, cancelledMethod)
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && isCancel {
		h.cancel.fire()
	}
	// A stream's events are bounded by the SDK one by one; any other body
	// is one message, read whole: bounded here.
	if err == nil && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &cappedBody{r: resp.Body, left: MaxMessageBytes}
	}
	return resp, err
}

// cappedBody fails a read past its limit.
type cappedBody struct {
	r    io.ReadCloser
	left int64
}

func (c *cappedBody) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var probe [1]byte
		if n, err := c.r.Read(probe[:]); n == 0 && err != nil {
			return 0, err // the body ended at the limit
		}
		return 0, fmt.Errorf("the MCP server's answer exceeds %s, the limit of one message", fsutil.HumanBytes(MaxMessageBytes))
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

func (c *cappedBody) Close() error { return c.r.Close() }

// protocolError is a JSON-RPC error the server answered with, or a
// broken connection after the handshake: server_error.
func (s *session) protocolError(what string, err error) *tool.Error {
	msg := fmt.Sprintf("MCP server %s failed %s: %v", s.server.Name, what, err)
	if s.proc != nil {
		if status := s.proc.exited(100 * time.Millisecond); status != "" {
			msg += "; it exited (" + status + ")"
		}
		if tail := s.proc.stderrTail(); tail != "" && errors.Is(err, mcp.ErrConnectionClosed) {
			msg += "; its stderr ends with:\n" + tail
		}
	}
	return &tool.Error{Code: tool.CodeServerError, Message: strings.TrimSpace(msg),
		Hint: "the server broke the MCP protocol or refused the request; `mcode connector servers` shows its state"}
}
