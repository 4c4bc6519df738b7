package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/exec"
)

// NewCmdTask builds `mcode task list|output|wait|stop`: the background
// tasks of mcode bash, seen from any mcode process.
func NewCmdTask(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	c := &cobra.Command{
		Use:   "task <command>",
		Short: "Background tasks of mcode bash: list, output, wait, stop",
		Args:  cobra.NoArgs,
	}
	c.AddCommand(
		taskCommand(f, runF, exec.TaskListName, "list", "List background tasks, newest first", "  mcode task list", cobra.NoArgs, nil),
		taskCommand(f, runF, exec.TaskOutputName, "output ID [flags]", "Print a task's output so far and its status",
			"  mcode task output b1a2b3c4\n  mcode task output b1a2b3c4 --offset 4096 --wait 30", cobra.ExactArgs(1),
			func(c *cobra.Command) {
				c.Flags().Int64("offset", 0, "byte offset in the output to read from (a previous next_offset)")
				secondsFlag(c, "wait", "wait up to `seconds` for the task to end first")
			}),
		taskCommand(f, runF, exec.TaskWaitName, "wait ID", "Wait for a task to end and print its output and exit status",
			"  mcode task wait b1a2b3c4 --timeout 30m", cobra.ExactArgs(1), nil),
		taskCommand(f, runF, exec.TaskStopName, "stop ID", "Stop a task and every process it started",
			"  mcode task stop b1a2b3c4", cobra.ExactArgs(1), nil),
	)
	return c
}

// taskCommand builds one task subcommand: ID is the task_id field.
func taskCommand(f *Factory, runF func(*CallOptions) error, name, use, short, example string, args cobra.PositionalArgs, flags func(*cobra.Command)) *cobra.Command {
	opts := &CallOptions{Tool: name}
	c := &cobra.Command{
		Use: use, Short: short, Example: example, Args: args,
		Annotations: map[string]string{annotationTool: name},
		RunE: func(c *cobra.Command, args []string) error {
			if err := collectArgs(c, f.IO.In, opts, []string{"task_id"}, args); err != nil {
				return err
			}
			return callTool(c, f, opts, runF)
		},
	}
	if flags != nil {
		flags(c)
	}
	addArgsFlag(c, opts)
	return c
}
