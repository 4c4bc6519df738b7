//go:build unix

package search

import (
	"syscall"
	"testing"
)

// mkfifo makes a named pipe at path, or skips where the file system has
// none.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
}
