package tool

import "encoding/json"

// MCPAnnotations are the hints MCP gives a tool: the facts a client may
// show or act on. Facts map to them here and nowhere else, both ways:
// tools list --format mcp and mcp serve announce them, the connector reads
// a server's.
type MCPAnnotations struct {
	DestructiveHint bool `json:"destructiveHint"`
	IdempotentHint  bool `json:"idempotentHint"`
	OpenWorldHint   bool `json:"openWorldHint"`
	ReadOnlyHint    bool `json:"readOnlyHint"`
}

// MCPAnnotations are the hints of a tool with these facts.
func (f Facts) MCPAnnotations() MCPAnnotations {
	return MCPAnnotations{
		ReadOnlyHint: f.ReadOnly, DestructiveHint: f.Destructive,
		IdempotentHint: f.Idempotent, OpenWorldHint: f.OpenWorld,
	}
}

// FactsOfMCPAnnotations reads the annotations an MCP server gives a tool
// (JSON); a hint left out takes the protocol's default: not read-only,
// destructive, not idempotent, open world.
func FactsOfMCPAnnotations(raw json.RawMessage) Facts {
	a := struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
		Idempotent  *bool `json:"idempotentHint"`
		OpenWorld   *bool `json:"openWorldHint"`
	}{}
	_ = json.Unmarshal(raw, &a)
	or := func(b *bool, def bool) bool {
		if b == nil {
			return def
		}
		return *b
	}
	f := Facts{ReadOnly: or(a.ReadOnly, false), Idempotent: or(a.Idempotent, false), OpenWorld: or(a.OpenWorld, true)}
	f.Destructive = !f.ReadOnly && or(a.Destructive, true)
	return f
}
