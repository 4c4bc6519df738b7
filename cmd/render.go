package cmd

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/iostreams"
	"github.com/mcode-dev/mcode/pkg/render"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// NewCmdRender builds `mcode render FORMAT (SOURCE.md | - | --markdown TEXT) [--out FILE]`.
func NewCmdRender(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: render.Name}
	formats := strings.Join(render.Formats, "|")
	c := &cobra.Command{
		Use:   "render " + formats + " [SOURCE.md | -] [flags]",
		Short: "Render Markdown to a Word, Excel, PowerPoint or PDF file, in-process",
		Long: fmt.Sprintf(`Render Markdown (CommonMark, GFM tables, task lists, strikethrough, front
matter) to DOCX, XLSX, PPTX or PDF without LibreOffice, pandoc or Node. The
source is a file (at most %d MiB), - for stdin, or --markdown TEXT; --out
defaults to the source with the format's extension. Written atomically; the
same input gives the same bytes.

  docx  Word's Heading 1-6 styles, lists, tables, code, quotes, images
  xlsx  one sheet per table, named by the heading before it; typed cells
  pptx  slides split on ---, first heading the title, <!-- notes -->
  pdf   A4 or Letter, page numbers, --cover, CJK fonts embedded
        (config render.fonts, else the system's fonts)`, render.MaxSourceMiB),
		Example: `  mcode render docx report.md --out report.docx
  mcode render xlsx budget.md --out budget.xlsx
  mcode render pptx talk.md --aspect 4:3
  mcode render pdf report.md --out report.pdf --paper letter --cover
  generate | mcode render pdf - --out out.pdf
  mcode render docx --markdown '# Hello' --out hello.docx`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 || len(args) > 2 {
				return &tool.Error{Code: tool.CodeUsage,
					Message: fmt.Sprintf("render takes a format and at most one source, got %d arguments", len(args)),
					Hint:    fmt.Sprintf("e.g. mcode render docx report.md --out report.docx (formats: %s)", strings.Join(render.Formats, ", "))}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			stdin := len(args) == 2 && args[1] == "-"
			if stdin && c.Flags().Changed("markdown") {
				return &tool.Error{Code: tool.CodeUsage, Message: "- (stdin) and --markdown both give the Markdown",
					Hint: "give the Markdown one way"}
			}
			if stdin {
				if err := oneStdin(c, opts.ArgsSource, "-"); err != nil {
					return err
				}
				args = args[:1]
			}
			if err := f.toolArgs(c, opts, args); err != nil {
				return err
			}
			if stdin {
				text, err := iostreams.UntilDone(c.Context(), func() (string, error) { return readMarkdown(f.IO.In) })
				if err != nil {
					return err
				}
				opts.Args["markdown"] = text
			}
			return callTool(c, f, opts, runF)
		},
	}
	return f.toolCommand(c, opts)
}

// readMarkdown reads the source from stdin, within render's limit.
func readMarkdown(in io.Reader) (string, error) {
	const limit = render.MaxSourceMiB << 20
	data, err := io.ReadAll(io.LimitReader(in, limit+1))
	if err != nil {
		return "", &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("reading stdin: %v", err), Hint: "pipe the Markdown in, or name the file"}
	}
	if len(data) > limit {
		return "", &tool.Error{Code: tool.CodeTooLarge, Message: fmt.Sprintf("stdin holds more than the %d MiB render takes", render.MaxSourceMiB),
			Hint: "split the document and render the parts"}
	}
	if !utf8.Valid(data) {
		return "", &tool.Error{Code: tool.CodeUsage, Message: "stdin is not valid UTF-8 text", Hint: "convert it to UTF-8 first (iconv -t UTF-8)"}
	}
	if len(data) == 0 {
		return "", &tool.Error{Code: tool.CodeUsage, Message: "stdin is empty", Hint: "pipe the Markdown in, or name the file"}
	}
	return string(data), nil
}
