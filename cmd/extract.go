package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/extract"
)

// NewCmdExtract builds `mcode extract PATH [--out FILE] [--format markdown|text]`.
func NewCmdExtract(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: extract.Name}
	c := &cobra.Command{
		Use:   "extract PATH [flags]",
		Short: "The whole text of a PDF, office document, notebook, HTML page or text file, as Markdown or plain text",
		Long: fmt.Sprintf(`Extract a document's whole text: PDF (every page), docx, xlsx, pptx, odt, ods,
odp (headings, lists, GFM tables; a section per sheet or slide), Jupyter
notebooks, HTML (the main text; scripts, styles and navigation dropped) and
plain text. Printed as output, or written atomically to --out. Texts over
%d MiB are too_large: page through those with mcode read.`, extract.MaxOutputBytes>>20),
		Example: `  mcode extract report.pdf
  mcode extract slides.pptx --out slides.md
  mcode extract page.html --format text`,
		RunE: f.runTool(opts, runF),
	}
	return f.toolCommand(c, opts)
}
