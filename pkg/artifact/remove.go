package artifact

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// renameAside replaces dest where the file system cannot swap two names:
// dest moves aside, the new tree moves in, and the old one is left at
// tmp; if the second rename fails, dest moves back.
func renameAside(tmp, dest string) (bool, error) {
	if _, err := os.Lstat(dest); errors.Is(err, fs.ErrNotExist) {
		return false, os.Rename(tmp, dest)
	}
	aside := tmp + ".old"
	if err := os.Rename(dest, aside); err != nil {
		return false, err
	}
	if err := os.Rename(tmp, dest); err != nil {
		_ = os.Rename(aside, dest)
		return false, err
	}
	return true, os.Rename(aside, tmp)
}

// removeAll removes a tree that extract made, read-only folders too.
func removeAll(p string) {
	if os.RemoveAll(p) == nil {
		return
	}
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(q, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(p)
}
