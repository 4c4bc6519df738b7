package connector

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tiers"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Names of the two tools that stand for the MCP tools when they are
// deferred.
const (
	ToolSearchName = "tool_search"
	MCPInvokeName  = "mcp_invoke"
	EnableToolName = "enable_tool"
)

// ModelVar names the calling model, for mcpToolSearch.models.
const ModelVar = "MCODE_MODEL"

// TokenBytes is the estimate of disclosure: a tool definition costs its
// JSON length / 4 tokens.
const TokenBytes = 4

var (
	//go:embed tool_search.md
	toolSearchDescription string
	//go:embed tool_search.schema.json
	toolSearchSchema string
	//go:embed mcp_invoke.md
	mcpInvokeDescription string
	//go:embed mcp_invoke.schema.json
	mcpInvokeSchema string
	//go:embed enable_tool.md
	enableToolDescription string
	//go:embed enable_tool.schema.json
	enableToolSchema string
)

// Provider puts the configured MCP tools into the registry as
// SERVER__TOOL (source configured), from the cached listings where they
// are fresh, so that listing the tools starts only the servers whose
// listing is missing. When mcpToolSearch says so, they are deferred:
// the list carries tool_search and mcp_invoke instead.
type Provider struct {
	Conn   *Connector
	Search config.McpToolSearch
	Model  string // the calling model (MCODE_MODEL), for mcpToolSearch.models
	// Profile is the caller's: enable_tool enables only a tool it may use.
	Profile tool.Profile
	// Invoke runs mcp_invoke's inner call through the caller's call path
	// (profile, guard, hooks, budget, audit); nil calls the server
	// directly.
	Invoke func(ctx context.Context, name string, args json.RawMessage) *tool.Envelope
}

// Tools lists the MCP tools, or the two that stand for them. A server
// that fails is named in the error beside the others' tools.
func (p *Provider) Tools(ctx context.Context, env *tool.Env) ([]*tool.Tool, error) {
	if len(p.Conn.Servers) == 0 {
		return nil, nil
	}
	defs, statuses, err := p.Conn.Tools(ctx, "")
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, s := range statuses {
		if s.Error != nil {
			problems = append(problems, fmt.Sprintf("MCP server %s: %s: %s", s.Name, s.Error.Code, oneLine(s.Error.Message)))
		}
		problems = append(problems, skippedProblems(s)...)
	}
	var listErr error
	if len(problems) > 0 {
		listErr = fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	var tools []*tool.Tool
	if p.hasExtension() {
		tools = append(tools, p.enableTool())
	}
	if p.Defer(defs) {
		return append(tools, p.searchTool(len(defs)), p.invokeTool()), listErr
	}
	for _, d := range defs {
		t, err := p.external(d)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		tools = append(tools, t)
	}
	if len(problems) > 0 {
		listErr = fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return tools, listErr
}

// skippedProblems names each tool of a server that was left out, and why.
func skippedProblems(s ServerStatus) []string {
	var out []string
	for _, t := range s.Skipped {
		out = append(out, fmt.Sprintf("MCP server %s: tool %q left out: %s", s.Name, t.Name, oneLine(t.Reason)))
	}
	return out
}

// Lookup finds SERVER__TOOL (or SERVER/TOOL) of a configured server, and
// tool_search and mcp_invoke, whether the list shows them or not.
func (p *Provider) Lookup(ctx context.Context, env *tool.Env, name string) (*tool.Tool, bool, error) {
	if len(p.Conn.Servers) == 0 {
		return nil, false, nil
	}
	switch tool.NormalizeName(name) {
	case ToolSearchName:
		return p.searchTool(0), true, nil
	case MCPInvokeName:
		return p.invokeTool(), true, nil
	case EnableToolName:
		if p.hasExtension() {
			return p.enableTool(), true, nil
		}
	}
	server, _, ok := SplitName(name)
	if !ok {
		return nil, false, nil
	}
	if _, err := lookupServer(p.Conn.Servers, server); err != nil {
		return nil, false, nil
	}
	def, err := p.Conn.Find(ctx, name)
	if err != nil {
		return nil, true, err
	}
	// The call must fail as the server's fault, not as mcode's: a schema
	// that does not compile is refused when the call runs (Validate).
	if _, err := tool.CompileSchema(def.Qualified(), def.InputSchema); err != nil {
		def.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	t, err := p.external(def)
	return t, true, err
}

// Defer applies mcpToolSearch: enabled, the model matches models, at
// least minDeferCount tools, and their definitions' estimated tokens
// above thresholdPct of contextWindow.
func (p *Provider) Defer(defs []ToolDef) bool {
	s := p.Search
	if !s.Enabled || len(defs) == 0 || len(defs) < s.MinDeferCount || !modelMatches(s.Models, p.Model) {
		return false
	}
	size := 0
	for _, d := range defs {
		data, _ := json.Marshal(map[string]any{"name": d.Qualified(), "description": d.Description, "input_schema": d.InputSchema})
		size += len(data)
	}
	return float64(size/TokenBytes) > s.ThresholdPct*float64(s.ContextWindow)
}

// modelMatches compares a model id against patterns (* and ? globs,
// case-insensitive); "*" matches any model, none given included.
func modelMatches(patterns []string, model string) bool {
	model = strings.ToLower(strings.TrimSpace(model))
	for _, pat := range patterns {
		pat = strings.ToLower(strings.TrimSpace(pat))
		if ok, _ := path.Match(pat, model); ok || pat == "*" {
			return true
		}
	}
	return false
}

// external makes one MCP tool a registry tool: its own schemas, its
// annotations as facts, its server's time limit.
func (p *Provider) external(d ToolDef) (*tool.Tool, error) {
	facts := tool.FactsOfMCPAnnotations(d.Annotations)
	mode := tool.Sequential
	if facts.ReadOnly {
		mode = tool.Parallel
	}
	timeout, tier := DefaultCallTimeout, tool.Core
	for _, s := range p.Conn.Servers {
		if s.Name != d.Server {
			continue
		}
		if s.Config.Timeout > 0 {
			timeout = s.Config.Timeout
		}
		tier = serverTier(s)
	}
	desc := d.Description
	if d.Title != "" && !strings.Contains(desc, d.Title) {
		desc = strings.TrimSpace(d.Title + "\n\n" + desc)
	}
	name := d.Qualified()
	var t *tool.Tool
	t, err := tool.NewExternal(tool.External{
		Name: name, Description: desc, InputSchema: d.InputSchema, OutputSchema: d.OutputSchema,
		Mode: mode, Tier: tier, Source: tool.Configured, Facts: facts, Timeout: timeout, Aliases: d.Aliases,
	}, func(ctx context.Context, env *tool.Env, args json.RawMessage) (*tool.Response, error) {
		if err := tiers.Permit(env, t); err != nil {
			return nil, err
		}
		return p.Conn.Call(ctx, name, args)
	})
	return t, err
}

// SearchParams are tool_search's parameters.
type SearchParams struct {
	Keyword string `json:"keyword"`
	Server  string `json:"server"`
	Limit   int    `json:"limit"`
	Refresh bool   `json:"refresh"`
}

func (p *Provider) searchTool(count int) *tool.Tool {
	names := make([]string, len(p.Conn.Servers))
	for i, s := range p.Conn.Servers {
		names[i] = s.Name
	}
	return tool.New(tool.Spec{
		Name: ToolSearchName, Mode: tool.Parallel, Tier: tool.Core,
		Facts:       tool.Facts{ReadOnly: true, Idempotent: true, OpenWorld: true},
		Description: toolSearchDescription, Schema: toolSearchSchema,
		Data: map[string]any{"Deferred": count > 0, "Count": count, "Servers": strings.Join(names, ", "),
			"DefaultLimit": DefaultSearchLimit, "MaxLimit": MaxSearchLimit},
	}, func(ctx context.Context, env *tool.Env, sp SearchParams) (*tool.Response, error) {
		conn := *p.Conn
		conn.Refresh = sp.Refresh
		return conn.SearchResponse(ctx, sp.Keyword, sp.Server, sp.Limit, true)
	})
}

// InvokeParams are mcp_invoke's parameters.
type InvokeParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func (p *Provider) invokeTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: MCPInvokeName, Mode: tool.Sequential, Tier: tool.Core, Timeout: DefaultCallTimeout,
		Facts:       tool.Facts{OpenWorld: true, Destructive: true},
		Description: mcpInvokeDescription, Schema: mcpInvokeSchema,
	}, func(ctx context.Context, env *tool.Env, ip InvokeParams) (*tool.Response, error) {
		if _, _, ok := SplitName(ip.Name); !ok {
			return nil, &tool.Error{Code: tool.CodeUsage,
				Message: fmt.Sprintf("mcp_invoke calls MCP tools, named SERVER__TOOL; %q is not one", ip.Name),
				Hint:    "tool_search gives the qualified names of the MCP tools"}
		}
		if p.Invoke == nil {
			return p.Conn.Call(ctx, ip.Name, ip.Arguments)
		}
		inner := p.Invoke(ctx, ip.Name, ip.Arguments)
		resp := &tool.Response{Output: inner.OutputText(), Result: inner.Result, Truncated: inner.Truncated,
			Continuation: inner.Continuation, Media: inner.Media}
		if inner.Error != nil {
			return resp, inner.Error
		}
		return resp, nil
	})
}

// serverTier is the tier of a server's tools: its config's tier key.
func serverTier(s Server) tool.Tier {
	if s.Config.Tier == string(tool.Extension) {
		return tool.Extension
	}
	return tool.Core
}

func (p *Provider) hasExtension() bool {
	for _, s := range p.Conn.Servers {
		if serverTier(s) == tool.Extension {
			return true
		}
	}
	return false
}

// EnableParams are enable_tool's parameters.
type EnableParams struct {
	Name string `json:"name"`
}

func (p *Provider) enableTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: EnableToolName, Mode: tool.Sequential, Tier: tool.Core,
		Facts:       tool.Facts{Idempotent: true, ReadOnly: true},
		Description: enableToolDescription, Schema: enableToolSchema,
	}, func(ctx context.Context, env *tool.Env, ep EnableParams) (*tool.Response, error) {
		notExtension := &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("%q is not an extension-tier tool of a configured MCP server", ep.Name),
			Hint:    "`mcode tools list` shows the catalogue of extension tools (result.catalogue); core tools need no enabling"}
		server, _, ok := SplitName(ep.Name)
		if !ok {
			return nil, notExtension
		}
		s, err := lookupServer(p.Conn.Servers, server)
		if err != nil || serverTier(s) != tool.Extension {
			return nil, notExtension
		}
		def, err := p.Conn.Find(ctx, ep.Name)
		if err != nil {
			return nil, err
		}
		t, err := p.external(def)
		if err != nil {
			return nil, err
		}
		if denied := p.Profile.Permits(t); denied != nil {
			return nil, denied
		}
		already, err := tiers.Enable(env, t.Name)
		if err != nil {
			return nil, err
		}
		full, err := t.Definition()
		if err != nil {
			return nil, err
		}
		state := "enabled"
		if already {
			state = "already enabled"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s is %s for this session (%s). Its definition:\n%s\n", t.Name, state, tiers.Session(env), full.Description)
		writeParams(&b, full.InputSchema)
		return &tool.Response{Output: b.String(), Result: map[string]any{
			"name": t.Name, "enabled": true, "already_enabled": already, "session": tiers.Session(env), "definition": full,
		}}, nil
	})
}
