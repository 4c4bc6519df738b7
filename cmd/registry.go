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
	"github.com/mcode-dev/mcode/pkg/fetch"
	"github.com/mcode-dev/mcode/pkg/filetype"
	"github.com/mcode-dev/mcode/pkg/guard"
	"github.com/mcode-dev/mcode/pkg/guard/approval"
	"github.com/mcode-dev/mcode/pkg/guard/audit"
	"github.com/mcode-dev/mcode/pkg/guard/hooks"
	"github.com/mcode-dev/mcode/pkg/patch"
	"github.com/mcode-dev/mcode/pkg/read"
	"github.com/mcode-dev/mcode/pkg/render"
	"github.com/mcode-dev/mcode/pkg/search"
	"github.com/mcode-dev/mcode/pkg/skills"
	"github.com/mcode-dev/mcode/pkg/spawn"
	"github.com/mcode-dev/mcode/pkg/todo"
	"github.com/mcode-dev/mcode/pkg/tool"
	"github.com/mcode-dev/mcode/pkg/trash"
)

// This file is the composition root: how the process's one call path is
// built, from the top. Dispatcher builds, once, from the config: the
// registry (the built-in tools, and the providers of tools from outside:
// command tools and MCP servers, those of untrusted layers held for a
// person's trust), the caller's agent profile and role, what a tool may
// know of its caller (toolEnv), the time limit, the output budget, and the
// guard with its approvals, hooks and audit. Every command, mcode call,
// batch and mcp serve go through it; the commands hold no wiring of their
// own.

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
	reg, err := tool.NewRegistry(f.builtins()...)
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
	if err := outsideRoots(toolEnv.Root, cfg.Workspace.Roots, personHomePath); err != nil {
		return nil, err
	}
	limit, err := f.timeout()
	if err != nil {
		return nil, err
	}
	o := dispatch.Options{
		Registry: reg, Profile: profile, Env: toolEnv, Timeout: limit,
		Budget: f.budget(cfg), PolicyIgnored: f.policyIgnored,
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
		patch.Tool(),
		exec.Tool(exec.Options{Shims: rmShim, Environ: f.bashEnviron, Executable: f.Executable,
			Trash: func(env *tool.Env) []string { return []string{trash.HomeTrash(env)} }}),
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

// profile builds the caller's agent profile from flags, env and config.
// --agent and MCODE_AGENT, --role and MCODE_ROLE are the caller's to
// set, and only ever narrow: when both of a pair are given, the call gets
// what both allow.
func (f *Factory) profile(cfg *config.Config) (tool.Profile, error) {
	name, agent, err := f.agent(cfg)
	if err != nil {
		return tool.Profile{}, err
	}
	// The requested roles were checked with the global flags.
	flagRole, envRole := f.Global.Role, f.Getenv("MCODE_ROLE")
	role := tool.NarrowestRole(agent.Role, flagRole, envRole)
	for _, asked := range []struct{ role, from string }{{flagRole, "flag --role"}, {envRole, "environment variable MCODE_ROLE"}} {
		if asked.role != "" && asked.role != role {
			f.ignorePolicy("role", asked.from, fmt.Sprintf("role %s is wider than %s, which applies: a role only narrows", asked.role, role))
		}
	}
	return tool.Profile{
		Agent:      name,
		Role:       role,
		Allowed:    agent.Tools,
		Disallowed: agent.DisallowedTools,
		Subtask:    agent.Subtask,
		Disabled:   f.Getenv("MCODE_DISABLE_TOOLS") == "1",
	}, nil
}

// agent is the caller's agent, by name, with what it may use. When --agent
// and MCODE_AGENT name two, the call gets what both allow.
func (f *Factory) agent(cfg *config.Config) (string, config.Agent, error) {
	named := func(name string) (config.Agent, error) {
		agent, ok := cfg.Agents[strings.ToLower(name)]
		if !ok && name != "default" {
			known := make([]string, 0, len(cfg.Agents))
			for k := range cfg.Agents {
				known = append(known, k)
			}
			slices.Sort(known)
			return agent, &tool.Error{Code: tool.CodeUsage,
				Message: fmt.Sprintf("unknown agent %q", name),
				Hint:    "agents in the config: " + strings.Join(known, ", ") + " (or default)"}
		}
		return agent, nil
	}
	flagName, envName := f.Global.Agent, f.Getenv("MCODE_AGENT")
	name := cmp.Or(flagName, envName, "default")
	agent, err := named(name)
	if err != nil || flagName == "" || envName == "" || strings.EqualFold(flagName, envName) {
		return name, agent, err
	}
	other, err := named(envName)
	if err != nil {
		return name, agent, err
	}
	f.ignorePolicy("agent", "flag --agent", fmt.Sprintf("agent %s gets no more than agent %s, which MCODE_AGENT names, allows", flagName, envName))
	return name, config.IntersectAgents(agent, other), nil
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
	if f.serving && cfg.Bash.AutoBackgroundAfter == exec.AutoBackgroundAfter {
		// Under MCP clients' usual 60 s request limit, unless the config
		// asks for another time.
		served := *cfg
		served.Bash.AutoBackgroundAfter = exec.AutoBackgroundServe
		cfg = &served
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
	// With guard.enabled false the rules and the built-in checks allow
	// everything; code a config the caller can write asks to run still
	// waits for a person's trust, and a call that asks for a looser
	// sandbox still needs a person.
	g, err := guardOf(cfg)
	if err != nil {
		return err
	}
	store := f.approvals(cfg)
	approver := &guard.Approver{Guard: g, Store: store, Ask: f.approvalAsker()}
	o.Guard = approver
	root, err := f.RootDir()
	if err != nil {
		return err
	}
	approver.WideRoot = f.wideRoot(root)
	hookCfg := cfg.Hooks
	for _, list := range []*[]config.Hook{&hookCfg.BeforeTool, &hookCfg.AfterTool, &hookCfg.OnError} {
		*list = slices.DeleteFunc(slices.Clone(*list), func(h config.Hook) bool {
			if h.Trust != config.TrustUntrusted || h.Command == "" {
				return false
			}
			layer := h.Layer
			h.Trust, h.Layer = "", ""
			def := tool.NewUntrusted("hook", h.Command, layer, root, h)
			if store.Trusted(def.Digest) {
				return false
			}
			approver.Hooks = append(approver.Hooks, guard.PendingHook{Def: def, Tool: h.Tool})
			return true
		})
	}
	h, err := hooks.New(hookCfg)
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

// approvals is the approvals folder, with the person's key to check
// their answers by (none yet: nothing was ever approved).
func (f *Factory) approvals(cfg *config.Config) *approval.Store {
	s := approval.Open(f.HomeDir(), cfg.Guard.ApprovalTTL, f.Now)
	_, s.KeyDir, _ = f.userConfigDirs() // a damaged key honours nothing; approve says why
	return s
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
		fmt.Fprint(tty, "mcode guard: "+question+" [y/N] ")
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
	_, agent, err := f.agent(cfg)
	if err != nil {
		return nil, err
	}
	exe, _ := f.Executable() // without it, servers start without their warden
	servers, untrusted := f.trustedServers(cfg, connector.Servers(cfg, agent.McpServers), root)
	conn := &connector.Connector{
		WardenExe: exe,
		Servers:   servers,
		Untrusted: untrusted,
		DataDir:   f.HomeDir(),
		Root:      root,
		Getenv:    f.Getenv,
		Version:   version,
		Now:       f.Now,
		Spawn: spawn.Settings{Root: root, DataDir: f.HomeDir(), Sandbox: cfg.Sandbox,
			EnvSanitize: cfg.Bash.EnvSanitize, EnvAllow: cfg.Bash.EnvAllow},
	}
	f.closersMu.Lock()
	f.closers = append(f.closers, conn.Close)
	f.closersMu.Unlock()
	return conn, nil
}

// trustedServers splits the servers: those of the person's own config,
// or whose definition a person trusted, start as usual; the others (a
// config the caller can write defines them) are never started.
func (f *Factory) trustedServers(cfg *config.Config, all []connector.Server, root string) ([]connector.Server, []connector.UntrustedServer) {
	var ok []connector.Server
	var held []connector.UntrustedServer
	var store *approval.Store
	for _, s := range all {
		if s.Config.Trust != config.TrustUntrusted {
			ok = append(ok, s)
			continue
		}
		def := s.Config
		layer := def.Layer
		def.Trust, def.Layer = "", ""
		u := tool.NewUntrusted("mcp server", s.Name, layer, root, def)
		if store == nil {
			store = f.approvals(cfg)
		}
		if store.Trusted(u.Digest) {
			ok = append(ok, s)
			continue
		}
		held = append(held, connector.UntrustedServer{Server: s, Def: u})
	}
	return ok, held
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
