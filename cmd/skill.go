package cmd

import (
	"github.com/spf13/cobra"
)

// SkillOptions are the options of skill.
type SkillOptions struct {
	Install string
}

// NewCmdSkill builds `mcode skill`.
func NewCmdSkill(f *Factory, runF func(*SkillOptions) error) *cobra.Command {
	opts := &SkillOptions{}
	c := &cobra.Command{
		Use:  "skill [--install DIR]",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error { return nil },
	}
	c.Flags().StringVar(&opts.Install, "install", "", "write DIR/mcode/SKILL.md")
	return c
}
