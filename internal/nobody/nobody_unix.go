//go:build unix

// Package nobody lets a test run as root check what an ordinary user
// meets: root passes every permission check, so the test re-runs itself,
// in a copy of the test binary, as the user nobody.
package nobody

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// envDir carries the shared folder to the child run.
const envDir = "MCODE_TEST_AS_NOBODY"

// UID and GID are nobody's ids on Linux.
const (
	UID = 65534
	GID = 65534
)

// Dir is the folder the parent run shared, when this run is the child
// (running as nobody); "" otherwise.
func Dir() string { return os.Getenv(envDir) }

// TempDir makes a folder outside the parent's private temp folders that
// nobody can reach (0755), removed when t ends.
func TempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mcode-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Run runs the test named test in a copy of this test binary as nobody,
// with Dir() returning dir, and fails t if it fails. dir must be
// reachable by nobody (TempDir).
func Run(t *testing.T, dir, test string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, filepath.Base(self))
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	defer os.Remove(bin)
	cmd := exec.Command(bin, "-test.run=^"+test+"$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), envDir+"="+dir, "HOME="+dir, "GOCOVERDIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: UID, Gid: GID}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}
