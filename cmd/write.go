package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/edit"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// NewCmdWrite builds `mcode write PATH (--content S | --content-file F | -)`.
func NewCmdWrite(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: edit.WriteName}
	var contentFile string
	c := &cobra.Command{
		Use:   "write PATH [flags]",
		Short: "Write a whole file atomically, keeping its encoding, line breaks and mode",
		Long: `Create a file (and its folders) or replace all of it. An existing file keeps
its BOM, UTF-16 or single-byte encoding, CRLF line breaks (when the content
has only LF ones) and mode; a new file gets 0644 less the umask. The write
is atomic (temp file, fsync, rename) and goes through symlinks to their
target.`,
		Example: `  mcode write notes.txt --content 'hello'
  mcode write main.go --content-file /tmp/main.go --if-match 3b1f…
  generate | mcode write out.txt -
  mcode write new.go --create-only --content-file new.go.draft`,
		Args: cobra.RangeArgs(0, 2),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 2 {
				if args[1] != "-" {
					return &tool.Error{Code: tool.CodeUsage,
						Message: fmt.Sprintf("unexpected argument %q", args[1]),
						Hint:    "give the content with --content, --content-file, or - to read it from stdin"}
				}
				if contentFile != "" || c.Flags().Changed("content") {
					return &tool.Error{Code: tool.CodeUsage,
						Message: "- (stdin) and --content/--content-file both give the content",
						Hint:    "give the content one way"}
				}
				contentFile = "-"
			}
			if err := oneStdin(c, opts.ArgsSource, contentFile); err != nil {
				return err
			}
			if err := f.toolArgs(c, opts, args[:min(len(args), 1)]); err != nil {
				return err
			}
			if contentFile != "" {
				text, err := readTextFile(c.Context(), f.IO.In, "--content-file", contentFile)
				if err != nil {
					return err
				}
				opts.readFrom(contentFile)
				opts.Args["content"] = text
			}
			if _, given := opts.Args["content"]; !given && opts.ArgsSource != "-" && !f.IO.InTTY {
				// echo x | mcode write f: stdin gives the content when
				// nothing else does, as it would to cat > f. Empty stdin
				// gives none (the call then says content is missing).
				ctx, cancel := context.WithTimeout(c.Context(), edit.Timeout)
				defer cancel()
				text, err := readTextFile(ctx, f.IO.In, "stdin", "-")
				if err != nil {
					return err
				}
				if text != "" {
					opts.Args["content"] = text
				}
			}
			return callTool(c, f, opts, runF)
		},
	}
	c.Flags().StringVar(&contentFile, "content-file", "", "read the content from a file (- for stdin)")
	f.toolCommand(c, opts)
	c.MarkFlagsMutuallyExclusive("content", "content-file")
	return c
}
