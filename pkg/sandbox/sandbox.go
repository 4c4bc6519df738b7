// Package sandbox confines what mcode starts on the caller's behalf (a
// bash command and its tasks, command tools, hooks, stdio MCP servers) by
// the kernel: the writable set, the secrets hidden from reading, the
// protected paths inside writable places and the network, as the policy
// (sandbox.* in the config) says. The same Policy answers the in-process
// question "may a tool write or read this path?", so a file tool and a
// shell command are told the same thing.
//
// A Policy is cheap: a few stats and symlink resolutions, no directory
// listing. Its Plan is what the kernel is handed: one rule per directory
// or file, never a walk of the tree, so its cost does not grow with the
// workspace (performance.md, P20). On Linux the plan is applied to one
// locked OS thread (Start), which then starts the child: the process that
// starts it stays free to keep its records.
package sandbox

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcode-dev/mcode/pkg/config"
)

// Mode is how much the sandboxed tree may change.
type Mode string

// The modes, strictest first (the names Codex uses).
const (
	ReadOnly         Mode = "read-only"
	WorkspaceWrite   Mode = "workspace-write"
	DangerFullAccess Mode = "danger-full-access"
)

// DefaultMode is the mode when the config names none.
const DefaultMode = WorkspaceWrite

// ParseMode reads a mode; "" is the default.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "":
		return DefaultMode, nil
	case ReadOnly, WorkspaceWrite, DangerFullAccess:
		return Mode(s), nil
	}
	return "", fmt.Errorf("sandbox mode %q: expected one of %s", s, strings.Join(config.SandboxModes, ", "))
}

func (m Mode) rank() int {
	switch m {
	case ReadOnly:
		return 0
	case WorkspaceWrite:
		return 1
	}
	return 2
}

// LooserThan says whether m gives the tree more than o.
func (m Mode) LooserThan(o Mode) bool { return m.rank() > o.rank() }

// Strictest is the stricter of two modes.
func Strictest(a, b Mode) Mode {
	if b.rank() < a.rank() {
		return b
	}
	return a
}

// Network policies.
const (
	NetworkOn    = config.SandboxNetworkOn
	NetworkOff   = config.SandboxNetworkOff
	NetworkAllow = "allowlist"
)

// Network is the network part of a policy.
type Network struct {
	// Policy is on, off or allowlist.
	Policy string
	// Allow are the allowed places as written (host:port, :port, port).
	Allow []string
	// Ports are the ports of Allow: what a kernel that filters by port
	// can hold.
	Ports []uint16
}

// ParseNetwork reads sandbox.network (config.Validate checked it); an
// empty list is on.
func ParseNetwork(list []string) Network {
	if len(list) == 0 {
		return Network{Policy: NetworkOn}
	}
	if len(list) == 1 {
		switch strings.TrimSpace(list[0]) {
		case NetworkOn:
			return Network{Policy: NetworkOn}
		case NetworkOff:
			return Network{Policy: NetworkOff}
		}
	}
	n := Network{Policy: NetworkAllow}
	for _, place := range list {
		place = strings.TrimSpace(place)
		port := place
		if i := strings.LastIndexByte(place, ':'); i >= 0 {
			port = place[i+1:]
		}
		p, err := strconv.Atoi(port)
		if err != nil || p < 1 || p > 65535 {
			continue
		}
		n.Allow = append(n.Allow, place)
		if !slices.Contains(n.Ports, uint16(p)) {
			n.Ports = append(n.Ports, uint16(p))
		}
	}
	slices.Sort(n.Ports)
	return n
}

// stricterNetwork is the stricter of two network policies: off beats an
// allowlist beats on; two allowlists keep the ports both allow.
func stricterNetwork(a, b Network) Network {
	rank := func(n Network) int {
		switch n.Policy {
		case NetworkOff:
			return 0
		case NetworkAllow:
			return 1
		}
		return 2
	}
	if rank(a) != rank(b) {
		if rank(b) < rank(a) {
			return b
		}
		return a
	}
	if a.Policy != NetworkAllow {
		return a
	}
	out := Network{Policy: NetworkAllow}
	for _, p := range a.Ports {
		if slices.Contains(b.Ports, p) {
			out.Ports = append(out.Ports, p)
		}
	}
	for _, place := range a.Allow {
		if slices.Contains(b.Allow, place) {
			out.Allow = append(out.Allow, place)
		}
	}
	return out
}

// String is the policy as sandbox.network would say it.
func (n Network) String() string {
	if n.Policy == NetworkAllow {
		return strings.Join(n.Allow, ", ")
	}
	return n.Policy
}
