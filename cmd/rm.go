package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/trash"
)

// NewCmdRm builds `mcode rm [-rfdiv] [--] PATHS…`.
func NewCmdRm(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: trash.RmName}
	var upperR, verbose bool
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
		Annotations: map[string]string{annotationTool: trash.RmName},
		RunE: func(c *cobra.Command, args []string) error {
			if err := collectArgs(c, f.IO.In, opts, nil, nil); err != nil {
				return err
			}
			if _, ok := opts.Args["paths"]; len(args) > 0 || !ok {
				// No operand at all is for the tool to judge: rm -f
				// accepts it, plain rm does not.
				opts.Args["paths"] = jsonSafe(args)
			}
			if upperR {
				opts.Args["recursive"] = true
			}
			return callTool(c, f, opts, runF)
		},
	}
	fl := c.Flags()
	fl.BoolP("force", "f", false, "a path that does not exist is no error")
	fl.BoolP("recursive", "r", false, "trash directories with their contents")
	fl.BoolVarP(&upperR, "recursive-R", "R", false, "same as -r")
	fl.BoolP("dir", "d", false, "trash empty directories")
	fl.BoolP("interactive", "i", false, "ask before each removal (needs a terminal; refused otherwise)")
	fl.BoolVarP(&verbose, "verbose", "v", false, "accepted for rm's sake: the result always lists what was trashed")
	_ = fl.MarkHidden("recursive-R")
	noField(c, "recursive-R", "verbose")
	addArgsFlag(c, opts)
	return c
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
