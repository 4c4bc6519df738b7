//go:build !unix

package fsutil

import "io/fs"

func umask() fs.FileMode { return 0o022 }
