//go:build unix

package trash

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// fileID is what du uses to count a hard-linked file once.
type fileID struct{ dev, ino uint64 }

// diskBlocks is the space a file takes on disk in bytes (st_blocks × 512,
// as du -B1 counts), its identity, and whether it has other links.
func diskBlocks(info fs.FileInfo) (bytes int64, id fileID, linked bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return info.Size(), fileID{}, false
	}
	return int64(st.Blocks) * 512, fileID{uint64(st.Dev), uint64(st.Ino)}, st.Nlink > 1 && !info.IsDir()
}

// device is the file system a file lives on.
func device(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev)
	}
	return 0
}

func inode(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// writable says whether the caller may write to path (access(2)), as rm
// asks before removing a write-protected file.
func writable(path string) bool {
	return unix.Access(path, unix.W_OK) == nil
}

func getuid() int { return os.Getuid() }

// isCrossDevice reports a rename that must become a copy.
func isCrossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }

func mkfifo(path string) error { return unix.Mkfifo(path, 0o600) }

// preserveOwner keeps uid and gid where the caller may (root); elsewhere
// the copy belongs to the caller, which the spec accepts.
func preserveOwner(path string, info fs.FileInfo, link bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || os.Geteuid() != 0 {
		return
	}
	if link {
		_ = os.Lchown(path, int(st.Uid), int(st.Gid))
		return
	}
	_ = os.Chown(path, int(st.Uid), int(st.Gid))
}

// owner is a file's uid (-1 when unknown).
func owner(info fs.FileInfo) int {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// lchtimes sets a symlink's own times (os.Chtimes would follow it).
func lchtimes(path string, atime, mtime time.Time) error {
	ts := []unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	return unix.UtimesNanoAt(unix.AT_FDCWD, path, ts, unix.AT_SYMLINK_NOFOLLOW)
}

// canRemove says whether the caller may unlink path, as the kernel would
// decide (and rm with it): write and search permission on its folder for
// the effective ids, on a file system mounted read-write, and in a sticky
// folder (/tmp) only the file's owner, the folder's owner or root.
func canRemove(path string) error {
	dir := filepath.Dir(path)
	if err := unix.Faccessat(unix.AT_FDCWD, dir, unix.W_OK|unix.X_OK, unix.AT_EACCESS); err != nil {
		return &os.PathError{Op: "remove", Path: path, Err: err}
	}
	di, err := os.Stat(dir)
	if err != nil || di.Mode()&fs.ModeSticky == 0 {
		return nil
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	if euid := os.Geteuid(); euid != 0 && euid != owner(fi) && euid != owner(di) {
		return &os.PathError{Op: "remove", Path: path, Err: unix.EPERM}
	}
	return nil
}
