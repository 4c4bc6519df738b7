//go:build !unix

package edit

import "testing"

// mkfifo skips the test: there are no named pipes in the file system here.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	t.Skip("no named pipes in this platform's file system")
}
