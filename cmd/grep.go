package cmd

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/search"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// NewCmdGrep builds `mcode grep PATTERN [PATH…]`.
func NewCmdGrep(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: search.GrepName}
	c := &cobra.Command{
		Use:   "grep PATTERN [PATH…] [flags]",
		Short: "Search file contents for a regular expression, honouring .gitignore, never reading secrets",
		Example: `  mcode grep 'func \w+Context\(' --glob '*.go'
  mcode grep -F 'TODO(' src --mode content -C 2
  mcode grep -rn 'timeout' src/*.py
  mcode grep -i 'timeout' --mode count --no-ignore`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := f.toolArgs(c, opts, args); err != nil {
				return err
			}
			if q, _ := opts.Args["quiet"].(bool); q && runF == nil {
				return grepQuiet(f, f.Call(callContext(c.Context()), opts.Tool, opts.JSON()))
			}
			return callTool(c, f, opts, runF)
		},
	}
	return f.toolCommand(c, opts)
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
