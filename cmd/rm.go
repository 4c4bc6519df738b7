package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/trash"
)

// NewCmdRm builds `mcode rm [-rfdiv] [--] PATHS…`.
func NewCmdRm(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: trash.RmName}
	var verbose bool
	c := &cobra.Command{
		Use:   "rm [-rfdiv] [--] PATHS…",
		Short: "Delete files and directories into the trash, with rm's flags (restore with mcode trash restore)",
		Long: `Deletes into the FreeDesktop.org trash (the one file managers and trash-cli
use), with rm's rules: directories need -r (or -d when empty), -f makes a
missing path no error, -i asks first (only on a terminal). /, $HOME, the
workspace root and their parents are refused whatever the flags. Each trashed
path gets an id for "mcode trash restore".`,
		Example: `  mcode rm build.log
  mcode rm -rf build/ dist/
  mcode rm --args '{"paths":["build"],"recursive":true}'`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := f.toolArgs(c, opts, args); err != nil {
				return err
			}
			if _, ok := opts.Args["paths"]; !ok {
				// No operand at all is for the tool to judge: rm -f
				// accepts it, plain rm does not.
				opts.Args["paths"] = []string{}
			}
			return callTool(c, f, opts, runF)
		},
	}
	c.Flags().BoolVarP(&verbose, "verbose", "v", false, "accepted for rm's sake: the result always lists what was trashed")
	return f.toolCommand(c, opts)
}

// jsonSafe keeps command-line paths whole on their way through JSON: a
// name that is not UTF-8 travels as \xHH (trash list's form), which the
// trash tools decode.
func jsonSafe(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = fsutil.DisplayPath(a)
	}
	return out
}
