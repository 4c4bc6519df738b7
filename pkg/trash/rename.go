package trash

import (
	"errors"
	"io/fs"
	"os"
)

// renameIfFree renames oldpath to newpath after checking that newpath is
// free, where the kernel cannot check it in the rename itself.
func renameIfFree(oldpath, newpath string) error {
	if _, err := os.Lstat(newpath); !errors.Is(err, fs.ErrNotExist) {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fs.ErrExist}
	}
	return os.Rename(oldpath, newpath)
}
