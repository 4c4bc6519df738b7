package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/connector"
	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// ConnectorOptions are the options of the connector commands.
type ConnectorOptions struct {
	Keyword string
	Server  string
	Limit   int
	Refresh bool
	Name    string
}

// NewCmdConnector builds `mcode connector servers|tools|tool|call`.
func NewCmdConnector(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "connector <command>",
		Short: "Find, inspect and call the tools of the MCP servers in mcpServers",
		Long: `Find, inspect and call the tools of MCP servers. The servers are declared
under mcpServers in the config, as Claude Code's .mcp.json declares them:

` + indent(connector.ConfigExample, "  ") + `

A tool's name is SERVER__TOOL (docs__echo); its listing is cached, so a
search starts no server. Then:

  mcode connector servers                  # is each one up, how many tools
  mcode connector tools --keyword echo     # find a tool
  mcode connector tool docs__echo          # its description and input schema
  mcode connector call docs__echo --args '{"message": "hi"}'`,
		Args: cobra.NoArgs,
	}
	opts := &ConnectorOptions{}
	servers := &cobra.Command{
		Use:     "servers",
		Short:   "Contact every MCP server: transport, status, protocol version, tool count",
		Example: "  mcode connector servers",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return finish(f, f.connectorRun(c.Context(), "connector servers", func(ctx context.Context, conn *connector.Connector) (*tool.Response, error) {
				return conn.ServersResponse(ctx), nil
			}))
		},
	}
	tools := &cobra.Command{
		Use:   "tools [--keyword K] [--server S] [--limit N] [--refresh]",
		Short: "Search the MCP servers' tools: compact hits, best first",
		Example: `  mcode connector tools --keyword echo
  mcode connector tools --server everything --limit 50`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return finish(f, f.connectorRun(c.Context(), "connector tools", func(ctx context.Context, conn *connector.Connector) (*tool.Response, error) {
				conn.Refresh = opts.Refresh
				return conn.SearchResponse(ctx, opts.Keyword, opts.Server, opts.Limit, false)
			}))
		},
	}
	tools.Flags().StringVarP(&opts.Keyword, "keyword", "k", "", "words to look for in tool names, descriptions and parameter names")
	tools.Flags().StringVar(&opts.Server, "server", "", "only this server's tools")
	tools.Flags().IntVar(&opts.Limit, "limit", connector.DefaultSearchLimit, fmt.Sprintf("at most this many hits (up to %d)", connector.MaxSearchLimit))
	tools.Flags().BoolVar(&opts.Refresh, "refresh", false, "ask every server again instead of using the cached listings")
	describe := &cobra.Command{
		Use:     "tool SERVER__TOOL",
		Short:   "Show one MCP tool's full definition: description, input and output schema",
		Example: "  mcode connector tool everything__echo",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return finish(f, f.connectorRun(c.Context(), "connector tool", func(ctx context.Context, conn *connector.Connector) (*tool.Response, error) {
				conn.Refresh = opts.Refresh
				return conn.DescribeResponse(ctx, args[0])
			}))
		},
	}
	describe.Flags().BoolVar(&opts.Refresh, "refresh", false, "ask the server again instead of using the cached listing")
	callOpts := &CallOptions{}
	call := &cobra.Command{
		Use:   "call SERVER__TOOL [--args JSON|@FILE|-]",
		Short: "Call an MCP tool; its arguments are checked against its inputSchema first",
		Example: `  mcode connector call everything__echo --args '{"message":"hi"}'
  echo '{"path":"/tmp"}' | mcode connector call files__list_directory --args -`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := collectArgs(c, f.IO.In, callOpts, nil, false, nil); err != nil {
				return err
			}
			return finish(f, f.connectorCall(c.Context(), args[0], callOpts.JSON(), callOpts.Inputs...))
		},
	}
	addArgsFlag(call, callOpts)
	c.AddCommand(servers, tools, describe, call)
	return c
}

// indent puts prefix before every line of s.
func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// connectorRun runs one connector operation and wraps it in an envelope.
func (f *Factory) connectorRun(ctx context.Context, name string, op func(context.Context, *connector.Connector) (*tool.Response, error)) *tool.Envelope {
	start := time.Now()
	env := func() *tool.Envelope {
		cfg, err := f.Config()
		if err != nil {
			return tool.NewEnvelope(name, nil, err)
		}
		profile, err := f.profile(cfg)
		if err != nil {
			return tool.NewEnvelope(name, nil, err)
		}
		if profile.Disabled {
			return tool.NewEnvelope(name, nil, &tool.Error{Code: tool.CodeDenied,
				Message: "MCODE_DISABLE_TOOLS=1 disables every tool", Hint: "unset MCODE_DISABLE_TOOLS to call tools"})
		}
		conn, err := f.connectorOf(cfg, profile)
		if err != nil {
			return tool.NewEnvelope(name, nil, err)
		}
		resp, err := op(ctx, conn)
		if err != nil && ctx.Err() != nil {
			err = interrupted()
		}
		env := tool.NewEnvelope(name, resp, err)
		f.budget(cfg).Apply(env)
		return env
	}()
	env.DurationMS = time.Since(start).Milliseconds()
	return env
}

// connectorCall is `connector call`: the same call as `mcode call
// SERVER__TOOL`, through the one call path (profile, schema, guard,
// hooks, the time limit, budget, audit). The limit covers the server's
// start-up as well as the call.
func (f *Factory) connectorCall(ctx context.Context, name string, args json.RawMessage, inputs ...string) *tool.Envelope {
	if _, _, ok := connector.SplitName(name); !ok {
		return tool.NewEnvelope(name, nil, &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("%q is not an MCP tool name", name),
			Hint:    "name an MCP tool as SERVER__TOOL (or SERVER/TOOL); `mcode connector tools` lists them, `mcode call` calls built-in tools"})
	}
	return f.call(ctx, dispatch.Request{Tool: name, Args: args, Inputs: inputs})
}

// untrustedServers stands for the tools of the MCP servers no person has
// trusted yet: a call of SERVER__TOOL finds a stand-in that the guard
// holds until a person trusts the server's definition; the server never
// starts before.
type untrustedServers []connector.UntrustedServer

func (u untrustedServers) Tools(ctx context.Context, env *tool.Env) ([]*tool.Tool, error) {
	var problems []string
	for _, s := range u {
		problems = append(problems, fmt.Sprintf("MCP server %s: untrusted: not started: %s defines it, and no person has trusted this definition (a call of one of its tools asks for it)", s.Name, s.Def.Layer))
	}
	return nil, errors.New(strings.Join(problems, "\n"))
}

func (u untrustedServers) Lookup(ctx context.Context, env *tool.Env, name string) (*tool.Tool, bool, error) {
	server, _, ok := connector.SplitName(name)
	if !ok {
		return nil, false, nil
	}
	for _, s := range u {
		if strings.EqualFold(s.Name, server) {
			t, err := tool.NewExternal(tool.External{
				Name: name, Description: "A tool of the MCP server " + s.Name + ", which no person has trusted yet.",
				Source: tool.Configured, Facts: tool.Facts{OpenWorld: true}, Untrusted: s.Def,
			}, func(ctx context.Context, env *tool.Env, args json.RawMessage) (*tool.Response, error) {
				return nil, &tool.Error{Code: tool.CodeApprovalRequired,
					Message: "the MCP server " + s.Name + " was trusted after this process started",
					Hint:    "run the same call again: the server starts now"}
			})
			return t, true, err
		}
	}
	return nil, false, nil
}
