package tool

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/mcode-dev/mcode/pkg/config"
)

// Registry holds every tool by name. Duplicate names are an error.
type Registry struct {
	tools  []*Tool
	byName map[string]*Tool
}

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
	key := NormalizeName(t.Name)
	if key == "" {
		return fmt.Errorf("tool with an empty name")
	}
	if _, dup := r.byName[key]; dup {
		return fmt.Errorf("duplicate tool name %q", t.Name)
	}
	r.byName[key] = t
	r.tools = append(r.tools, t)
	return nil
}

// Lookup finds a tool by name (compared after NormalizeName).
func (r *Registry) Lookup(name string) (*Tool, bool) {
	t, ok := r.byName[NormalizeName(name)]
	return t, ok
}

// Tools returns every tool in registration order.
func (r *Registry) Tools() []*Tool { return slices.Clone(r.tools) }

// Names returns every tool name in registration order.
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

// Roles narrow an agent's tool set (seed 000, canonical-tool-policy).
const (
	RoleWorker   = "worker"
	RoleVerifier = "verifier"
	RoleExplore  = "explore"
)

// Roles lists the valid roles, each narrower than the one before: worker
// loses delegation, verifier also every tool that changes files, explore
// also the task controls.
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

// mutatingTools are taken from the verifier and explore roles; explore
// also loses the task controls.
var (
	mutatingTools    = []string{"write", "edit", "rm", "trash_put", "trash_restore", "trash_empty", "task", "task_append"}
	taskControlTools = []string{"task_output", "task_stop", "task_list", "task_wait"}
	delegationTools  = []string{"task", "task_append"}
	// subtaskDenied are taken from an agent that runs as a sub-task: the
	// todo list is the main agent's plan (seed 000 refuses it todowrite).
	subtaskDenied = append([]string{"todo_write", "todo_read"}, delegationTools...)
)

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
	name := NormalizeName(t.Name)
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
	if len(p.Allowed) > 0 && !containsName(p.Allowed, name) {
		return deny("agent %q does not list it in tools", p.Agent)
	}
	if containsName(p.Disallowed, name) {
		return deny("agent %q lists it in disallowedTools", p.Agent)
	}
	if p.Subtask && containsName(subtaskDenied, name) {
		return deny("agent %q runs as a sub-task (subtask: true), and a sub-task neither keeps a todo list nor delegates", p.Agent)
	}
	switch p.Role {
	case RoleWorker:
		if containsName(delegationTools, name) {
			return deny("role worker cannot delegate")
		}
	case RoleVerifier:
		if containsName(mutatingTools, name) {
			return deny("role verifier cannot change files")
		}
	case RoleExplore:
		if containsName(mutatingTools, name) || containsName(taskControlTools, name) {
			return deny("role explore cannot change files or control tasks")
		}
	}
	return nil
}

// Visible returns the tools the profile may see, in registration order.
func (r *Registry) Visible(p Profile) []*Tool {
	var out []*Tool
	for _, t := range r.tools {
		if p.Permits(t) == nil {
			out = append(out, t)
		}
	}
	return out
}

func containsName(list []string, normalized string) bool {
	for _, s := range list {
		if NormalizeName(s) == normalized {
			return true
		}
	}
	return false
}
