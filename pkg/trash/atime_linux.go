package trash

import (
	"io/fs"
	"syscall"
	"time"
)

// accessTime is a file's atime, which a copy keeps.
func accessTime(info fs.FileInfo) time.Time {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Atim.Unix())
	}
	return info.ModTime()
}
