// Command mcode is the tool layer for coding agents.
package main

import (
	"os"

	"github.com/mcode-dev/mcode/cmd"
)

func main() { os.Exit(cmd.Main()) }
