package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/search"
)

// NewCmdGlob builds `mcode glob PATTERN [PATH]`.
func NewCmdGlob(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: search.GlobName}
	c := &cobra.Command{
		Use:   "glob PATTERN [PATH] [flags]",
		Short: "List files or folders matching a glob pattern, honouring .gitignore, never listing secrets",
		Example: `  mcode glob '**/*.go'
  mcode glob 'src/**/*.{ts,tsx}' --sort modified --limit 20
  mcode glob 'node_modules/react/**' --include-ignored`,
		RunE: f.runTool(opts, runF),
	}
	return f.toolCommand(c, opts)
}
