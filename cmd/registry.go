package cmd

import (
	"github.com/mcode-dev/mcode/pkg/datetime"
	"github.com/mcode-dev/mcode/pkg/exec"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// builtinTools lists every built-in tool, in the order tools list shows them.
func builtinTools() []*tool.Tool {
	return []*tool.Tool{
		datetime.Tool(),
		exec.Tool(exec.Options{}),
		exec.TaskListTool(), exec.TaskOutputTool(), exec.TaskWaitTool(), exec.TaskStopTool(),
	}
}
