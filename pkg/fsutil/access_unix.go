//go:build unix

package fsutil

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// checkWritable refuses to replace a file the caller may not write. A
// rename over it needs only the folder's permission, so without this a
// 0444 file, or another user's 0644 one, would be replaced and become
// the caller's. The check uses the effective ids, as open(2) would.
func checkWritable(path string) error {
	if err := unix.Faccessat(unix.AT_FDCWD, path, unix.W_OK, unix.AT_EACCESS); err != nil {
		return &fs.PathError{Op: "replace", Path: path, Err: err}
	}
	return nil
}
