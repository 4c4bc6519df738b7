package trash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Limits and fixed names of the trash layout.
const (
	// nameMax is the longest file name most Linux file systems take.
	nameMax = 255
	// maxInfoBytes caps what is read of one .trashinfo: real ones are a
	// few hundred bytes; a bigger file is not one.
	maxInfoBytes = 64 << 10
	// dirMode is the mode of trash directories the spec has us create.
	dirMode = 0o700
	// maxNameTries bounds the names tried for one entry: base, base_1 …
	// base_99, then random suffixes.
	maxNameTries = 200
)

// Can is every trash directory one user has: the home trash, and the
// top-directory trashes ($topdir/.Trash/$uid, $topdir/.Trash-$uid) of
// other mounted file systems.
type Can struct {
	// Home is the home trash: trash.dir, else $XDG_DATA_HOME/Trash.
	Home string
	UID  int
	Now  func() time.Time
	// Mounts lists the mount points whose top-directory trashes are read;
	// nil reads the system's mount table. For the Recycle Bin they are
	// drive roots.
	Mounts func() []string
	// Layout is how the trash keeps what it holds: FreeDesktop, unless the
	// platform has a trash of its own (see platformCan).
	Layout Layout
	// Records is the folder of mcode's own records of what it put in a
	// macOS trash (MacTrash only).
	Records string
}

// Layout is how a trash directory keeps its items and their records.
type Layout int

// Layouts.
const (
	// FreeDesktop: $trash/files/NAME and $trash/info/NAME.trashinfo.
	FreeDesktop Layout = iota
	// MacTrash: the item in ~/.Trash (or a volume's .Trashes/UID), named
	// as Finder names it, and mcode's record of it in Can.Records.
	MacTrash
	// RecycleBin: $Recycle.Bin\SID\$RXXXXXX.ext, described by its
	// $IXXXXXX.ext record, as Explorer keeps them.
	RecycleBin
)

// New returns the trash of the caller env describes: the platform's own
// (platformCan) unless trash.dir names a FreeDesktop trash.
func New(env *tool.Env) *Can {
	c := &Can{Home: HomeTrash(env), UID: getuid(), Now: time.Now}
	if env.Now != nil {
		c.Now = env.Now
	}
	if env.Config == nil || env.Config.Trash.Dir == "" {
		platformCan(c, env)
	}
	return c
}

// HomeTrash is where the home trash is: the trash.dir config key when set,
// else $XDG_DATA_HOME/Trash (an absolute XDG_DATA_HOME only, as the XDG
// spec says), else ~/.local/share/Trash.
func HomeTrash(env *tool.Env) string {
	if env.Config != nil && env.Config.Trash.Dir != "" {
		return env.Abs(env.Config.Trash.Dir)
	}
	if x := env.LookupEnv("XDG_DATA_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "Trash")
	}
	home := env.UserHome
	if home == "" {
		if u, err := user.Current(); err == nil {
			home = u.HomeDir
		}
	}
	if home == "" {
		return "" // no home trash: Put refuses, List skips it
	}
	return filepath.Join(home, ".local", "share", "Trash")
}

// errNoHomeTrash is Put's answer when there is no home to hold the trash.
var errNoHomeTrash = errors.New("no home trash: HOME is not set and the user database has no home directory (set HOME or trash.dir)")

// Dir is one trash directory.
type Dir struct {
	Path string // $trash, holding files/ and info/; the records folder of a MacTrash
	// Top is the directory relative Path= values start from: the folder
	// the home trash sits in, or the mount point of a top-directory trash.
	Top    string
	Home   bool
	Layout Layout
}

// files is where the item name is (not known from the name in a
// MacTrash: see Entry.TrashedPath); info is where its record is.
func (d Dir) files(name string) string {
	if d.Layout == RecycleBin {
		return filepath.Join(d.Path, recycleItemPrefix+name)
	}
	return filepath.Join(d.Path, "files", name)
}

func (d Dir) info(name string) string {
	switch d.Layout {
	case RecycleBin:
		return filepath.Join(d.Path, recycleRecordPrefix+name)
	case MacTrash:
		return filepath.Join(d.Path, name+InfoSuffix)
	}
	return filepath.Join(d.Path, "info", name+InfoSuffix)
}

func (c *Can) homeDir() Dir {
	if c.Layout == MacTrash {
		return Dir{Path: c.Records, Top: "/", Home: true, Layout: MacTrash}
	}
	return Dir{Path: c.Home, Top: filepath.Dir(c.Home), Home: true, Layout: c.Layout}
}

// Entry is one trashed file or directory.
type Entry struct {
	// ID names the entry for restore: its name in the home trash's files/
	// (escaped where it is not printable UTF-8), or the full path of the
	// trashed copy for other trash directories.
	ID string `json:"id"`
	// OriginalPath is where it was; bytes that are not UTF-8 show as \xHH.
	OriginalPath string `json:"original_path"`
	// DeletedAt is DeletionDate as written (local time), "" when unknown.
	DeletedAt string `json:"deleted_at"`
	// Kind is file, directory, symlink, fifo, socket, device, or missing
	// (the .trashinfo is there but the trashed copy is gone).
	Kind string `json:"kind"`
	// Size is the byte length of a file, or the disk usage of a directory
	// (du -B1, as directorysizes holds it).
	Size int64 `json:"size"`
	// TrashDir is the trash directory that holds it.
	TrashDir string `json:"trash_dir"`

	name     string // in files/
	dir      Dir
	trashed  string // where a MacTrash item is
	original string // exact bytes
	deleted  time.Time
	// written is the .trashinfo's mtime: it orders entries whose
	// DeletionDate (whole seconds) is the same.
	written time.Time
}

// Original is the exact original path (any bytes).
func (e *Entry) Original() string { return e.original }

// Deleted is the deletion time (zero when unknown).
func (e *Entry) Deleted() time.Time { return e.deleted }

// TrashedPath is where the trashed copy is now.
func (e *Entry) TrashedPath() string {
	if e.trashed != "" {
		return e.trashed
	}
	return e.dir.files(e.name)
}

func newEntry(d Dir, name, original string, deleted time.Time) *Entry {
	e := &Entry{name: name, dir: d, original: original, deleted: deleted, TrashDir: d.Path}
	e.ID = escapeID(name)
	if !d.Home {
		e.ID = escapeID(d.files(name))
	}
	e.OriginalPath = fsutil.DisplayPath(original)
	if !deleted.IsZero() {
		e.DeletedAt = deleted.Local().Format(DateLayout)
	}
	return e
}

func kindOf(mode fs.FileMode) string {
	switch {
	case mode.IsRegular():
		return "file"
	case mode.IsDir():
		return "directory"
	case mode&fs.ModeSymlink != 0:
		return "symlink"
	case mode&fs.ModeNamedPipe != 0:
		return "fifo"
	case mode&fs.ModeSocket != 0:
		return "socket"
	}
	return "device"
}

// Put moves the file or directory at path (absolute; a final symlink is
// trashed itself, not its target) into the trash. Same file system as the
// home trash: a rename into it. Another file system: a rename into that
// file system's top-directory trash. When neither works, a copy into the
// home trash, then the original is removed. The .trashinfo is written
// first and reserves the name (the spec's O_EXCL rule); a failed move
// takes it back, so a failure leaves the file where it was.
func (c *Can) Put(ctx context.Context, path string) (*Entry, error) {
	if !filepath.IsAbs(c.Home) {
		return nil, errNoHomeTrash
	}
	switch c.Layout {
	case MacTrash:
		return c.putMac(ctx, path)
	case RecycleBin:
		return c.putRecycleBin(ctx, path)
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
	e, err := c.moveInto(c.homeDir(), orig, orig, now)
	if err == nil || !isCrossDevice(err) {
		return c.finishPut(ctx, e, info, err)
	}
	if top, terr := mountTop(parent); terr == nil {
		rel, _ := filepath.Rel(top, orig)
		for _, d := range c.topTrashDirs(top, true) {
			if e, err := c.moveInto(d, orig, rel, now); err == nil {
				return c.finishPut(ctx, e, info, nil)
			}
		}
	}
	e, err = c.copyInto(ctx, c.homeDir(), orig, now)
	return c.finishPut(ctx, e, info, err)
}

// finishPut fills the entry's kind and size and records a directory's size
// in directorysizes.
func (c *Can) finishPut(ctx context.Context, e *Entry, info fs.FileInfo, err error) (*Entry, error) {
	if e == nil {
		return nil, err
	}
	e.Kind = kindOf(info.Mode())
	e.Size = info.Size()
	if info.IsDir() {
		if u, uerr := diskUsage(ctx, e.TrashedPath()); uerr == nil {
			e.Size = u.Bytes
			if st, serr := os.Stat(e.dir.info(e.name)); serr == nil && e.dir.Layout == FreeDesktop {
				_ = updateDirSizes(e.dir.Path, func(m map[string]dirSize) {
					m[e.name] = dirSize{u.Bytes, st.ModTime().Unix()}
				})
			}
		}
	}
	return e, err
}

// moveInto reserves a name in d and renames orig there. pathValue is what
// Path= says (absolute, or relative to d.Top).
func (c *Can) moveInto(d Dir, orig, pathValue string, now time.Time) (*Entry, error) {
	name, err := reserve(d, filepath.Base(orig), pathValue, now)
	if err != nil {
		return nil, err
	}
	if err := os.Rename(orig, d.files(name)); err != nil {
		os.Remove(d.info(name))
		return nil, err
	}
	original := pathValue
	if !filepath.IsAbs(original) {
		original = filepath.Join(d.Top, original)
	}
	return newEntry(d, name, original, now), nil
}

// copyInto is the last resort across file systems: copy orig into d (modes
// and times kept), then remove orig. A failed copy leaves orig untouched
// and nothing in the trash.
func (c *Can) copyInto(ctx context.Context, d Dir, orig string, now time.Time) (*Entry, error) {
	// Copying is only worth it if the original can then be removed: ask
	// first, as rm would fail (read-only file system, no write permission).
	if err := canRemove(orig); err != nil {
		return nil, err
	}
	name, err := reserve(d, filepath.Base(orig), orig, now)
	if err != nil {
		return nil, err
	}
	dst := d.files(name)
	if err := copyTree(ctx, orig, dst); err != nil {
		_ = removeTree(dst)
		os.Remove(d.info(name))
		return nil, fmt.Errorf("copying into the trash: %w", err)
	}
	e := newEntry(d, name, orig, now)
	if err := removeTree(orig); err != nil {
		return e, fmt.Errorf("copied into the trash (id %s) but could not remove the original: %w", e.ID, err)
	}
	return e, nil
}

// reserve creates d's info/NAME.trashinfo for a name no entry uses: base,
// then base_1 … base_99, then base_ and random digits, cut so that the
// info file's name fits in nameMax bytes.
func reserve(d Dir, base, pathValue string, now time.Time) (string, error) {
	for _, sub := range []string{"info", "files"} {
		if err := os.MkdirAll(filepath.Join(d.Path, sub), dirMode); err != nil {
			return "", err
		}
	}
	i := 0
	infoName, err := fsutil.WriteFileFirstFree(filepath.Join(d.Path, "info"), FormatInfo(pathValue, now), 0o600, func() (string, bool) {
		for ; i < maxNameTries; i++ {
			name := candidateName(base, i)
			// An orphan (or a racing writer) may hold the name in files/.
			if _, err := os.Lstat(d.files(name)); errors.Is(err, fs.ErrNotExist) {
				i++
				return name + InfoSuffix, true
			}
		}
		return "", false
	})
	if errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("no free name for %s in %s", base, d.Path)
	}
	return strings.TrimSuffix(infoName, InfoSuffix), err
}

func candidateName(base string, i int) string {
	suffix := ""
	switch {
	case i == 0:
	case i < 100:
		suffix = "_" + strconv.Itoa(i)
	default:
		suffix = "_" + fsutil.RandomHex(4)
	}
	limit := nameMax - len(InfoSuffix) - len(suffix)
	if len(base) > limit {
		cut := limit
		if utf8.ValidString(base) {
			for cut > 0 && !utf8.RuneStart(base[cut]) {
				cut--
			}
		}
		base = base[:cut]
	}
	return base + suffix
}

// mountTop is the top directory of the file system dir (a resolved
// directory) is on: the last ancestor on the same device.
func mountTop(dir string) (string, error) {
	info, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	dev := device(info)
	for {
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir, nil
		}
		pinfo, err := os.Lstat(parent)
		if err != nil {
			return "", err
		}
		if device(pinfo) != dev || inode(pinfo) == inode(info) {
			return dir, nil
		}
		dir, info = parent, pinfo
	}
}

// topTrashDirs are the trash directories of the file system whose top
// directory is top, in the spec's order: $top/.Trash/$uid when $top/.Trash
// is a real, sticky directory, then $top/.Trash-$uid. With create, missing
// ones are made; without, only those that exist are returned.
func (c *Can) topTrashDirs(top string, create bool) []Dir {
	var dirs []Dir
	uid := strconv.Itoa(c.UID)
	usable := func(p string) bool {
		if create && os.Mkdir(p, dirMode) == nil {
			return true
		}
		return c.ownDir(p)
	}
	shared := filepath.Join(top, ".Trash")
	if info, err := os.Lstat(shared); err == nil && info.IsDir() && info.Mode()&fs.ModeSticky != 0 {
		if p := filepath.Join(shared, uid); usable(p) {
			dirs = append(dirs, Dir{Path: p, Top: top})
		}
	}
	if p := filepath.Join(top, ".Trash-"+uid); usable(p) {
		dirs = append(dirs, Dir{Path: p, Top: top})
	}
	return dirs
}

// ownDir says whether p is a real directory (not a symlink) of this user:
// a trash directory someone else planted would hand them what we trash.
func (c *Can) ownDir(p string) bool {
	info, err := os.Lstat(p)
	return err == nil && info.IsDir() && owner(info) == c.UID
}

// Dirs lists the trash directories to read: the home trash, then those of
// every mounted file system that has one. The same directory reached
// twice (bind mounts) is listed once.
func (c *Can) Dirs() []Dir {
	switch c.Layout {
	case MacTrash:
		return []Dir{c.homeDir()}
	case RecycleBin:
		return c.recycleBins()
	}
	var dirs []Dir
	if filepath.IsAbs(c.Home) {
		dirs = append(dirs, c.homeDir())
	}
	seen := map[string]bool{}
	if real, err := filepath.EvalSymlinks(c.Home); err == nil {
		seen[real] = true
	}
	seen[c.Home] = true
	mounts := c.Mounts
	if mounts == nil {
		mounts = systemMounts
	}
	for _, top := range mounts() {
		for _, d := range c.topTrashDirs(top, false) {
			key := d.Path
			if real, err := filepath.EvalSymlinks(d.Path); err == nil {
				key = real
			}
			if !seen[key] {
				seen[key] = true
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}

// Problem is something in a trash directory that is not a proper entry:
// an unreadable .trashinfo, or a file in files/ without one (an orphan,
// which the spec says to show as an emergency).
type Problem struct {
	// Kind is "orphan" or "unreadable".
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// ListOptions filter a listing.
type ListOptions struct {
	// Prefix keeps entries whose original path is Prefix or below it.
	Prefix string
	// Since keeps entries deleted at or after it (zero: all).
	Since time.Time
	// Sizes fills Size for directories (from directorysizes, measured
	// and cached when it has no fresh line).
	Sizes bool
	// Dirs are the trash directories to read (nil: c.Dirs()).
	Dirs []Dir
}

// List returns the entries of every trash directory, newest first, and
// what it could not read.
func (c *Can) List(ctx context.Context, opts ListOptions) ([]*Entry, []Problem, error) {
	var all []*Entry
	var problems []Problem
	dirs := opts.Dirs
	if dirs == nil {
		dirs = c.Dirs()
	}
	for _, d := range dirs {
		entries, probs, err := c.listDir(ctx, d, opts.Sizes)
		if err != nil {
			return nil, nil, err
		}
		problems = append(problems, probs...)
		for _, e := range entries {
			if opts.Prefix != "" && !underPrefix(e.original, opts.Prefix) {
				continue
			}
			if !opts.Since.IsZero() && e.deleted.Before(opts.Since) {
				continue
			}
			all = append(all, e)
		}
	}
	slices.SortStableFunc(all, func(a, b *Entry) int {
		if c := b.deleted.Compare(a.deleted); c != 0 {
			return c
		}
		if c := b.written.Compare(a.written); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return all, problems, nil
}

func underPrefix(p, prefix string) bool {
	prefix = strings.TrimSuffix(prefix, "/")
	return p == prefix || strings.HasPrefix(p, prefix+"/") || prefix == ""
}

func (c *Can) listDir(ctx context.Context, d Dir, sizes bool) ([]*Entry, []Problem, error) {
	switch d.Layout {
	case MacTrash:
		return c.listRecords(ctx, d)
	case RecycleBin:
		return c.listRecycleBin(ctx, d)
	}
	infos, err := os.ReadDir(filepath.Join(d.Path, "info"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, []Problem{{Kind: "unreadable", Path: filepath.Join(d.Path, "info"), Message: err.Error()}}, nil
	}
	var entries []*Entry
	var problems []Problem
	named := map[string]bool{}
	var cache map[string]dirSize
	cacheDirty := false
	if sizes {
		data, _ := os.ReadFile(filepath.Join(d.Path, sizesFile))
		cache = parseDirSizes(data)
	}
	for _, de := range infos {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		fname := de.Name()
		name, ok := strings.CutSuffix(fname, InfoSuffix)
		if !ok || name == "" || de.IsDir() {
			continue
		}
		infoPath := filepath.Join(d.Path, "info", fname)
		info, err := readInfo(infoPath)
		if err != nil {
			problems = append(problems, Problem{Kind: "unreadable", Path: infoPath, Message: err.Error()})
			continue
		}
		named[name] = true
		orig := info.Path
		if !filepath.IsAbs(orig) {
			orig = filepath.Join(d.Top, orig)
		}
		e := newEntry(d, name, filepath.Clean(orig), info.Deleted)
		if st, err := de.Info(); err == nil {
			e.written = st.ModTime()
		}
		st, err := os.Lstat(d.files(name))
		switch {
		case err != nil:
			e.Kind = "missing"
		case st.IsDir():
			e.Kind, e.Size = "directory", 0
			if sizes {
				mtime := e.written.Unix()
				if cached, ok := cache[name]; ok && cached.Mtime == mtime {
					e.Size = cached.Size
				} else if u, err := diskUsage(ctx, d.files(name)); err == nil {
					e.Size = u.Bytes
					cache[name] = dirSize{u.Bytes, mtime}
					cacheDirty = true
				}
			}
		default:
			e.Kind, e.Size = kindOf(st.Mode()), st.Size()
		}
		entries = append(entries, e)
	}
	files, _ := os.ReadDir(filepath.Join(d.Path, "files"))
	for _, de := range files {
		if !named[de.Name()] {
			problems = append(problems, Problem{
				Kind:    "orphan",
				Path:    filepath.Join(d.Path, "files", de.Name()),
				Message: "in files/ without a .trashinfo, so its original location is unknown",
			})
		}
	}
	if sizes {
		for n := range cache {
			if st, err := os.Lstat(d.files(n)); err != nil || !st.IsDir() || !named[n] {
				delete(cache, n)
				cacheDirty = true
			}
		}
		if cacheDirty {
			_ = updateDirSizes(d.Path, func(m map[string]dirSize) {
				clear(m)
				for k, v := range cache {
					m[k] = v
				}
			})
		}
	}
	return entries, problems, nil
}

func readInfo(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxInfoBytes+1))
	if err != nil {
		return Info{}, err
	}
	if len(data) > maxInfoBytes {
		return Info{}, fmt.Errorf("%w: larger than %d KiB", ErrInfoSyntax, maxInfoBytes>>10)
	}
	return ParseInfo(data, time.Local)
}

// ErrExists is returned by Restore when the destination is taken and
// force is off.
var ErrExists = errors.New("destination exists")

// Restore moves e back to dest (its original path unless the caller
// chose another). A taken dest is refused unless force, and then what was
// there goes to the trash first (returned as replaced), so nothing is
// lost either way. Missing parent directories are created. Bytes, mode,
// times and (for a directory) the whole tree come back as they were.
func (c *Can) Restore(ctx context.Context, e *Entry, dest string, force bool) (replaced *Entry, err error) {
	src := e.TrashedPath()
	srcInfo, err := os.Lstat(src)
	if err != nil {
		return nil, err
	}
	if replaced, err = c.moveOut(ctx, src, dest, force); err != nil {
		return replaced, err
	}
	if err := os.Remove(e.dir.info(e.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return replaced, err
	}
	if srcInfo.IsDir() && e.dir.Layout == FreeDesktop {
		_ = updateDirSizes(e.dir.Path, func(m map[string]dirSize) { delete(m, e.name) })
	}
	return replaced, nil
}

// RestoreInside restores one path from inside a trashed folder (rel,
// slash-separated below it) to dest; the rest of the folder stays in the
// trash, its recorded size forgotten so that the next listing measures
// it again.
func (c *Can) RestoreInside(ctx context.Context, e *Entry, rel, dest string, force bool) (replaced *Entry, err error) {
	src := filepath.Join(e.TrashedPath(), filepath.FromSlash(rel))
	if _, err := os.Lstat(src); err != nil {
		return nil, err
	}
	if replaced, err = c.moveOut(ctx, src, dest, force); err != nil {
		return replaced, err
	}
	if e.dir.Layout == FreeDesktop {
		_ = updateDirSizes(e.dir.Path, func(m map[string]dirSize) { delete(m, e.name) })
	}
	return replaced, nil
}

// moveOut moves src out of the trash to dest, refusing to replace what
// is there unless force (which trashes it first).
func (c *Can) moveOut(ctx context.Context, src, dest string, force bool) (replaced *Entry, err error) {
	if _, err := os.Lstat(dest); err == nil {
		if !force {
			return nil, ErrExists
		}
		if replaced, err = c.Put(ctx, dest); err != nil {
			return nil, fmt.Errorf("moving the existing %s to the trash first: %w", dest, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return replaced, err
	}
	if err := os.Rename(src, dest); err != nil {
		if !isCrossDevice(err) {
			return replaced, err
		}
		if err := copyTree(ctx, src, dest); err != nil {
			_ = removeTree(dest)
			return replaced, err
		}
		if err := removeTree(src); err != nil {
			return replaced, fmt.Errorf("restored a copy to %s but could not remove the trashed one: %w", dest, err)
		}
	}
	return replaced, nil
}

// Erase deletes entries for good: the trashed copy, then its .trashinfo
// (so an interruption leaves at worst an info without a file, which the
// next listing shows as missing and the next empty removes). It returns
// the bytes freed.
func (c *Can) Erase(ctx context.Context, entries []*Entry) (freed int64, err error) {
	byDir := map[string][]string{}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return freed, err
		}
		if e.Kind != "missing" {
			if err := removeTree(e.TrashedPath()); err != nil {
				return freed, err
			}
		}
		if err := os.Remove(e.dir.info(e.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return freed, err
		}
		freed += e.Size
		if e.dir.Layout == FreeDesktop {
			byDir[e.dir.Path] = append(byDir[e.dir.Path], e.name)
		}
	}
	for dir, names := range byDir {
		_ = updateDirSizes(dir, func(m map[string]dirSize) {
			for _, n := range names {
				delete(m, n)
			}
		})
	}
	return freed, nil
}

// EraseOrphans deletes what files/ holds without a .trashinfo; only a
// full empty does this.
func (c *Can) EraseOrphans(problems []Problem) (int, error) {
	n := 0
	for _, p := range problems {
		if p.Kind != "orphan" {
			continue
		}
		if err := removeTree(p.Path); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
