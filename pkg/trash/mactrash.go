package trash

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
)

// The macOS trash: an item goes to ~/.Trash when it is on the home
// volume, to the volume's .Trashes/UID when it is on another, named as
// Finder names a second item of the same name. Finder keeps its "Put
// Back" data in a store of its own, so mcode keeps a record of each item
// it trashed (a .trashinfo with TrashedKey) in Can.Records: trash list
// and restore see what mcode trashed, Finder sees everything.

// volumeTrashes is the folder of per-user trashes at a volume's root.
const volumeTrashes = ".Trashes"

// MacTrashName is the name an item called base gets in a trash folder
// where taken says which names are used: base itself, else base with the
// time of day before its extension ("notes 14.03.27.txt"), else that
// with a number ("notes 14.03.27 2.txt").
func MacTrashName(base string, isDir bool, now time.Time, taken func(string) bool) string {
	if !taken(base) {
		return base
	}
	stem, ext := base, ""
	if i := strings.LastIndexByte(base, '.'); i > 0 && !isDir {
		stem, ext = base[:i], base[i:]
	}
	stamped := stem + " " + now.Format("15.04.05")
	for n := 1; ; n++ {
		name := stamped + ext
		if n > 1 {
			name = stamped + " " + strconv.Itoa(n) + ext
		}
		if !taken(name) || n == maxNameTries {
			return name // at maxNameTries the rename refuses a taken name
		}
	}
}

// macTrashes are the trash folders an item at orig may go to, in order:
// the home trash, then the trash of orig's volume when that is another.
func (c *Can) macTrashes(parent string) []string {
	dirs := []string{c.Home}
	if top, err := mountTop(parent); err == nil {
		if home, err := mountTop(filepath.Dir(c.Home)); err != nil || home != top {
			dirs = append(dirs, filepath.Join(top, volumeTrashes, strconv.Itoa(c.UID)))
		}
	}
	return dirs
}

// putMac moves path into a macOS trash and records it.
func (c *Can) putMac(ctx context.Context, path string) (*Entry, error) {
	if c.Records == "" {
		return nil, errors.New("no folder for mcode's trash records (MCODE_HOME is not set)")
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	orig := filepath.Join(parent, filepath.Base(path))
	info, err := os.Lstat(orig)
	if err != nil {
		return nil, err
	}
	now := c.Now()
	for _, dir := range c.macTrashes(parent) {
		e, err := c.moveMac(dir, orig, info, now)
		if err == nil || !isCrossDevice(err) {
			return c.finishPut(ctx, e, info, err)
		}
	}
	// No trash on orig's volume takes it: a copy into the home trash.
	if err := canRemove(orig); err != nil {
		return nil, err
	}
	name, trashed, record, err := c.reserveMac(c.Home, orig, info, now)
	if err != nil {
		return nil, err
	}
	if err := copyTree(ctx, orig, trashed); err != nil {
		_ = removeTree(trashed)
		os.Remove(record)
		return nil, fmt.Errorf("copying into the trash: %w", err)
	}
	e := c.macEntry(name, orig, trashed, now)
	if err := removeTree(orig); err != nil {
		return c.finishPut(ctx, e, info, fmt.Errorf("copied into the trash (id %s) but could not remove the original: %w", e.ID, err))
	}
	return c.finishPut(ctx, e, info, nil)
}

func (c *Can) macEntry(record, orig, trashed string, now time.Time) *Entry {
	e := newEntry(c.homeDir(), record, orig, now)
	e.trashed = trashed
	return e
}

// moveMac renames orig into the trash folder dir.
func (c *Can) moveMac(dir, orig string, info fs.FileInfo, now time.Time) (*Entry, error) {
	name, trashed, record, err := c.reserveMac(dir, orig, info, now)
	if err != nil {
		return nil, err
	}
	if err := renameNoReplace(orig, trashed); err != nil {
		os.Remove(record)
		return nil, err
	}
	return c.macEntry(name, orig, trashed, now), nil
}

// reserveMac picks the item's name in dir and writes its record, which
// reserves a name in Records (the record's name is the entry's id).
func (c *Can) reserveMac(dir, orig string, info fs.FileInfo, now time.Time) (name, trashed, record string, err error) {
	if err := makeTrashFolder(dir); err != nil {
		return "", "", "", err
	}
	if err := os.MkdirAll(c.Records, dirMode); err != nil {
		return "", "", "", err
	}
	base := filepath.Base(orig)
	trashed = filepath.Join(dir, MacTrashName(base, info.IsDir(), now, func(n string) bool {
		_, err := os.Lstat(filepath.Join(dir, n))
		return !errors.Is(err, fs.ErrNotExist)
	}))
	i := 0
	file, err := fsutil.WriteFileFirstFree(c.Records, FormatRecord(orig, trashed, now), 0o600, func() (string, bool) {
		if i == maxNameTries {
			return "", false
		}
		i++
		return candidateName(base, i-1) + InfoSuffix, true
	})
	if err != nil {
		return "", "", "", err
	}
	return strings.TrimSuffix(file, InfoSuffix), trashed, filepath.Join(c.Records, file), nil
}

// makeTrashFolder makes a missing trash folder: a volume's .Trashes as
// macOS makes it (anyone may add a folder, only its owner list it), the
// user's folder in it, or ~/.Trash, private.
func makeTrashFolder(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if parent := filepath.Dir(dir); filepath.Base(parent) == volumeTrashes {
		if err := os.Mkdir(parent, 0o333|fs.ModeSticky); err == nil {
			_ = os.Chmod(parent, 0o333|fs.ModeSticky) // past the umask
		}
	}
	return os.Mkdir(dir, dirMode)
}

// listRecords lists what mcode's records say it trashed.
func (c *Can) listRecords(ctx context.Context, d Dir) ([]*Entry, []Problem, error) {
	files, err := os.ReadDir(d.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, []Problem{{Kind: "unreadable", Path: d.Path, Message: err.Error()}}, nil
	}
	var entries []*Entry
	var problems []Problem
	for _, de := range files {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		name, ok := strings.CutSuffix(de.Name(), InfoSuffix)
		if !ok || name == "" || de.IsDir() {
			continue
		}
		path := filepath.Join(d.Path, de.Name())
		info, err := readInfo(path)
		if err == nil && info.Trashed == "" {
			err = fmt.Errorf("%w: no %s", ErrInfoSyntax, TrashedKey)
		}
		if err != nil {
			problems = append(problems, Problem{Kind: "unreadable", Path: path, Message: err.Error()})
			continue
		}
		e := newEntry(d, name, info.Path, info.Deleted)
		e.trashed = info.Trashed
		if st, err := de.Info(); err == nil {
			e.written = st.ModTime()
		}
		st, err := os.Lstat(e.trashed)
		switch {
		case err != nil:
			e.Kind = "missing" // emptied from Finder, or put back
		case st.IsDir():
			e.Kind = "directory"
			if u, err := diskUsage(ctx, e.trashed); err == nil {
				e.Size = u.Bytes
			}
		default:
			e.Kind, e.Size = kindOf(st.Mode()), st.Size()
		}
		entries = append(entries, e)
	}
	return entries, problems, nil
}
