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
		toolCommand(f, runF, skills.ListName, "list", "List the installed skills: name, one-line description, where", "  mcode skills list", cobra.NoArgs, nil, nil),
		toolCommand(f, runF, skills.LoadName, "load NAME [FILE]", "Print a skill's instructions, or one of its files, paged like read",
			"  mcode skills load pdf-forms\n  mcode skills load pdf-forms reference/fields.md --offset 200", cobra.RangeArgs(1, 2), []string{"name", "file"},
			func(c *cobra.Command) {
				c.Flags().Int("offset", 0, "line to start at, as in read")
				c.Flags().Int("limit", 0, "number of lines, as in read")
			}),
	)
	return c
}
