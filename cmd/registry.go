package cmd

import (
	"github.com/mcode-dev/mcode/pkg/datetime"
	"github.com/mcode-dev/mcode/pkg/edit"
	"github.com/mcode-dev/mcode/pkg/exec"
	"github.com/mcode-dev/mcode/pkg/read"
	"github.com/mcode-dev/mcode/pkg/search"
	"github.com/mcode-dev/mcode/pkg/tool"
	"github.com/mcode-dev/mcode/pkg/trash"
)

// builtinTools lists every built-in tool, in the order tools list shows them.
func builtinTools() []*tool.Tool {
	return []*tool.Tool{
		read.Tool(),
		search.GrepTool(),
		search.GlobTool(),
		edit.WriteTool(),
		edit.EditTool(),
		exec.Tool(exec.Options{}),
		exec.TaskListTool(), exec.TaskOutputTool(), exec.TaskWaitTool(), exec.TaskStopTool(),
		trash.RmTool(terminalAsker),
		trash.ListTool(),
		trash.RestoreTool(),
		trash.EmptyTool(),
		trash.PutTool(),
		datetime.Tool(),
	}
}
