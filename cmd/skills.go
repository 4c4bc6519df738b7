package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/skills"
)

// NewCmdSkills builds `mcode skills list|load`: the skills installed for
// this workspace and user. (`mcode skill`, singular, is mcode's own
// SKILL.md.)
func NewCmdSkills(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	c := &cobra.Command{
		Use:   "skills <command>",
		Short: "Skills on demand: list the catalogue, load one skill or one of its files",
		Args:  cobra.NoArgs,
	}
	c.AddCommand(
		subToolCommand(f, runF, skills.ListName, "list", "List the installed skills: name, one-line description, where", "  mcode skills list"),
		subToolCommand(f, runF, skills.LoadName, "load NAME [FILE]", "Print a skill's instructions, or one of its files, paged like read",
			"  mcode skills load pdf-forms\n  mcode skills load pdf-forms reference/fields.md --offset 200"),
	)
	return c
}
