package cmd

import (
	"github.com/mcode-dev/mcode/pkg/datetime"
	"github.com/mcode-dev/mcode/pkg/edit"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// builtinTools lists every built-in tool, in the order tools list shows them.
func builtinTools() []*tool.Tool {
	return []*tool.Tool{
		datetime.Tool(),
		edit.WriteTool(),
		edit.EditTool(),
	}
}
