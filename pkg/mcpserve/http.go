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
	defer tuneGC()()
	defer s.Shutdown()
	srv := &http.Server{
		Handler:           s.Handler(token),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
	}
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
func (s *Server) Handler(token string) http.Handler {
	stream := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: sessionIdle})
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !localName(r.Host) {
			http.Error(w, fmt.Sprintf("forbidden: Host %q is not localhost, 127.0.0.1 or [::1]", r.Host), http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !localOrigin(o) {
			http.Error(w, fmt.Sprintf("forbidden: Origin %q is not localhost, 127.0.0.1 or [::1]", o), http.StatusForbidden)
			return
		}
		got, ok := bearer(r.Header.Get("Authorization"))
		sum := sha256.Sum256([]byte(got))
		if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcode", error="invalid_token"`)
			http.Error(w, "unauthorized: send Authorization: Bearer TOKEN (the token is in the token_file mcode mcp serve printed, or MCODE_SERVE_TOKEN)", http.StatusUnauthorized)
			return
		}
		if r.URL.Path != Path {
			http.Error(w, "not found: the MCP endpoint is "+Path, http.StatusNotFound)
			return
		}
		if r.Method == http.MethodPost {
			slots, err := s.stampBody(r)
			if err != nil {
				http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
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
