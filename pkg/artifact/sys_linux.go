package artifact

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const noFollow = syscall.O_NOFOLLOW

// exchange puts the tree at tmp in place of dest. When dest exists the
// two swap atomically (renameat2 RENAME_EXCHANGE), so that a process
// watching dest sees the old tree or the new one, never a gap; the old
// tree is then at tmp. replaced says dest existed.
func exchange(tmp, dest string) (replaced bool, err error) {
	err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, dest, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.ENOENT):
		if _, serr := os.Lstat(tmp); serr != nil {
			return false, err
		}
		return false, os.Rename(tmp, dest)
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		return renameAside(tmp, dest)
	}
	return false, err
}

func lchtimes(path string, t time.Time) {
	if t.IsZero() {
		return
	}
	ts := []unix.Timespec{unix.NsecToTimespec(t.UnixNano()), unix.NsecToTimespec(t.UnixNano())}
	_ = unix.UtimesNanoAt(unix.AT_FDCWD, path, ts, unix.AT_SYMLINK_NOFOLLOW)
}
