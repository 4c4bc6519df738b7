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
		subToolCommand(f, runF, exec.TaskListName, "list", "List background tasks, newest first", "  mcode task list"),
		taskOutputCommand(f, runF),
		subToolCommand(f, runF, exec.TaskWaitName, "wait ID", "Wait for a task to end and print its output and exit status",
			"  mcode task wait b1a2b3c4 --timeout 30m"),
		subToolCommand(f, runF, exec.TaskStopName, "stop ID", "Stop a task and every process it started",
			"  mcode task stop b1a2b3c4"),
	)
	return c
}

// taskOutputCommand is task output, whose --wait takes a duration.
func taskOutputCommand(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: exec.TaskOutputName}
	c := &cobra.Command{
		Use:   "output ID [flags]",
		Short: "Print what a task wrote since the last read, and its status",
		Example: "  mcode task output b1a2b3c4          # what is new since the last read\n  mcode task output b1a2b3c4 --all\n" +
			"  mcode task output b1a2b3c4 --offset 4096 --wait 30",
		RunE: f.runTool(opts, runF),
	}
	secondsFlag(c, "wait", "wait up to `seconds` for the task to end first")
	return f.toolCommand(c, opts)
}
