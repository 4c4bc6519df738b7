package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// The configuration comes in layers: defaults < system file < user file <
// workspace file (or the --config file) < environment < flags. Ordinary
// keys merge, later winning. The policy keys — who may run what, and how
// closely it is watched — belong to the person: only the system and user
// files (the trusted layers) set them freely; every other layer may make
// them stricter and nothing else (docs/safety.md, "Authority").

// PolicyKeys are the keys (and sections) of the policy: only the
// trusted layers set them freely. Code a file asks to run (mcpServers,
// command tools) is listed too: from an untrusted layer it runs only
// once a person trusted its definition.
var PolicyKeys = []string{
	"guard", "hooks", "sandbox", "agents", "bash.envSanitize", "bash.envAllow", "bash.trashShim",
	"fetch.allowHosts", "audit.enabled", "workspace", "mcpServers", "tools.custom", "tools.dirs",
	// The program every command runs in: from a workspace file it would
	// run anything for any command the guard allowed.
	"bash.shell",
	// The bearer token of a server: a repository must not choose it (it
	// would then know it). MCODE_SERVE_TOKEN, the caller's, still wins.
	"serve.token",
}

// IsPolicyKey says whether a dotted key is, or lies under, a policy key.
func IsPolicyKey(key string) bool {
	for _, p := range PolicyKeys {
		if strings.EqualFold(key, p) || len(key) > len(p) && strings.EqualFold(key[:len(p)+1], p+".") {
			return true
		}
	}
	return false
}

// Layer is one untrusted source of configuration, decoded alone: Config
// holds only what the layer sets, the rest zero.
type Layer struct {
	// Name says where the layer comes from: "workspace file
	// /w/.mcode.yaml", "--config file x.yaml", "environment".
	Name   string
	Config Config
	// Set holds the dotted keys the layer sets, in lower case as viper
	// keeps them (guard.defaultpolicy, agents.reviewer.tools), sections
	// included.
	Set map[string]bool
	// Source, when set, names where one key came from within the layer
	// (the environment variable of a key); else Name does.
	Source func(key string) string
}

func (l *Layer) sets(key string) bool { return l.Set[strings.ToLower(key)] }

func (l *Layer) source(key string) string {
	if l.Source != nil {
		if s := l.Source(key); s != "" {
			return s
		}
	}
	return l.Name
}

// Ignored is a loosening of the policy that an untrusted layer asked for
// and did not get: the call goes on under the stricter policy, and says
// so (result.policy_ignored, the audit log).
type Ignored struct {
	Key   string `json:"key"`
	Layer string `json:"layer"`
	Why   string `json:"why"`
}

// Trust of code that a configuration file asks mcode to run (MCP servers,
// command hooks, command tools): defined in a trusted layer, or in an
// untrusted one, where it runs only once a person trusted that exact
// definition.
const (
	TrustTrusted   = "trusted"
	TrustUntrusted = "untrusted"
)

// PolicyOptions are facts of the call that decide what counts as
// loosening.
type PolicyOptions struct {
	// CI: the environment says CI, where bash.envSanitize's default is
	// scrub.
	CI bool
}

// ApplyPolicy makes the policy of cfg (the merge of every layer) that of
// trusted (defaults and the trusted layers alone), tightened by each
// untrusted layer in order. It returns the loosenings it ignored.
func ApplyPolicy(cfg *Config, trusted Config, untrusted []Layer, o PolicyOptions) []Ignored {
	p := policy{cfg: cfg, trusted: trusted, opts: o}
	cfg.Guard = trusted.Guard
	cfg.Guard.Rules = slices.Clone(trusted.Guard.Rules)
	cfg.Guard.ProtectedBranches = slices.Clone(trusted.Guard.ProtectedBranches)
	cfg.Guard.Layers = nil
	cfg.Hooks = trusted.Hooks
	cfg.Agents = make(map[string]Agent, len(trusted.Agents))
	for name, a := range trusted.Agents {
		cfg.Agents[name] = cloneAgent(a)
	}
	cfg.Bash.EnvSanitize = trusted.Bash.EnvSanitize
	cfg.Bash.EnvAllow = trusted.Bash.EnvAllow
	cfg.Bash.TrashShim = trusted.Bash.TrashShim
	cfg.Bash.Shell = trusted.Bash.Shell
	cfg.Serve.Token = trusted.Serve.Token
	cfg.Audit.Enabled = trusted.Audit.Enabled
	cfg.Workspace = trusted.Workspace
	cfg.Sandbox = trusted.Sandbox
	cfg.Sandbox.Network = slices.Clone(trusted.Sandbox.Network)
	cfg.Sandbox.Writable = slices.Clone(trusted.Sandbox.Writable)
	cfg.Sandbox.ReadDeny = slices.Clone(trusted.Sandbox.ReadDeny)
	cfg.Fetch.AllowHosts = slices.Clone(trusted.Fetch.AllowHosts)
	cfg.McpServers = nil
	for name, s := range trusted.McpServers {
		if cfg.McpServers == nil {
			cfg.McpServers = map[string]McpServer{}
		}
		s.Trust, s.Layer = TrustTrusted, ""
		cfg.McpServers[name] = s
	}
	cfg.Tools.Custom = slices.Clone(trusted.Tools.Custom)
	cfg.Tools.Dirs = slices.Clone(trusted.Tools.Dirs)
	cfg.Tools.UntrustedDirs = nil
	markTools(cfg.Tools.Custom, TrustTrusted, "")
	markHooks(&cfg.Hooks, TrustTrusted, "")
	for i := range untrusted {
		p.layer(&untrusted[i])
	}
	return p.ignored
}

type policy struct {
	cfg     *Config
	trusted Config
	opts    PolicyOptions
	ignored []Ignored
}

func (p *policy) ignore(l *Layer, key, why string) {
	p.ignored = append(p.ignored, Ignored{Key: key, Layer: l.source(key), Why: why})
}

// Strictness of the guard's actions: deny > require_approval > allow.
func actionRank(a string) int { return slices.Index(GuardPolicies, a) }

func (p *policy) layer(l *Layer) {
	g, lg := &p.cfg.Guard, l.Config.Guard
	if l.sets("guard.enabled") {
		switch {
		case lg.Enabled:
			g.Enabled = true
		case g.Enabled:
			p.ignore(l, "guard.enabled", "only the system or user config may turn the guard off")
		}
	}
	p.stricter(l, "guard.paths.sensitive", &g.Paths.Sensitive, lg.Paths.Sensitive)
	p.stricter(l, "guard.paths.outsideRoot", &g.Paths.OutsideRoot, lg.Paths.OutsideRoot)
	// A layer's rules and default are judged on their own, and the
	// strictest decision of all layers wins: an allow rule here cannot
	// undo a deny of the person's, and the person's allow rules cannot
	// undo this layer's default.
	gl := GuardLayer{Name: l.source("guard.rules")}
	if l.sets("guard.rules") {
		gl.Rules = lg.Rules
	}
	if d := lg.DefaultPolicy; l.sets("guard.defaultPolicy") && d != "" && d != g.DefaultPolicy {
		if actionRank(d) > actionRank(g.DefaultPolicy) {
			gl.DefaultPolicy, gl.DefaultFrom = d, l.source("guard.defaultPolicy")
		} else {
			p.ignore(l, "guard.defaultPolicy", fmt.Sprintf("%s is looser than %s, which the system or user config sets", d, g.DefaultPolicy))
		}
	}
	if len(gl.Rules) > 0 || gl.DefaultPolicy != "" {
		g.Layers = append(g.Layers, gl)
	}
	if l.sets("guard.approvalTTL") {
		if lg.ApprovalTTL > 0 && lg.ApprovalTTL < g.ApprovalTTL {
			g.ApprovalTTL = lg.ApprovalTTL
		} else if lg.ApprovalTTL != g.ApprovalTTL {
			p.ignore(l, "guard.approvalTTL", fmt.Sprintf("only the system or user config may keep approvals longer than %s", g.ApprovalTTL))
		}
	}
	if l.sets("guard.grants") && len(lg.Grants) > 0 {
		p.ignore(l, "guard.grants", "approvals given in advance count only from the system or user config")
	}
	for _, b := range lg.ProtectedBranches {
		if !slices.Contains(g.ProtectedBranches, b) {
			g.ProtectedBranches = append(g.ProtectedBranches, b)
		}
	}

	lh := l.Config.Hooks
	markHooks(&lh, TrustUntrusted, l.source("hooks"))
	p.cfg.Hooks.BeforeTool = append(p.cfg.Hooks.BeforeTool, lh.BeforeTool...)
	p.cfg.Hooks.AfterTool = append(p.cfg.Hooks.AfterTool, lh.AfterTool...)
	p.cfg.Hooks.OnError = append(p.cfg.Hooks.OnError, lh.OnError...)

	p.agents(l)

	b, lb := &p.cfg.Bash, l.Config.Bash
	if l.sets("bash.envSanitize") {
		p.sanitize(l, lb.EnvSanitize)
	}
	if l.sets("bash.envAllow") && len(lb.EnvAllow) > 0 {
		p.ignore(l, "bash.envAllow", "only the system or user config may let more variables through the sanitizing")
	}
	if l.sets("bash.trashShim") {
		if lb.TrashShim {
			b.TrashShim = true
		} else if b.TrashShim {
			p.ignore(l, "bash.trashShim", "only the system or user config may turn off the rm shim that makes deletions recoverable")
		}
	}
	if l.sets("bash.shell") && lb.Shell != "" && lb.Shell != b.Shell {
		p.ignore(l, "bash.shell", "only the system or user config may choose the program that runs every command")
	}
	// The environment's MCODE_SERVE_TOKEN is read as itself (it wins over
	// serve.token); a file's token is ignored.
	if l.sets("serve.token") && l.Config.Serve.Token != "" {
		switch {
		case l.Name == "environment":
			p.cfg.Serve.Token = l.Config.Serve.Token
		case l.Config.Serve.Token != p.trusted.Serve.Token:
			p.ignore(l, "serve.token", "only the system or user config (or MCODE_SERVE_TOKEN) may set the server's token")
		}
	}
	if l.sets("audit.enabled") {
		if l.Config.Audit.Enabled {
			p.cfg.Audit.Enabled = true
		} else if p.cfg.Audit.Enabled {
			p.ignore(l, "audit.enabled", "only the system or user config may turn the audit log off")
		}
	}
	p.sandbox(l)
	if l.sets("workspace.roots") && len(l.Config.Workspace.Roots) > 0 {
		p.ignore(l, "workspace.roots", "the workspaces mcode may work in are the person's to list, in the system or user config")
	}
	if l.sets("fetch.allowHosts") {
		p.allowHosts(l)
	}

	for name, s := range l.Config.McpServers {
		if t, ok := p.trusted.McpServers[name]; ok && reflect.DeepEqual(withoutTrust(t), withoutTrust(s)) {
			continue // the person's own definition, repeated
		}
		s.Trust, s.Layer = TrustUntrusted, l.source("mcpServers")
		if p.cfg.McpServers == nil {
			p.cfg.McpServers = map[string]McpServer{}
		}
		p.cfg.McpServers[name] = s
	}
	custom := slices.Clone(l.Config.Tools.Custom)
	markTools(custom, TrustUntrusted, l.source("tools.custom"))
	for _, t := range custom {
		i := slices.IndexFunc(p.cfg.Tools.Custom, func(c CustomTool) bool { return c.Name == t.Name })
		switch {
		case i < 0:
			p.cfg.Tools.Custom = append(p.cfg.Tools.Custom, t)
		case p.cfg.Tools.Custom[i].Trust == TrustTrusted && reflect.DeepEqual(withoutToolTrust(p.cfg.Tools.Custom[i]), withoutToolTrust(t)):
		default:
			p.cfg.Tools.Custom[i] = t
		}
	}
	for _, d := range l.Config.Tools.Dirs {
		if !slices.Contains(p.cfg.Tools.Dirs, d) && !slices.Contains(p.cfg.Tools.UntrustedDirs, d) {
			p.cfg.Tools.UntrustedDirs = append(p.cfg.Tools.UntrustedDirs, d)
		}
	}
}

// allowHosts narrows fetch.allowHosts to the entries a layer lists that
// are allowed already (an empty list allows none); an entry that is not
// is a loosening, ignored, and so is a list of nothing but those.
func (p *policy) allowHosts(l *Layer) {
	var kept, extra []string
	for _, h := range l.Config.Fetch.AllowHosts {
		if slices.Contains(p.cfg.Fetch.AllowHosts, h) {
			kept = append(kept, h)
		} else {
			extra = append(extra, h)
		}
	}
	if len(extra) > 0 {
		p.ignore(l, "fetch.allowHosts", fmt.Sprintf("only the system or user config may let fetch reach %s", strings.Join(extra, ", ")))
	}
	if len(kept) > 0 || len(extra) == 0 {
		p.cfg.Fetch.AllowHosts = kept
	}
}

// stricter takes the layer's action for key when it is stricter than
// the one in force.
func (p *policy) stricter(l *Layer, key string, cur *string, v string) {
	if !l.sets(key) || v == "" || v == *cur {
		return
	}
	if actionRank(v) > actionRank(*cur) {
		*cur = v
		return
	}
	p.ignore(l, key, fmt.Sprintf("%s is looser than %s, which the system or user config sets", v, *cur))
}

// Levels of bash.envSanitize, each removing more than the one before.
func sanitizeRank(mode string, ci bool) int {
	if mode == "" {
		if ci {
			mode = "scrub"
		} else {
			mode = "off"
		}
	}
	return slices.Index(EnvSanitizeModes, mode)
}

func (p *policy) sanitize(l *Layer, v string) {
	cur := &p.cfg.Bash.EnvSanitize
	switch have, want := sanitizeRank(*cur, p.opts.CI), sanitizeRank(v, p.opts.CI); {
	case want > have || (want == have && *cur == ""):
		*cur = v
	case want < have:
		p.ignore(l, "bash.envSanitize", fmt.Sprintf("%s removes less than %s, which applies here", v, EnvSanitizeModes[have]))
	}
}

// agents tightens each agent the layer names. An agent the person did not
// define starts from the person's default agent: naming a new agent in a
// workspace file gives no more than the default has.
func (p *policy) agents(l *Layer) {
	names := make([]string, 0, len(l.Config.Agents))
	for name := range l.Config.Agents {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		la := l.Config.Agents[name]
		base, ok := p.cfg.Agents[name]
		if !ok {
			base = cloneAgent(p.trusted.Agents["default"])
		} else {
			base = cloneAgent(base)
		}
		key := func(field string) string { return "agents." + name + "." + field }
		if l.sets(key("tools")) {
			if base.Tools == nil {
				base.Tools = slices.Clone(la.Tools)
			} else {
				var kept, dropped []string
				for _, t := range la.Tools {
					if containsFold(base.Tools, t) {
						kept = append(kept, t)
					} else {
						dropped = append(dropped, t)
					}
				}
				if len(dropped) > 0 {
					p.ignore(l, key("tools"), "the system or user config does not give this agent "+strings.Join(dropped, ", "))
				}
				if kept == nil {
					kept = []string{}
				}
				base.Tools = kept
			}
		}
		for _, t := range la.DisallowedTools {
			if !containsFold(base.DisallowedTools, t) {
				base.DisallowedTools = append(base.DisallowedTools, t)
			}
		}
		if l.sets(key("role")) && la.Role != "" && la.Role != base.Role {
			if slices.Index(Roles, la.Role) > slices.Index(Roles, base.Role) {
				base.Role = la.Role
			} else {
				p.ignore(l, key("role"), fmt.Sprintf("role %s is wider than %s, which the system or user config gives", la.Role, base.Role))
			}
		}
		if l.sets(key("mcpServers")) {
			if base.McpServers == nil {
				base.McpServers = slices.Clone(la.McpServers)
			} else {
				var kept []string
				for _, s := range la.McpServers {
					if slices.Contains(base.McpServers, s) {
						kept = append(kept, s)
					} else {
						p.ignore(l, key("mcpServers"), "the system or user config does not give this agent the server "+s)
					}
				}
				if kept == nil {
					kept = []string{}
				}
				base.McpServers = kept
			}
		}
		for f, on := range la.Features {
			if !on {
				if base.Features == nil {
					base.Features = map[string]bool{}
				}
				base.Features[f] = false
			} else if !base.Features[f] {
				p.ignore(l, key("features."+f), "only the system or user config may turn a feature on")
			}
		}
		if la.Subtask {
			base.Subtask = true
		}
		if p.cfg.Agents == nil {
			p.cfg.Agents = map[string]Agent{}
		}
		p.cfg.Agents[name] = base
	}
}

func cloneAgent(a Agent) Agent {
	a.Tools = slices.Clone(a.Tools)
	a.DisallowedTools = slices.Clone(a.DisallowedTools)
	a.McpServers = slices.Clone(a.McpServers)
	if a.Features != nil {
		f := make(map[string]bool, len(a.Features))
		for k, v := range a.Features {
			f[k] = v
		}
		a.Features = f
	}
	return a
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(strings.TrimSpace(x), strings.TrimSpace(s)) })
}

func withoutTrust(s McpServer) McpServer {
	s.Trust, s.Layer = "", ""
	return s
}

func withoutToolTrust(t CustomTool) CustomTool {
	t.Trust, t.Layer = "", ""
	return t
}

func markTools(tools []CustomTool, trust, layer string) {
	for i := range tools {
		tools[i].Trust, tools[i].Layer = trust, layer
	}
}

func markHooks(h *Hooks, trust, layer string) {
	for _, list := range []*[]Hook{&h.BeforeTool, &h.AfterTool, &h.OnError} {
		*list = slices.Clone(*list)
		for i := range *list {
			(*list)[i].Trust, (*list)[i].Layer = trust, layer
		}
	}
}

// IntersectAgents is an agent that may do only what both a and b may.
func IntersectAgents(a, b Agent) Agent {
	out := cloneAgent(a)
	switch {
	case a.Tools == nil:
		out.Tools = slices.Clone(b.Tools)
	case b.Tools != nil:
		out.Tools = []string{}
		for _, t := range a.Tools {
			if containsFold(b.Tools, t) {
				out.Tools = append(out.Tools, t)
			}
		}
	}
	for _, t := range b.DisallowedTools {
		if !containsFold(out.DisallowedTools, t) {
			out.DisallowedTools = append(out.DisallowedTools, t)
		}
	}
	if slices.Index(Roles, b.Role) > slices.Index(Roles, out.Role) {
		out.Role = b.Role
	}
	switch {
	case a.McpServers == nil:
		out.McpServers = slices.Clone(b.McpServers)
	case b.McpServers != nil:
		out.McpServers = []string{}
		for _, s := range a.McpServers {
			if slices.Contains(b.McpServers, s) {
				out.McpServers = append(out.McpServers, s)
			}
		}
	}
	for k, v := range out.Features {
		out.Features[k] = v && b.Features[k]
	}
	out.Subtask = a.Subtask || b.Subtask
	return out
}

// sandbox lets a layer make the sandbox stricter: a stricter mode
// (read-only < workspace-write < danger-full-access), a stricter network
// (off < an allowlist < on; two allowlists keep what both allow), more
// paths hidden from reading. More writable folders, or anything looser,
// are ignored.
func (p *policy) sandbox(l *Layer) {
	s, ls := &p.cfg.Sandbox, l.Config.Sandbox
	if l.sets("sandbox.mode") && ls.Mode != "" && ls.Mode != s.Mode {
		if slices.Index(SandboxModes, ls.Mode) < slices.Index(SandboxModes, s.Mode) {
			s.Mode = ls.Mode
		} else {
			p.ignore(l, "sandbox.mode", fmt.Sprintf("%s is looser than %s, which the system or user config sets", ls.Mode, s.Mode))
		}
	}
	if l.sets("sandbox.network") && len(ls.Network) > 0 {
		if net, ok := stricterNetwork(s.Network, ls.Network); ok {
			s.Network = net
		} else {
			p.ignore(l, "sandbox.network", fmt.Sprintf("%s is looser than %s, which the system or user config sets", strings.Join(ls.Network, ", "), strings.Join(s.Network, ", ")))
		}
	}
	if l.sets("sandbox.writable") && len(ls.Writable) > 0 {
		p.ignore(l, "sandbox.writable", "only the system or user config may make more folders writable")
	}
	for _, d := range ls.ReadDeny {
		if !slices.Contains(s.ReadDeny, d) {
			s.ReadDeny = append(s.ReadDeny, d)
		}
	}
}

// stricterNetwork combines the network in force with a layer's: the
// layer's when it is at least as strict, the ports both allow for two
// allowlists; ok is false when the layer's is looser.
func stricterNetwork(cur, layer []string) (out []string, ok bool) {
	rank := func(n []string) int {
		switch {
		case len(n) == 0 || len(n) == 1 && strings.TrimSpace(n[0]) == SandboxNetworkOn:
			return 2
		case len(n) == 1 && strings.TrimSpace(n[0]) == SandboxNetworkOff:
			return 0
		}
		return 1
	}
	switch rc, rl := rank(cur), rank(layer); {
	case rl < rc:
		return slices.Clone(layer), true
	case rl > rc:
		return cur, false
	case rl != 1:
		return cur, true
	}
	for _, place := range layer {
		if !slices.Contains(cur, place) {
			return cur, false // the layer allows a place the person does not
		}
	}
	return slices.Clone(layer), true
}
