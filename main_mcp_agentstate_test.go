package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Command tools, the todo list and skills are listed and called through
// mcp serve like every built-in tool: a schema violation refused before
// the program runs, JSON stdout as structuredContent.
func TestMCPServeAgentState(t *testing.T) {
	c := mcodeCmd(t, "mcp", "serve")
	write := func(rel, text string, mode os.FileMode) {
		p := filepath.Join(c.Dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	personConfig(t, c, `tools:
  custom:
    - name: shout
      description: Says a word back in JSON.
      inputSchema:
        type: object
        properties:
          theWord: {type: string}
        required: [theWord]
      command: [./shout.sh, '{{theWord}}']
      stdin: none
      readOnly: true
`)
	write("shout.sh", "#!/bin/sh\ntouch ran.txt\nprintf '{\"said\": \"%s\"}\\n' \"$1\"\n", 0o755)
	write(".mcode/skills/demo/SKILL.md", "---\nname: demo\ndescription: A demo skill.\n---\nDo the demo.\n", 0o644)
	cs := connectServe(t, c)
	ctx := context.Background()

	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]*mcp.Tool{}
	for _, tl := range listed.Tools {
		seen[tl.Name] = tl
	}
	for _, name := range []string{"shout", "todo_write", "todo_read", "skill_list", "skill_load"} {
		if seen[name] == nil {
			t.Fatalf("mcp serve does not list %s", name)
		}
	}
	if a := seen["shout"].Annotations; a == nil || !a.ReadOnlyHint {
		t.Errorf("shout annotations %+v, want readOnlyHint", a)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shout", Arguments: map[string]any{"theWord": 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "error: usage:") {
		t.Fatalf("schema violation: %+v", res.Content)
	}
	if _, err := os.Stat(filepath.Join(c.Dir, "ran.txt")); err == nil {
		t.Fatal("the program ran for arguments its schema refuses")
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "shout", Arguments: map[string]any{"theWord": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if sc, _ := res.StructuredContent.(map[string]any); res.IsError || sc["said"] != "hi" {
		t.Fatalf("shout: isError=%v structured=%v", res.IsError, res.StructuredContent)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "todo_write", Arguments: map[string]any{
		"todos": []any{map[string]any{"content": "Serve it", "status": "in_progress"}}}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "[~] Serve it") {
		t.Fatalf("todo_write: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "skill_load", Arguments: map[string]any{"name": "demo"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "Do the demo.") {
		t.Fatalf("skill_load: %v %+v", err, res)
	}
}
