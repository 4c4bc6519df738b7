//go:build unix

package trash

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcode-dev/mcode/internal/nobody"
)

// In a sticky folder (/tmp) only a file's owner, the folder's owner or
// root may remove it: canRemove, which decides before a copy across file
// systems, says so as the kernel would (rm refuses it too).
func TestCanRemoveInStickyFolder(t *testing.T) {
	if dir := nobody.Dir(); dir != "" {
		st := filepath.Join(dir, "st")
		if err := canRemove(filepath.Join(st, "roots.txt")); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("another user's file in a sticky folder: %v, want a permission error", err)
		}
		if err := canRemove(filepath.Join(st, "mine.txt")); err != nil {
			t.Errorf("my own file in a sticky folder: %v", err)
		}
		if err := canRemove(filepath.Join(dir, "ro", "f.txt")); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("a file in a folder I may not write: %v, want a permission error", err)
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to own files as another user")
	}
	dir := nobody.TempDir(t)
	st := filepath.Join(dir, "st")
	ro := filepath.Join(dir, "ro")
	for _, d := range []string{st, ro} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(st, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(st, "roots.txt"), filepath.Join(st, "mine.txt"), filepath.Join(ro, "f.txt")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(filepath.Join(st, "mine.txt"), nobody.UID, nobody.GID); err != nil {
		t.Fatal(err)
	}
	nobody.Run(t, dir, "TestCanRemoveInStickyFolder")
}
