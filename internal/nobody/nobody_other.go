//go:build !unix

// Package nobody lets a test run as root check what an ordinary user
// meets. Here there is no root to leave and no user nobody: the tests
// that need one skip.
package nobody

import (
	"os"
	"testing"
)

// envDir carries the shared folder to the child run.
const envDir = "MCODE_TEST_AS_NOBODY"

// Dir is "": no run here is a child run as nobody.
func Dir() string { return os.Getenv(envDir) }

// TempDir skips the test: there is no user nobody to hand a folder to.
func TempDir(t *testing.T) string {
	t.Helper()
	t.Skip("runs as the Unix user nobody; there is none on this platform")
	return ""
}

// Run skips the test (see TempDir).
func Run(t *testing.T, dir, test string) {
	t.Helper()
	t.Skip("runs as the Unix user nobody; there is none on this platform")
}
