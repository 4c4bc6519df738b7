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
	for attempt := 0; attempt < 16; attempt++ {
		final := filepath.Join(dir, prefix+RandomHex(4)+suffix)
		err := WriteFileExclusive(final, data, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		return final, nil
	}
	return "", fmt.Errorf("no free name in %s", dir)
}

// WriteFileExclusive creates path with data and perm (before umask), failing
// with an error that matches fs.ErrExist when the name is taken: the name is
// reserved the way O_EXCL would, and a reader never sees half the data.
// It writes a temp file and hard-links it to path (link(2) never replaces a
// name); where the file system has no hard links it falls back to O_EXCL.
func WriteFileExclusive(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
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
		return err
	}
	err = os.Link(tmp.Name(), path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		if err == nil {
			syncDir(dir)
		}
		return err
	}
	return writeExcl(path, data, perm)
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
