// Package fsutil holds the file-system helpers every tool shares: atomic
// writes, path resolution against the workspace root, and the not_found
// error with near names.
package fsutil

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// maxLinks is how many symlinks ResolveLink follows before it gives up,
// as the kernel does (ELOOP).
const maxLinks = 40

// ResolveLink follows path through symlinks to the file a write must
// replace. Unlike filepath.EvalSymlinks it also resolves a dangling link,
// to the missing target that writing through the link would create. A
// path that does not exist is returned as it is.
func ResolveLink(path string) (string, error) {
	for range maxLinks {
		info, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			// Resolve the link's own folder first, so that ".." in the
			// link climbs out of the real folder, as the kernel does.
			dir := filepath.Dir(path)
			if real, err := filepath.EvalSymlinks(dir); err == nil {
				dir = real
			}
			dest = filepath.Join(dir, dest)
		}
		path = dest
	}
	return "", &fs.PathError{Op: "resolve", Path: path, Err: syscall.ELOOP}
}

// WriteFileAtomic writes data to path through a temp file in the same
// directory, fsync and rename, so a crash leaves the old file or the new
// one, never half of either. The file gets perm (before umask) when it is
// new, and keeps the mode (and, where allowed, the owner) of the file it
// replaces. A symlink is followed: its target is written, the link stays.
// A file the caller may not write is not replaced (an error matching
// fs.ErrPermission), though the folder would allow the rename.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return WriteAtomic(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic is WriteFileAtomic for content that write produces, so a
// large file can be written from its pieces without joining them first.
func WriteAtomic(path string, perm fs.FileMode, write func(io.Writer) error) error {
	return writeAtomic(path, perm, true, write)
}

// WriteFileAtomicNoSync is WriteFileAtomic without the fsyncs: readers
// still see the old file or the new one, never half of either, but a power
// loss may lose the write. It suits records read at once and not needed
// after a crash, where an fsync would only add latency.
func WriteFileAtomicNoSync(path string, data []byte, perm fs.FileMode) error {
	return writeAtomic(path, perm, false, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// CreateFileAtomic is WriteFileAtomic for a file that must not exist yet:
// if path (or a symlink's target) exists when the new file would take its
// place, nothing is written and the error satisfies errors.Is(err,
// fs.ErrExist).
func CreateFileAtomic(path string, data []byte, perm fs.FileMode) error {
	path, err := ResolveLink(path)
	if err != nil {
		return err
	}
	return WriteFileExclusive(path, data, perm)
}

// keptMode is the part of a replaced file's mode its replacement gets:
// the permissions and the setuid, setgid and sticky bits.
const keptMode = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

func writeAtomic(path string, perm fs.FileMode, durable bool, write func(io.Writer) error) error {
	st, err := stage(path, perm, durable, write)
	if err != nil {
		return err
	}
	if err := st.Place(); err != nil {
		st.Discard()
		return err
	}
	if durable {
		syncDir(st.dir)
	}
	return nil
}

// Staged is a file's new content written (and made durable) under a temp
// name beside it, not yet in its place: what WriteAtomic does before its
// rename. A caller that writes many files stages them all, places them,
// then syncs each folder once with SyncDirs, so that a failure while
// writing leaves every file as it was and N files in one folder cost one
// folder fsync instead of N.
type Staged struct {
	tmp, path, dir string
	placed         bool
}

// Stage writes what write produces to a temp file beside path (followed
// through symlinks) with the mode and owner WriteAtomic would give it,
// and fsyncs it. Place puts it at path; Discard removes it.
func Stage(path string, perm fs.FileMode, write func(io.Writer) error) (*Staged, error) {
	return stage(path, perm, true, write)
}

func stage(path string, perm fs.FileMode, durable bool, write func(io.Writer) error) (*Staged, error) {
	path, err := ResolveLink(path)
	if err != nil {
		return nil, err
	}
	old, err := os.Stat(path)
	switch {
	case err == nil:
		if err := checkWritable(path); err != nil {
			return nil, err
		}
		perm = old.Mode() & keptMode
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	default:
		perm &^= umask()
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	st := &Staged{tmp: tmp.Name(), path: path, dir: dir}
	if err := fill(tmp, old, perm, durable, write); err != nil {
		tmp.Close()
		st.Discard()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		st.Discard()
		return nil, err
	}
	return st, nil
}

// fill writes the temp file's content, owner and mode, and fsyncs it.
func fill(tmp *os.File, old fs.FileInfo, perm fs.FileMode, durable bool, write func(io.Writer) error) error {
	if err := write(tmp); err != nil {
		return err
	}
	// The owner first: a chown clears the setuid and setgid bits.
	if old != nil {
		keepOwner(tmp, old)
	}
	// CreateTemp makes 0600 files; apply the wanted mode.
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if durable {
		return tmp.Sync()
	}
	return nil
}

// Path is the file the staged content replaces (symlinks followed).
func (s *Staged) Path() string { return s.path }

// Place renames the staged file over its path.
func (s *Staged) Place() error {
	if err := os.Rename(s.tmp, s.path); err != nil {
		return err
	}
	s.placed = true
	return nil
}

// Discard removes the temp file of content not placed.
func (s *Staged) Discard() {
	if !s.placed {
		os.Remove(s.tmp)
	}
}

// SyncDirs fsyncs the folder of every staged file placed, each folder
// once, so that the renames survive a crash.
func SyncDirs(staged []*Staged) {
	done := map[string]bool{}
	for _, s := range staged {
		if s != nil && s.placed && !done[s.dir] {
			done[s.dir] = true
			syncDir(s.dir)
		}
	}
}

// CreateUnique writes data to a new file in dir whose name is
// prefix + random + suffix, atomically and without ever replacing an
// existing file.
func CreateUnique(dir, prefix, suffix string, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tries := 0
	name, err := WriteFileFirstFree(dir, data, 0o644, func() (string, bool) {
		tries++
		return prefix + RandomHex(4) + suffix, tries <= 16
	})
	if errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("no free name in %s", dir)
	}
	return filepath.Join(dir, name), err
}

// WriteFileExclusive creates path with data and perm (before umask), failing
// with an error that matches fs.ErrExist when the name is taken: the name is
// reserved the way O_EXCL would, and a reader never sees half the data.
func WriteFileExclusive(path string, data []byte, perm fs.FileMode) error {
	first := true
	_, err := WriteFileFirstFree(filepath.Dir(path), data, perm, func() (string, bool) {
		ok := first
		first = false
		return filepath.Base(path), ok
	})
	return err
}

// WriteFileFirstFree writes data once to a temp file in dir, then gives it
// the first name from next that is free, and returns that name; when next
// runs out (ok false) the error matches fs.ErrExist. A name is taken with
// link(2), which never replaces one, so it is reserved as O_EXCL would and
// appears with all its data; where the file system has no hard links it
// falls back to O_EXCL and a write.
func WriteFileFirstFree(dir string, data []byte, perm fs.FileMode, next func() (name string, ok bool)) (string, error) {
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm &^ umask())
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	for {
		name, ok := next()
		if !ok {
			return "", fmt.Errorf("%s: %w", dir, fs.ErrExist)
		}
		path := filepath.Join(dir, name)
		err := os.Link(tmp.Name(), path)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			err = writeExcl(path, data, perm)
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if err != nil {
				return "", err
			}
			return name, nil
		}
		syncDir(dir)
		return name, nil
	}
}

// writeExcl is WriteFileExclusive for file systems without hard links
// (FAT, some FUSE mounts): O_EXCL reserves the name, and a failed write
// removes the half-written file.
func writeExcl(path string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// RandomHex returns 2n random hex digits.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
