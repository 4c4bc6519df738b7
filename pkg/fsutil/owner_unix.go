//go:build unix

package fsutil

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives the replacement file the owner of the file it replaces.
// Only root may give files away; for anyone else the new file is already
// theirs, and the error is ignored on purpose.
func keepOwner(f *os.File, old fs.FileInfo) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok || (int(st.Uid) == os.Geteuid() && int(st.Gid) == os.Getegid()) {
		return
	}
	_ = f.Chown(int(st.Uid), int(st.Gid))
}
