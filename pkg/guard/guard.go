// Package guard decides whether a tool call may run: the rules of
// guard.rules, the path policy of the file tools, and for bash the
// command judged by parsing it (package shell), with the known dangerous
// forms raised to require_approval. It implements dispatch.Guard; the
// approvals a person gives, the hooks and the audit log live in its
// sub-packages.
package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/guard/shell"
	"github.com/mcode-dev/mcode/pkg/safenet"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Sources of a decision (dispatch.Decision.Source).
const (
	SourceRule        = "rule"
	SourceDefault     = dispatch.SourceDefault // no rule matched: guard.defaultPolicy
	SourcePath        = "path"
	SourceDangerous   = "dangerous"
	SourceParse       = "parse"
	SourceUnjudgeable = "unjudgeable"
	SourceSelf        = "self_approval"
	SourceGrant       = "grant"
	SourcePerson      = "person"
	SourceApproval    = "approval" // --approval ID
	SourceDisabled    = "disabled"
	// SourceSandbox: the call asks for a looser sandbox than the policy,
	// or for a command to run where the sandbox cannot be enforced.
	SourceSandbox = "sandbox"
)

// rank orders verdicts: the strictest wins.
func rank(v dispatch.Verdict) int {
	switch v {
	case dispatch.Deny:
		return 2
	case dispatch.RequireApproval:
		return 1
	}
	return 0
}

// Judgement is what Judge found: the decision, and for a shell command
// what the parser saw (guard check shows both).
type Judgement struct {
	dispatch.Decision
	// Units are what the rules were matched against: each simple command
	// of a shell command, each path of a file tool, else the arguments.
	Units []Unit          `json:"units"`
	Shell *shell.Analysis `json:"shell,omitempty"`
}

// Unit is one thing a rule is matched against, and what decided it.
type Unit struct {
	Text     string           `json:"text"`
	Decision dispatch.Verdict `json:"decision"`
	Rule     string           `json:"rule,omitempty"`
	Source   string           `json:"source"`
}

// Guard is the compiled guard configuration.
type Guard struct {
	cfg    config.Guard
	rules  []rule
	grants []rule
	// layers are the rules of the untrusted config layers: each judged
	// on its own, the strictest of all decisions wins.
	layers []layer
}

// layer is an untrusted config layer's say: its first matching rule,
// else its default (none: no say).
type layer struct {
	rules      []rule
	def        dispatch.Verdict
	defaultTxt string
}

type rule struct {
	tool   string
	re     *regexp.Regexp // nil: any argument
	action dispatch.Verdict
	text   string
}

// New compiles the rules (config.Validate checked them).
func New(cfg config.Guard) (*Guard, error) {
	g := &Guard{cfg: cfg}
	for i, r := range cfg.Rules {
		c, err := compile(r.Tool, r.ArgPattern, dispatch.Verdict(r.Action), fmt.Sprintf("guard.rules[%d]", i), true)
		if err != nil {
			return nil, err
		}
		g.rules = append(g.rules, c)
	}
	for _, l := range cfg.Layers {
		ly := layer{def: dispatch.Verdict(l.DefaultPolicy)}
		if l.DefaultPolicy != "" {
			ly.defaultTxt = fmt.Sprintf("%s: guard.defaultPolicy: %s", l.DefaultFrom, l.DefaultPolicy)
		}
		for i, r := range l.Rules {
			c, err := compile(r.Tool, r.ArgPattern, dispatch.Verdict(r.Action), fmt.Sprintf("%s: guard.rules[%d]", l.Name, i), true)
			if err != nil {
				return nil, err
			}
			ly.rules = append(ly.rules, c)
		}
		g.layers = append(g.layers, ly)
	}
	for i, r := range cfg.Grants {
		c, err := compile(r.Tool, r.ArgPattern, dispatch.Allow, fmt.Sprintf("guard.grants[%d]", i), false)
		if err != nil {
			return nil, err
		}
		g.grants = append(g.grants, c)
	}
	return g, nil
}

// compile builds a rule; text is how decisions name it, as written in
// the config.
func compile(toolName, pattern string, action dispatch.Verdict, key string, showAction bool) (rule, error) {
	r := rule{tool: toolName, action: action}
	if pattern != "" {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return r, fmt.Errorf("%s.argPattern: %w", key, err)
		}
		r.re = re
	}
	desc := fmt.Sprintf("%s {tool: %s", key, orStar(toolName))
	if pattern != "" {
		desc += fmt.Sprintf(", argPattern: %q", pattern)
	}
	if showAction {
		desc += ", action: " + string(action)
	}
	r.text = desc + "}"
	return r, nil
}

func orStar(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

// matchesTool: a rule's tool is a name, "*" or a glob, matched against
// each of the tool's names (web_fetch is also fetch). MCP tools are
// SERVER__TOOL, so docs__* is one server's, *__search a tool of any.
func (r rule) matchesTool(names toolNames) bool {
	if r.tool == "" || r.tool == "*" {
		return true
	}
	for _, name := range names {
		if r.tool == name {
			return true
		}
		if ok, _ := path.Match(r.tool, name); ok {
			return true
		}
	}
	return false
}

// toolNames are a tool's name, then its other names.
type toolNames []string

func (r rule) matches(names toolNames, texts ...string) bool {
	if !r.matchesTool(names) {
		return false
	}
	if r.re == nil {
		return true
	}
	for _, t := range texts {
		if r.re.MatchString(t) {
			return true
		}
	}
	return false
}

// strict says whether any rule for the tool denies or asks, or the
// default does not allow: then what cannot be judged needs approval.
func (g *Guard) strict(names toolNames) bool {
	if g.cfg.DefaultPolicy != string(dispatch.Allow) {
		return true
	}
	for _, r := range g.rules {
		if r.action != dispatch.Allow && r.matchesTool(names) {
			return true
		}
	}
	for _, l := range g.layers {
		if l.def != "" && l.def != dispatch.Allow {
			return true
		}
		for _, r := range l.rules {
			if r.action != dispatch.Allow && r.matchesTool(names) {
				return true
			}
		}
	}
	return false
}

// Decide implements dispatch.Guard without approvals: see Approver for
// the flow that asks a person.
func (g *Guard) Decide(ctx context.Context, c *dispatch.Call) (dispatch.Decision, error) {
	return g.Judge(c).Decision, nil
}

// Judge decides a call and says why.
func (g *Guard) Judge(c *dispatch.Call) *Judgement {
	if !g.cfg.Enabled {
		j := &Judgement{Decision: dispatch.Decision{Verdict: dispatch.Allow, Source: SourceDisabled, Reason: "guard.enabled is false"}}
		sandboxPolicy(j, c) // the sandbox is not the guard's to switch off
		return j
	}
	name, names := c.Tool, toolNames{c.Tool}
	if c.Def != nil {
		name, names = c.Def.Name, c.Def.Names()
	}
	j := &Judgement{}
	in := g.inputsOf(name, c)
	for _, text := range in.texts {
		u := g.unit(names, text)
		j.Units = append(j.Units, u)
	}
	if in.shell != nil {
		j.Shell = in.shell
	}
	g.combine(j)
	for _, p := range in.paths {
		g.pathPolicy(j, name, p, c)
	}
	if a := in.shell; a != nil {
		g.shellPolicy(j, names, a)
	}
	sandboxPolicy(j, c)
	g.grant(j, names, in, c)
	return j
}

// sandboxPolicy holds for a person a call that asks for more than the
// sandbox gives: a looser mode than sandbox.mode, or a run where the
// kernel cannot enforce it. The reasons add up: a person approving the
// call sees each. No grant covers it: guard.grants match the parts of a
// call, and this is none of them.
func sandboxPolicy(j *Judgement, c *dispatch.Call) {
	if c.Def == nil {
		return
	}
	why := c.Def.Escalation(c.Env, c.Args)
	if why == "" {
		return
	}
	if j.Verdict == dispatch.RequireApproval && j.Reason != "" {
		j.Reason += "; and " + why
		return
	}
	raise(j, dispatch.RequireApproval, SourceSandbox, "built-in: the sandbox", why)
}

// unit decides one text by the first rule that matches, else the
// default; then each untrusted layer's first matching rule may make it
// stricter, never looser.
func (g *Guard) unit(names toolNames, text unitText) Unit {
	u := Unit{Text: text.show, Decision: dispatch.Verdict(g.cfg.DefaultPolicy), Source: SourceDefault,
		Rule: "guard.defaultPolicy: " + g.cfg.DefaultPolicy}
	for _, r := range g.rules {
		if r.matches(names, text.texts()...) {
			u = Unit{Text: text.show, Decision: r.action, Rule: r.text, Source: SourceRule}
			break
		}
	}
	for _, l := range g.layers {
		say := Unit{Text: text.show, Decision: l.def, Rule: l.defaultTxt, Source: SourceDefault}
		for _, r := range l.rules {
			if r.matches(names, text.texts()...) {
				say = Unit{Text: text.show, Decision: r.action, Rule: r.text, Source: SourceRule}
				break
			}
		}
		if say.Decision != "" && rank(say.Decision) > rank(u.Decision) {
			u = say
		}
	}
	return u
}

// combine makes the strictest unit the call's decision.
func (g *Guard) combine(j *Judgement) {
	j.Decision = dispatch.Decision{Verdict: dispatch.Allow, Source: SourceDefault, Rule: "guard.defaultPolicy: " + g.cfg.DefaultPolicy}
	first := true
	for _, u := range j.Units {
		if first || rank(u.Decision) > rank(j.Verdict) {
			j.Decision = dispatch.Decision{Verdict: u.Decision, Source: u.Source, Rule: u.Rule}
			if u.Decision != dispatch.Allow {
				j.Reason = fmt.Sprintf("%s: %s", verdictWords(u.Decision), u.Text)
			}
			first = false
		}
	}
}

// raise makes the decision at least v, for the given reason.
func raise(j *Judgement, v dispatch.Verdict, source, rule, reason string) {
	if rank(v) > rank(j.Verdict) {
		j.Decision = dispatch.Decision{Verdict: v, Source: source, Rule: rule, Reason: reason}
	}
}

func verdictWords(v dispatch.Verdict) string {
	switch v {
	case dispatch.Deny:
		return "the guard denies"
	case dispatch.RequireApproval:
		return "a person must approve"
	}
	return "allowed"
}

// shellPolicy raises a shell command's decision for what the rules do
// not see: forms known to be dangerous, text that does not parse, names
// only known at run time, an agent approving its own call.
func (g *Guard) shellPolicy(j *Judgement, names toolNames, a *shell.Analysis) {
	if len(a.SelfApproval) > 0 {
		raise(j, dispatch.Deny, SourceSelf, "built-in: no approving from inside a command",
			fmt.Sprintf("the command answers an approval itself (%s): only a person may, from their own terminal", a.SelfApproval[0]))
	}
	if a.ParseError != "" {
		raise(j, dispatch.RequireApproval, SourceParse, "built-in: input that does not parse",
			"the command does not parse as bash ("+a.ParseError+"), so the guard cannot tell what it runs")
	}
	if len(a.Dangerous) > 0 {
		d := a.Dangerous[0]
		raise(j, dispatch.RequireApproval, SourceDangerous, "built-in: "+d.Form,
			fmt.Sprintf("dangerous: %s (%s)", d.Why, d.Command))
	}
	if len(a.Unjudgeable) > 0 && g.strict(names) {
		raise(j, dispatch.RequireApproval, SourceUnjudgeable, "built-in: what cannot be judged before it runs",
			a.Unjudgeable[0]+"; with deny or approval rules in place, such a command needs a person")
	}
}

// grant lets a call that needs approval run when guard.grants approves
// it in advance. A deny stays a deny, and a grant matches one part of a
// call — one simple command of a shell command, one path of a file tool
// — never a chain: every part that needs approval must be granted on its
// own, and what cannot be judged before it runs cannot be granted.
func (g *Guard) grant(j *Judgement, names toolNames, in inputs, c *dispatch.Call) {
	if j.Verdict != dispatch.RequireApproval || len(g.grants) == 0 {
		return
	}
	used := ""
	granted := func(texts ...string) bool {
		for _, r := range g.grants {
			if r.matches(names, texts...) {
				if used == "" {
					used = r.text
				}
				return true
			}
		}
		return false
	}
	for i, u := range j.Units {
		if u.Decision == dispatch.RequireApproval && !granted(in.texts[i].texts()...) {
			return
		}
	}
	for _, p := range in.paths {
		pj := &Judgement{}
		g.pathPolicy(pj, names[0], p, c)
		if pj.Verdict == dispatch.RequireApproval && !granted(p.Path, target(c.Env, p.Path)) {
			return
		}
	}
	if a := in.shell; a != nil {
		if a.ParseError != "" || (len(a.Unjudgeable) > 0 && g.strict(names)) {
			return
		}
		for _, d := range a.Dangerous {
			if !granted(d.Command, d.Source) {
				return
			}
		}
	}
	if used == "" {
		return
	}
	j.Decision = dispatch.Decision{Verdict: dispatch.Allow, Source: SourceGrant, Rule: used,
		Reason: "approved in advance (" + j.Reason + ")", Approved: true}
}

// inputs are what a call is judged on.
type inputs struct {
	main  string         // the call's main argument (grants match it)
	texts []unitText     // what rules see
	paths []tool.PathUse // what the path policy checks
	shell *shell.Analysis
}

// unitText is one unit: shown as show, matched against each of match.
type unitText struct {
	show  string
	match []string
}

func (u unitText) texts() []string { return append([]string{u.show}, u.match...) }

func (g *Guard) inputsOf(name string, c *dispatch.Call) inputs {
	in := g.argInputs(name, c)
	// The files the command line read into the arguments are reads.
	for _, p := range c.Inputs {
		in.texts = append(in.texts, unitText{show: p})
		in.paths = append(in.paths, tool.PathUse{Path: p})
	}
	return in
}

// argInputs are the inputs the call's arguments name.
func (g *Guard) argInputs(name string, c *dispatch.Call) inputs {
	var args map[string]any
	_ = json.Unmarshal(c.Args, &args)
	if name == "bash" {
		cmd, _ := args["command"].(string)
		dir := ""
		if c.Env != nil {
			dir = c.Env.Root
			if cwd, ok := args["cwd"].(string); ok && cwd != "" {
				dir = c.Env.Abs(cwd)
			}
		}
		opts := shell.Options{Dir: dir, ProtectedBranches: g.cfg.ProtectedBranches}
		if c.Env != nil {
			opts.Home = c.Env.UserHome
		}
		a := shell.Analyze(cmd, opts)
		in := inputs{main: cmd, shell: a}
		for _, sc := range a.Commands {
			in.texts = append(in.texts, unitText{show: sc.Text, match: []string{strings.Join(sc.Words, " "), sc.Source}})
		}
		if len(in.texts) == 0 {
			in.texts = []unitText{{show: cmd}}
		}
		return in
	}
	if c.Def != nil && c.Def.TouchesPaths() {
		in := inputs{}
		var all []string
		for _, use := range c.Def.Paths(c.Args) {
			abs := use.Path
			if c.Env != nil {
				abs = target(c.Env, use.Path)
			}
			all = append(all, use.Path)
			in.texts = append(in.texts, unitText{show: use.Path, match: []string{abs}})
			in.paths = append(in.paths, use)
		}
		in.main = strings.Join(all, "\n")
		if len(in.texts) == 0 {
			in.texts = []unitText{{show: string(c.Args)}}
		}
		return in
	}
	if c.Def != nil {
		if raw, ok := c.Def.URL(c.Args); ok {
			return urlInputs(raw)
		}
	}
	canon := Canonical(c.Args)
	return inputs{main: string(canon), texts: []unitText{{show: string(canon)}}}
}

// urlInputs are a fetch's: rules see its URL as written and as it will be
// fetched (http://0x7f.1 is http://127.0.0.1/), so an argPattern on the
// host cannot be dodged by spelling it another way.
func urlInputs(raw string) inputs {
	var match []string
	if u, err := safenet.ParseURL(raw); err == nil && u.String() != raw {
		match = append(match, u.String())
	}
	return inputs{main: raw, texts: []unitText{{show: raw, match: match}}}
}

// Canonical is the arguments object with sorted keys and no spaces: the
// form rules match for other tools and the argument digest hashes.
func Canonical(args json.RawMessage) json.RawMessage {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return args
	}
	out, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return out
}
