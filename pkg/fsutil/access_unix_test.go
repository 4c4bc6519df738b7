//go:build unix

package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcode-dev/mcode/internal/nobody"
)

// A file the caller may not write is never replaced, though its folder
// would allow the rename: read-only (0444), another user's 0644, through
// a symlink to either. Root may write anything, so as root the check runs
// again as nobody.
func TestReplaceRefusesUnwritableFile(t *testing.T) {
	if dir := nobody.Dir(); dir != "" {
		checkUnwritable(t, filepath.Join(dir, "w"), "ro.txt", "other.txt", "link-ro", "link-other")
		return
	}
	if os.Geteuid() != 0 {
		dir := t.TempDir()
		mustWrite(t, filepath.Join(dir, "ro.txt"), 0o444)
		if err := os.Symlink("ro.txt", filepath.Join(dir, "link-ro")); err != nil {
			t.Fatal(err)
		}
		checkUnwritable(t, dir, "ro.txt", "link-ro")
		return
	}
	dir := nobody.TempDir(t)
	w := filepath.Join(dir, "w")
	if err := os.Mkdir(w, 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(w, "ro.txt"), 0o444)
	mustWrite(t, filepath.Join(w, "other.txt"), 0o644) // root's
	mustWrite(t, filepath.Join(w, "mine.txt"), 0o644)
	for _, p := range []string{w, filepath.Join(w, "ro.txt"), filepath.Join(w, "mine.txt")} {
		if err := os.Lchown(p, nobody.UID, nobody.GID); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"link-ro": "ro.txt", "link-other": "other.txt"} {
		if err := os.Symlink(to, filepath.Join(w, link)); err != nil {
			t.Fatal(err)
		}
	}
	nobody.Run(t, dir, "TestReplaceRefusesUnwritableFile")
}

func mustWrite(t *testing.T, path string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte("old\n"), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

func checkUnwritable(t *testing.T, dir string, names ...string) {
	for _, name := range names {
		p := filepath.Join(dir, name)
		err := WriteFileAtomic(p, []byte("new\n"), 0o644)
		if !errors.Is(err, fs.ErrPermission) {
			t.Errorf("%s: err = %v, want a permission error", name, err)
		}
		if data, _ := os.ReadFile(p); string(data) != "old\n" {
			t.Errorf("%s now holds %q", name, data)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name()[0] == '.' {
			t.Errorf("a temp file was left behind: %s", e.Name())
		}
	}
	// The caller's own file is still replaced.
	if mine := filepath.Join(dir, "mine.txt"); fileThere(mine) {
		if err := WriteFileAtomic(mine, []byte("new\n"), 0o644); err != nil {
			t.Errorf("mine.txt: %v", err)
		}
	}
}

func fileThere(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
