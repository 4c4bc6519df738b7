package cmd

import (
	"context"
	"os"
	"slices"
	"strings"

	"github.com/mcode-dev/mcode/pkg/artifact"
	"github.com/mcode-dev/mcode/pkg/cmdtool"
	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/connector"
	"github.com/mcode-dev/mcode/pkg/datetime"
	"github.com/mcode-dev/mcode/pkg/edit"
	"github.com/mcode-dev/mcode/pkg/exec"
	"github.com/mcode-dev/mcode/pkg/extract"
	"github.com/mcode-dev/mcode/pkg/fetch"
	"github.com/mcode-dev/mcode/pkg/filetype"
	"github.com/mcode-dev/mcode/pkg/patch"
	"github.com/mcode-dev/mcode/pkg/read"
	"github.com/mcode-dev/mcode/pkg/render"
	"github.com/mcode-dev/mcode/pkg/search"
	"github.com/mcode-dev/mcode/pkg/skills"
	"github.com/mcode-dev/mcode/pkg/todo"
	"github.com/mcode-dev/mcode/pkg/tool"
	"github.com/mcode-dev/mcode/pkg/trash"
)

// builtinTools lists every built-in tool, in the order tools list shows
// them. Tools never import each other; what one needs of another is wired
// here (bash puts the trash's rm shim first on PATH).
func (f *Factory) builtinTools() []*tool.Tool {
	rmShim := func(ctx context.Context, env *tool.Env) (string, error) {
		exe, err := f.Executable()
		if err != nil {
			return "", err
		}
		return trash.EnsureShim(env.DataDir, exe)
	}
	return []*tool.Tool{
		read.Tool(),
		search.GrepTool(),
		search.GlobTool(),
		edit.WriteTool(),
		edit.EditTool(),
		patch.Tool(),
		exec.Tool(exec.Options{Shims: rmShim, Environ: f.bashEnviron, Executable: f.Executable}),
		exec.TaskListTool(), exec.TaskOutputTool(), exec.TaskWaitTool(), exec.TaskStopTool(),
		trash.RmTool(func() trash.Asker { return f.rmAsker("mcode rm: ") }),
		trash.ListTool(),
		trash.RestoreTool(),
		trash.EmptyTool(),
		trash.PutTool(),
		datetime.Tool(),
		render.Tool(),
		artifact.VerifyTool(), artifact.FetchTool(), artifact.ExtractTool(), artifact.SyncTool(),
		extract.Tool(),
		filetype.Tool(),
		fetch.Tool(fetch.Options{UserAgent: userAgent()}),
		todo.WriteTool(), todo.ReadTool(),
		skills.ListTool(), skills.LoadTool(readFile),
	}
}

// userAgent is what fetch sends: mcode/VERSION.
func userAgent() string { return "mcode/" + version }

// readFile is read's paging for the files of a skill.
func readFile(ctx context.Context, env *tool.Env, path string, offset, limit int) (*tool.Response, error) {
	return read.Run(ctx, env, read.Params{Path: path, Offset: offset, Limit: limit})
}

// providers are the sources of tools from outside (MCP servers, command
// tools from config), asked by the registry when a call needs them.
// A command tool's declaration that is broken is a config error.
func (f *Factory) providers(cfg *config.Config, reg *tool.Registry) ([]tool.Provider, error) {
	var out []tool.Provider
	root, err := f.RootDir()
	if err != nil {
		return nil, err
	}
	builtin := func(name string) bool { _, ok := reg.Lookup(name); return ok }
	store := f.approvals(cfg)
	commands, err := cmdtool.NewProvider(cfg, root, builtin, f.bashEnviron, store.Trusted)
	if err != nil {
		return nil, err
	}
	if commands != nil {
		out = append(out, commands)
	}
	if len(cfg.McpServers) == 0 {
		return out, nil
	}
	profile, err := f.profile(cfg)
	if err != nil {
		return nil, err
	}
	conn, err := f.connectorOf(cfg, profile)
	if err != nil {
		return nil, err
	}
	out = append(out, &connector.Provider{
		Conn: conn, Search: cfg.McpToolSearch, Model: f.Getenv(connector.ModelVar), Profile: profile,
		// mcp_invoke's inner call takes the same path as any other.
		Invoke: f.Call,
	})
	if len(conn.Untrusted) > 0 {
		out = append(out, untrustedServers(conn.Untrusted))
	}
	return out, nil
}

// bashEnviron is what bash commands inherit: this process's environment,
// with the workspace root for the rm shim (trash.ShimRootVar).
func (f *Factory) bashEnviron() []string {
	env := os.Environ()
	root, err := f.RootDir()
	if err != nil {
		return env
	}
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, trash.ShimRootVar+"=") })
	return append(env, trash.ShimRootVar+"="+root)
}
