//go:build !linux

package main

import (
	"fmt"
	"os"
)

func ptyRun() int {
	fmt.Fprintln(os.Stderr, "ptyrun: pseudo-terminals are opened on Linux only")
	return 2
}
