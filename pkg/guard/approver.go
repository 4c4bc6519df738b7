package guard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/guard/approval"
	"github.com/mcode-dev/mcode/pkg/guard/redact"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// MaxShownArgsBytes caps the arguments an approval shows the person (the
// digest covers all of them).
const MaxShownArgsBytes = 8 << 10

// Asker puts a yes/no question to the person at the terminal; an error
// (Ctrl-C, no terminal) counts as no.
type Asker func(ctx context.Context, question string) (bool, error)

// Approver is the guard of a process: the rules' decision, and for a
// call that needs approval, in order: the --approval id the caller
// presents, the person at the terminal, else a pending approval (exit 75)
// that `mcode approve ID` grants. It never waits without a person.
type Approver struct {
	Guard *Guard
	Store *approval.Store
	Ask   Asker // nil: nobody at a terminal
	// Hooks are the command hooks of untrusted config layers that no
	// person has trusted yet: a call they would wrap waits for a person
	// to trust them.
	Hooks []PendingHook
	// WideRoot, when set, says why the workspace root is no workspace (/,
	// the home folder, a folder that holds the person's config): inside
	// it is everywhere, so a call that may change anything needs a person.
	WideRoot string
}

// SourceRoot: the workspace root is too wide to be one.
const SourceRoot = "root"

// PendingHook is a command hook waiting for a person's trust, and the
// tools it wraps (a name, "*" or a glob).
type PendingHook struct {
	Def  *tool.Untrusted
	Tool string
}

// SourceUntrusted: code that a config file the caller can write asks to
// run, that no person has trusted yet.
const SourceUntrusted = "untrusted"

// Digest identifies a call for its approval: the tool, the workspace root
// (a relative path names another file elsewhere) and the canonical
// arguments.
func Digest(toolName, root string, args []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", toolName, root)
	h.Write(Canonical(args))
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Judge is the decision a call gets before any approval counts: the
// guard's rules and checks, held for code no person trusted yet, and
// raised for a workspace root that holds everything. It records nothing
// (guard check shows it); u is the definition waiting for trust.
func (a *Approver) Judge(c *dispatch.Call) (j *Judgement, u *tool.Untrusted) {
	return a.judge(c, false)
}

// judge is Judge; with trusted, a person at the terminal just trusted
// what the call runs.
func (a *Approver) judge(c *dispatch.Call, trusted bool) (j *Judgement, u *tool.Untrusted) {
	j = a.Guard.Judge(c)
	if j.Verdict == dispatch.Deny {
		return j, nil
	}
	name := c.Tool
	if c.Def != nil {
		name = c.Def.Name
	}
	if u = a.untrusted(c, name); u != nil && !trusted {
		raise(j, dispatch.RequireApproval, SourceUntrusted, trustRule, untrustedWhy(u))
		return j, u
	}
	if a.WideRoot != "" && c.Def != nil && !c.Def.Facts.ReadOnly {
		raise(j, dispatch.RequireApproval, SourceRoot, "built-in: a workspace root that holds everything",
			fmt.Sprintf("%s: a call that may change files or run programs there needs a person", a.WideRoot))
	}
	return j, nil
}

// Decide implements dispatch.Guard.
func (a *Approver) Decide(ctx context.Context, c *dispatch.Call) (dispatch.Decision, error) {
	j, u := a.Judge(c)
	d := j.Decision
	if d.Verdict == dispatch.Deny {
		return d, nil
	}
	name, root := c.Tool, ""
	if c.Def != nil {
		name = c.Def.Name
	}
	if c.Env != nil {
		root = c.Env.Root
	}
	if u != nil {
		held, err := a.trust(ctx, u, root)
		if err != nil || held != nil {
			return *held, err
		}
		j, _ = a.judge(c, true)
		if d = j.Decision; d.Verdict == dispatch.Deny {
			return d, nil
		}
	}
	if d.Verdict != dispatch.RequireApproval {
		return d, nil
	}
	digest := Digest(name, root, c.Args)
	why := d.Reason
	if c.Approval != "" {
		rec, err := a.Store.Redeem(c.Approval, digest)
		if err == nil {
			return dispatch.Decision{Verdict: dispatch.Allow, Source: SourceApproval, Rule: d.Rule, ApprovalID: rec.ID,
				Reason: "approved by a person: " + d.Reason, Approved: true}, nil
		}
		var ae *approval.Error
		if !errors.As(err, &ae) {
			return d, err
		}
		if ae.Code == "denied" {
			return dispatch.Decision{Verdict: dispatch.Deny, Source: SourcePerson, Rule: d.Rule, ApprovalID: ae.ID,
				Reason: fmt.Sprintf("a person denied this call (approval %s): %s", ae.ID, d.Reason),
				Hint:   "do not retry this call; ask the person what to do instead"}, nil
		}
		if ae.Code == "pending" {
			return dispatch.Decision{Verdict: dispatch.RequireApproval, Source: d.Source, Rule: d.Rule, ApprovalID: ae.ID,
				Reason: fmt.Sprintf("%s; rule: %s; approval %s is still pending", d.Reason, d.Rule, ae.ID)}, nil
		}
		why = fmt.Sprintf("%s (%s)", d.Reason, err)
	}
	q := fmt.Sprintf("%s\n  call: %s %s\n  rule: %s\n  allow this %s call once?", d.Reason, name,
		redact.Builtin().Preview(Canonical(c.Args), MaxShownArgsBytes), d.Rule, name)
	if yes, asked, err := a.ask(ctx, q); asked {
		if yes {
			return dispatch.Decision{Verdict: dispatch.Allow, Source: SourcePerson, Rule: d.Rule,
				Reason: "a person allowed it when asked: " + d.Reason, Approved: true}, nil
		}
		return dispatch.Decision{Verdict: dispatch.Deny, Source: SourcePerson, Rule: d.Rule,
			Reason: saidNo(err) + d.Reason,
			Hint:   "do not retry this call; ask the person what to do instead"}, nil
	}
	rec, err := a.Store.Request(approval.Record{
		Tool: name, Digest: digest, Args: redact.Builtin().Preview(Canonical(c.Args), MaxShownArgsBytes), Root: root,
		Rule: d.Rule, Reason: d.Reason,
	})
	if err != nil {
		return d, fmt.Errorf("recording the approval request in %s: %w", a.Store.Dir, err)
	}
	d.ApprovalID = rec.ID
	d.Reason = fmt.Sprintf("%s; rule: %s; approval id %s", why, d.Rule, rec.ID)
	return d, nil
}

// ask puts a question to the person: through the caller's own channel to
// them (an MCP client's user) when the call brings one, else at the
// terminal. asked is false when there is nobody to ask now (the call is
// then held with an approval id): no asker, or one that asks later.
func (a *Approver) ask(ctx context.Context, question string) (yes, asked bool, err error) {
	ask := a.Ask
	if from := dispatch.AskerFrom(ctx); from != nil {
		ask = Asker(from)
	}
	if ask == nil {
		return false, false, nil
	}
	yes, err = ask(ctx, question)
	if errors.Is(err, dispatch.ErrAskLater) {
		return false, false, nil
	}
	return yes && err == nil, true, err
}

// saidNo begins the reason of a call the person did not allow.
func saidNo(err error) string {
	if err != nil {
		return fmt.Sprintf("asking the person failed (%v), which counts as no: ", err)
	}
	return "the person said no when asked: "
}

const trustRule = "built-in: code that a config file the caller can write asks mcode to run"

func untrustedWhy(u *tool.Untrusted) string {
	return fmt.Sprintf("%s %s is defined in %s, a place the caller can write: it runs only once a person trusted this definition", u.Kind, u.Name, u.Layer)
}

// untrusted is the first definition the call would run that a config
// layer the caller can write asks for and no person trusted yet.
func (a *Approver) untrusted(c *dispatch.Call, name string) *tool.Untrusted {
	if c.Def != nil && c.Def.Untrusted != nil && !a.Store.Trusted(c.Def.Untrusted.Digest) {
		return c.Def.Untrusted
	}
	names := toolNames{name}
	if c.Def != nil {
		names = c.Def.Names()
	}
	for _, h := range a.Hooks {
		if (rule{tool: h.Tool}).matchesTool(names) && !a.Store.Trusted(h.Def.Digest) {
			return h.Def
		}
	}
	return nil
}

// trust asks a person to trust a definition: at the terminal when there
// is one (for this call), else with a pending trust approval that `mcode
// approve ID` grants for good. A nil decision lets the call go on.
func (a *Approver) trust(ctx context.Context, u *tool.Untrusted, root string) (*dispatch.Decision, error) {
	rule, why := trustRule, untrustedWhy(u)
	q := fmt.Sprintf("%s\n  definition: %s\n  run it for this call?", why, u.Definition)
	if yes, asked, err := a.ask(ctx, q); asked {
		if yes {
			return nil, nil
		}
		return &dispatch.Decision{Verdict: dispatch.Deny, Source: SourcePerson, Rule: rule,
			Reason: saidNo(err) + why,
			Hint:   "do not retry this call; ask the person what to do instead"}, nil
	}
	rec, err := a.Store.Request(approval.Record{Kind: approval.KindTrust, Tool: "trust " + u.Kind + " " + u.Name,
		Digest: u.Digest, Args: u.Definition, Root: root, Rule: rule, Reason: why})
	if err != nil {
		return &dispatch.Decision{Verdict: dispatch.Deny, Source: SourceUntrusted, Rule: rule, Reason: why},
			fmt.Errorf("recording the trust request in %s: %w", a.Store.Dir, err)
	}
	return &dispatch.Decision{Verdict: dispatch.RequireApproval, Source: SourceUntrusted, Rule: rule, ApprovalID: rec.ID,
		Reason: fmt.Sprintf("%s; approval id %s", why, rec.ID),
		Hint:   fmt.Sprintf("a person trusts it with `mcode approve %s` at their own terminal; then run the same call again (no --approval needed: the trust lasts until the definition changes)", rec.ID)}, nil
}
