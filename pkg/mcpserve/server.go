// Package mcpserve serves mcode's tools to MCP clients, over stdio or
// streamable HTTP, with github.com/modelcontextprotocol/go-sdk. Every
// tools/call goes through the caller's one call path (the dispatcher); this
// package adds only what a long-lived server needs: arrival-ordered
// scheduling of sequential tools, the MCP shape of a result, and, for HTTP,
// the loopback, token and Host/Origin checks.
package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Caller is the one call path (a *dispatch.Dispatcher): the tools this
// agent and role may call, and a call of one of them, every outcome an
// envelope.
type Caller interface {
	Do(ctx context.Context, r dispatch.Request) *tool.Envelope
	List(ctx context.Context) ([]*tool.Tool, error)
}

// Options configure a Server.
type Options struct {
	Name, Version string
	// Logger takes the server's log lines (stderr); nil logs nothing.
	Logger *slog.Logger
}

// Server is mcode's MCP server: one tool set, any number of sessions.
type Server struct {
	caller    Caller
	mcp       *mcp.Server
	sched     *scheduler
	modes     map[string]bool // tool name -> sequential
	approvals approvals
	asks      asks
	// jobs hands a call to an idle worker (see run).
	jobs chan func()
	// ctx ends every call in flight when the server shuts down; wg waits
	// for them (and so for their processes) to end.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New lists the caller's tools once and registers each with the MCP
// server, with the same name, description and input schema as
// `mcode tools list --format mcp`.
func New(ctx context.Context, caller Caller, opts Options) (*Server, error) {
	// A server or a tool that fails to list is logged, as tools list
	// notes it; the rest is served.
	tools, listErr := caller.List(ctx)
	s := &Server{caller: caller, sched: newScheduler(), modes: map[string]bool{}, jobs: make(chan func())}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if listErr != nil {
		for _, p := range strings.Split(listErr.Error(), "\n") {
			logger.Warn("not served", "problem", p)
		}
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		Logger: logger,
		// Tools are the whole offer: no logging capability, and the tool
		// list is fixed for the life of the server.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	for _, t := range tools {
		// A tool that cannot be served is left out and logged: it never
		// keeps the others from being served.
		def, err := t.Definition()
		if err == nil {
			err = servable(def.InputSchema)
		}
		if err != nil {
			logger.Warn("tool left out", "tool", t.Name, "reason", err.Error())
			continue
		}
		s.modes[def.Name] = def.Mode != tool.Parallel
		s.mcp.AddTool(&mcp.Tool{
			Name:        def.Name,
			Description: def.Description,
			InputSchema: def.InputSchema,
			Annotations: annotations(t),
			Meta:        Meta(t),
		}, s.handler(def.Name))
	}
	return s, nil
}

// servable checks what the SDK's AddTool requires of an input schema (a
// JSON object of "type": "object"), which it would panic over.
func servable(schema json.RawMessage) error {
	var obj struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(schema, &obj); err != nil {
		return fmt.Errorf("its input schema is not a JSON object: %w", err)
	}
	if obj.Type != "object" {
		return fmt.Errorf(`its input schema has "type": %v, not "object"`, obj.Type)
	}
	return nil
}

// annotations are the go-sdk's form of a tool's MCP hints
// (tool.Facts.MCPAnnotations).
func annotations(t *tool.Tool) *mcp.ToolAnnotations {
	a := t.Facts.MCPAnnotations()
	return &mcp.ToolAnnotations{
		ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: &a.DestructiveHint,
		IdempotentHint: a.IdempotentHint, OpenWorldHint: &a.OpenWorldHint,
	}
}

// Meta is a tool's _meta: the other names it takes for its parameters
// (tool.AliasesMetaKey), so that a client that checks arguments against
// the input schema first (mcode's connector) applies them as mcode does.
func Meta(t *tool.Tool) mcp.Meta {
	if len(t.Aliases()) == 0 {
		return nil
	}
	return mcp.Meta{tool.AliasesMetaKey: t.Aliases()}
}

// handler runs one tools/call: it waits for the call's turn, then calls
// the tool through the dispatcher and shapes the envelope for MCP.
func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.wg.Add(1)
		defer s.wg.Done()
		ctx, stop := mergeCancel(ctx, s.ctx)
		defer stop()
		sl := s.sched.claim(ticketOf(req.Params.Meta))
		if sl == nil {
			sl = s.sched.admitClaimed(s.modes[name])
		}
		defer sl.release()
		args := req.Params.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		}
		if err := sl.wait(ctx); err != nil {
			return Result(tool.NewEnvelope(name, nil, cancelled())), nil
		}
		key := callKey(name, args)
		approval, _ := req.Params.Meta[approvalKey].(string)
		if approval == "" {
			approval = s.approvals.lookup(key)
		}
		// A client that can ask its user is asked about a held call (see
		// asks); its user's answer, when the call comes back with it,
		// decides.
		var question string
		if yes, answered := s.asks.answer(key, req.Params.RequestState, req.Params.InputResponses); answered {
			ctx = dispatch.WithAsker(ctx, func(context.Context, string) (bool, error) { return yes, nil })
		} else if canElicit(req.Session) {
			ctx = dispatch.WithAsker(ctx, func(_ context.Context, q string) (bool, error) {
				question = q
				return false, dispatch.ErrAskLater
			})
		}
		var env *tool.Envelope
		s.run(func() { env = s.caller.Do(ctx, dispatch.Request{Tool: name, Args: args, Approval: approval}) })
		if question != "" && approvalID(env) != "" {
			return &mcp.CallToolResult{InputRequests: askingFor(question), RequestState: s.asks.issue(key)}, nil
		}
		s.approvals.settle(key, env)
		return Result(env), nil
	}
}

// run runs job on a worker and waits for it. The SDK starts a goroutine
// for every request, with a small stack that a call through the
// dispatcher (the schema validation above all) grows, copying it a few
// times, which cost near a tenth of a served read; a worker's stack has
// grown already. An idle worker takes the job; when none is idle, a new
// one starts, and stays until the server shuts down.
func (s *Server) run(job func()) {
	done := make(chan struct{})
	work := func() { defer close(done); job() }
	select {
	case s.jobs <- work:
	default:
		go s.worker(work)
	}
	<-done
}

func (s *Server) worker(job func()) {
	for {
		job()
		select {
		case job = <-s.jobs:
		case <-s.ctx.Done():
			return
		}
	}
}

// cancelled is the error of a call stopped before it started.
func cancelled() *tool.Error {
	return &tool.Error{Code: tool.CodeInterrupted, Message: "the call was cancelled before it started",
		Hint: "call the tool again if it is still needed"}
}

// mergeCancel is ctx, also cancelled when other is.
func mergeCancel(ctx, other context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(other, cancel)
	return ctx, func() { stop(); cancel() }
}

// Shutdown cancels every call in flight and waits until each has ended,
// its processes included.
func (s *Server) Shutdown() {
	s.cancel()
	s.wg.Wait()
}

// ServeStdio serves one session on in and out (newline-delimited JSON-RPC)
// until in ends or ctx is cancelled; then it cancels the calls in flight
// and waits for them.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	defer tuneGC()()
	defer s.Shutdown()
	// The SDK's Close waits for the calls in flight: a signal must end
	// them first.
	defer context.AfterFunc(ctx, s.cancel)()
	t := &orderedTransport{inner: &lineTransport{r: in, w: out}, s: s}
	// Run, without its error log line for a cancelled context: a signal
	// is the normal end of a server.
	ss, err := s.mcp.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err := <-ended:
		return err
	case <-ctx.Done():
		_ = ss.Close()
		<-ended
		return nil
	}
}

// canElicit says whether the client declared that it can ask its user
// (MCP elicitation).
func canElicit(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}
