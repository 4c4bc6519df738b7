// Package mcptest is a stdio MCP server built with the go-sdk, for the
// connector's tests: a test binary re-runs itself as the server (MODE in
// the environment picks its behaviour), so every error path is played by
// a real process over real pipes.
package mcptest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Environment of the test server.
const (
	ModeVar   = "MCPTEST_MODE"   // which server to be (the modes below)
	MarkerVar = "MCPTEST_MARKER" // a file the slow tool writes when its call is cancelled
	ChildVar  = "MCPTEST_CHILD"  // a file the slow tool writes the PID of a child it starts into
	CountVar  = "MCPTEST_COUNT"  // how many extra tools the many mode lists
	StartsVar = "MCPTEST_STARTS" // a file that gets one line each time a server starts
	ToolsVar  = "MCPTEST_TOOLS"  // raw mode: a file holding the JSON array of tools to list, read at each tools/list
)

// Modes.
const (
	ModeOK        = "ok"        // echo, fail (isError), structured, badstructured, image, slow
	ModeCrash     = "crash"     // writes to stderr and exits 7 before the handshake
	ModeHang      = "hang"      // reads its stdin and never answers
	ModeNonJSON   = "nonjson"   // prints text that is not JSON-RPC on stdout
	ModeBadSchema = "badschema" // lists a tool whose inputSchema does not compile
	ModeMany      = "many"      // lists CountVar generated tools
	// ModeRaw speaks JSON-RPC by hand, without the go-sdk's checks on
	// what it serves: it lists the tools of ToolsVar as they are written
	// (hostile schemas, names that collide, no name at all), and answers
	// tools/call with "called NAME ARGS". A tool named "spawn" starts a
	// child in a session of its own (setsid) that sleeps, writing its pid
	// to ChildVar: a tree that leaves the server's process group;
	// "spawnwait" does the same and never answers.
	ModeRaw = "raw"
)

// NewServer is the go-sdk server of the ok mode (echo, fail, structured,
// badstructured, image, slow), for a test to serve over any transport;
// other modes get no tools here.
func NewServer(mode string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1.0.0"}, nil)
	if mode == ModeOK {
		addOKTools(s)
	}
	return s
}

// Main runs the server of the mode in the environment and returns its
// exit status; ok is false when the environment asks for none.
func Main() (int, bool) {
	mode := os.Getenv(ModeVar)
	if mode == "" {
		return 0, false
	}
	return serve(mode), true
}

func serve(mode string) int {
	if p := os.Getenv(StartsVar); p != "" {
		if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, mode)
			f.Close()
		}
	}
	switch mode {
	case ModeCrash:
		fmt.Fprintln(os.Stderr, "mcptest: fatal: the database at /nonexistent cannot be opened")
		return 7
	case ModeHang:
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
		}
		time.Sleep(time.Hour)
		return 0
	case ModeRaw:
		return serveRaw()
	case ModeNonJSON:
		fmt.Println("Welcome to the server! This line is not JSON-RPC.")
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Println("still not JSON")
		}
		return 0
	}
	s := NewServer(mode)
	switch mode {
	case ModeOK:
	case ModeBadSchema:
		s.AddTool(&mcp.Tool{Name: "broken", Description: "A tool whose schema is wrong",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/missing"}}}`)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text("called"), nil
			})
	case ModeMany:
		n, _ := strconv.Atoi(os.Getenv(CountVar))
		for i := range n {
			s.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool_%04d", i), Description: fmt.Sprintf("Generated tool number %d for listing tests", i),
				InputSchema: json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}}}`)},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return text("ok"), nil
				})
		}
	default:
		fmt.Fprintf(os.Stderr, "mcptest: unknown mode %q\n", mode)
		return 2
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		return 1
	}
	return 0
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func addOKTools(s *mcp.Server) {
	obj := func(schema string) json.RawMessage { return json.RawMessage(schema) }
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Echoes back the message",
		InputSchema: obj(`{"type":"object","properties":{"message":{"type":"string","description":"what to echo"}},"required":["message"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Message string }
			_ = json.Unmarshal(req.Params.Arguments, &args)
			return text("echo: " + args.Message), nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "Always reports a tool error", InputSchema: obj(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := text("the disk is full")
			r.IsError = true
			return r, nil
		})
	sum := obj(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`)
	s.AddTool(&mcp.Tool{Name: "structured", Description: "Adds two numbers, with structured output",
		InputSchema:  obj(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
		OutputSchema: sum},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ A, B int }
			_ = json.Unmarshal(req.Params.Arguments, &args)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(args.A + args.B)}},
				StructuredContent: map[string]any{"sum": args.A + args.B}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "badstructured", Description: "Breaks its own outputSchema", InputSchema: obj(`{"type":"object"}`), OutputSchema: sum},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "oops"}},
				StructuredContent: map[string]any{"sum": "not a number"}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "image", Description: "Returns a tiny PNG", InputSchema: obj(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a pixel"}, &mcp.ImageContent{MIMEType: "image/png", Data: tinyPNG}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "slow", Description: "Starts a child process, then waits until the call is cancelled", InputSchema: obj(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			child := exec.Command("sleep", "300")
			if err := child.Start(); err == nil {
				if p := os.Getenv(ChildVar); p != "" {
					_ = os.WriteFile(p, []byte(strconv.Itoa(child.Process.Pid)), 0o644)
				}
			}
			<-ctx.Done()
			if p := os.Getenv(MarkerVar); p != "" {
				_ = os.WriteFile(p, []byte("cancelled: "+context.Cause(ctx).Error()), 0o644)
			}
			return nil, ctx.Err()
		})
}

// tinyPNG is a 1×1 transparent PNG.
var tinyPNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
	0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
	0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
	0x42, 0x60, 0x82,
}

// serveRaw is ModeRaw: newline-delimited JSON-RPC on stdin and stdout.
func serveRaw() int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string          `json:"protocolVersion"`
				Name            string          `json:"name"`
				Arguments       json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": req.Params.ProtocolVersion,
				"capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "mcptest-raw", "version": "1.0.0"}}
		case "tools/list":
			tools := json.RawMessage("[]")
			if data, err := os.ReadFile(os.Getenv(ToolsVar)); err == nil {
				tools = data
			}
			result = map[string]any{"tools": tools}
		case "tools/call":
			if req.Params.Name == "spawn" || req.Params.Name == "spawnwait" {
				child := exec.Command("setsid", "sleep", "300")
				if err := child.Start(); err == nil && os.Getenv(ChildVar) != "" {
					_ = os.WriteFile(os.Getenv(ChildVar), []byte(strconv.Itoa(child.Process.Pid)), 0o644)
				}
			}
			if req.Params.Name == "spawnwait" {
				time.Sleep(time.Hour) // never answers
			}
			result = text(fmt.Sprintf("called %s %s", req.Params.Name, req.Params.Arguments))
		default:
			result = map[string]any{}
		}
		if err := out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result}); err != nil {
			return 1
		}
	}
	return 0
}
