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
		Args:        cobra.MaximumNArgs(1),
		Annotations: map[string]string{annotationTool: read.Name},
		RunE: func(c *cobra.Command, args []string) error {
			if err := collectArgs(c, f.IO.In, opts, []string{"path"}, args); err != nil {
				return err
			}
			return callTool(c, f, opts, runF)
		},
	}
	c.Flags().Int("offset", 1, "first line to show, from 1 (notebooks: first cell)")
	c.Flags().Int("limit", read.DefaultLimit, fmt.Sprintf("lines to show, 1 to %d (notebooks: cells)", read.MaxLimit))
	c.Flags().Int("column", 1, fmt.Sprintf("character of the line at --offset to start from, from 1: the rest of a line cut at %d characters", read.MaxLineChars))
	c.Flags().String("pages", "", fmt.Sprintf("PDF pages, slides or sheets: 3, 1-5, 10- or 1-3,7 (PDF: at most %d a call)", read.MaxPDFPages))
	addArgsFlag(c, opts)
	return c
}
