//go:build !linux

package search

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Elsewhere than Linux the walk uses the os package: the same results,
// without the getdents and openat shortcuts.

type dirHandle struct {
	path string
}

func openDirHandle(path string) (dirHandle, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return dirHandle{}, err
	}
	if !fi.IsDir() {
		return dirHandle{}, &fs.PathError{Op: "open", Path: path, Err: fs.ErrInvalid}
	}
	return dirHandle{path: path}, nil
}

// openDirPath is openDirHandle for a NUL-terminated path.
func openDirPath(pathz []byte) (dirHandle, error) {
	return openDirHandle(string(pathz[:max(0, len(pathz)-1)]))
}

func (d dirHandle) close() {}

func (d dirHandle) readEntries(buf []byte, fn func(name []byte, typ entryType)) ([]byte, error) {
	f, err := os.Open(d.path)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	for _, e := range entries {
		fn([]byte(e.Name()), modeType(e.Type()))
	}
	return buf, err
}

func modeType(m fs.FileMode) entryType {
	switch {
	case m.IsRegular():
		return typeFile
	case m.IsDir():
		return typeDir
	case m&fs.ModeSymlink != 0:
		return typeSymlink
	}
	return typeOther
}

func (d dirHandle) lstat(name string) (entryType, int64, int64, error) {
	fi, err := os.Lstat(filepath.Join(d.path, name))
	if err != nil {
		return typeOther, 0, 0, err
	}
	return modeType(fi.Mode()), fi.ModTime().UnixNano(), fi.Size(), nil
}

func (d dirHandle) readFile(name string, buf []byte, maxSize int64, wantStat bool) (data, scratch []byte, info fileInfo, err error) {
	p := filepath.Join(d.path, name)
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, buf, info, err
	}
	info = fileInfo{typ: modeType(fi.Mode()), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if info.typ != typeFile || fi.Size() > maxSize {
		return nil, buf, info, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, buf, info, err
	}
	defer f.Close()
	if int64(cap(buf)) < fi.Size()+1 {
		buf = make([]byte, fi.Size()+1)
	}
	buf = buf[:cap(buf)]
	limit := int(min(int64(len(buf)), maxSize+1))
	n, err := io.ReadFull(f, buf[:limit])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, buf, info, err
	}
	info.size = int64(n)
	if int64(n) > maxSize {
		return nil, buf, info, nil
	}
	return buf[:n], buf, info, nil
}
