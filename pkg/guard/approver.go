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
}

// Digest identifies a call for its approval: the tool, the workspace root
// (a relative path names another file elsewhere) and the canonical
// arguments.
func Digest(toolName, root string, args []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", toolName, root)
	h.Write(Canonical(args))
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Decide implements dispatch.Guard.
func (a *Approver) Decide(ctx context.Context, c *dispatch.Call) (dispatch.Decision, error) {
	j := a.Guard.Judge(c)
	d := j.Decision
	if d.Verdict != dispatch.RequireApproval {
		return d, nil
	}
	name, root := c.Tool, ""
	if c.Def != nil {
		name = c.Def.Name
	}
	if c.Env != nil {
		root = c.Env.Root
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
	if a.Ask != nil {
		q := fmt.Sprintf("%s\n  rule: %s\n  allow this %s call once? [y/N] ", d.Reason, d.Rule, name)
		ok, err := a.Ask(ctx, q)
		if err == nil && ok {
			return dispatch.Decision{Verdict: dispatch.Allow, Source: SourcePerson, Rule: d.Rule,
				Reason: "a person at the terminal allowed it: " + d.Reason, Approved: true}, nil
		}
		return dispatch.Decision{Verdict: dispatch.Deny, Source: SourcePerson, Rule: d.Rule,
			Reason: "the person at the terminal said no: " + d.Reason,
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
