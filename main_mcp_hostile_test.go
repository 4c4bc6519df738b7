package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcp serve in front of a hostile MCP server (mcptest's raw mode): it
// starts, serves every usable tool, leaves the bad ones out, and a
// schema whose validation would never end or explode is refused per
// call while the server keeps serving.
func TestMCPServeHostileServer(t *testing.T) {
	c := mcodeCmd(t, "mcp", "serve")
	tools := `[
 {"name": "selfref", "inputSchema": {"$ref": "#"}},
 {"name": "notobj", "inputSchema": "foo"},
 {"name": "strtype", "inputSchema": {"type": "string"}},
 {"name": "good", "inputSchema": {"type": "object"}},
 {"name": "deep", "inputSchema": {"type": "object", "properties": {"x": {"type": "array", "items": {"allOf": [{"$ref": "#/properties/x"}, {"$ref": "#/properties/x"}]}}}}}
]`
	cfg := "mcpServers:\n  h:\n    command: mcptest\n    env: {MCPTEST_MODE: raw, MCPTEST_TOOLS: \"" + filepath.Join(c.Dir, "tools.json") + "\"}\n"
	personConfig(t, c, cfg)
	for name, data := range map[string]string{"tools.json": tools, "a.txt": "alpha\n"} {
		if err := os.WriteFile(filepath.Join(c.Dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := connectServe(t, c)
	ctx := context.Background()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, tl := range res.Tools {
		served[tl.Name] = true
	}
	for _, want := range []string{"read", "h__good", "h__deep"} {
		if !served[want] {
			t.Errorf("%s is not served", want)
		}
	}
	for _, bad := range []string{"h__selfref", "h__notobj", "h__strtype"} {
		if served[bad] {
			t.Errorf("%s is served", bad)
		}
	}
	call := func(name string, args any) (string, bool) {
		t.Helper()
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, _ := json.Marshal(r.Content)
		return string(data), r.IsError
	}
	nested := json.RawMessage(`{"x": ` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`)
	if text, isErr := call("h__deep", nested); !isErr || !strings.Contains(text, "tool_error") || !strings.Contains(text, "steps") {
		t.Fatalf("h__deep on 40 levels: %v %s", isErr, text)
	}
	// Not served: the SDK answers that it has no such tool, and serves on.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "h__selfref", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("h__selfref: %v", err)
	}
	if text, isErr := call("h__good", map[string]any{"k": 1}); isErr || !strings.Contains(text, "called good") {
		t.Fatalf("h__good: %v %s", isErr, text)
	}
	if text, isErr := call("read", map[string]any{"file_path": "a.txt"}); isErr || !strings.Contains(text, "alpha") {
		t.Fatalf("read after the hostile calls: %v %s", isErr, text)
	}
}
