//go:build unix

package fsutil

import (
	"os"
	"syscall"
)

// openReadFlags open without blocking (a FIFO) and without taking a
// terminal as the controlling one.
const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
