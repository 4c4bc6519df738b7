package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/patch"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// NewCmdPatch builds `mcode patch [FILE | -] [--check] [--strip N]`.
func NewCmdPatch(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: patch.Name}
	c := &cobra.Command{
		Use:   "patch [FILE | -] [flags]",
		Short: "Apply a patch (Codex's format or a unified diff) to many files, all or nothing",
		Long: `Apply a patch in Codex's format (*** Begin Patch … *** End Patch) or a
unified diff (git diff, diff -u), read from FILE, from stdin (- or a pipe),
or from --args '{"input": "…"}'. Every hunk is located (exact, then with
whitespace or Unicode punctuation looked past, each tier reported) and every
file computed before the first write; a failure puts back what was written,
so a failed patch changes nothing. Encoding, line endings, final newline and
mode are kept per file. Tool name: apply_patch.

Refused with the facts: a path ending with / (a folder), a file added twice,
one file named through two paths (a link, a hard link), git modes 120000
(symbolic link) and 160000 (submodule), a hunk that could sit at so many
places that locating it passes a bounded search (too_large). Only the
executable bit of a git mode counts, as for git apply. An @@ line is matched
on its whole text, spaces at its end included.`,
		Example: `  git diff > /tmp/change.diff && mcode patch /tmp/change.diff --check
  mcode patch - <<'EOF'
  *** Begin Patch
  *** Update File: main.go
  @@ func main() {
  -	println("hi")
  +	println("hello")
  *** End Patch
  EOF
  diff -u old/a.txt new/a.txt | mcode patch --strip 1
  mcode patch --args '{"input": "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n"}'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			src := ""
			if len(args) == 1 {
				src = args[0]
			} else if opts.ArgsSource == "" && !f.IO.InTTY && !c.Flags().Changed("input") && !c.Flags().Changed("patch") {
				src = "-"
			}
			if err := oneStdin(c, opts.ArgsSource, src); err != nil {
				return err
			}
			// FILE holds the patch: it fills no parameter by itself.
			if err := f.toolArgs(c, opts, nil); err != nil {
				return err
			}
			if src != "" {
				text, err := readTextFile(c.Context(), f.IO.In, "patch", src)
				if err != nil {
					return err
				}
				opts.readFrom(src)
				opts.Args["input"] = text
			}
			if _, ok := opts.Args["input"]; !ok {
				if _, ok := opts.Args["patch"]; !ok {
					return &tool.Error{Code: tool.CodeUsage,
						Message: "no patch given",
						Hint:    fmt.Sprintf("give the patch as FILE, on stdin (- or a pipe), or as --args '{\"input\": \"…\"}'; usage: %s", usageLine(c, true))}
				}
			}
			return callTool(c, f, opts, runF)
		},
	}
	return f.toolCommand(c, opts)
}
