// Package peer finds the programs tests compare mcode against (git,
// ripgrep, fd, trash-cli, GNU time). A missing peer skips the test, or
// fails it when MCODE_REQUIRE_PEERS=1, as scripts/test.sh and CI set:
// there the peers are installed and a skip would hide a lost check.
package peer

import (
	"os"
	"os/exec"
	"testing"
)

// Require returns the path of the program name, which the Debian package
// pkg provides, or skips (or fails) t.
func Require(t testing.TB, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("MCODE_REQUIRE_PEERS") == "1" {
		t.Fatalf("peer %s is required (MCODE_REQUIRE_PEERS=1) but not installed: scripts/peers.sh installs it (apt-get install %s)", name, pkg)
	}
	t.Skipf("peer %s is not installed (scripts/peers.sh, or apt-get install %s); skipping", name, pkg)
	return ""
}

// RequireFile is Require for a peer known by a file its package installs
// (a library, a Python module, a font) rather than by a program.
func RequireFile(t testing.TB, path, pkg string) string {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if os.Getenv("MCODE_REQUIRE_PEERS") == "1" {
		t.Fatalf("peer file %s is required (MCODE_REQUIRE_PEERS=1) but missing: scripts/peers.sh installs it (apt-get install %s)", path, pkg)
	}
	t.Skipf("peer file %s is missing (scripts/peers.sh, or apt-get install %s); skipping", path, pkg)
	return ""
}
