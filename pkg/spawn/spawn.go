// Package spawn is the one entry for every process mcode starts on the
// caller's behalf — command tools, hooks, stdio MCP servers (bash goes
// through its supervisor, with the same two parts): the environment
// policy (layer A: mcode's own authority, always removed; layer B:
// bash.envSanitize) and the sandbox (package sandbox).
package spawn

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/sandbox"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Settings are the parts of the config that decide how a process runs.
type Settings struct {
	Root    string
	DataDir string
	Sandbox config.Sandbox
	// EnvSanitize and EnvAllow are bash.envSanitize and bash.envAllow:
	// one environment policy for everything mcode starts.
	EnvSanitize string
	EnvAllow    []string
}

// SettingsOf are the settings of a tool's environment.
func SettingsOf(env *tool.Env) Settings {
	cfg := config.Defaults()
	if env.Config != nil {
		cfg = *env.Config
	}
	return Settings{Root: env.Root, DataDir: env.DataDir, Sandbox: cfg.Sandbox,
		EnvSanitize: cfg.Bash.EnvSanitize, EnvAllow: cfg.Bash.EnvAllow}
}

// Prepared is how one process will run.
type Prepared struct {
	// Env is its environment, after the policy; Removed names what the
	// policy took out, EnvMode the mode of layer B.
	Env     []string
	Removed []string
	EnvMode string
	Policy  *sandbox.Policy
	// Plan confines it; nil runs it unconfined (danger-full-access, or
	// Unenforceable and a person approved).
	Plan *sandbox.Plan
	// Unenforceable says why this machine cannot hold the sandbox's mode
	// ("" when it can): then the process may run only with a person's
	// approval, unconfined.
	Unenforceable string
}

// Prepare applies the environment policy to environ and decides the
// sandbox of a process that gets that environment.
func (s Settings) Prepare(environ []string) *Prepared {
	if s.Root == "" {
		s.Root, _ = os.Getwd()
	}
	if s.Sandbox.Mode == "" {
		s.Sandbox.Mode = string(sandbox.DefaultMode)
	}
	mode := EnvMode(s.EnvSanitize, environ)
	env, removed := Sanitize(environ, mode, s.EnvAllow)
	pol := sandbox.New(sandbox.Inputs{Root: s.Root, DataDir: s.DataDir, Config: s.Sandbox,
		Getenv: func(k string) string { return Lookup(env, k) }})
	p := &Prepared{Env: env, Removed: removed, EnvMode: mode, Policy: pol}
	if why := sandbox.Unenforceable(pol.Mode, pol.Network, sandbox.Probe(false)); why != "" {
		p.Unenforceable = why
		return p
	}
	p.Plan = pol.Plan()
	return p
}

// Escalation is a tool.EscalationFunc for a tool that starts a process
// under the sandbox of its environment: a run on a machine that cannot
// hold it needs a person's approval.
func Escalation(env *tool.Env, _ json.RawMessage) string {
	s := SettingsOf(env)
	mode, err := sandbox.ParseMode(s.Sandbox.Mode)
	if err != nil {
		return ""
	}
	return sandbox.Unenforceable(mode, sandbox.ParseNetwork(s.Sandbox.Network), sandbox.Probe(false))
}

// Allowed says whether the process may start: its sandbox holds here, or
// a person approved this very call (ctx) to run it without.
func (p *Prepared) Allowed(ctx context.Context) error {
	if p.Unenforceable == "" || tool.Approved(ctx) {
		return nil
	}
	return &tool.Error{Code: tool.CodeApprovalRequired,
		Message: p.Unenforceable + ": a person must approve running it without the sandbox",
		Hint:    "a person approves the call through mcode's guard, or sets sandbox.mode: danger-full-access in the user config"}
}

// Start starts cmd (not started yet) under the sandbox: its argv wrapped
// where the platform needs it (macOS), the fork done on a confined thread
// (Linux). start is how the caller starts it (proctree.StartGroup, or
// cmd.Start). Call release once cmd.Wait has returned: a child's
// parent-death signal is tied to the thread that started it.
func (p *Prepared) Start(cmd *exec.Cmd, start func(*exec.Cmd) error) (applied sandbox.Applied, release func(), err error) {
	if argv := sandbox.Wrap(p.Plan, append([]string{cmd.Path}, cmd.Args[1:]...)); argv[0] != cmd.Path {
		cmd.Path, cmd.Args = argv[0], argv
	}
	return sandbox.Start(p.Plan, func() error { return start(cmd) })
}
