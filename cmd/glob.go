package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/search"
)

// NewCmdGlob builds `mcode glob PATTERN [PATH]`.
func NewCmdGlob(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: search.GlobName}
	var sort, typ string
	c := &cobra.Command{
		Use:   "glob PATTERN [PATH] [flags]",
		Short: "List files or folders matching a glob pattern, honouring .gitignore, never listing secrets",
		Example: `  mcode glob '**/*.go'
  mcode glob 'src/**/*.{ts,tsx}' --sort modified --limit 20
  mcode glob 'node_modules/react/**' --include-ignored`,
		Args:        cobra.RangeArgs(0, 2),
		Annotations: map[string]string{annotationTool: search.GlobName},
		RunE: func(c *cobra.Command, args []string) error {
			if err := collectArgs(c, f.IO.In, opts, []string{"pattern", "path"}, args); err != nil {
				return err
			}
			return callTool(c, f, opts, runF)
		},
	}
	fl := c.Flags()
	fl.Bool("include-ignored", false, "also list ignored paths, when the pattern names a folder or file (never secrets)")
	enumFlag(c, &sort, "sort", "", search.SortPath, []string{search.SortPath, search.SortModified}, "order")
	fl.Int("limit", search.GlobDefaultLimit, "most paths to return")
	enumFlag(c, &typ, "type", "", search.TypeFile, []string{search.TypeFile, search.TypeDir}, "what to list")
	addArgsFlag(c, opts)
	return c
}
