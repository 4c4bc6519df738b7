package mcpserve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Path is where the streamable HTTP endpoint lives.
const Path = "/mcp"

// sessionIdle ends an HTTP session no request has used for this long.
const sessionIdle = time.Hour

// shutdownGrace is how long a stopping HTTP server waits for its
// connections before closing them.
const shutdownGrace = 5 * time.Second

// Bounds of the HTTP server's connections, so that no local process can
// take its descriptors (each is a connection kept open for nothing).
const (
	// MaxHTTPConns is how many connections are served at once; one more is
	// closed as soon as it is accepted.
	MaxHTTPConns = 128
	// HTTPIdleTimeout closes a keep-alive connection no request uses.
	HTTPIdleTimeout = 60 * time.Second
	// HTTPReadTimeout bounds reading one request's headers, and its body.
	HTTPReadTimeout = 10 * time.Second
)

// httpLimits are the bounds a server runs with (tests shorten them).
type httpLimits struct {
	conns      int
	idle, read time.Duration
}

var defaultHTTPLimits = httpLimits{conns: MaxHTTPConns, idle: HTTPIdleTimeout, read: HTTPReadTimeout}

// CheckLoopback accepts a listen address on loopback only (127.0.0.0/8 or
// ::1, "localhost" meaning 127.0.0.1), and returns it as net.Listen takes
// it; anything else is a usage error, before anything listens.
func CheckLoopback(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("--http %q is not HOST:PORT: %v", addr, err),
			Hint:    "e.g. --http 127.0.0.1:8765, or --http 127.0.0.1:0 to pick a free port"}
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		shown := host
		if shown == "" {
			shown = "every interface"
		}
		return "", &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("--http %q would listen on %s: mcode serves on loopback only (127.0.0.0/8 or ::1)", addr, shown),
			Hint:    "use --http 127.0.0.1:PORT or --http [::1]:PORT; to reach it from elsewhere, tunnel to it (ssh -L)"}
	}
	return net.JoinHostPort(ip.String(), port), nil
}

// ServeHTTP serves streamable HTTP at Path on ln until ctx ends, then stops
// accepting, cancels the calls in flight and waits for them. Every request
// needs Authorization: Bearer token, and a Host and an Origin (when sent)
// that name this machine.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, token string) error {
	return s.serveHTTP(ctx, ln, token, defaultHTTPLimits)
}

func (s *Server) serveHTTP(ctx context.Context, ln net.Listener, token string, lim httpLimits) error {
	defer tuneGC()()
	defer s.Shutdown()
	srv := &http.Server{
		Handler:           s.httpHandler(token, lim.read),
		ReadHeaderTimeout: lim.read,
		IdleTimeout:       lim.idle,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
	}
	ln = &capListener{Listener: ln, slots: make(chan struct{}, lim.conns)}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	s.cancel() // calls in flight end first, so that their streams can close
	shutCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		_ = srv.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Handler is the HTTP face of the server: the checks, then the SDK's
// streamable handler.
func (s *Server) Handler(token string) http.Handler { return s.httpHandler(token, HTTPReadTimeout) }

func (s *Server) httpHandler(token string, readTimeout time.Duration) http.Handler {
	stream := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: sessionIdle})
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A refused request's connection is closed with the answer: a
		// client without the token keeps nothing open.
		refuse := func(code int, msg string) {
			w.Header().Set("Connection", "close")
			http.Error(w, msg, code)
		}
		if !localName(r.Host) {
			refuse(http.StatusForbidden, fmt.Sprintf("forbidden: Host %q is not localhost, 127.0.0.1 or [::1]", r.Host))
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !localOrigin(o) {
			refuse(http.StatusForbidden, fmt.Sprintf("forbidden: Origin %q is not localhost, 127.0.0.1 or [::1]", o))
			return
		}
		got, ok := bearer(r.Header.Get("Authorization"))
		sum := sha256.Sum256([]byte(got))
		if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcode", error="invalid_token"`)
			refuse(http.StatusUnauthorized, "unauthorized: send Authorization: Bearer TOKEN (the token is in the token_file mcode mcp serve printed, or MCODE_SERVE_TOKEN)")
			return
		}
		if r.URL.Path != Path {
			http.Error(w, "not found: the MCP endpoint is "+Path, http.StatusNotFound)
			return
		}
		if r.Method == http.MethodPost {
			// The body within the read timeout; then none, since the answer
			// (a stream) may take as long as the call.
			rc := http.NewResponseController(w)
			_ = rc.SetReadDeadline(time.Now().Add(readTimeout))
			slots, err := s.stampBody(r)
			_ = rc.SetReadDeadline(time.Time{})
			if err != nil {
				refuse(http.StatusRequestEntityTooLarge, err.Error())
				return
			}
			defer func() {
				for _, sl := range slots {
					sl.abandon()
				}
			}()
		}
		stream.ServeHTTP(w, r)
	})
}

// stampBody queues the tools/call requests of a POST in the order they
// arrive (see stamp) and hands the SDK the stamped body.
func (s *Server) stampBody(r *http.Request) ([]*slot, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes+1))
	_ = r.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(body) > mcp.DefaultMaxRequestBodyBytes {
		return nil, fmt.Errorf("request body over %d bytes", mcp.DefaultMaxRequestBodyBytes)
	}
	var slots []*slot
	stampOne := func(raw json.RawMessage) json.RawMessage {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m["id"] == nil {
			return raw
		}
		var method string
		if json.Unmarshal(m["method"], &method) != nil || method != "tools/call" {
			return raw
		}
		params, sl := s.stamp(m["params"])
		if sl == nil {
			return raw
		}
		m["params"] = params
		out, err := json.Marshal(m)
		if err != nil {
			sl.abandon()
			return raw
		}
		slots = append(slots, sl)
		return out
	}
	trimmed := bytes.TrimSpace(body)
	var batch []json.RawMessage
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[' && json.Unmarshal(trimmed, &batch) == nil:
		for i := range batch {
			batch[i] = stampOne(batch[i])
		}
		if out, err := json.Marshal(batch); err == nil {
			body = out
		}
	case len(trimmed) > 0 && trimmed[0] == '{':
		body = stampOne(trimmed)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return slots, nil
}

func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// localName says whether a Host header names this machine: localhost,
// 127.0.0.1 or [::1], with any port.
func localName(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	switch strings.ToLower(host) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

func localOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return localName(u.Host)
}

// capListener serves at most cap(slots) connections at once: one more is
// closed as soon as it is accepted, so the server never runs out of
// descriptors.
type capListener struct {
	net.Listener
	slots chan struct{}
}

func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &slotConn{Conn: c, free: l.slots}, nil
		default:
			_ = c.Close()
		}
	}
}

// slotConn frees its slot when it closes.
type slotConn struct {
	net.Conn
	free chan struct{}
	once sync.Once
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.free })
	return err
}
