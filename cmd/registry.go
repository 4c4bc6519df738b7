package cmd

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/artifact"
	"github.com/mcode-dev/mcode/pkg/budget"
	"github.com/mcode-dev/mcode/pkg/cmdtool"
	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/connector"
	"github.com/mcode-dev/mcode/pkg/datetime"
	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/edit"
	"github.com/mcode-dev/mcode/pkg/exec"
	"github.com/mcode-dev/mcode/pkg/extract"
	"github.com/mcode-dev/mcode/pkg/filetype"
	"github.com/mcode-dev/mcode/pkg/guard"
	"github.com/mcode-dev/mcode/pkg/guard/approval"
	"github.com/mcode-dev/mcode/pkg/guard/audit"
	"github.com/mcode-dev/mcode/pkg/guard/hooks"
	"github.com/mcode-dev/mcode/pkg/read"
	"github.com/mcode-dev/mcode/pkg/render"
	"github.com/mcode-dev/mcode/pkg/search"
	"github.com/mcode-dev/mcode/pkg/skills"
	"github.com/mcode-dev/mcode/pkg/todo"
	"github.com/mcode-dev/mcode/pkg/tool"
	"github.com/mcode-dev/mcode/pkg/trash"
)

// This file is the composition root: how the process's one call path is
// built, from the top. Dispatcher builds, once, from the config: the
// registry (the built-in tools, and the providers of tools from outside:
// command tools and MCP servers), the caller's agent profile and role,
// what a tool may know of its caller (toolEnv), the time limit, the
// output budget, and the guard with its approvals, hooks and audit. Every
// command, mcode call, batch and mcp serve go through it; the commands
// hold no wiring of their own.

// Dispatcher is the process's one call path, built on first use from the
// registry, the config, the agent profile and role, the tool env, the
// budget and the time limit. Every command, mcode call, batch and serve
// use it.
func (f *Factory) Dispatcher() (*dispatch.Dispatcher, error) {
	f.dispatcherOnce.Do(func() { f.dispatcher, f.dispatcherErr = f.newDispatcher() })
	return f.dispatcher, f.dispatcherErr
}

func (f *Factory) newDispatcher() (*dispatch.Dispatcher, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	reg, err := tool.NewRegistry(f.Tools()...)
	if err != nil {
		return nil, err
	}
	providers, err := f.providers(cfg, reg)
	if err != nil {
		return nil, err
	}
	for _, p := range providers {
		reg.AddProvider(p)
	}
	profile, err := f.profile(cfg)
	if err != nil {
		return nil, err
	}
	toolEnv, err := f.toolEnv(cfg)
	if err != nil {
		return nil, err
	}
	limit, err := f.timeout()
	if err != nil {
		return nil, err
	}
	o := dispatch.Options{
		Registry: reg, Profile: profile, Env: toolEnv, Timeout: limit,
		Budget: f.budget(cfg),
	}
	if err := f.guard(cfg, &o); err != nil {
		return nil, err
	}
	return dispatch.New(o), nil
}

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
		todo.WriteTool(), todo.ReadTool(),
		skills.ListTool(), skills.LoadTool(readFile),
	}
}

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
	commands, err := cmdtool.NewProvider(cfg, root, builtin, f.bashEnviron)
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
	return append(out, &connector.Provider{
		Conn: conn, Search: cfg.McpToolSearch, Model: f.Getenv(connector.ModelVar), Profile: profile,
		// mcp_invoke's inner call takes the same path as any other.
		Invoke: f.Call,
	}), nil
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

// profile builds the caller's agent profile from flags, env and config.
func (f *Factory) profile(cfg *config.Config) (tool.Profile, error) {
	name := cmp.Or(f.Global.Agent, f.Getenv("MCODE_AGENT"), "default")
	agent, ok := cfg.Agents[strings.ToLower(name)]
	if !ok && name != "default" {
		known := make([]string, 0, len(cfg.Agents))
		for k := range cfg.Agents {
			known = append(known, k)
		}
		slices.Sort(known)
		return tool.Profile{}, &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("unknown agent %q", name),
			Hint:    "agents in the config: " + strings.Join(known, ", ") + " (or default)"}
	}
	// The requested role was checked with the global flags.
	role := tool.NarrowestRole(agent.Role, cmp.Or(f.Global.Role, f.Getenv("MCODE_ROLE")))
	return tool.Profile{
		Agent:      name,
		Role:       role,
		Allowed:    agent.Tools,
		Disallowed: agent.DisallowedTools,
		Subtask:    agent.Subtask,
		Disabled:   f.Getenv("MCODE_DISABLE_TOOLS") == "1",
	}, nil
}

// toolEnv is what a running tool may know of its caller.
func (f *Factory) toolEnv(cfg *config.Config) (*tool.Env, error) {
	root, err := f.RootDir()
	if err != nil {
		return nil, err
	}
	var live io.Writer
	if f.IO.OutTTY && f.outputForm() == outputText {
		live = f.IO.Out
	}
	return &tool.Env{
		Live:             live,
		Root:             root,
		DataDir:          f.HomeDir(),
		UserHome:         f.userHome(),
		Session:          f.Getenv("MCODE_SESSION"),
		Config:           cfg,
		Now:              f.Now,
		Stderr:           f.IO.ErrOut,
		StderrIsTerminal: f.IO.ErrTTY,
		Getenv:           f.Getenv,
	}, nil
}

// timeout is the --timeout limit, or -1 when it is not given (each tool
// then has its own; 0 is no limit).
func (f *Factory) timeout() (time.Duration, error) {
	if f.Global.Timeout == "" {
		return -1, nil
	}
	d, err := config.ParseDuration(f.Global.Timeout)
	if err != nil {
		return 0, &tool.Error{Code: tool.CodeUsage, Message: "--timeout: " + err.Error(),
			Hint: "e.g. --timeout 90 or --timeout 2m"}
	}
	return d, nil
}

// budget moves an oversized output to MCODE_HOME/tool-outputs.
func (f *Factory) budget(cfg *config.Config) budget.Budget {
	return budget.Budget{
		MaxInlineBytes: cfg.ToolResultCompaction.MaxInlineKiB * 1024,
		Dir:            filepath.Join(f.HomeDir(), budget.DirName),
		Now:            f.Now,
	}
}

// guard plugs the guard, the hooks and the audit into the call path.
// With guard.defaultPolicy allow and no rules only the built-in checks
// (dangerous shell forms, the path policy) can hold a call.
func (f *Factory) guard(cfg *config.Config, o *dispatch.Options) error {
	if cfg.Guard.Enabled {
		g, err := guardOf(cfg)
		if err != nil {
			return err
		}
		o.Guard = &guard.Approver{Guard: g, Store: f.approvals(cfg), Ask: f.approvalAsker()}
	}
	h, err := hooks.New(cfg.Hooks)
	if err != nil {
		return configError("", "hooks", "%v", err)
	}
	if h != nil {
		o.Hooks = h
	}
	if cfg.Audit.Enabled {
		log := f.auditLog(cfg)
		log.Errors = func(err error) { fmt.Fprintf(f.IO.ErrOut, "mcode: audit: %v\n", err) }
		o.Audit = log
	}
	return nil
}

// guardOf is the guard of the config's rules (guard check judges with it
// too).
func guardOf(cfg *config.Config) (*guard.Guard, error) {
	g, err := guard.New(cfg.Guard)
	if err != nil {
		return nil, configError("", "guard", "%v", err)
	}
	return g, nil
}

// auditLog is MCODE_HOME/audit.jsonl (mcode audit reads it).
func (f *Factory) auditLog(cfg *config.Config) *audit.Log {
	return audit.Open(f.HomeDir(), cfg.Audit.MaxMiB, f.Now)
}

func (f *Factory) approvals(cfg *config.Config) *approval.Store {
	return approval.Open(f.HomeDir(), cfg.Guard.ApprovalTTL, f.Now)
}

// approvalAsker asks the person at the terminal, on /dev/tty, when both
// stdin and stderr are one (and never under CI): a caller that is a
// program gets exit 75 at once instead of a prompt nobody reads.
func (f *Factory) approvalAsker() guard.Asker {
	if !f.IO.InTTY || !f.IO.ErrTTY || truthy(f.Getenv("CI")) {
		return nil
	}
	return func(ctx context.Context, question string) (bool, error) {
		tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return false, err
		}
		defer tty.Close()
		fmt.Fprint(tty, "mcode guard: "+question)
		answer := make(chan bool, 1)
		go func() {
			yes, _ := readYes(bufio.NewReader(tty))
			answer <- yes
		}()
		select {
		case yes := <-answer:
			return yes, nil
		case <-ctx.Done(): // Ctrl-C is no
			fmt.Fprintln(tty)
			return false, ctx.Err()
		}
	}
}

func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// connectorOf builds the connector of this caller: the servers its agent
// may use.
func (f *Factory) connectorOf(cfg *config.Config, profile tool.Profile) (*connector.Connector, error) {
	root, err := f.RootDir()
	if err != nil {
		return nil, err
	}
	agent := cfg.Agents[strings.ToLower(profile.Agent)]
	exe, _ := f.Executable() // without it, servers start without their warden
	conn := &connector.Connector{
		WardenExe: exe,
		Servers:   connector.Servers(cfg, agent.McpServers),
		DataDir:   f.HomeDir(),
		Root:      root,
		Getenv:    f.Getenv,
		Version:   version,
		Now:       f.Now,
	}
	f.closersMu.Lock()
	f.closers = append(f.closers, conn.Close)
	f.closersMu.Unlock()
	return conn, nil
}

// rmAsker returns who can answer rm's questions: the person at the
// terminal that standard input is, asked on stderr after prefix, or
// nobody (nil), in which case rm refuses rather than waits for an answer
// that cannot come.
func (f *Factory) rmAsker(prefix string) trash.Asker {
	if !f.IO.InTTY {
		return nil
	}
	in := bufio.NewReader(f.IO.In)
	return func(question string) (bool, error) {
		fmt.Fprint(f.IO.ErrOut, prefix+question)
		return readYes(in)
	}
}

// readYes reads one answer line: yes when it starts with y or Y (rm's
// rpmatch in the C locale); end of input is no.
func readYes(in *bufio.Reader) (bool, error) {
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		return false, nil
	}
	line = strings.TrimLeft(line, " \t")
	return strings.HasPrefix(line, "y") || strings.HasPrefix(line, "Y"), nil
}
