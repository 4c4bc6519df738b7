package cmd

import (
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/todo"
)

// NewCmdTodo builds `mcode todo write|list`: the session's todo list.
func NewCmdTodo(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	c := &cobra.Command{
		Use:   "todo <command>",
		Short: "The session's todo list: write the whole list, or list it",
		Args:  cobra.NoArgs,
	}
	c.AddCommand(
		subToolCommand(f, runF, todo.WriteName, "write", "Replace the todo list (the whole list each time) and say what changed",
			`  mcode todo write --args '{"todos":[{"content":"Run the tests","status":"in_progress","active_form":"Running the tests"},{"content":"Update the README","status":"pending"}]}'
  MCODE_SESSION=review-42 mcode todo write --args @todos.json`),
		subToolCommand(f, runF, todo.ReadName, "list", "Show the todo list as a checklist", "  mcode todo list"),
	)
	return c
}

// subToolCommand builds a subcommand that calls one tool, its flags and
// positionals derived from the tool's parameters.
func subToolCommand(f *Factory, runF func(*CallOptions) error, name, use, short, example string) *cobra.Command {
	opts := &CallOptions{Tool: name}
	c := &cobra.Command{Use: use, Short: short, Example: example, RunE: f.runTool(opts, runF)}
	return f.toolCommand(c, opts)
}
