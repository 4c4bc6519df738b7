package cmd

import (
	"fmt"
	"os"

	"github.com/mcode-dev/mcode/pkg/connector"
	"github.com/mcode-dev/mcode/pkg/exec"
)

// hiddenCommands are the processes mcode starts itself as, by a hidden
// first argument. They are not cobra commands: Main runs them before the
// command tree and the config are built (a supervisor starts on every
// bash call). Each is the process's main: its arguments, what it prints
// and its exit status; the work is the package's.
var hiddenCommands = map[string]func(args []string) int{
	exec.SupervisorArg:  supervisorMain,
	connector.WardenArg: wardenMain,
}

// supervisorMain is a bash call's supervisor: `mcode __exec-supervisor
// [TASKDIR]`, its control pipe on stdin and its events pipe on fd 3.
func supervisorMain(args []string) int {
	if len(args) > 1 {
		fmt.Fprintf(os.Stderr, "usage: mcode %s [TASKDIR]\n", exec.SupervisorArg)
		return 2
	}
	return exec.Supervise(exec.SupervisorStreams())
}

// wardenMain is the warden of one stdio MCP server: `mcode
// __mcp-server-warden COMMAND ARGS…`.
func wardenMain(args []string) int {
	if len(args) == 0 {
		fmt.Fprintf(os.Stderr, "usage: mcode %s COMMAND [ARGS...]\n", connector.WardenArg)
		return 2
	}
	status, err := connector.Ward(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcode:", err)
		return 127
	}
	return status
}
