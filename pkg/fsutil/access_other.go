//go:build !unix

package fsutil

import (
	"io/fs"
	"os"
)

// checkWritable refuses to replace a read-only file (see access_unix.go).
func checkWritable(path string) error {
	info, err := os.Stat(path)
	if err == nil && info.Mode().Perm()&0o200 == 0 {
		return &fs.PathError{Op: "replace", Path: path, Err: fs.ErrPermission}
	}
	return nil
}
