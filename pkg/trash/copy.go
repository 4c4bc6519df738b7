package trash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// copyTree copies src to dst (which must not exist) without following
// symlinks, keeping modes and times; a directory gets its mode and times
// after its children are in, so a read-only directory can be filled.
func copyTree(ctx context.Context, src, dst string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	info, err := os.Lstat(src)
	if err != nil {
		return err
	}
	mode := info.Mode()
	switch {
	case mode.IsDir():
		if err := os.Mkdir(dst, 0o700); err != nil {
			return err
		}
		entries, err := os.ReadDir(src)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := copyTree(ctx, filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				return err
			}
		}
	case mode&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		if err := os.Symlink(target, dst); err != nil {
			return err
		}
		preserveOwner(dst, info, true)
		return lchtimes(dst, accessTime(info), info.ModTime())
	case mode.IsRegular():
		if err := copyFile(src, dst); err != nil {
			return err
		}
	case mode&fs.ModeNamedPipe != 0:
		if err := mkfifo(dst); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s is a %s, which cannot be copied to another file system", src, kindOf(mode))
	}
	preserveOwner(dst, info, false)
	if err := os.Chmod(dst, mode.Perm()|mode&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
		return err
	}
	return os.Chtimes(dst, accessTime(info), info.ModTime())
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeTree deletes path and everything below it. Where a read-only
// directory stops it (a Go module cache, a copied CD), it makes the
// directories writable and tries again, as rm -rf would get through as
// the owner.
func removeTree(path string) error {
	err := os.RemoveAll(path)
	if err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(path)
}
