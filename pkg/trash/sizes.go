package trash

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcode-dev/mcode/pkg/fsutil"
)

// sizesFile is the directory size cache of a trash directory (spec 1.0).
const sizesFile = "directorysizes"

// dirSize is one line of directorysizes: a trashed directory's disk
// usage and the mtime (Unix seconds) of its .trashinfo when measured.
type dirSize struct {
	Size  int64
	Mtime int64
}

// parseDirSizes reads "size mtime percent-encoded-name" lines. A line that
// does not fit is skipped: the file is a cache, never the truth.
func parseDirSizes(data []byte) map[string]dirSize {
	m := map[string]dirSize{}
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		f := bytes.SplitN(bytes.TrimSpace(line), []byte(" "), 3)
		if len(f) != 3 {
			continue
		}
		size, err1 := strconv.ParseInt(string(f[0]), 10, 64)
		mtime, err2 := strconv.ParseInt(string(f[1]), 10, 64)
		name := UnescapePath(string(f[2]))
		if err1 != nil || err2 != nil || size < 0 || !validEntryName(name) {
			continue
		}
		m[name] = dirSize{size, mtime}
	}
	return m
}

// formatDirSizes writes the cache sorted by name, so that equal caches
// are equal files.
func formatDirSizes(m map[string]dirSize) []byte {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	var b bytes.Buffer
	for _, n := range names {
		b.WriteString(strconv.FormatInt(m[n].Size, 10))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(m[n].Mtime, 10))
		b.WriteByte(' ')
		b.WriteString(EscapePath(n))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// validEntryName is a name that can be a direct child of files/ (so it
// never holds the '/' that the spec forbids in directorysizes, even as %2F).
func validEntryName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.ContainsAny(n, "/\x00")
}

// updateDirSizes rewrites trashDir's cache with change applied, through a
// temp file and rename as the spec requires. Two writers at once may
// lose one's update; the spec accepts that (the cache is rebuilt).
func updateDirSizes(trashDir string, change func(map[string]dirSize)) error {
	path := filepath.Join(trashDir, sizesFile)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	m := parseDirSizes(data)
	before := string(formatDirSizes(m))
	change(m)
	after := formatDirSizes(m)
	if string(after) == before && err == nil {
		return nil
	}
	if len(m) == 0 && errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fsutil.WriteFileAtomic(path, after, 0o600)
}

// usage is the disk usage of a tree as du -B1 counts it (blocks, hard
// links once) and the number of entries below its root.
type usage struct {
	Bytes   int64
	Entries int
}

// diskUsage walks path without following symlinks.
func diskUsage(ctx context.Context, path string) (usage, error) {
	var u usage
	seen := map[fileID]bool{}
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == path {
				return err
			}
			return nil // an unreadable corner is counted as far as it can be
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if p != path {
			u.Entries++
		}
		n, id, linked := diskBlocks(info)
		if linked {
			if seen[id] {
				return nil
			}
			seen[id] = true
		}
		u.Bytes += n
		return nil
	})
	return u, err
}
