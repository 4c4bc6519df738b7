package cmd

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/url"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/mcpserve"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// MCPServeOptions are the options of mcp serve.
type MCPServeOptions struct {
	// HTTP is the loopback address to serve streamable HTTP on; "" is stdio.
	HTTP string
}

// NewCmdMCP builds `mcode mcp serve`.
func NewCmdMCP(f *Factory, runF func(*MCPServeOptions) error) *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp <command>",
		Short: "Serve mcode's tools to MCP clients",
		Args:  cobra.NoArgs,
	}
	opts := &MCPServeOptions{}
	serve := &cobra.Command{
		Use:   "serve [--http 127.0.0.1:PORT]",
		Short: "Serve the tools this agent and role may call over MCP (stdio, or streamable HTTP on loopback)",
		Long: `Serves every tool this agent and role may call as an MCP server: over stdio
(stdout carries only the protocol, logs go to stderr), or with --http as
streamable HTTP at ` + mcpserve.Path + ` on a loopback address (port 0 picks a free one).
Every call goes through the same path as a CLI call: profile and role,
guard, hooks, time limit, output budget, audit.

HTTP needs Authorization: Bearer TOKEN on every request; the token is
MCODE_SERVE_TOKEN, else serve.token in the config, else generated at start
into MCODE_HOME/serve/token (mode 0600). Once listening, one JSON line on
stdout gives result.url and result.token_file. SIGINT or SIGTERM cancels the
calls in flight, ends their processes and exits 0.`,
		Example: `  mcode mcp serve
  mcode mcp serve --role explore
  mcode mcp serve --http 127.0.0.1:0`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return mcpServe(c.Context(), f, opts)
		},
	}
	serve.Flags().StringVar(&opts.HTTP, "http", "", "serve streamable HTTP on this loopback HOST:PORT instead of stdio")
	c.AddCommand(serve)
	return c
}

func mcpServe(ctx context.Context, f *Factory, opts *MCPServeOptions) error {
	const name = "mcp serve"
	fail := func(err error) error { return finish(f, tool.NewEnvelope(name, nil, err)) }
	addr := ""
	if opts.HTTP != "" {
		var err error
		if addr, err = mcpserve.CheckLoopback(opts.HTTP); err != nil {
			return fail(err)
		}
	}
	cfg, err := f.Config()
	if err != nil {
		return fail(err)
	}
	f.serving = true
	d, err := f.Dispatcher()
	if err != nil {
		return fail(err)
	}
	srv, err := mcpserve.New(ctx, d, mcpserve.Options{
		Name: "mcode", Version: version,
		Logger: slog.New(slog.NewTextHandler(f.IO.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return fail(err)
	}
	if addr == "" {
		in := f.IO.In
		if u, ok := in.(interface{ Unwrap() io.Reader }); ok {
			in = u.Unwrap() // Run ends the session on a signal: no per-read watch needed
		}
		err := srv.ServeStdio(ctx, io.NopCloser(in), nopWriteCloser{f.IO.Out})
		if err != nil && ctx.Err() == nil {
			// stdout belongs to the protocol: say it on stderr.
			slog.New(slog.NewTextHandler(f.IO.ErrOut, nil)).Error("mcp serve", "error", err)
			return &exitError{code: tool.ExitFailure}
		}
		return nil
	}
	token, err := mcpserve.ResolveToken(f.Getenv("MCODE_SERVE_TOKEN"), cfg.Serve.Token, f.HomeDir())
	if err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fail(&tool.Error{Code: tool.CodeUsage, Message: "--http: " + err.Error(),
			Hint: "pick another port, or --http 127.0.0.1:0 for a free one"})
	}
	u := url.URL{Scheme: "http", Host: ln.Addr().String(), Path: mcpserve.Path}
	var tokenFile any
	if token.File != "" {
		tokenFile = token.File
	}
	printEnvelope(f, tool.NewEnvelope(name, &tool.Response{
		Output: "serving MCP on " + u.String() + " (Authorization: Bearer token from " + token.Source + ")",
		Result: map[string]any{"url": u.String(), "token_file": tokenFile, "token_source": token.Source},
	}, nil))
	if err := srv.ServeHTTP(ctx, ln, token.Value); err != nil {
		slog.New(slog.NewTextHandler(f.IO.ErrOut, nil)).Error("mcp serve", "error", err)
		return &exitError{code: tool.ExitFailure}
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
