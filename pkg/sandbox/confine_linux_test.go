//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcode-dev/mcode/pkg/config"
)

// TestStartConfinesOnlyWhatItStarts: the child is confined; this process,
// every thread of it, is not (a supervisor goes on writing its records
// wherever they are).
func TestStartConfinesOnlyWhatItStarts(t *testing.T) {
	if LandlockABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	root, home := layout(t)
	out := outsideTmp(t)
	p := New(Inputs{Root: root, UserHome: home, Config: config.Defaults().Sandbox, Getenv: getenvOf(map[string]string{"HOME": home})})
	for i := range 3 { // a second and third start, on threads of their own
		cmd := exec.Command("/bin/sh", "-c", "echo x > "+out+"/child; echo y > "+root+"/inside; echo z > .git/hooks/pre-commit")
		cmd.Dir = root
		applied, release, err := Start(p.Plan(), cmd.Start)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		release()
		if applied.LandlockABI != LandlockABI() || !applied.Seccomp && seccompSupported {
			t.Errorf("applied: %+v", applied)
		}
		if _, err := os.Stat(filepath.Join(out, "child")); err == nil {
			t.Fatalf("run %d: the child wrote outside the writable set", i)
		}
		if _, err := os.Stat(filepath.Join(root, "inside")); err != nil {
			t.Errorf("run %d: the child could not write in the workspace: %v", i, err)
		}
		if os.Getuid() == 0 {
			if !applied.Mounts {
				t.Errorf("run %d: as root the protected paths are held by mounts: %s", i, applied.MountError)
			}
			if _, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit")); err == nil {
				t.Errorf("run %d: the child planted a hook", i)
			}
		}
		var wg sync.WaitGroup
		errs := make(chan error, 32)
		for j := range 32 { // on whatever threads the runtime has
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- os.WriteFile(filepath.Join(out, "parent"+string(rune('a'+j))), []byte("ok"), 0o644)
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("run %d: this process was confined too: %v", i, err)
			}
		}
	}
}
