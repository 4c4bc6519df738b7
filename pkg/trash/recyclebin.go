package trash

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf16"
)

// The Windows Recycle Bin: each drive has $Recycle.Bin\SID, one folder per
// user. An item trashed there is renamed to $R and six random characters
// (its extension kept), and described by a record of the same name with
// $I: its size, deletion time and original path. The record's layout is
// documented (and stable since Windows Vista); ParseRecycleRecord reads
// both of its versions. Explorer lists and restores what mcode trashed,
// and mcode what Explorer did.

// Names in a Recycle Bin folder.
const (
	recycleItemPrefix   = "$R"
	recycleRecordPrefix = "$I"
	recycleBinFolder    = "$Recycle.Bin"
	// maxRecycleRecord bounds what is read of a record: version 2 holds a
	// path of at most 32767 UTF-16 units.
	maxRecycleRecord = 28 + 2*32768
)

// RecycleRecord is one $I file.
type RecycleRecord struct {
	// Version is 1 (Windows Vista to 8.1: a fixed MAX_PATH path) or 2
	// (Windows 10 on: the path's length, then the path).
	Version int64
	// Size is the item's size in bytes (a folder's whole content).
	Size    int64
	Deleted time.Time
	Path    string
}

// ErrRecycleRecord is wrapped by every ParseRecycleRecord failure.
var ErrRecycleRecord = errors.New("not a Recycle Bin $I record")

// filetimeEpoch is 1601-01-01 in Unix seconds; FILETIMEs count 100 ns
// units from it.
const filetimeEpoch = -11644473600

// FromFiletime turns a FILETIME into a time (zero for 0).
func FromFiletime(ft uint64) time.Time {
	if ft == 0 {
		return time.Time{}
	}
	return time.Unix(filetimeEpoch+int64(ft/1e7), int64(ft%1e7)*100)
}

// ToFiletime turns a time into a FILETIME.
func ToFiletime(t time.Time) uint64 {
	return uint64(t.Unix()-filetimeEpoch)*1e7 + uint64(t.Nanosecond()/100)
}

// ParseRecycleRecord reads a $I record: an 8-byte version, the 8-byte
// size, the 8-byte FILETIME of deletion (all little-endian), then the
// original path in UTF-16LE ending with a NUL: in version 1, 260 units in
// a fixed field; in version 2, after a 4-byte count of its units (the
// NUL included).
func ParseRecycleRecord(data []byte) (RecycleRecord, error) {
	if len(data) < 24 {
		return RecycleRecord{}, fmt.Errorf("%w: %d bytes, shorter than its 24-byte header", ErrRecycleRecord, len(data))
	}
	r := RecycleRecord{
		Version: int64(binary.LittleEndian.Uint64(data[0:])),
		Size:    int64(binary.LittleEndian.Uint64(data[8:])),
		Deleted: FromFiletime(binary.LittleEndian.Uint64(data[16:])),
	}
	var path []byte
	switch r.Version {
	case 1:
		if len(data) < 24+2*260 {
			return RecycleRecord{}, fmt.Errorf("%w: version 1 with a path field cut short", ErrRecycleRecord)
		}
		path = data[24 : 24+2*260]
	case 2:
		if len(data) < 28 {
			return RecycleRecord{}, fmt.Errorf("%w: version 2 without a path length", ErrRecycleRecord)
		}
		n := binary.LittleEndian.Uint32(data[24:])
		if n == 0 || uint64(n)*2 > uint64(len(data)-28) {
			return RecycleRecord{}, fmt.Errorf("%w: a path of %d units in %d bytes", ErrRecycleRecord, n, len(data)-28)
		}
		path = data[28 : 28+2*int(n)]
	default:
		return RecycleRecord{}, fmt.Errorf("%w: version %d", ErrRecycleRecord, r.Version)
	}
	units := make([]uint16, 0, len(path)/2)
	for i := 0; i+1 < len(path); i += 2 {
		u := binary.LittleEndian.Uint16(path[i:])
		if u == 0 {
			break
		}
		units = append(units, u)
	}
	r.Path = string(utf16.Decode(units))
	if r.Path == "" {
		return RecycleRecord{}, fmt.Errorf("%w: no original path", ErrRecycleRecord)
	}
	return r, nil
}

// recycleBins are the Recycle Bin folders of this user to read: the home
// drive's, then those of the other drives (Can.Mounts) that have one.
func (c *Can) recycleBins() []Dir {
	sid := filepath.Base(c.Home)
	dirs := []Dir{{Path: c.Home, Top: filepath.Dir(filepath.Dir(c.Home)), Home: true, Layout: RecycleBin}}
	mounts := c.Mounts
	if mounts == nil {
		mounts = systemMounts
	}
	for _, top := range mounts() {
		p := filepath.Join(top, recycleBinFolder, sid)
		if strings.EqualFold(filepath.Clean(p), filepath.Clean(c.Home)) {
			continue
		}
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			dirs = append(dirs, Dir{Path: p, Top: top, Layout: RecycleBin})
		}
	}
	return dirs
}

// readRecycleRecord reads and parses one $I file.
func readRecycleRecord(path string) (RecycleRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return RecycleRecord{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRecycleRecord+1))
	if err != nil {
		return RecycleRecord{}, err
	}
	if len(data) > maxRecycleRecord {
		return RecycleRecord{}, fmt.Errorf("%w: larger than %d bytes", ErrRecycleRecord, maxRecycleRecord)
	}
	return ParseRecycleRecord(data)
}

// listRecycleBin lists one Recycle Bin folder: an entry per $I record,
// and a $R item without one as an orphan.
func (c *Can) listRecycleBin(ctx context.Context, d Dir) ([]*Entry, []Problem, error) {
	files, err := os.ReadDir(d.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, []Problem{{Kind: "unreadable", Path: d.Path, Message: err.Error()}}, nil
	}
	var entries []*Entry
	var problems []Problem
	named := map[string]bool{}
	for _, de := range files {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		name, ok := strings.CutPrefix(de.Name(), recycleRecordPrefix)
		if !ok || name == "" || de.IsDir() {
			continue
		}
		path := filepath.Join(d.Path, de.Name())
		rec, err := readRecycleRecord(path)
		if err != nil {
			problems = append(problems, Problem{Kind: "unreadable", Path: path, Message: err.Error()})
			continue
		}
		named[name] = true
		e := newEntry(d, name, rec.Path, rec.Deleted)
		if st, err := de.Info(); err == nil {
			e.written = st.ModTime()
		}
		st, err := os.Lstat(d.files(name))
		switch {
		case err != nil:
			e.Kind = "missing"
		case st.IsDir():
			e.Kind, e.Size = "directory", rec.Size
		default:
			e.Kind, e.Size = kindOf(st.Mode()), st.Size()
		}
		entries = append(entries, e)
	}
	for _, de := range files {
		if name, ok := strings.CutPrefix(de.Name(), recycleItemPrefix); ok && !named[name] {
			problems = append(problems, Problem{Kind: "orphan", Path: filepath.Join(d.Path, de.Name()),
				Message: "a $R item without its $I record, so its original location is unknown"})
		}
	}
	return entries, problems, nil
}

// findRecycled is the entry of the record in d that says path was
// trashed at or after since, the newest if several do: how an item the
// shell just recycled is found.
func (c *Can) findRecycled(ctx context.Context, d Dir, path string, since time.Time) (*Entry, error) {
	entries, _, err := c.listRecycleBin(ctx, d)
	if err != nil {
		return nil, err
	}
	var found *Entry
	for _, e := range entries {
		if !strings.EqualFold(e.original, path) || e.deleted.Before(since.Add(-2*time.Second)) {
			continue
		}
		if found == nil || e.deleted.After(found.deleted) || e.deleted.Equal(found.deleted) && e.written.After(found.written) {
			found = e
		}
	}
	if found == nil {
		return nil, fmt.Errorf("%s left its folder, but no record of it is in %s: Windows may have deleted it for good (too large for the Recycle Bin?)", path, d.Path)
	}
	return found, nil
}
