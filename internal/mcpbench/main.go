// Command mcpbench is a second P17 client for scripts/bench.sh (beside the
// TypeScript SDK's): the go-sdk client over stdio to `MCODE mcp serve`,
// calling read on FILE N times, one after another.
//
//	mcpbench MCODE FILE N
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: mcpbench MCODE FILE N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench: N:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(os.Args[1], "mcp", "serve")}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench:", err)
		os.Exit(1)
	}
	params := &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": os.Args[2]}}
	for range n {
		if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
			fmt.Fprintln(os.Stderr, "mcpbench: call failed:", err)
			os.Exit(1)
		}
	}
	_ = cs.Close()
}
