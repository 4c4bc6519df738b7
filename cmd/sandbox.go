package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/sandbox"
	"github.com/mcode-dev/mcode/pkg/tool"
	"github.com/mcode-dev/mcode/pkg/trash"
)

// SandboxStatus is the result of mcode sandbox status: the status every
// bash result carries, and the sets behind it.
type SandboxStatus struct {
	sandbox.Status
	Writable  []sandbox.Place   `json:"writable"`
	Protected []string          `json:"protected"`
	ReadDeny  []string          `json:"read_deny"`
	Refused   []sandbox.Refusal `json:"refused"`
}

// NewCmdSandbox builds `mcode sandbox status`.
func NewCmdSandbox(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "sandbox <command>",
		Short: "What the kernel holds of the sandbox bash commands run in",
		Args:  cobra.NoArgs,
	}
	c.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Show the mode and, for each guarantee, whether this machine enforces it",
		Long: `Shows the sandbox that mcode bash, its tasks, command tools, hooks and stdio
MCP servers run in here: the mode (sandbox.mode), and for each guarantee —
fs_write, fs_read_secrets, network, protected_paths — enforced, partial (and
why) or unavailable, with the kernel's Landlock ABI, the writable set, the
protected paths and the secrets hidden. docs/sandbox.md explains each.`,
		Example: "  mcode sandbox status\n  mcode -o text sandbox status",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return finish(f, f.sandboxStatus())
		},
	})
	return c
}

func (f *Factory) sandboxStatus() *tool.Envelope {
	const name = "sandbox status"
	fail := func(err error) *tool.Envelope { return tool.NewEnvelope(name, nil, err) }
	cfg, err := f.Config()
	if err != nil {
		return fail(err)
	}
	env, err := f.toolEnv(cfg)
	if err != nil {
		return fail(err)
	}
	in := sandbox.InputsFor(env, f.Getenv)
	if cfg.Bash.TrashShim {
		in.TrashDirs = []string{trash.HomeTrash(env)}
	}
	pol := sandbox.New(in)
	k := sandbox.Probe(pol.Mode == sandbox.WorkspaceWrite)
	k.NothingToProtect = !pol.ProtectsAnything()
	st := SandboxStatus{Status: pol.Status(k), Writable: pol.Writable, Protected: pol.Protected,
		ReadDeny: pol.Secrets, Refused: pol.Refused}
	return tool.NewEnvelope(name, &tool.Response{Output: sandboxText(st), Result: st}, nil)
}

// sandboxText is the status for a person.
func sandboxText(st SandboxStatus) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mode %s, network %s, %s", st.Mode, st.NetworkPolicy, st.Platform)
	if st.LandlockABI > 0 {
		fmt.Fprintf(&b, ", Landlock ABI %d", st.LandlockABI)
	}
	if st.Mechanism != "" {
		fmt.Fprintf(&b, " (%s)", st.Mechanism)
	}
	b.WriteString("\n\n")
	for _, g := range []struct {
		name string
		val  sandbox.Guarantee
	}{
		{sandbox.GuaranteeFSWrite, st.FSWrite}, {sandbox.GuaranteeFSReadSecrets, st.FSReadSecrets},
		{sandbox.GuaranteeNetwork, st.Network}, {sandbox.GuaranteeProtectedPaths, st.ProtectedPaths},
	} {
		fmt.Fprintf(&b, "%-16s %-11s %s\n", g.name, g.val, st.Why[g.name])
	}
	if len(st.Writable) > 0 {
		b.WriteString("\nwritable:\n")
		for _, w := range st.Writable {
			fmt.Fprintf(&b, "  %s (%s)\n", w.Path, w.Why)
		}
	}
	if len(st.Refused) > 0 {
		b.WriteString("\nnot made writable:\n")
		for _, r := range st.Refused {
			fmt.Fprintf(&b, "  %s from %s: %s\n", r.Path, r.From, r.Why)
		}
	}
	return b.String()
}
