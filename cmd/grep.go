package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/search"
)

// NewCmdGrep builds `mcode grep PATTERN [PATH]`.
func NewCmdGrep(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: search.GrepName}
	var mode, sort string
	c := &cobra.Command{
		Use:   "grep PATTERN [PATH] [flags]",
		Short: "Search file contents for a regular expression, honouring .gitignore, never reading secrets",
		Example: `  mcode grep 'func \w+Context\(' --glob '*.go'
  mcode grep -F 'TODO(' src --mode content -C 2
  mcode grep -i 'timeout' --mode count --no-ignore`,
		Args:        cobra.RangeArgs(0, 2),
		Annotations: map[string]string{annotationTool: search.GrepName},
		RunE: func(c *cobra.Command, args []string) error {
			if err := collectArgs(c, f.IO.In, opts, []string{"pattern", "path"}, args); err != nil {
				return err
			}
			return callTool(c, f, opts, runF)
		},
	}
	fl := c.Flags()
	fl.StringArray("glob", nil, `file filter, repeatable: "*.go" at any depth, "src/**/*.ts", "!*_test.go" excludes`)
	enumFlag(c, &mode, "mode", "", search.ModeFiles, []string{search.ModeFiles, search.ModeContent, search.ModeCount}, "what to return")
	fl.BoolP("case-insensitive", "i", false, "ignore case")
	fl.BoolP("fixed-strings", "F", false, "search the pattern as plain text")
	fl.IntP("context", "C", 0, "lines of context around each match (content mode)")
	fl.BoolP("multiline", "U", false, "let a match span lines")
	fl.Int("limit", search.GrepDefaultLimit, "most entries to return")
	enumFlag(c, &sort, "sort", "", search.SortPath, []string{search.SortPath, search.SortModified}, "order")
	fl.Bool("no-ignore", false, "also search files excluded by ignore rules and default excludes (never secrets)")
	addArgsFlag(c, opts)
	return c
}
