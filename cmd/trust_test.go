package cmd

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCallerWritableFollowsTheSandbox: a user config that
// XDG_CONFIG_HOME moves into a place a sandboxed command can write (a
// toolchain cache in the home folder) is the caller's, not the
// person's; the home's own config folder is not writable to it. The
// folders lie outside /tmp, which is writable as a whole.
func TestCallerWritableFollowsTheSandbox(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.MkdirTemp(cwd, ".trust-test-")
	if err != nil {
		t.Skipf("no folder outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if real, err := filepath.EvalSymlinks(base); err == nil {
		for _, tmp := range []string{"/tmp", "/var/tmp", "/dev/shm", os.TempDir()} {
			if withinDir(real, tmp) {
				t.Skipf("the checkout lies in %s, which a command can write as a whole: no folder outside it here", tmp)
			}
		}
	}
	home, ws := filepath.Join(base, "home"), filepath.Join(base, "ws")
	for _, d := range []string{filepath.Join(home, ".cache", "evil", "mcode"), filepath.Join(home, ".config", "mcode"), ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := factoryIn(ws, map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".cache", "evil")})
	for path, want := range map[string]bool{
		filepath.Join(home, ".cache", "evil", "mcode"): true,
		filepath.Join(ws, ".mcode"):                    true,
		filepath.Join(home, ".config", "mcode"):        false,
	} {
		if got := f.callerWritable(path); got != want {
			t.Errorf("callerWritable(%s) = %v, want %v", path, got, want)
		}
	}
	f.Trusted.UserDir = "" // the seam off: what the environment says is weighed
	fromEnv, trusted, relocated := f.userConfigDirs()
	if fromEnv != filepath.Join(home, ".cache", "evil", "mcode") || relocated != fromEnv || trusted == fromEnv {
		t.Errorf("userConfigDirs = %q, %q, %q: the config in a cache must not be the person's", fromEnv, trusted, relocated)
	}
}
