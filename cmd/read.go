package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/read"
)

// NewCmdRead builds `mcode read PATH [--offset N] [--limit N] [--pages R]`.
func NewCmdRead(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: read.Name}
	c := &cobra.Command{
		Use:   "read PATH [flags]",
		Short: "Read a text file (numbered lines, paged), a PDF, an office document, a notebook or an image",
		Long: fmt.Sprintf(`Read a file the way a model needs it: text numbered like cat -n (%%6d→line),
at most %d lines a call from --offset, lines over %d characters cut, output
capped at %d KiB with the next --offset named; PDF text by --pages (at most %d
a call); office documents (docx, xlsx, pptx, odt, ods, odp) as Markdown paged
like text, --pages picking slides or sheets; Jupyter notebook cells; images as base64 in result.media, downscaled
to the configured limits. FIFOs, devices, directories and binaries are refused
at once.`, read.MaxLimit, read.MaxLineChars, read.MaxOutputBytes/1024, read.MaxPDFPages),
		Example: `  mcode read main.go
  mcode read server.log --offset 9000 --limit 200
  mcode read paper.pdf --pages 1-5
  mcode read deck.pptx --pages 2-4
  mcode read --args '{"path": "analysis.ipynb", "offset": 3, "limit": 2}'`,
		RunE: f.runTool(opts, runF),
	}
	return f.toolCommand(c, opts)
}
