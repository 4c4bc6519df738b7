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
		toolCommand(f, runF, todo.WriteName, "write", "Replace the todo list (the whole list each time) and say what changed",
			`  mcode todo write --args '{"todos":[{"content":"Run the tests","status":"in_progress","active_form":"Running the tests"},{"content":"Update the README","status":"pending"}]}'
  MCODE_SESSION=review-42 mcode todo write --args @todos.json`, cobra.NoArgs, nil, nil),
		toolCommand(f, runF, todo.ReadName, "list", "Show the todo list as a checklist", "  mcode todo list", cobra.NoArgs, nil, nil),
	)
	return c
}

// toolCommand builds a subcommand that calls one tool: positionals fill
// fields in order, flags fill the fields they are named after.
func toolCommand(f *Factory, runF func(*CallOptions) error, name, use, short, example string, args cobra.PositionalArgs, fields []string, flags func(*cobra.Command)) *cobra.Command {
	opts := &CallOptions{Tool: name}
	c := &cobra.Command{
		Use: use, Short: short, Example: example, Args: args,
		Annotations: map[string]string{annotationTool: name},
		RunE: func(c *cobra.Command, args []string) error {
			if err := collectArgs(c, f.IO.In, opts, fields, args); err != nil {
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
