// Package peer finds the programs tests compare mcode against (git,
// ripgrep, fd, trash-cli, GNU time). A missing peer skips the test, or
// fails it when MCODE_REQUIRE_PEERS=1, as scripts/test.sh and CI set:
// there the peers are installed and a skip would hide a lost check.
//
// The slow peers — LibreOffice, and Node with the npm packages — belong
// to the full loop (scripts/test.sh): under go test -short a test that
// needs one skips, whatever is installed, so the developer's loop stays
// fast.
package peer

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fullLoopOnly are the peers that run in the full loop only.
var fullLoopOnly = map[string]bool{"soffice": true, "libreoffice": true, "npm": true, "node": true, "npx": true}

// skipInShortLoop skips t under go test -short when it needs a slow peer.
func skipInShortLoop(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s is a peer of the full loop (scripts/test.sh); skipped under -short", what)
	}
}

// Require returns the path of the program name, which the Debian package
// pkg provides, or skips (or fails) t.
func Require(t testing.TB, name, pkg string) string {
	t.Helper()
	if fullLoopOnly[name] {
		skipInShortLoop(t, name)
	}
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
	if strings.HasPrefix(pkg, "libreoffice") {
		skipInShortLoop(t, pkg)
	}
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if os.Getenv("MCODE_REQUIRE_PEERS") == "1" {
		t.Fatalf("peer file %s is required (MCODE_REQUIRE_PEERS=1) but missing: scripts/peers.sh installs it (apt-get install %s)", path, pkg)
	}
	t.Skipf("peer file %s is missing (scripts/peers.sh, or apt-get install %s); skipping", path, pkg)
	return ""
}

// NPM returns the path of rel inside the npm peers that scripts/peers.sh
// installs (MCODE_NPM_PEERS_DIR, default ~/.cache/mcode-peers/npm), e.g.
// "@modelcontextprotocol/server-everything/dist/index.js", or skips (or
// fails) t.
func NPM(t testing.TB, rel string) string {
	t.Helper()
	skipInShortLoop(t, "npm package "+rel)
	dir := NPMDir()
	p := filepath.Join(dir, "node_modules", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if os.Getenv("MCODE_REQUIRE_PEERS") == "1" {
		t.Fatalf("npm peer %s is required (MCODE_REQUIRE_PEERS=1) but not installed in %s: scripts/peers.sh installs it", rel, dir)
	}
	t.Skipf("npm peer %s is not installed in %s (scripts/peers.sh installs it); skipping", rel, dir)
	return ""
}

// NPMDir is the folder scripts/peers.sh installs the npm peers into, for
// a test that hands it to a Node program (which imports from it).
func NPMDir() string {
	if dir := os.Getenv("MCODE_NPM_PEERS_DIR"); dir != "" {
		return dir
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = filepath.Join(os.Getenv("HOME"), ".cache")
	}
	return filepath.Join(cache, "mcode-peers", "npm")
}
