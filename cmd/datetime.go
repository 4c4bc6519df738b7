package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/datetime"
)

// NewCmdDatetime builds `mcode datetime [--tz ZONE]`.
func NewCmdDatetime(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: datetime.Name}
	c := &cobra.Command{
		Use:     "datetime [flags]",
		Short:   "Print the current date and time in any IANA time zone",
		Example: "  mcode datetime --tz Europe/Paris",
		RunE:    f.runTool(opts, runF),
	}
	return f.toolCommand(c, opts)
}
