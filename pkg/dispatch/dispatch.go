// Package dispatch is the one call path. Every caller of a tool (its own
// command, mcode call, batch, mcp serve, mcp_invoke) hands the call to a
// Dispatcher, which runs the same steps in the same order for all of them:
//
//	lookup → profile and role → schema → guard → before hooks →
//	the tool's Run under its time limit → after hooks → output budget →
//	audit
//
// A Dispatcher is built once per process and is safe for concurrent
// calls. It does not serialize sequential tools: the caller that runs
// several calls at once (batch, serve) does.
package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcode-dev/mcode/pkg/budget"
	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Request is one call as a caller makes it.
type Request struct {
	Tool string
	Args json.RawMessage // a JSON object; empty means {}
	// Approval is the id of an approval a person granted for this very
	// call (--approval, MCODE_APPROVAL).
	Approval string
	// Inputs are files the caller's command line read into Args
	// (--content-file, --args @FILE, the patch's FILE), as absolute
	// paths: their text reaches the tool, so the guard judges each as a
	// read, and a file no tool may read cannot be copied through them.
	Inputs []string
}

// Call is a request on its way through the steps: the tool it names
// and who is calling. Hooks may replace Args.
type Call struct {
	Request
	Def     *tool.Tool // nil until the lookup found it
	Profile tool.Profile
	Env     *tool.Env
	// PolicyIgnored are the loosenings of the policy the caller asked
	// for and did not get (the audit records them).
	PolicyIgnored []config.Ignored
}

// Verdict is the guard's answer for a call.
type Verdict string

const (
	Allow           Verdict = "allow"
	Deny            Verdict = "deny"
	RequireApproval Verdict = "require_approval"
)

// Decision is a verdict with what gave it, for the result and the audit.
type Decision struct {
	Verdict Verdict `json:"decision"`
	// Source says what decided: "default" when nothing did, "profile"
	// (the agent's tools, the role, MCODE_DISABLE_TOOLS), or the guard's
	// own words ("rule", "dangerous", "path", "hook", "person", "grant",
	// "approval").
	Source string `json:"source"`
	// Rule is the rule that matched, as written in the config.
	Rule       string `json:"rule,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Hint       string `json:"hint,omitempty"`
	ApprovalID string `json:"approval_id,omitempty"`
	// Approved: a person approved this very call (an approval redeemed,
	// the person at the terminal, a grant of the trusted config). The
	// tool hears of it (tool.Approved): one that escalates, such as bash
	// asking for a looser sandbox, runs looser only then.
	Approved bool `json:"-"`
}

// Asker puts a yes/no question to the person behind the caller; an
// error counts as no.
type Asker func(ctx context.Context, question string) (bool, error)

// ErrAskLater is an asker's answer when the person is asked outside this
// call (an MCP client's user, through a round trip of the client's): the
// call is held as it is without an asker, and the question kept.
var ErrAskLater = errors.New("the person is asked outside this call")

type askerKey struct{}

// WithAsker is ctx carrying the caller's own way to ask its person (an
// MCP client's user, through elicitation): the guard asks there first.
func WithAsker(ctx context.Context, a Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// AskerFrom is the asker ctx carries, or nil.
func AskerFrom(ctx context.Context) Asker {
	a, _ := ctx.Value(askerKey{}).(Asker)
	return a
}

// Sources of a decision that the dispatcher itself gives.
const (
	SourceDefault = "default"
	SourceProfile = "profile"
	// SourceGuard: the guard failed to decide, which refuses the call.
	SourceGuard = "guard"
)

// Guard decides whether a call may run. It is asked after the arguments
// passed the schema and before any hook or the tool runs.
type Guard interface {
	Decide(ctx context.Context, c *Call) (Decision, error)
}

// Hooks run around a call's Run. Before may replace c.Args (they are
// checked against the schema again) or block the call with an error.
// After sees the tool's response and error (on_error hooks run there
// too) and returns the ones that go on to the budget: redaction happens
// there, so no secret reaches an archive file.
type Hooks interface {
	Before(ctx context.Context, c *Call) error
	After(ctx context.Context, c *Call, resp *tool.Response, err error) (*tool.Response, error)
}

// Auditor records every call that was looked up, with its decision and
// its envelope, after the call ended.
type Auditor interface {
	Record(c *Call, d Decision, env *tool.Envelope)
}

// Options are what a Dispatcher is built from, all the same for every
// call of the process.
type Options struct {
	Registry *tool.Registry
	Profile  tool.Profile
	// Env is handed to every tool; its Role is set from Profile.
	Env    *tool.Env
	Budget budget.Budget
	// Timeout is the caller's limit for each call (--timeout); negative
	// means each tool's own default, and zero no limit.
	Timeout time.Duration
	Guard   Guard   // nil: every call is allowed
	Hooks   Hooks   // nil: none
	Audit   Auditor // nil: nothing is recorded
	// PolicyIgnored are the loosenings of the policy that the caller's
	// config layers, environment or flags asked for and did not get:
	// every result says so (result.policy_ignored), once.
	PolicyIgnored []config.Ignored
}

// Dispatcher runs calls. Build it with New.
type Dispatcher struct {
	o Options
}

// New builds a dispatcher.
func New(o Options) *Dispatcher {
	env := *o.Env
	env.Role = o.Profile.Role
	o.Env = &env
	return &Dispatcher{o: o}
}

// Env is the environment every call's tool gets.
func (d *Dispatcher) Env() *tool.Env { return d.o.Env }

// Profile is the agent profile calls run under.
func (d *Dispatcher) Profile() tool.Profile { return d.o.Profile }

// Call runs the tool name on args.
func (d *Dispatcher) Call(ctx context.Context, name string, args json.RawMessage) *tool.Envelope {
	return d.Do(ctx, Request{Tool: name, Args: args})
}

// Do runs one request through every step and returns its envelope,
// timed from the lookup to the audit. It never fails: every outcome,
// a refusal or a fault included, is an envelope.
func (d *Dispatcher) Do(ctx context.Context, r Request) *tool.Envelope {
	start := time.Now()
	if len(bytes.TrimSpace(r.Args)) == 0 {
		r.Args = json.RawMessage("{}")
	}
	c := &Call{Request: r, Profile: d.o.Profile, Env: d.o.Env, PolicyIgnored: d.o.PolicyIgnored}
	decision := Decision{Verdict: Allow, Source: SourceDefault}
	env := d.run(ctx, c, &decision)
	withPolicyIgnored(env, d.o.PolicyIgnored)
	env.DurationMS = time.Since(start).Milliseconds()
	if d.o.Audit != nil && c.Def != nil {
		d.o.Audit.Record(c, decision, env)
	}
	return env
}

func (d *Dispatcher) run(ctx context.Context, c *Call, decision *Decision) *tool.Envelope {
	// 1. Lookup. A person's own commands are never tools.
	if tool.PersonOnly(c.Tool) {
		*decision = Decision{Verdict: Deny, Source: SourceProfile, Reason: "approvals come from a person"}
		return tool.NewEnvelope(c.Tool, nil, &tool.Error{Code: tool.CodeDenied,
			Message: fmt.Sprintf("%s is not a tool: only a person approves or denies a held call, with `mcode %s ID` at their own terminal", c.Tool, c.Tool),
			Hint:    "ask the person to run it; then run the held call again with --approval ID"})
	}
	t, err := d.o.Registry.Find(ctx, d.o.Env, c.Tool)
	if err != nil {
		// A signal while an MCP server was started to list its tools.
		if ctx.Err() != nil {
			err = ContextError(ctx, err, d.o.Timeout)
		}
		return tool.NewEnvelope(c.Tool, nil, err)
	}
	c.Def = t
	fail := func(err error) *tool.Envelope { return tool.NewEnvelope(t.Name, nil, err) }

	// 2. The agent's tool set and the role.
	if denied := d.o.Profile.Permits(t); denied != nil {
		*decision = Decision{Verdict: Deny, Source: SourceProfile, Reason: denied.Message}
		return fail(denied)
	}

	// 3. The schema, after the other names a caller may use for the
	// parameters were rewritten to the tool's own.
	args, err := t.Normalize(c.Args)
	if err != nil {
		return fail(err)
	}
	c.Args = args
	if err := t.Validate(c.Args); err != nil {
		return fail(err)
	}

	// 4. The guard.
	if d.o.Guard != nil {
		dec, err := d.o.Guard.Decide(ctx, c)
		if err != nil {
			*decision = Decision{Verdict: Deny, Source: SourceGuard, Reason: err.Error()}
			return fail(err)
		}
		*decision = dec
		if err := dec.refusal(t.Name); err != nil {
			// The decision is the result: a program reads the approval
			// id and the rule from it.
			return tool.NewEnvelope(t.Name, &tool.Response{Result: dec}, err)
		}
		if dec.Approved {
			ctx = tool.WithApproved(ctx)
		}
	}

	// 5. Before hooks.
	if d.o.Hooks != nil {
		before := c.Args
		if err := d.o.Hooks.Before(ctx, c); err != nil {
			return fail(err)
		}
		if !bytes.Equal(before, c.Args) {
			if err := t.Validate(c.Args); err != nil {
				return fail(fmt.Errorf("a before_tool hook changed the arguments into ones the schema refuses: %w", err))
			}
		}
	}

	// 6. Run, under the time limit.
	resp, err := d.execute(ctx, c)

	// 7. After hooks.
	if d.o.Hooks != nil {
		resp, err = d.o.Hooks.After(ctx, c, resp, err)
	}

	// 8. The output budget.
	env := tool.NewEnvelope(t.Name, resp, err)
	d.o.Budget.Apply(env)
	return env
}

// withPolicyIgnored adds the ignored loosenings to a result, which then
// is an object whatever the tool's own result was.
func withPolicyIgnored(env *tool.Envelope, ignored []config.Ignored) {
	if len(ignored) == 0 {
		return
	}
	m := map[string]any{}
	if env.Result != nil {
		data, err := json.Marshal(env.Result)
		if err != nil || json.Unmarshal(data, &m) != nil {
			m = map[string]any{"value": env.Result}
		}
	}
	m[PolicyIgnoredKey] = ignored
	env.Result = m
}

// PolicyIgnoredKey is the result's key for the ignored loosenings.
const PolicyIgnoredKey = "policy_ignored"

// execute runs the tool under its time limit: the caller's --timeout,
// else the tool's own default.
func (d *Dispatcher) execute(ctx context.Context, c *Call) (*tool.Response, error) {
	limit := d.o.Timeout
	if limit < 0 {
		limit = c.Def.Timeout
	}
	runCtx := ctx
	if limit > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	resp, err := c.Def.Execute(runCtx, c.Env, c.Args)
	if err != nil && runCtx.Err() != nil {
		err = ContextError(runCtx, err, limit)
	}
	return resp, err
}

// refusal is the error of a decision that stops the call, or nil.
func (dec Decision) refusal(name string) error {
	switch dec.Verdict {
	case Deny:
		msg := dec.Reason
		if msg == "" {
			msg = fmt.Sprintf("the guard denies this call of %s", name)
		}
		hint := dec.Hint
		if hint == "" {
			hint = "`mcode guard check " + name + " --args …` shows which rule decides; change the call, or the rule"
		}
		return &tool.Error{Code: tool.CodeDenied, Message: msg, Hint: hint}
	case RequireApproval:
		msg := dec.Reason
		if msg == "" {
			msg = fmt.Sprintf("this call of %s needs a person's approval", name)
		}
		hint := dec.Hint
		if hint == "" && dec.ApprovalID != "" {
			hint = fmt.Sprintf("a person approves it with `mcode approve %s`; then run the same call again with --approval %s", dec.ApprovalID, dec.ApprovalID)
		}
		return &tool.Error{Code: tool.CodeApprovalRequired, Message: msg, Hint: hint}
	}
	return nil
}

// List returns the tools the profile and role may see: the same filter
// that gates every call. A provider that failed does not hide the rest;
// its error comes beside them.
func (d *Dispatcher) List(ctx context.Context) ([]*tool.Tool, error) {
	all, err := d.o.Registry.All(ctx, d.o.Env)
	return d.o.Profile.Visible(all), err
}

// Lookup finds the tool a call of name would run, refused as the call
// would be when the profile or role does not permit it.
func (d *Dispatcher) Lookup(ctx context.Context, name string) (*tool.Tool, error) {
	t, err := d.o.Registry.Find(ctx, d.o.Env, name)
	if err != nil {
		return nil, err
	}
	if denied := d.o.Profile.Permits(t); denied != nil {
		return nil, denied
	}
	return t, nil
}

// ContextError turns the error of a call whose context ended into
// timeout or interrupted, unless the tool already said something more
// precise.
func ContextError(ctx context.Context, err error, limit time.Duration) error {
	var te *tool.Error
	if errors.As(err, &te) && te.Code != tool.CodeInternal {
		return err
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &tool.Error{Code: tool.CodeTimeout,
			Message: fmt.Sprintf("timed out after %s", limit),
			Hint:    "raise the limit with --timeout, or narrow the request"}
	}
	return Interrupted()
}

// Interrupted is the error of a call that SIGINT or SIGTERM stopped.
func Interrupted() *tool.Error {
	return &tool.Error{Code: tool.CodeInterrupted, Message: "interrupted by a signal",
		Hint: "nothing more was done after the signal; run the command again to finish it"}
}
