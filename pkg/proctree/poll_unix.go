//go:build unix

package proctree

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// WaitReadable waits, at most timeout, until a read of f would not
// block: data, or the end of the stream, is there. It reads nothing, so a
// reader that counts what it reads can hold a lock over the read alone.
func WaitReadable(f *os.File, timeout time.Duration) (ready bool, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	n, perr := 0, error(nil)
	if err := rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if n, perr = unix.Poll(fds, int(timeout.Milliseconds())); perr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return false, err
	}
	return n > 0, perr
}
