package connector

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Search limits: how many hits a search shows unless asked, and at most.
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 1000
)

// SearchHit is one compact hit of a search.
type SearchHit struct {
	Name        string  `json:"name"` // SERVER__TOOL
	Server      string  `json:"server"`
	Tool        string  `json:"tool"`
	Description string  `json:"description"` // its first line
	Score       float64 `json:"score"`
	// InputSchema is given to a model (tool_search), which calls next.
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
}

// ServersResponse is `connector servers`: every server contacted now.
func (c *Connector) ServersResponse(ctx context.Context) *tool.Response {
	statuses := c.Status(ctx)
	var b strings.Builder
	if len(statuses) == 0 {
		b.WriteString(noServers + "\n")
	}
	for _, s := range statuses {
		writeStatus(&b, s)
	}
	return &tool.Response{Output: b.String(), Result: map[string]any{"count": len(statuses), "servers": nonNil(statuses)}}
}

const noServers = "no MCP server is configured for this agent (mcpServers in the config)"

func writeStatus(b *strings.Builder, s ServerStatus) {
	if s.Status == StatusUntrusted {
		fmt.Fprintf(b, "%s (%s): untrusted, not started: %s\n", s.Name, s.Transport, oneLine(s.Error.Message))
		return
	}
	if s.Error != nil {
		fmt.Fprintf(b, "%s (%s): error %s: %s\n", s.Name, s.Transport, s.Error.Code, oneLine(s.Error.Message))
		return
	}
	fmt.Fprintf(b, "%s (%s): %s, protocol %s, %d tools\n", s.Name, s.Transport, s.Status, s.ProtocolVersion, s.ToolCount)
	for _, p := range skippedProblems(s) {
		b.WriteString("  " + p + "\n")
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// SearchResponse is `connector tools` and tool_search: ranked, compact
// hits over every server's tools (or one server's), from the cache where
// it is fresh; a server that fails is reported and the rest still count.
// withSchemas adds each hit's input schema (for a model about to call).
func (c *Connector) SearchResponse(ctx context.Context, keyword, server string, limit int, withSchemas bool) (*tool.Response, error) {
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	list := c.Summaries
	if withSchemas {
		list = c.Tools
	}
	tools, statuses, err := list(ctx, server)
	if err != nil {
		return nil, err
	}
	ranked := Rank(tools, keyword)
	hits := make([]SearchHit, 0, min(limit, len(ranked)))
	var b strings.Builder
	for _, h := range ranked[:min(limit, len(ranked))] {
		hit := SearchHit{Name: h.Tool.Qualified(), Server: h.Tool.Server, Tool: h.Tool.Name,
			Description: h.Tool.summary(), Score: round(h.Score)}
		fmt.Fprintf(&b, "%s  %s\n", hit.Name, hit.Description)
		if withSchemas {
			hit.InputSchema = h.Tool.InputSchema
			fmt.Fprintf(&b, "    input schema: %s\n", h.Tool.InputSchema)
		}
		hits = append(hits, hit)
	}
	switch {
	case len(c.Servers) == 0:
		b.WriteString(noServers + "\n")
	case len(ranked) == 0 && keyword != "":
		fmt.Fprintf(&b, "no tool matches %q among %d tools\n", keyword, len(tools))
	case len(ranked) > limit:
		fmt.Fprintf(&b, "(%d more matches: raise --limit, or narrow --keyword)\n", len(ranked)-limit)
	}
	for _, s := range statuses {
		if s.Error != nil {
			fmt.Fprintf(&b, "server %s failed: %s: %s\n", s.Name, s.Error.Code, oneLine(s.Error.Message))
		}
		for _, p := range skippedProblems(s) {
			b.WriteString(p + "\n")
		}
	}
	if len(hits) > 0 && !withSchemas {
		b.WriteString("`mcode connector tool NAME` shows a tool's parameters; `mcode connector call NAME --args JSON` calls it\n")
	}
	return &tool.Response{
		Output:    b.String(),
		Truncated: len(ranked) > limit,
		Result: map[string]any{
			"keyword": keyword, "count": len(hits), "matches": len(ranked), "total": len(tools),
			"tools": hits, "servers": nonNil(statuses),
		},
	}, nil
}

// DescribeResponse is `connector tool NAME`: the full definition.
func (c *Connector) DescribeResponse(ctx context.Context, name string) (*tool.Response, error) {
	def, err := c.Find(ctx, name)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n", def.Qualified())
	if def.Title != "" {
		fmt.Fprintf(&b, "%s\n", def.Title)
	}
	if def.Description != "" {
		fmt.Fprintf(&b, "%s\n", strings.TrimSpace(def.Description))
	}
	writeParams(&b, def.InputSchema)
	fmt.Fprintf(&b, "\nCall it: mcode connector call %s --args '{…}'\n", def.Qualified())
	result := map[string]any{
		"name": def.Qualified(), "server": def.Server, "tool": def.Name, "title": def.Title,
		"description": def.Description, "inputSchema": def.InputSchema,
		"outputSchema": rawOrNil(def.OutputSchema), "annotations": rawOrNil(def.Annotations),
	}
	return &tool.Response{Output: b.String(), Result: result}, nil
}

func rawOrNil(r json.RawMessage) any {
	if len(r) == 0 {
		return nil
	}
	return r
}

// writeParams lists the schema's parameters for a person or a model.
func writeParams(b *strings.Builder, schema json.RawMessage) {
	if !tool.WriteParameters(b, schema, true) {
		b.WriteString("Parameters: none\n")
	}
}

// oneLine joins a multi-line message (a stderr tail) into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " | ")), " ")
}

func round(f float64) float64 {
	return float64(int64(f*1000+0.5)) / 1000
}
