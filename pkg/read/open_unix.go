//go:build unix

package read

import (
	"os"
	"syscall"
)

// openFlags opens without blocking: if the path became a FIFO after the
// stat, open(2) would otherwise wait for a writer forever.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
