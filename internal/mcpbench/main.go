// Command mcpbench is the benchmarks' MCP helper (scripts/bench.sh, P13):
//
//	mcpbench serve            an MCP server over stdio (mcptest; MCPTEST_MODE, MCPTEST_COUNT)
//	mcpbench list CMD ARGS…   the bare go-sdk client: start CMD, connect, list every tool, print the count
//	mcpbench read N FILE CMD ARGS…   the go-sdk client: start CMD (mcode mcp serve), call read on FILE N times, one after another (P17)
//
// The second is the floor mcode's cold `connector tools` is compared with.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcode-dev/mcode/internal/mcptest"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mcpbench serve | mcpbench list CMD [ARGS...]")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		code, ok := mcptest.Main()
		if !ok {
			fmt.Fprintln(os.Stderr, "mcpbench serve: set", mcptest.ModeVar)
			code = 2
		}
		os.Exit(code)
	case "list":
		if len(os.Args) < 3 {
			fmt.Fprintln(os.Stderr, "usage: mcpbench list CMD [ARGS...]")
			os.Exit(2)
		}
		n, err := list(os.Args[2], os.Args[3:])
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpbench list:", err)
			os.Exit(1)
		}
		fmt.Println(n)
	case "read":
		if len(os.Args) < 5 {
			fmt.Fprintln(os.Stderr, "usage: mcpbench read N FILE CMD [ARGS...]")
			os.Exit(2)
		}
		n, err := strconv.Atoi(os.Args[2])
		if err == nil {
			err = read(n, os.Args[3], os.Args[4], os.Args[5:])
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpbench read:", err)
			os.Exit(1)
		}
	default:
		fmt.Fprintf(os.Stderr, "mcpbench: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
}

func list(command string, args []string) (int, error) {
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "1"}, nil)
	cmd := exec.Command(command, args...)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return 0, err
	}
	// The floor: the server is killed as soon as the list is in, where
	// CommandTransport would wait up to 5 s for it to leave.
	defer func() { _ = cmd.Process.Kill(); _ = cs.Close() }()
	n := 0
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

func read(n int, file, command string, args []string) error {
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(command, args...)}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": file}}
	for range n {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("read failed: %v", res.Content)
		}
	}
	return nil
}
