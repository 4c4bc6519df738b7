//go:build !unix

package fsutil

import "io/fs"

func umask() fs.FileMode { return 0o022 }

// Umask is the process's file-creation mask.
func Umask() fs.FileMode { return umask() }
