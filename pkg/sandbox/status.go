package sandbox

import (
	"fmt"
	"strings"
)

// Applied is what the kernel took of a plan on the thread that started
// the child.
type Applied struct {
	LandlockABI int `json:"landlock_abi"`
	// Mounts: the protected paths are held by read-only bind mounts in a
	// mount namespace of the run's own.
	Mounts bool `json:"mounts"`
	// MountError says why they are not, when there were some to hold.
	MountError string `json:"mount_error,omitempty"`
	Seccomp    bool   `json:"seccomp"`
	// NetPorts: TCP connects are filtered by port (Landlock ABI 4).
	NetPorts bool `json:"net_ports,omitempty"`
}

// Guarantee is how far the kernel holds one promise of the sandbox.
type Guarantee string

const (
	Enforced    Guarantee = "enforced"
	Partial     Guarantee = "partial"
	Unavailable Guarantee = "unavailable"
	// Unverified: a mechanism exists (macOS sandbox-exec) but mcode's
	// profile has not been tried on such a machine.
	Unverified Guarantee = "unverified"
	// Off: the mode asks for nothing (danger-full-access).
	Off Guarantee = "off"
)

// The guarantees, by the names status and results use.
const (
	GuaranteeFSWrite        = "fs_write"
	GuaranteeFSReadSecrets  = "fs_read_secrets"
	GuaranteeNetwork        = "network"
	GuaranteeProtectedPaths = "protected_paths"
)

// Kernel is what the machine offers a sandbox, as probed or as a run
// found it.
type Kernel struct {
	Platform    string
	LandlockABI int
	Seccomp     bool
	// Mounts: protected paths can be held by bind mounts (a mount
	// namespace may be made); MountError says why not.
	Mounts     bool
	MountError string
	// NothingToProtect: no protected path exists in the workspace.
	NothingToProtect bool
	// SandboxExec: macOS's /usr/bin/sandbox-exec exists.
	SandboxExec bool
}

// Status is the sandbox's own account of a policy on a kernel: what
// `mcode sandbox status` prints and every bash result carries.
type Status struct {
	Mode          Mode     `json:"mode"`
	NetworkPolicy string   `json:"network_policy"`
	NetworkAllow  []string `json:"network_allow"`
	Platform      string   `json:"platform"`
	// Mechanism names what holds the sandbox, joined by "+"
	// (landlock+seccomp+mount_namespace…): one string, so that a result
	// that outgrows the output budget keeps it inline.
	Mechanism   string `json:"mechanism"`
	LandlockABI int    `json:"landlock_abi"`

	FSWrite        Guarantee `json:"fs_write"`
	FSReadSecrets  Guarantee `json:"fs_read_secrets"`
	Network        Guarantee `json:"network"`
	ProtectedPaths Guarantee `json:"protected_paths"`
	// Why explains each guarantee, in particular those not enforced.
	Why map[string]string `json:"why"`
}

// Status judges the policy on a kernel.
func (p *Policy) Status(k Kernel) Status {
	s := Status{Mode: p.Mode, NetworkPolicy: p.Network.Policy, NetworkAllow: p.Network.Allow,
		Platform: k.Platform, LandlockABI: k.LandlockABI, Why: map[string]string{}}
	set := func(name string, g Guarantee, why string) {
		switch name {
		case GuaranteeFSWrite:
			s.FSWrite = g
		case GuaranteeFSReadSecrets:
			s.FSReadSecrets = g
		case GuaranteeNetwork:
			s.Network = g
		case GuaranteeProtectedPaths:
			s.ProtectedPaths = g
		}
		s.Why[name] = why
	}
	all := func(g Guarantee, why string) {
		for _, n := range []string{GuaranteeFSWrite, GuaranteeFSReadSecrets, GuaranteeNetwork, GuaranteeProtectedPaths} {
			set(n, g, why)
		}
	}
	if p.Mode == DangerFullAccess {
		all(Off, "sandbox mode danger-full-access: nothing is confined")
		return s
	}
	switch k.Platform {
	case "linux":
	case "darwin":
		if !k.SandboxExec {
			all(Unavailable, "/usr/bin/sandbox-exec is missing")
			return s
		}
		s.Mechanism = "sandbox-exec"
		all(Unverified, "a sandbox-exec profile generated from the policy; mcode's tests check its text, it has not been run on a Mac yet")
		if p.Network.Policy == NetworkOn {
			set(GuaranteeNetwork, Unverified, "sandbox.network is on: connections are allowed")
		}
		return s
	default:
		all(Unavailable, "mcode has no sandbox for "+k.Platform+" yet: a command runs unconfined only with a person's approval")
		return s
	}

	if k.LandlockABI < 1 {
		all(Unavailable, "this kernel has no Landlock (Linux 5.13+, enabled at boot): a command runs unconfined only with a person's approval")
		return s
	}
	mech := []string{"landlock", "no_new_privs", "capabilities"}
	if k.Seccomp {
		mech = append(mech, "seccomp")
	}
	if k.Mounts && !k.NothingToProtect && p.Mode == WorkspaceWrite {
		mech = append(mech, "mount_namespace")
	}
	s.Mechanism = strings.Join(mech, "+")

	// Writing.
	switch {
	case k.LandlockABI < 2:
		set(GuaranteeFSWrite, Partial, fmt.Sprintf("Landlock ABI %d: truncating a file outside the writable set is not controlled (ABI 3), and renaming or linking between folders is refused even inside it (ABI 2)", k.LandlockABI))
	case k.LandlockABI < 3:
		set(GuaranteeFSWrite, Partial, "Landlock ABI 2: truncating a file outside the writable set is not controlled before ABI 3")
	case !k.Seccomp:
		set(GuaranteeFSWrite, Partial, "no seccomp filter on this architecture: tracing the process that started the command, mounts and io_uring are held by Landlock and the dropped capabilities only")
	default:
		set(GuaranteeFSWrite, Enforced, "Landlock: writes only in "+p.WritableSummary())
	}

	// Secrets.
	if len(p.Unhidden) > 0 {
		var parts []string
		for i, u := range p.Unhidden {
			if i == 2 {
				parts = append(parts, fmt.Sprintf("and %d more", len(p.Unhidden)-i))
				break
			}
			parts = append(parts, u.Path+" (in "+u.From+")")
		}
		set(GuaranteeFSReadSecrets, Partial, fmt.Sprintf("%d secret paths lie inside writable places, where no rule can hide them: %s", len(p.Unhidden), strings.Join(parts, ", ")))
	} else {
		set(GuaranteeFSReadSecrets, Enforced, fmt.Sprintf("Landlock: %d secret paths (~/.ssh, ~/.aws, … and sandbox.readDeny) are unreadable, disks too", len(p.Secrets)))
	}

	// Network.
	switch p.Network.Policy {
	case NetworkOn:
		set(GuaranteeNetwork, Enforced, "sandbox.network is on: connections are allowed")
	case NetworkOff:
		switch {
		case k.Seccomp:
			set(GuaranteeNetwork, Enforced, "seccomp refuses every socket but Unix and netlink ones: no TCP, no UDP")
		case k.LandlockABI >= 4:
			set(GuaranteeNetwork, Partial, "Landlock refuses TCP connects and binds; UDP is not held without seccomp")
		default:
			set(GuaranteeNetwork, Unavailable, "no seccomp filter and no Landlock network rules (ABI 4) here: network off cannot be held")
		}
	case NetworkAllow:
		if k.LandlockABI >= 4 {
			set(GuaranteeNetwork, Partial, fmt.Sprintf("port-level: TCP connects only to ports %s (Landlock); the host part of %s is not enforced, and UDP (DNS) is not filtered", portList(p.Network.Ports), strings.Join(p.Network.Allow, ", ")))
		} else {
			set(GuaranteeNetwork, Unavailable, fmt.Sprintf("Landlock ABI %d has no network rules (ABI 4): an allowlist cannot be held", k.LandlockABI))
		}
	}

	// Protected paths.
	switch {
	case p.Mode == ReadOnly:
		set(GuaranteeProtectedPaths, Enforced, "read-only: nothing in the workspace is writable")
	case k.NothingToProtect:
		set(GuaranteeProtectedPaths, Enforced, "no protected path exists in the workspace (.mcode.yaml, .git): nothing to hold")
	case k.Mounts:
		set(GuaranteeProtectedPaths, Enforced, "read-only bind mounts in a mount namespace of the run's own")
	default:
		why := "Landlock cannot make a path read-only inside a writable folder, and no mount namespace could be made"
		if k.MountError != "" {
			why += " (" + k.MountError + ")"
		}
		set(GuaranteeProtectedPaths, Partial, why+": a command can change .git/hooks, .git/config and .mcode.yaml; run as root, or with CAP_SYS_ADMIN, to hold them")
	}
	return s
}

func portList(ports []uint16) string {
	parts := make([]string, len(ports))
	for i, p := range ports {
		parts[i] = fmt.Sprint(p)
	}
	return strings.Join(parts, ", ")
}

// Unenforceable says why running a command under mode and network on
// this kernel would give it more than the policy allows ("" when it
// would not): then a person must approve running it so. A guarantee the
// kernel holds only in part does not ask for approval; the status says
// what is missing.
func Unenforceable(mode Mode, network Network, k Kernel) string {
	if mode == DangerFullAccess {
		return ""
	}
	p := &Policy{Mode: mode, Network: network}
	s := p.Status(k)
	if s.FSWrite == Unavailable {
		return "the sandbox (" + string(mode) + ") cannot be enforced here: " + s.Why[GuaranteeFSWrite]
	}
	if s.Network == Unavailable {
		return "sandbox.network " + network.String() + " cannot be held here: " + s.Why[GuaranteeNetwork]
	}
	return ""
}
