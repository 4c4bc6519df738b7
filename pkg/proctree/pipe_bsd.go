//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package proctree

import (
	"os"

	"golang.org/x/sys/unix"
)

// fionread is FIONREAD of sys/filio.h, _IOR('f', 127, int), the same on
// macOS and the BSDs (x/sys/unix does not name it there).
const fionread = 0x4004667f

// PipeUnread is how many bytes wait in a pipe to be read.
func PipeUnread(f *os.File) int {
	n := 0
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), fionread) })
	}
	return n
}
