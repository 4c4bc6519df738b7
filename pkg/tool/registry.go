package tool

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/mcode-dev/mcode/pkg/config"
)

// Registry holds every tool by name: the built-in tools, registered once,
// and the providers of tools from outside, asked when a call needs them.
// Duplicate names are an error.
type Registry struct {
	tools     []*Tool
	byName    map[string]*Tool
	providers []Provider
}

// Provider supplies tools that come from outside (MCP servers, command
// tools from config). It is asked per call, so it can load lazily and
// answer from a cache instead of starting a server.
type Provider interface {
	// Tools lists every tool the provider has now.
	Tools(ctx context.Context, env *Env) ([]*Tool, error)
	// Lookup finds one tool by the name a caller gave; ok is false when
	// the name is not the provider's.
	Lookup(ctx context.Context, env *Env, name string) (t *Tool, ok bool, err error)
}

// AddProvider adds a source of tools, asked after the built-in tools
// and the providers added before it.
func (r *Registry) AddProvider(p Provider) { r.providers = append(r.providers, p) }

// NewRegistry registers tools in order.
func NewRegistry(tools ...*Tool) (*Registry, error) {
	r := &Registry{byName: map[string]*Tool{}}
	for _, t := range tools {
		if err := r.Register(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds t, refusing a name that is already taken.
func (r *Registry) Register(t *Tool) error {
	for _, name := range t.Names() {
		key := NormalizeName(name)
		if key == "" {
			return fmt.Errorf("tool with an empty name")
		}
		if _, dup := r.byName[key]; dup {
			return fmt.Errorf("duplicate tool name %q", name)
		}
	}
	for _, name := range t.Names() {
		r.byName[NormalizeName(name)] = t
	}
	r.tools = append(r.tools, t)
	return nil
}

// Lookup finds a tool by name (compared after NormalizeName).
func (r *Registry) Lookup(name string) (*Tool, bool) {
	t, ok := r.byName[NormalizeName(name)]
	return t, ok
}

// Find looks a tool up among the built-in tools, then each provider. An
// unknown name is a usage error that lists the tools there are.
func (r *Registry) Find(ctx context.Context, env *Env, name string) (*Tool, error) {
	if t, ok := r.Lookup(name); ok {
		return t, nil
	}
	for _, p := range r.providers {
		t, ok, err := p.Lookup(ctx, env, name)
		if err != nil {
			return nil, err
		}
		if ok {
			return t, nil
		}
	}
	return nil, &Error{Code: CodeUsage,
		Message: fmt.Sprintf("unknown tool %q", name),
		Hint:    "known tools: " + strings.Join(r.Names(), ", ") + " (`mcode tools list` lists every tool with its parameters)"}
}

// All lists the built-in tools, then every provider's. A provider that
// fails does not hide the others: its error is returned beside them. A
// provider's tool whose name is taken is left out, and said so.
func (r *Registry) All(ctx context.Context, env *Env) ([]*Tool, error) {
	all := slices.Clone(r.tools)
	seen := map[string]bool{}
	for _, t := range all {
		for _, name := range t.Names() {
			seen[NormalizeName(name)] = true
		}
	}
	var errs []error
	for _, p := range r.providers {
		tools, err := p.Tools(ctx, env)
		if err != nil {
			errs = append(errs, err)
		}
		for _, t := range tools {
			// A tool from outside whose definition cannot be used is left
			// out, and said so: it never hides the others.
			if _, err := t.Definition(); err != nil {
				errs = append(errs, fmt.Errorf("tool %s left out: %v", t.Name, err))
				continue
			}
			key := NormalizeName(t.Name)
			if seen[key] {
				errs = append(errs, fmt.Errorf("duplicate tool name %q: the later one is left out", t.Name))
				continue
			}
			seen[key] = true
			all = append(all, t)
		}
	}
	return all, errors.Join(errs...)
}

// Tools returns every built-in tool in registration order.
func (r *Registry) Tools() []*Tool { return slices.Clone(r.tools) }

// Names returns every built-in tool's name in registration order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
		names[i] = t.Name
	}
	return names
}

// NormalizeName is how tool names are compared: trimmed, NFKC, lower case.
func NormalizeName(name string) string {
	return strings.ToLower(norm.NFKC.String(strings.TrimSpace(name)))
}

// Roles narrow an agent's tool set (docs/architecture.md, "facts").
const (
	RoleWorker   = "worker"
	RoleVerifier = "verifier"
	RoleExplore  = "explore"
)

// Roles lists the valid roles, each narrower than the one before: worker
// loses delegation, verifier also every tool that changes files and the
// todo list's writer, explore also the task controls.
var Roles = config.Roles

// NarrowestRole is the narrowest of roles ("" is none): --role narrows
// the agent's own role and never widens it.
func NarrowestRole(roles ...string) string {
	narrowest := ""
	for _, r := range roles {
		if slices.Index(Roles, r) > slices.Index(Roles, narrowest) {
			narrowest = r
		}
	}
	return narrowest
}

// Profile is the caller's agent, role and switches: it decides which
// tools are visible and callable.
type Profile struct {
	Agent      string
	Role       string
	Allowed    []string // empty: every tool
	Disallowed []string
	// Subtask is an agent that runs as another agent's sub-task
	// (agents.<name>.subtask).
	Subtask bool
	// Disabled is MCODE_DISABLE_TOOLS=1: no tool may run.
	Disabled bool
}

// Permits says whether the profile may see and call t; a refusal is a
// denied error that says which rule refused it.
func (p Profile) Permits(t *Tool) *Error {
	names := t.Names()
	deny := func(format string, args ...any) *Error {
		return &Error{
			Code:    CodeDenied,
			Message: fmt.Sprintf("tool %s is not available: ", t.Name) + fmt.Sprintf(format, args...),
			Hint:    "`mcode tools list` shows the tools this agent and role may call",
		}
	}
	if p.Disabled {
		return deny("MCODE_DISABLE_TOOLS=1 disables every tool")
	}
	if len(p.Allowed) > 0 && !containsName(p.Allowed, names...) {
		return deny("agent %q does not list it in tools", p.Agent)
	}
	if containsName(p.Disallowed, names...) {
		return deny("agent %q lists it in disallowedTools", p.Agent)
	}
	if p.Subtask && (t.Facts.Delegates || containsName(subtaskDenied, names...)) {
		return deny("agent %q runs as a sub-task (subtask: true), and a sub-task neither keeps a todo list nor delegates", p.Agent)
	}
	// Each role is narrower than the one before (docs/architecture.md):
	// the facts a tool declares decide.
	f := t.Facts
	switch {
	case p.Role == "":
	case f.Delegates:
		return deny("role %s cannot delegate", p.Role)
	case p.Role == RoleWorker:
	case f.ChangesFiles():
		return deny("role %s cannot change files", p.Role)
	case f.SessionState && !f.ReadOnly:
		// Seed 000's canonical tool policy takes todowrite from both.
		return deny("role %s keeps no todo list of its own (it may read the session's)", p.Role)
	case p.Role == RoleExplore && f.Tasks:
		return deny("role explore cannot control tasks")
	}
	return nil
}

// Visible returns the tools of tools the profile may see, in order.
func (p Profile) Visible(tools []*Tool) []*Tool {
	var out []*Tool
	for _, t := range tools {
		if p.Permits(t) == nil {
			out = append(out, t)
		}
	}
	return out
}

// subtaskDenied are taken from an agent that runs as a sub-task, beside
// delegation: the todo list is the main agent's plan (docs/agent-state.md).
var subtaskDenied = []string{"todo_write", "todo_read"}

// containsName says whether list names one of names (compared after
// NormalizeName).
func containsName(list []string, names ...string) bool {
	for _, s := range list {
		for _, n := range names {
			if NormalizeName(s) == NormalizeName(n) {
				return true
			}
		}
	}
	return false
}

// personOnly are mcode's commands that only a person runs: no caller
// reaches them as a tool (call, batch, mcp serve, mcp_invoke).
var personOnly = []string{"approve", "deny"}

// PersonOnly says whether name is one of them, however it is written.
func PersonOnly(name string) bool {
	n := NormalizeName(strings.TrimPrefix(strings.TrimSpace(name), "mcode "))
	for _, p := range personOnly {
		if n == p || n == "mcode_"+p || n == "mcode__"+p {
			return true
		}
	}
	return false
}
