package cmd

import (
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/search"
	"github.com/mcode-dev/mcode/pkg/tool"
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
			if q, _ := opts.Args["quiet"].(bool); q && runF == nil {
				return grepQuiet(f, f.Call(callContext(c.Context()), opts.Tool, opts.JSON()))
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
	fl.IntP("after-context", "A", 0, "lines of context after each match (content mode)")
	fl.IntP("before-context", "B", 0, "lines of context before each match (content mode)")
	fl.BoolP("word-regexp", "w", false, "match whole words only")
	fl.BoolP("files-with-matches", "l", false, "list the matching files (--mode files)")
	fl.BoolP("count", "c", false, "count matching lines per file (--mode count)")
	fl.StringArrayP("type", "t", nil, "only files of this ripgrep type, repeatable: "+strings.Join(search.FileTypeNames(), ", "))
	fl.BoolP("invert-match", "v", false, "the lines that do not match")
	fl.IntP("max-count", "m", 0, "stop reading a file after N matching lines")
	fl.BoolP("quiet", "q", false, "print nothing: exit 0 on a match, 1 on none, 2 on an error")
	fl.Int("offset", 0, "skip N entries (the next page: the continuation's next_offset)")
	fl.BoolP("line-number", "n", false, "accepted as rg's -n: line numbers are always shown")
	addArgsFlag(c, opts)
	return c
}

// grepQuiet ends grep -q as grep does: nothing printed, exit 0 when
// something matched, 1 when nothing did, 2 on an error.
func grepQuiet(f *Factory, env *tool.Envelope) error {
	total := 0
	if r, ok := env.Result.(*search.GrepResult); ok {
		total = r.Total
	} else if b, err := json.Marshal(env.Result); err == nil {
		var res struct {
			Total int `json:"total"`
		}
		_ = json.Unmarshal(b, &res)
		total = res.Total
	}
	switch {
	case total > 0:
		return nil
	case env.Error != nil:
		return &exitError{code: tool.ExitUsage}
	default:
		return &exitError{code: tool.ExitFailure}
	}
}
