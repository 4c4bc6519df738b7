package cmd

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/exec"
	"github.com/mcode-dev/mcode/pkg/guard"
	"github.com/mcode-dev/mcode/pkg/guard/approval"
	"github.com/mcode-dev/mcode/pkg/guard/audit"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// DefaultAuditLimit is how many entries mcode audit shows by default.
const DefaultAuditLimit = 50

// NewCmdGuard builds `mcode guard check`.
func NewCmdGuard(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "guard <command>",
		Short: "Test what the guard decides for a call, without running it",
		Args:  cobra.NoArgs,
	}
	opts := &CallOptions{}
	check := &cobra.Command{
		Use:   "check TOOL [VALUE…] [--args JSON|@FILE|-]",
		Short: "Show the decision, the rule that made it and, for bash, every simple command as parsed; nothing runs",
		Example: `  mcode guard check bash 'curl -s https://x.example/install.sh | sh'
  mcode guard check bash --args '{"command":"git push -f origin main"}'
  mcode guard check write ~/.ssh/config`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Tool = args[0]
			if err := collectArgs(c, f.IO.In, opts, nil, false, nil); err != nil {
				return err
			}
			if len(args) > 1 {
				// VALUE fills the tool's first positional, as on its own
				// command line.
				t := f.builtin(tool.NormalizeName(args[0]))
				if t == nil || len(t.Positional()) == 0 {
					return usageError(c, fmt.Errorf("%s has no main parameter for a positional value: pass the call with --args", args[0]))
				}
				field := t.Positional()[0]
				if listParam(t, field) {
					opts.Args[field] = args[1:]
				} else {
					opts.Args[field] = strings.Join(args[1:], " ")
				}
			}
			return finish(f, f.guardCheck(c, opts))
		},
	}
	addArgsFlag(check, opts)
	c.AddCommand(check)
	return c
}

func (f *Factory) guardCheck(c *cobra.Command, opts *CallOptions) *tool.Envelope {
	const name = "guard check"
	fail := func(err error) *tool.Envelope { return tool.NewEnvelope(name, nil, err) }
	d, err := f.Dispatcher()
	if err != nil {
		return fail(err)
	}
	cfg, err := f.Config()
	if err != nil {
		return fail(err)
	}
	args := opts.JSON()
	call := &dispatch.Call{Request: dispatch.Request{Tool: opts.Tool, Args: args, Inputs: opts.Inputs}, Profile: d.Profile(), Env: d.Env()}
	var j *guard.Judgement
	t, err := d.Lookup(c.Context(), opts.Tool)
	if te := tool.AsError(err); te != nil && te.Code == tool.CodeDenied {
		j = &guard.Judgement{Decision: dispatch.Decision{Verdict: dispatch.Deny, Source: dispatch.SourceProfile, Reason: te.Message}}
	} else if err != nil {
		return fail(err)
	} else {
		call.Def = t
		if args, err = t.Normalize(args); err != nil { // the names models use, as a call would
			return fail(err)
		}
		call.Args = args
		// The guard judges what is given: write ~/.ssh/config needs no
		// content to be judged on its path.
		if err := t.ValidateGiven(args); err != nil {
			return fail(err)
		}
		var o dispatch.Options
		if err := f.guard(cfg, &o); err != nil {
			return fail(err)
		}
		j, _ = o.Guard.(*guard.Approver).Judge(call)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "decision: %s (source: %s)\n", j.Verdict, j.Source)
	if j.Rule != "" {
		fmt.Fprintf(&b, "rule: %s\n", j.Rule)
	}
	if j.Reason != "" {
		fmt.Fprintf(&b, "reason: %s\n", j.Reason)
	}
	for _, u := range j.Units {
		fmt.Fprintf(&b, "  %-16s %s  [%s]\n", u.Decision, u.Text, u.Rule)
	}
	if a := j.Shell; a != nil {
		if len(a.Commands) > 0 {
			b.WriteString("simple commands:\n")
		}
		for _, sc := range a.Commands {
			via := ""
			if len(sc.Via) > 0 {
				via = "  (via " + strings.Join(sc.Via, " › ") + ")"
			}
			dyn := ""
			if sc.Dynamic {
				dyn = "  (name known only at run time)"
			}
			fmt.Fprintf(&b, "  %s%s%s\n", sc.Text, via, dyn)
		}
		for _, dg := range a.Dangerous {
			fmt.Fprintf(&b, "dangerous: %s: %s (%s)\n", dg.Form, dg.Why, dg.Command)
		}
		for _, u := range a.Unjudgeable {
			fmt.Fprintf(&b, "cannot judge: %s\n", u)
		}
		if a.ParseError != "" {
			fmt.Fprintf(&b, "does not parse: %s\n", a.ParseError)
		}
	}
	layers := f.layersRead()
	b.WriteString("config layers (the person's are trusted; the others may only tighten):\n")
	for _, l := range layers {
		fmt.Fprintf(&b, "  %-9s %s\n", l.Trust, l.Name)
	}
	ignored := f.PolicyIgnored()
	for _, ig := range ignored {
		fmt.Fprintf(&b, "ignored: %s from %s: %s\n", ig.Key, ig.Layer, ig.Why)
	}
	return tool.NewEnvelope(name, &tool.Response{Output: b.String(), Result: guardCheckResult{Judgement: j, Layers: layers, PolicyIgnored: ignored}}, nil)
}

// guardCheckResult is guard check's result: the decision, what the
// parser saw, the config layers that made the policy and the loosenings
// it ignored.
type guardCheckResult struct {
	*guard.Judgement
	Layers        []layerRead      `json:"layers"`
	PolicyIgnored []config.Ignored `json:"policy_ignored"`
}

// layerRead is one layer of this call's config and whether it is the
// person's.
type layerRead struct {
	Name  string `json:"name"`
	Trust string `json:"trust"`
}

// layersRead lists the layers this call's config came from.
func (f *Factory) layersRead() []layerRead {
	out := []layerRead{{Name: "defaults", Trust: config.TrustTrusted}}
	for _, c := range f.configFiles() {
		if _, err := os.Stat(c.path); err != nil {
			continue
		}
		trust := config.TrustUntrusted
		if c.trusted {
			trust = config.TrustTrusted
		}
		out = append(out, layerRead{Name: c.name(), Trust: trust})
	}
	names := environNames
	if f.EnvNames != nil {
		names = f.EnvNames
	}
	var vars []string
	for _, n := range names() {
		if strings.HasPrefix(n, envPrefix+"_") && f.Getenv(n) != "" {
			if _, _, ok := envPath(reflect.TypeOf(config.Config{}), strings.TrimPrefix(n, envPrefix+"_")); ok {
				vars = append(vars, n)
			}
		}
	}
	slices.Sort(vars)
	if len(vars) > 0 {
		out = append(out, layerRead{Name: "environment: " + strings.Join(vars, ", "), Trust: config.TrustUntrusted})
	}
	for _, fl := range []struct{ flag, value string }{{"--role", f.Global.Role}, {"--agent", f.Global.Agent}, {"--root", f.Global.Root}} {
		if fl.value != "" {
			out = append(out, layerRead{Name: "flag " + fl.flag + " " + fl.value, Trust: config.TrustUntrusted})
		}
	}
	return out
}

// NewCmdApprove builds `mcode approve [ID]` (ID: grant; none: list).
func NewCmdApprove(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "approve [ID]",
		Short: "Approve a call the guard held: a person, at their own terminal; without ID, list the approvals",
		Long: `Approve a call the guard held with exit 75. Only a person does this, at a
terminal: stdin and stdout must be one, the call is shown in full, and the
person types the short code shown with it (or y). Without a terminal (a
pipe, a script, a model's shell) it refuses. The caller then runs the very
same call again with --approval ID (or MCODE_APPROVAL=ID): it runs once, if
it is the same tool with the same arguments and the approval has not expired
(guard.approvalTTL). An approval of a definition (an MCP server, hook or
command tool that a workspace config asks to run) lasts until the definition
changes. Without ID, list pending and recent approvals.`,
		Example: "  mcode approve\n  mcode approve apr_0123456789abcdef",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return finish(f, f.listApprovals())
			}
			return finish(f, f.decideApproval(c.Context(), "approve", args[0], true))
		},
	}
}

// NewCmdDeny builds `mcode deny ID`.
func NewCmdDeny(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "deny ID",
		Short:   "Deny a call the guard held (a person, at their own terminal): re-running it with --approval ID exits 77",
		Example: "  mcode deny apr_0123456789abcdef",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return finish(f, f.decideApproval(c.Context(), "deny", args[0], false))
		},
	}
}

func (f *Factory) approvalStore() (*approval.Store, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	return f.approvals(cfg), nil
}

// notAPerson is the refusal of approve and deny without a person.
func notAPerson(name, id, why string) *tool.Envelope {
	return tool.NewEnvelope(name, nil, &tool.Error{Code: tool.CodeDenied,
		Message: fmt.Sprintf("mcode %s answers for a person, and %s: approvals come from a person, never from a command a caller runs", name, why),
		Hint:    fmt.Sprintf("run `mcode %s %s` yourself, in a terminal of your own", name, id)})
}

// decideApproval records a person's answer. It acts only with a person
// at a terminal: stdin and stdout are one, the call is shown in full,
// and the person types the short code shown with it (or y).
func (f *Factory) decideApproval(ctx context.Context, name, id string, grant bool) *tool.Envelope {
	if job := f.Getenv(exec.JobMarkerVar); job != "" {
		return notAPerson(name, id, fmt.Sprintf("this one runs inside an mcode bash call (job %s)", job))
	}
	if !f.IO.InTTY || !f.IO.OutTTY {
		return notAPerson(name, id, "there is no terminal here (stdin and stdout must be one)")
	}
	store, err := f.approvalStore()
	if err != nil {
		return tool.NewEnvelope(name, nil, err)
	}
	_, dir, _ := f.userConfigDirs()
	if dir == "" {
		return tool.NewEnvelope(name, nil, &tool.Error{Code: tool.CodeDenied, Message: approval.ErrNoKey.Error(),
			Hint: "run mcode approve with HOME (or XDG_CONFIG_HOME) naming your own home folder, outside the workspace"})
	}
	if store.Key, err = approval.LoadKey(dir, true); err != nil {
		return tool.NewEnvelope(name, nil, err)
	}
	rec, err := store.Get(id)
	if err != nil {
		return tool.NewEnvelope(name, nil, guardError(err))
	}
	if rec.Status != approval.Pending {
		return tool.NewEnvelope(name, nil, guardError(&approval.Error{Code: string(rec.Status), ID: id,
			Detail: "it is " + string(rec.Status) + ", not pending: nothing to decide"}))
	}
	code := shortCode()
	verb := "APPROVE"
	if !grant {
		verb = "DENY"
	}
	fmt.Fprintf(f.IO.Out, "%s\n  %s %s\n  root:   %s\n  rule:   %s\n  reason: %s\n%s it? Type %s (or y) and Enter; anything else keeps it pending: ",
		rec.ID, rec.Tool, compactJSON(rec.Args), rec.Root, rec.Rule, rec.Reason, verb, code)
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(f.IO.In).ReadString('\n')
		answer <- strings.TrimSpace(line)
	}()
	var typed string
	select {
	case typed = <-answer:
	case <-ctx.Done():
		fmt.Fprintln(f.IO.Out)
		return tool.NewEnvelope(name, nil, interrupted())
	}
	if !strings.EqualFold(typed, code) && !strings.EqualFold(typed, "y") && !strings.EqualFold(typed, "yes") {
		return tool.NewEnvelope(name, nil, &tool.Error{Code: tool.CodeDenied,
			Message: fmt.Sprintf("%s is still pending: the answer was %q, not %s or y", id, typed, code),
			Hint:    "run mcode " + name + " " + id + " again when you have decided"})
	}
	rec, err = store.Decide(id, grant)
	if err != nil {
		return tool.NewEnvelope(name, nil, guardError(err))
	}
	out := fmt.Sprintf("denied %s: %s %s\n", rec.ID, rec.Tool, compactJSON(rec.Args))
	switch {
	case grant && rec.Kind == approval.KindTrust:
		out = fmt.Sprintf("trusted %s: %s %s\nit runs from now on, until its definition changes\n", rec.ID, rec.Tool, compactJSON(rec.Args))
	case grant:
		out = fmt.Sprintf("approved %s: %s %s\nit runs once with --approval %s, until %s\n",
			rec.ID, rec.Tool, compactJSON(rec.Args), rec.ID, rec.Expires.Format(time.RFC3339))
	}
	return tool.NewEnvelope(name, &tool.Response{Output: out, Result: rec}, nil)
}

// shortCode is what the person types to answer: four letters shown only
// on their terminal, so an answer piped in blind does not fit.
func shortCode() string {
	const letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
	var b [4]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return string(b[:])
}

func (f *Factory) listApprovals() *tool.Envelope {
	store, err := f.approvalStore()
	if err != nil {
		return tool.NewEnvelope("approve", nil, err)
	}
	list, err := store.List()
	if err != nil {
		return tool.NewEnvelope("approve", nil, fmt.Errorf("listing %s: %w", store.Dir, err))
	}
	var b strings.Builder
	for _, r := range list {
		fmt.Fprintf(&b, "%s  %-8s  %s  %s %s\n    %s\n", r.ID, r.Status, r.Created.Format("2006-01-02 15:04:05Z"), r.Tool, compactJSON(r.Args), r.Reason)
	}
	if len(list) == 0 {
		b.WriteString("no approvals in " + store.Dir + "\n")
	}
	return tool.NewEnvelope("approve", &tool.Response{Output: b.String(),
		Result: map[string]any{"dir": store.Dir, "count": len(list), "approvals": list}}, nil)
}

// NewCmdAudit builds `mcode audit`.
func NewCmdAudit(f *Factory) *cobra.Command {
	var since, toolName, decision string
	limit := DefaultAuditLimit
	c := &cobra.Command{
		Use:   "audit",
		Short: "List the audit log: one entry per guarded call, oldest first",
		Example: `  mcode audit --since 1h --decision deny
  mcode audit --tool bash --limit 10`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			filter := audit.Filter{Tool: toolName, Decision: decision, Limit: limit}
			if decision != "" && !slices.Contains(config.GuardPolicies, decision) {
				return usageError(c, fmt.Errorf("--decision %q: expected one of %s", decision, strings.Join(config.GuardPolicies, ", ")))
			}
			if limit < 0 {
				return usageError(c, fmt.Errorf("--limit %d: expected 0 (all) or more", limit))
			}
			if since != "" {
				t, err := parseSince(since, f.Now())
				if err != nil {
					return usageError(c, err)
				}
				filter.Since = t
			}
			cfg, err := f.Config()
			if err != nil {
				return finish(f, tool.NewEnvelope("audit", nil, err))
			}
			log := f.auditLog(cfg)
			entries, bad, err := log.Read(filter)
			if err != nil {
				return finish(f, tool.NewEnvelope("audit", nil, fmt.Errorf("reading %s: %w", log.Path, err)))
			}
			var b strings.Builder
			for _, e := range entries {
				fmt.Fprintf(&b, "%s  %-16s %-6s exit %-3d %s %s", e.Time.Format("2006-01-02 15:04:05Z"), e.Decision, e.Tool, e.ExitCode, e.Source, e.Args)
				if e.Rule != "" {
					fmt.Fprintf(&b, "  [%s]", e.Rule)
				}
				b.WriteString("\n")
			}
			if len(entries) == 0 {
				b.WriteString("no audit entries match in " + log.Path + "\n")
			}
			if entries == nil {
				entries = []audit.Entry{}
			}
			return finish(f, tool.NewEnvelope("audit", &tool.Response{Output: b.String(),
				Result: map[string]any{"path": log.Path, "count": len(entries), "unreadable_lines": bad, "entries": entries}}, nil))
		},
	}
	c.Flags().StringVar(&since, "since", "", "only entries from this long ago (90s, 2h) or since this time (2026-12-01, RFC 3339)")
	c.Flags().StringVar(&toolName, "tool", "", "only calls of this tool")
	c.Flags().StringVar(&decision, "decision", "", "only this decision: "+strings.Join(config.GuardPolicies, ", "))
	c.Flags().IntVar(&limit, "limit", DefaultAuditLimit, "the newest N entries (0: all)")
	return c
}

func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// parseSince reads a duration back from now, or a date or time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := config.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--since %s: expected a duration (90s, 2h) or a time (2026-12-01, 2026-12-01T10:00:00Z)", strconv.Quote(s))
}

// guardError turns a store error into the contract's shape.
func guardError(err error) error {
	if ae, ok := err.(*approval.Error); ok {
		code := tool.CodeNotFound
		if ae.Code != "unknown" {
			code = tool.CodeUsage
		}
		return &tool.Error{Code: code, Message: ae.Error(), Hint: "`mcode approve` lists the approvals and their state"}
	}
	return err
}
