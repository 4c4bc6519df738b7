package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/datetime"
)

// NewCmdDatetime builds `mcode datetime [--tz ZONE]`.
func NewCmdDatetime(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: datetime.Name}
	c := &cobra.Command{
		Use:         "datetime [flags]",
		Short:       "Print the current date and time in any IANA time zone",
		Example:     "  mcode datetime --tz Europe/Paris",
		Args:        cobra.NoArgs,
		Annotations: map[string]string{annotationTool: datetime.Name},
		RunE: func(c *cobra.Command, args []string) error {
			if err := collectArgs(c, f.IO.In, opts, nil, nil); err != nil {
				return err
			}
			return callTool(c, f, opts, runF)
		},
	}
	c.Flags().String("tz", "", "IANA time zone, e.g. UTC or Asia/Tokyo (default: the local zone)")
	addArgsFlag(c, opts)
	return c
}
