//go:build !linux

package trash

import (
	"io/fs"
	"time"
)

// accessTime is the mtime where the atime is not at hand.
func accessTime(info fs.FileInfo) time.Time { return info.ModTime() }
