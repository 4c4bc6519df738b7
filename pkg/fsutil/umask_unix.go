//go:build unix

package fsutil

import (
	"io/fs"
	"sync"

	"golang.org/x/sys/unix"
)

var (
	umaskOnce  sync.Once
	umaskValue fs.FileMode
)

// umask reads the process umask once (reading it means setting it, so it
// is set straight back).
func umask() fs.FileMode {
	umaskOnce.Do(func() {
		old := unix.Umask(0o022)
		unix.Umask(old)
		umaskValue = fs.FileMode(old)
	})
	return umaskValue
}

// Umask is the process's file-creation mask.
func Umask() fs.FileMode { return umask() }
