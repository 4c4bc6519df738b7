package search

import (
	"bytes"
	"unsafe"

	"golang.org/x/sys/unix"
)

// On Linux a folder is read once with getdents64 into a reused buffer
// (names and types, no stat per entry) and its files are opened relative
// to the folder's descriptor with openat, bypassing os.File (whose poller
// registration costs a syscall per regular file) and path lookups from /.

type dirHandle struct {
	fd int
}

func openDirHandle(path string) (dirHandle, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return dirHandle{fd: -1}, err
	}
	return dirHandle{fd: fd}, nil
}

// openDirPath is openDirHandle for a path held NUL-terminated in a
// reused buffer: the walk opens every folder so, without building (and
// converting) a string for each.
func openDirPath(pathz []byte) (dirHandle, error) {
	if bytes.IndexByte(pathz, 0) != len(pathz)-1 {
		return dirHandle{fd: -1}, unix.EINVAL // no NUL, or one inside: another path
	}
	cwd := unix.AT_FDCWD
	for {
		fd, _, errno := unix.Syscall6(unix.SYS_OPENAT, uintptr(cwd), uintptr(unsafe.Pointer(&pathz[0])),
			uintptr(unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC), 0, 0, 0)
		switch errno {
		case 0:
			return dirHandle{fd: int(fd)}, nil
		case unix.EINTR:
			continue
		}
		return dirHandle{fd: -1}, errno
	}
}

func (d dirHandle) close() { _ = unix.Close(d.fd) }

// readEntries calls fn for every entry but "." and "..". buf is scratch
// space, returned (grown) for reuse.
func (d dirHandle) readEntries(buf []byte, fn func(name []byte, typ entryType)) ([]byte, error) {
	if cap(buf) < 32<<10 {
		buf = make([]byte, 32<<10)
	}
	buf = buf[:cap(buf)]
	for {
		n, err := unix.Getdents(d.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return buf, err
		}
		if n <= 0 {
			return buf, nil
		}
		for off := 0; off < n; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(*(*uint16)(unsafe.Pointer(&buf[off+16])))
			if reclen <= 0 || off+reclen > n {
				return buf, unix.EIO
			}
			typ := buf[off+18]
			name := buf[off+19 : off+reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			off += reclen
			if len(name) == 0 || (name[0] == '.' && (len(name) == 1 || (len(name) == 2 && name[1] == '.'))) {
				continue
			}
			var t entryType
			switch typ {
			case unix.DT_REG:
				t = typeFile
			case unix.DT_DIR:
				t = typeDir
			case unix.DT_LNK:
				t = typeSymlink
			case unix.DT_UNKNOWN:
				t = typeUnknown
			default:
				t = typeOther
			}
			fn(name, t)
		}
	}
}

// lstat gives the type, modification time (ns) and size of an entry
// without following a symlink.
func (d dirHandle) lstat(name string) (entryType, int64, int64, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return typeOther, 0, 0, err
	}
	return modeType(st.Mode), st.Mtim.Nano(), st.Size, nil
}

func modeType(mode uint32) entryType {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return typeFile
	case unix.S_IFDIR:
		return typeDir
	case unix.S_IFLNK:
		return typeSymlink
	}
	return typeOther
}

// readFile reads the regular file name into buf (grown as needed, and
// returned for reuse; firstReadSize when it has no room at all) if it is
// at most maxSize bytes. A read of a regular
// file returns less than asked only at its end, so most files cost one
// openat, one read and one close: fstat runs only when the first read
// fills the buffer (to learn the size) or when the caller needs the
// modification time. O_NONBLOCK keeps a FIFO that replaced a file since
// its folder was read from blocking the open.
func (d dirHandle) readFile(name string, buf []byte, maxSize int64, wantStat bool) (data, scratch []byte, info fileInfo, err error) {
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	for err == unix.EINTR {
		fd, err = unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	}
	if err != nil {
		return nil, buf, info, err
	}
	defer unix.Close(fd)
	info.typ = typeFile
	stat := func() error {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return err
		}
		info = fileInfo{typ: modeType(st.Mode), size: st.Size, mtime: st.Mtim.Nano()}
		return nil
	}
	if wantStat {
		if err := stat(); err != nil {
			return nil, buf, info, err
		}
		if info.typ != typeFile || info.size > maxSize {
			return nil, buf, info, nil
		}
	}
	if cap(buf) == 0 {
		buf = make([]byte, firstReadSize)
	}
	buf = buf[:cap(buf)]
	n, statted := 0, wantStat
	for {
		if n == len(buf) {
			if !statted {
				if err := stat(); err != nil {
					return nil, buf, info, err
				}
				statted = true
				if info.typ != typeFile || info.size > maxSize {
					return nil, buf, info, nil
				}
			}
			if int64(n) > maxSize {
				info.size = int64(n)
				return nil, buf, info, nil // it grew past the limit while read
			}
			grown := make([]byte, min(max(2*len(buf), int(info.size)+1), int(maxSize)+1))
			copy(grown, buf[:n])
			buf = grown
		}
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, buf, info, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	info.size = int64(n)
	return buf[:n], buf, info, nil
}

// firstReadSize covers most source files in one read.
const firstReadSize = 256 << 10
