// Package fsutil holds the file-system helpers every tool shares: atomic
// writes, path resolution against the workspace root, and the not_found
// error with near names.
package fsutil

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to path through a temp file in the same
// directory, fsync and rename, so a crash leaves the old file or the new
// one, never half of either. The file gets perm (before umask) when it is
// new, and keeps the mode of the file it replaces.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	if info, err := os.Stat(path); err == nil {
		perm = info.Mode().Perm()
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	// CreateTemp makes 0600 files; apply the wanted mode, honouring umask
	// for new files the way open(2) would.
	if err := tmp.Chmod(perm &^ umask()); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	committed = true
	syncDir(dir)
	return nil
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
