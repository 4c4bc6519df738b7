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
	return writeFileAtomic(path, data, perm, true)
}

// WriteFileAtomicNoSync is WriteFileAtomic without the fsyncs: readers
// still see the old file or the new one, never half of either, but a power
// loss may lose the write. It suits records read at once and not needed
// after a crash, where an fsync would only add latency.
func WriteFileAtomicNoSync(path string, data []byte, perm fs.FileMode) error {
	return writeFileAtomic(path, data, perm, false)
}

func writeFileAtomic(path string, data []byte, perm fs.FileMode, durable bool) error {
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
	if durable {
		if err := tmp.Sync(); err != nil {
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	committed = true
	if durable {
		syncDir(dir)
	}
	return nil
}

// CreateUnique writes data to a new file in dir whose name is
// prefix + random + suffix, atomically and without ever replacing an
// existing file (a hard link fails when the name is taken).
func CreateUnique(dir, prefix, suffix string, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Chmod(0o644 &^ umask()); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	for attempt := 0; attempt < 16; attempt++ {
		final := filepath.Join(dir, prefix+RandomHex(4)+suffix)
		err := os.Link(tmp.Name(), final)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		syncDir(dir)
		return final, nil
	}
	return "", fmt.Errorf("no free name in %s", dir)
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
