package tool

import (
	"context"
	"encoding/json"
)

// An EscalationFunc says why a call asks for more than the policy gives
// ("" when it does not): a looser sandbox than sandbox.mode, or a run on
// a machine where the sandbox cannot be enforced. The guard holds such a
// call for a person's approval, whatever the rules say.
type EscalationFunc func(env *Env, args json.RawMessage) string

// Escalation is why a call with these arguments (after Normalize) needs a
// person's approval before it runs; "" for most calls and tools.
func (t *Tool) Escalation(env *Env, args json.RawMessage) string {
	if t.escalation == nil {
		return ""
	}
	return t.escalation(env, args)
}

type approvedKey struct{}

// WithApproved marks a call's context: a person approved this very call
// (an approval id redeemed, the person at the terminal, a grant of the
// trusted config). A tool that escalates runs looser only then.
func WithApproved(ctx context.Context) context.Context {
	return context.WithValue(ctx, approvedKey{}, true)
}

// Approved says whether a person approved the call this context runs.
func Approved(ctx context.Context) bool {
	ok, _ := ctx.Value(approvedKey{}).(bool)
	return ok
}
