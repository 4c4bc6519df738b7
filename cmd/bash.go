package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/exec"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// NewCmdBash builds `mcode bash COMMAND`. Its --timeout is its own (it
// shadows the global one): bash enforces and reports its limits itself.
func NewCmdBash(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: exec.Name}
	c := &cobra.Command{
		Use:   "bash COMMAND [flags]",
		Short: "Run a shell command with a time limit that stops every process it started",
		Long: `Run a shell command (bash -c) and print its output, exit code and what happened
to every process it started. COMMAND - reads the command from stdin.

A command still running after bash.autoBackgroundAfter (` + fmt.Sprint(exec.AutoBackgroundAfter.Seconds()) + ` s from the command
line, ` + fmt.Sprint(exec.AutoBackgroundServe.Seconds()) + ` s under mcp serve, never under CI) moves to the background.

Exit status: the command's own (1-255, 128+N for signal N; result.exit_code),
or one of mcode's:
` + exitTable(),
		Example: `  mcode bash 'go test ./...' --timeout 5m
  mcode bash 'npm run dev' --background
  mcode bash - <<'EOF'
  for f in *.go; do wc -l "$f"; done
  EOF`,
		Args: oneCommand,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 && args[0] == "-" {
				// bash's own --timeout (it shadows the global one) bounds
				// the wait for the command too.
				ctx := c.Context()
				if v, ok := c.Flags().Lookup("timeout").Value.(*secondsValue); ok && c.Flags().Changed("timeout") && v.secs > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, time.Duration(v.secs*float64(time.Second)))
					defer cancel()
				}
				data, err := readInput(ctx, "the command from stdin", func() ([]byte, error) { return io.ReadAll(f.IO.In) })
				if err != nil {
					if ctx.Err() != nil {
						return err
					}
					return &tool.Error{Code: tool.CodeUsage, Message: "reading the command from stdin: " + err.Error()}
				}
				args[0] = strings.TrimSuffix(string(data), "\n")
			}
			if err := f.toolArgs(c, opts, args); err != nil {
				return err
			}
			return callTool(c, f, opts, runF)
		},
	}
	secondsFlag(c, "timeout", fmt.Sprintf("time limit in `seconds` (90) or a duration (90s, 2m): default %d, at most %d in the foreground",
		int(exec.DefaultTimeout.Seconds()), int(exec.MaxTimeout.Seconds())))
	f.toolCommand(c, opts)
	// An unknown flag is most often the command's own (mcode bash ls -la),
	// unless it is close to one of bash's.
	derived := c.FlagErrorFunc()
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		err = derived(c, err)
		if te := tool.AsError(err); strings.HasPrefix(te.Message, "unknown flag") && !strings.Contains(te.Message, "did you mean") {
			te.Hint = quoteHint
		}
		return err
	})
	return c
}

// oneCommand takes the command as one argument: `mcode bash ls -la` is the
// usual slip, and cobra's "accepts at most 1 arg(s)" does not say what to do.
func oneCommand(c *cobra.Command, args []string) error {
	if len(args) <= 1 {
		return nil
	}
	return &tool.Error{Code: tool.CodeUsage,
		Message: fmt.Sprintf("bash takes the command as one argument, got %d", len(args)),
		Hint:    quoteHint}
}

// exitTable is tool.ExitCodes as a help text table.
func exitTable() string {
	var b strings.Builder
	for _, e := range tool.ExitCodes {
		fmt.Fprintf(&b, "  %-4d %s: %s\n", e.Code, strings.ReplaceAll(e.Meaning, "`", ""), strings.ReplaceAll(e.Next, "`", ""))
	}
	return strings.TrimRight(b.String(), "\n")
}

const quoteHint = "quote the whole command, its flags included: mcode bash 'ls -la | head', or pass - and write it to stdin"
