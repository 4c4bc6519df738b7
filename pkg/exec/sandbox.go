package exec

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/sandbox"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// SandboxResult is result.sandbox of a bash call: the mode and how far
// the kernel holds each guarantee, and the refusals the command's output
// shows.
type SandboxResult struct {
	sandbox.Status
	// Denied lists what the sandbox likely refused, when the command
	// failed and its output says so.
	Denied []sandbox.Denial `json:"denied"`
}

// sandboxRun is the sandbox of one call.
type sandboxRun struct {
	policy *sandbox.Policy
	// plan is what the supervisor applies; nil runs unconfined
	// (danger-full-access, or a person approved running without).
	plan *sandbox.Plan
	// unenforced says why the run is unconfined though its mode asks for
	// a sandbox (a person approved it).
	unenforced string
}

func sandboxConfig(env *tool.Env) config.Sandbox {
	if env != nil && env.Config != nil {
		return env.Config.Sandbox
	}
	return config.Defaults().Sandbox
}

// requestedMode is the mode a call runs under: the policy's, or the one
// it asked for (a stricter one always; a looser one with approval).
// looser is set when the request is looser than the policy.
func requestedMode(env *tool.Env, requested string) (mode, policy sandbox.Mode, looser bool, err error) {
	policy, err = sandbox.ParseMode(sandboxConfig(env).Mode)
	if err != nil {
		return "", "", false, err
	}
	if requested == "" {
		return policy, policy, false, nil
	}
	mode, err = sandbox.ParseMode(requested)
	if err != nil {
		return "", "", false, &tool.Error{Code: tool.CodeUsage, Message: err.Error()}
	}
	return mode, policy, mode.LooserThan(policy), nil
}

// escalation is bash's tool.EscalationFunc: a looser sandbox than the
// policy, or a sandbox this machine cannot enforce, needs a person.
func escalation(env *tool.Env, args json.RawMessage) string {
	var p struct {
		Sandbox string `json:"sandbox"`
	}
	_ = json.Unmarshal(args, &p)
	mode, policy, looser, err := requestedMode(env, p.Sandbox)
	if err != nil {
		return ""
	}
	if looser {
		return fmt.Sprintf("the command asks to run with sandbox %s, looser than the policy's %s", mode, policy)
	}
	return sandbox.Unenforceable(mode, sandbox.ParseNetwork(sandboxConfig(env).Network), sandbox.Probe(false))
}

// sandboxOf decides the sandbox of a call: the mode, the policy for the
// command's own environment, and the plan the supervisor applies. A
// looser mode, or a run the kernel cannot confine, goes ahead only when
// a person approved this very call (the guard holds it until then; this
// is the line when no guard is in the path).
func (o Options) sandboxOf(ctx context.Context, env *tool.Env, requested string, childEnv []string, trashDirs []string) (*sandboxRun, error) {
	mode, policy, looser, err := requestedMode(env, requested)
	if err != nil {
		return nil, err
	}
	if looser && !tool.Approved(ctx) {
		return nil, approvalNeeded(fmt.Sprintf("the command asks to run with sandbox %s, looser than the policy's %s", mode, policy))
	}
	cfg := sandboxConfig(env)
	pol := sandbox.New(sandbox.Inputs{
		Root: env.Root, DataDir: env.DataDir, Getenv: func(k string) string { return lookup(childEnv, k) },
		Config: cfg, Mode: mode, TrashDirs: trashDirs,
	})
	run := &sandboxRun{policy: pol}
	if why := sandbox.Unenforceable(mode, pol.Network, sandbox.Probe(false)); why != "" {
		if !tool.Approved(ctx) {
			return nil, approvalNeeded(why)
		}
		run.unenforced = why
		return run, nil
	}
	run.plan = pol.Plan()
	return run, nil
}

func approvalNeeded(why string) error {
	return &tool.Error{Code: tool.CodeApprovalRequired,
		Message: why + ": a person must approve this call",
		Hint:    "a person approves it through mcode's guard (the call then carries an approval id), or changes sandbox.mode in the user config"}
}

// status is the result's account of the run's sandbox, from what the
// supervisor found (nil: it ran unconfined).
func (s *sandboxRun) status(applied *sandbox.Applied) *SandboxResult {
	if s == nil {
		return nil
	}
	var k sandbox.Kernel
	switch {
	case s.plan != nil && applied != nil:
		k = sandbox.KernelOf(s.plan, *applied)
	default:
		k = sandbox.Probe(false)
	}
	st := s.policy.Status(k)
	if s.unenforced != "" {
		st.Why["approved"] = "a person approved running this command without the sandbox: " + s.unenforced
	}
	return &SandboxResult{Status: st}
}
