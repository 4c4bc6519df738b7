package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/filetype"
)

// NewCmdFiletype builds `mcode filetype PATH…`.
func NewCmdFiletype(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: filetype.Name}
	c := &cobra.Command{
		Use:   "filetype PATHS… [flags]",
		Short: "What files are: MIME type from content, extension, description, text encoding and line endings",
		Long: `Look at files without reading them as text: the MIME type from their content
(as file --mime-type names it), the usual extension, a description, and for
text the encoding and line endings as read reports them, and the size.
Directories, FIFOs, sockets and devices are named from stat, never opened.`,
		Example: `  mcode filetype report.pdf data.bin notes.txt
  mcode filetype --args '{"paths": ["a.docx"]}'`,
		RunE: f.runTool(opts, runF),
	}
	return f.toolCommand(c, opts)
}
