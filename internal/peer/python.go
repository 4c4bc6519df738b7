package peer

import (
	"os"
	"os/exec"
	"testing"
)

// RequirePython returns a python3 that imports module (which the Debian
// package pkg provides), or skips (or fails) t like Require. Debian's
// /usr/bin/python3 is tried first: a python3 earlier on PATH (pyenv, a
// virtualenv) may lack the Debian packages.
func RequirePython(t testing.TB, module, pkg string) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if p, err := exec.LookPath(py); err == nil && exec.Command(p, "-c", "import "+module).Run() == nil {
			return p
		}
	}
	if os.Getenv("MCODE_REQUIRE_PEERS") == "1" {
		t.Fatalf("peer python3 module %s is required (MCODE_REQUIRE_PEERS=1) but not installed: scripts/peers.sh installs it (apt-get install %s)", module, pkg)
	}
	t.Skipf("python3 module %s is not installed (scripts/peers.sh, or apt-get install %s); skipping", module, pkg)
	return ""
}
