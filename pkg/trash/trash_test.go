//go:build unix

package trash

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var ctx = context.Background()

// testCan is a trash in a temp dir, with a clock that moves one second
// per call so that entries have distinct times.
func testCan(t *testing.T) (*Can, string) {
	t.Helper()
	base := t.TempDir()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.Local)
	var mu sync.Mutex
	c := &Can{
		Home: filepath.Join(base, "data", "Trash"),
		UID:  os.Getuid(),
		Now: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			now = now.Add(time.Second)
			return now
		},
		Mounts: func() []string { return nil },
	}
	work := filepath.Join(base, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	return c, work
}

func write(t *testing.T, path, content string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// snapshot describes a tree: relative path -> mode, mtime, content or
// link target. Restores must bring back exactly this.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		desc := info.Mode().String() + " " + info.ModTime().UTC().Format(time.RFC3339Nano)
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			desc += " -> " + target
		case info.Mode().IsRegular():
			data, _ := os.ReadFile(p)
			desc += " " + string(data)
		}
		m[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustList(t *testing.T, c *Can, opts ListOptions) []*Entry {
	t.Helper()
	entries, problems, err := c.List(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Fatalf("problems: %+v", problems)
	}
	return entries
}

func TestPutWritesTheSpecLayout(t *testing.T) {
	c, work := testCan(t)
	p := filepath.Join(work, "notes.txt")
	write(t, p, "hello", 0o640)
	e, err := c.Put(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("original still there: %v", err)
	}
	if e.ID != "notes.txt" || e.Kind != "file" || e.Size != 5 || e.Original() != p {
		t.Errorf("entry = %+v", e)
	}
	data, err := os.ReadFile(filepath.Join(c.Home, "files", "notes.txt"))
	if err != nil || string(data) != "hello" {
		t.Fatalf("trashed copy: %q, %v", data, err)
	}
	info, err := os.ReadFile(filepath.Join(c.Home, "info", "notes.txt.trashinfo"))
	if err != nil {
		t.Fatal(err)
	}
	want := "[Trash Info]\nPath=" + EscapePath(p) + "\nDeletionDate=" + e.DeletedAt + "\n"
	if string(info) != want {
		t.Errorf("trashinfo = %q, want %q", info, want)
	}
	for _, d := range []string{c.Home, filepath.Join(c.Home, "files"), filepath.Join(c.Home, "info")} {
		if st, err := os.Stat(d); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, %v; want 0700", d, st.Mode(), err)
		}
	}
}

func TestPutCollisionsGetDistinctNames(t *testing.T) {
	c, work := testCan(t)
	var ids []string
	for i := 0; i < 3; i++ {
		p := filepath.Join(work, "a.txt")
		write(t, p, strings.Repeat("x", i), 0o644)
		e, err := c.Put(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if diff := cmp.Diff([]string{"a.txt", "a.txt_1", "a.txt_2"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	// An orphan in files/ (no info) holds its name too.
	if err := os.WriteFile(filepath.Join(c.Home, "files", "b"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(work, "b"), "", 0o644)
	e, err := c.Put(ctx, filepath.Join(work, "b"))
	if err != nil || e.ID != "b_1" {
		t.Errorf("put beside an orphan: %+v, %v", e, err)
	}
}

func TestPutLongNameFits(t *testing.T) {
	c, work := testCan(t)
	name := strings.Repeat("n", 250)
	p := filepath.Join(work, name)
	write(t, p, "x", 0o644)
	e, err := c.Put(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if e.Original() != p || len(e.ID)+len(InfoSuffix) > nameMax {
		t.Errorf("entry %q for %d-byte name", e.ID, len(name))
	}
	got := mustList(t, c, ListOptions{})
	if len(got) != 1 || got[0].Original() != p {
		t.Errorf("list: %+v", got)
	}
}

func TestPutSymlinkTrashesTheLink(t *testing.T) {
	c, work := testCan(t)
	target := filepath.Join(work, "target")
	write(t, target, "keep", 0o644)
	link := filepath.Join(work, "link")
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	e, err := c.Put(ctx, link)
	if err != nil || e.Kind != "symlink" {
		t.Fatalf("%+v, %v", e, err)
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "keep" {
		t.Errorf("target touched: %q, %v", data, err)
	}
}

func TestPutResolvesParentSymlinks(t *testing.T) {
	c, work := testCan(t)
	real := filepath.Join(work, "real")
	write(t, filepath.Join(real, "f"), "x", 0o644)
	if err := os.Symlink("real", filepath.Join(work, "via")); err != nil {
		t.Fatal(err)
	}
	e, err := c.Put(ctx, filepath.Join(work, "via", "f"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(real, "f"); e.Original() != want {
		t.Errorf("original = %s, want %s (the parent resolved, as trash-cli does)", e.Original(), want)
	}
}

func TestRoundTripTreeWithModesAndTimes(t *testing.T) {
	c, work := testCan(t)
	tree := filepath.Join(work, "proj")
	write(t, filepath.Join(tree, "run.sh"), "#!/bin/sh\n", 0o755)
	write(t, filepath.Join(tree, "secret"), "s", 0o600)
	write(t, filepath.Join(tree, "sub", "deep", "x.go"), "package x", 0o644)
	if err := os.Symlink("../run.sh", filepath.Join(tree, "sub", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(tree, "sub", "deep"), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error { os.Chmod(p, 0o755); return nil })
	})
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, p := range []string{"run.sh", "sub/deep/x.go", "sub/deep", "sub", ""} {
		if err := os.Chtimes(filepath.Join(tree, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, tree)

	e, err := c.Put(ctx, tree)
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != "directory" || e.Size <= 0 {
		t.Errorf("entry = %+v", e)
	}
	// directorysizes has the tree's disk usage and the info file's mtime.
	sizes, _ := os.ReadFile(filepath.Join(c.Home, sizesFile))
	st, _ := os.Stat(filepath.Join(c.Home, "info", "proj.trashinfo"))
	if m := parseDirSizes(sizes); m["proj"] != (dirSize{e.Size, st.ModTime().Unix()}) {
		t.Errorf("directorysizes = %q, want proj with size %d", sizes, e.Size)
	}

	entries := mustList(t, c, ListOptions{Sizes: true})
	if len(entries) != 1 || entries[0].Size != e.Size {
		t.Fatalf("list = %+v", entries)
	}
	if _, err := c.Restore(ctx, entries[0], entries[0].Original(), false); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, snapshot(t, tree)); diff != "" {
		t.Errorf("restored tree differs (-before +after):\n%s", diff)
	}
	if m := parseDirSizes(mustRead(t, filepath.Join(c.Home, sizesFile))); len(m) != 0 {
		t.Errorf("directorysizes keeps a restored entry: %v", m)
	}
	if got := mustList(t, c, ListOptions{}); len(got) != 0 {
		t.Errorf("trash not empty after restore: %+v", got)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestOddNamesRoundTrip(t *testing.T) {
	c, work := testCan(t)
	names := []string{"with space", "new\nline", "bad\xffutf8", "100% sure", "tab\there", "日本語.txt", "-dash", "'quote'"}
	for _, n := range names {
		write(t, filepath.Join(work, n), "content of "+n, 0o644)
		if _, err := c.Put(ctx, filepath.Join(work, n)); err != nil {
			t.Fatalf("%q: %v", n, err)
		}
	}
	entries := mustList(t, c, ListOptions{})
	if len(entries) != len(names) {
		t.Fatalf("listed %d entries, want %d", len(entries), len(names))
	}
	for _, n := range names {
		orig := filepath.Join(work, n)
		// By id, as a JSON client would pass it back.
		idx := slices.IndexFunc(entries, func(e *Entry) bool { return e.Original() == orig })
		if idx < 0 {
			t.Fatalf("%q not listed", n)
		}
		id := entries[idx].ID
		if strings.ContainsAny(id, "\n\t") || !isUTF8(id) {
			t.Errorf("id %q is not safe to show", id)
		}
		e, _, err := Find(entries, id, func(s string) string { return filepath.Join(work, s) })
		if err != nil {
			t.Fatalf("find %q: %v", id, err)
		}
		if _, err := c.Restore(ctx, e, e.Original(), false); err != nil {
			t.Fatalf("restore %q: %v", n, err)
		}
		if data, err := os.ReadFile(orig); err != nil || string(data) != "content of "+n {
			t.Errorf("%q restored as %q, %v", n, data, err)
		}
	}
	// By the display form of a non-UTF-8 path.
	write(t, filepath.Join(work, "x\xfey"), "", 0o644)
	if _, err := c.Put(ctx, filepath.Join(work, "x\xfey")); err != nil {
		t.Fatal(err)
	}
	entries = mustList(t, c, ListOptions{})
	e, _, err := Find(entries, filepath.Join(work, `x\xFEy`), func(s string) string { return s })
	if err != nil || e.Original() != filepath.Join(work, "x\xfey") {
		t.Errorf("find by display path: %+v, %v", e, err)
	}
}

func isUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestListFiltersAndOrder(t *testing.T) {
	c, work := testCan(t)
	for _, p := range []string{"src/a.go", "src/sub/b.go", "srcx/c.go", "d.txt"} {
		write(t, filepath.Join(work, p), p, 0o644)
		if _, err := c.Put(ctx, filepath.Join(work, p)); err != nil {
			t.Fatal(err)
		}
	}
	originals := func(es []*Entry) []string {
		var out []string
		for _, e := range es {
			rel, _ := filepath.Rel(work, e.Original())
			out = append(out, rel)
		}
		return out
	}
	all := mustList(t, c, ListOptions{})
	if diff := cmp.Diff([]string{"d.txt", "srcx/c.go", "src/sub/b.go", "src/a.go"}, originals(all)); diff != "" {
		t.Errorf("newest first (-want +got):\n%s", diff)
	}
	src := mustList(t, c, ListOptions{Prefix: filepath.Join(work, "src") + "/"})
	if diff := cmp.Diff([]string{"src/sub/b.go", "src/a.go"}, originals(src)); diff != "" {
		t.Errorf("prefix src/ (-want +got):\n%s", diff)
	}
	recent := mustList(t, c, ListOptions{Since: all[1].Deleted()})
	if diff := cmp.Diff([]string{"d.txt", "srcx/c.go"}, originals(recent)); diff != "" {
		t.Errorf("since (-want +got):\n%s", diff)
	}
}

func TestListReportsProblemsAndMissing(t *testing.T) {
	c, work := testCan(t)
	write(t, filepath.Join(work, "gone"), "x", 0o644)
	e, err := c.Put(ctx, filepath.Join(work, "gone"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(e.TrashedPath())
	write(t, filepath.Join(c.Home, "files", "orphan"), "?", 0o600)
	write(t, filepath.Join(c.Home, "info", "junk.trashinfo"), "not an info file", 0o600)
	write(t, filepath.Join(c.Home, "info", "notes.txt"), "ignored: no suffix", 0o600)
	entries, problems, err := c.List(ctx, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Kind != "missing" {
		t.Errorf("entries = %+v", entries)
	}
	kinds := map[string]string{}
	for _, p := range problems {
		kinds[filepath.Base(p.Path)] = p.Kind
	}
	if diff := cmp.Diff(map[string]string{"orphan": "orphan", "junk.trashinfo": "unreadable"}, kinds); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	// Emptying everything takes the stale info and the orphan too.
	if _, err := c.Erase(ctx, entries); err != nil {
		t.Fatal(err)
	}
	if n, err := c.EraseOrphans(problems); n != 1 || err != nil {
		t.Errorf("EraseOrphans = %d, %v", n, err)
	}
	if left, _ := os.ReadDir(filepath.Join(c.Home, "files")); len(left) != 0 {
		t.Errorf("files/ not empty: %v", left)
	}
}

func TestListRebuildsDirectorySizes(t *testing.T) {
	c, work := testCan(t)
	write(t, filepath.Join(work, "d", "f"), strings.Repeat("x", 10000), 0o644)
	e, err := c.Put(ctx, filepath.Join(work, "d"))
	if err != nil {
		t.Fatal(err)
	}
	sizes := filepath.Join(c.Home, sizesFile)
	// A cache written by another implementation: a stale line for a
	// directory no longer there, a wrong mtime for ours.
	write(t, sizes, "999 1 d\n4096 5 vanished\n", 0o600)
	entries := mustList(t, c, ListOptions{Sizes: true})
	if len(entries) != 1 || entries[0].Size != e.Size {
		t.Fatalf("size %d, want %d", entries[0].Size, e.Size)
	}
	st, _ := os.Stat(filepath.Join(c.Home, "info", "d.trashinfo"))
	if diff := cmp.Diff(map[string]dirSize{"d": {e.Size, st.ModTime().Unix()}}, parseDirSizes(mustRead(t, sizes))); diff != "" {
		t.Errorf("cache after list (-want +got):\n%s", diff)
	}
	// A fresh line is trusted: no walk.
	write(t, sizes, "12345 "+itoa(st.ModTime().Unix())+" d\n", 0o600)
	if entries := mustList(t, c, ListOptions{Sizes: true}); entries[0].Size != 12345 {
		t.Errorf("cached size not used: %d", entries[0].Size)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestRestoreRefusesToOverwriteAndForceTrashesFirst(t *testing.T) {
	c, work := testCan(t)
	p := filepath.Join(work, "config.yaml")
	write(t, p, "old", 0o644)
	if _, err := c.Put(ctx, p); err != nil {
		t.Fatal(err)
	}
	write(t, p, "new", 0o644)
	entries := mustList(t, c, ListOptions{})
	if _, err := c.Restore(ctx, entries[0], p, false); !errors.Is(err, ErrExists) {
		t.Fatalf("restore over a file: %v, want ErrExists", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "new" {
		t.Errorf("refused restore changed the file: %q", data)
	}
	replaced, err := c.Restore(ctx, entries[0], p, true)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != "old" {
		t.Errorf("forced restore: %q", data)
	}
	if replaced == nil {
		t.Fatal("force did not report what it replaced")
	}
	if data, _ := os.ReadFile(replaced.TrashedPath()); string(data) != "new" {
		t.Errorf("the replaced file is not in the trash: %q", data)
	}
}

func TestRestoreRecreatesParentsAndTo(t *testing.T) {
	c, work := testCan(t)
	p := filepath.Join(work, "a", "b", "c.txt")
	write(t, p, "c", 0o644)
	if _, err := c.Put(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(work, "a")); err != nil {
		t.Fatal(err)
	}
	entries := mustList(t, c, ListOptions{})
	if _, err := c.Restore(ctx, entries[0], p, false); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != "c" {
		t.Errorf("not restored into recreated parents: %q", data)
	}
}

func TestFindByPathTakesNewest(t *testing.T) {
	c, work := testCan(t)
	p := filepath.Join(work, "f")
	for _, v := range []string{"v1", "v2", "v3"} {
		write(t, p, v, 0o644)
		if _, err := c.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	entries := mustList(t, c, ListOptions{})
	abs := func(s string) string {
		if filepath.IsAbs(s) {
			return s
		}
		return filepath.Join(work, s)
	}
	e, older, err := Find(entries, p, abs)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(e.TrashedPath()); string(data) != "v3" || len(older) != 2 {
		t.Errorf("found %q with %d older", data, len(older))
	}
	// An id is exact, even when it names an older entry…
	e, _, err = Find(entries, "f_1", abs)
	if data, _ := os.ReadFile(e.TrashedPath()); err != nil || string(data) != "v2" {
		t.Errorf("by id f_1: %q, %v", data, err)
	}
	// …but "f" is both the oldest entry's id and the path of the newest:
	// that is ambiguous, and the error names both ids.
	_, _, err = Find(entries, "f", abs)
	if err == nil || !strings.Contains(err.Error(), "not_unique") || !strings.Contains(err.Error(), "f_2") {
		t.Errorf("ambiguous target: %v", err)
	}
	_, _, err = Find(entries, "nope", func(s string) string { return filepath.Join(work, s) })
	if err == nil || !strings.Contains(err.Error(), "not_found") {
		t.Errorf("unknown target: %v", err)
	}
	_, _, err = Find(entries, "f_", func(s string) string { return filepath.Join(work, s) })
	if err == nil || !strings.Contains(err.Error(), "did you mean") {
		t.Errorf("near target gives no suggestion: %v", err)
	}
}

func TestEraseOlderThan(t *testing.T) {
	c, work := testCan(t)
	for _, n := range []string{"a", "b"} {
		write(t, filepath.Join(work, n), n, 0o644)
		if _, err := c.Put(ctx, filepath.Join(work, n)); err != nil {
			t.Fatal(err)
		}
	}
	entries := mustList(t, c, ListOptions{})
	if _, err := c.Erase(ctx, entries[1:]); err != nil { // the older one, a
		t.Fatal(err)
	}
	left := mustList(t, c, ListOptions{})
	if len(left) != 1 || filepath.Base(left[0].Original()) != "b" {
		t.Errorf("left = %+v", left)
	}
}

func TestCopyIntoKeepsTreeAndRemovesOriginal(t *testing.T) {
	c, work := testCan(t)
	tree := filepath.Join(work, "t")
	write(t, filepath.Join(tree, "x"), "x", 0o751)
	write(t, filepath.Join(tree, "s", "y"), "y", 0o600)
	if err := os.Symlink("x", filepath.Join(tree, "l")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(tree, "fifo"), 0o640); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, tree)
	e, err := c.copyInto(ctx, c.homeDir(), tree, c.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(tree); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("original left after copy: %v", err)
	}
	if diff := cmp.Diff(before, snapshot(t, e.TrashedPath())); diff != "" {
		t.Errorf("copy differs (-orig +copy):\n%s", diff)
	}
}

// TestPutAcrossFileSystems trashes a file on another file system (/dev/shm
// when it is one): it must land in that file system's $topdir/.Trash-$uid
// with a Path= relative to the top directory, and come back from there.
func TestPutAcrossFileSystems(t *testing.T) {
	c, _ := testCan(t)
	other := otherFileSystem(t, c.Home)
	top, err := mountTop(other)
	if err != nil {
		t.Fatal(err)
	}
	trashDir := filepath.Join(top, ".Trash-"+itoa(int64(c.UID)))
	_, existed := os.Lstat(trashDir)
	p := filepath.Join(other, "far away.txt")
	write(t, p, "far", 0o640)
	e, err := c.Put(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.RemoveAll(e.TrashedPath())
		os.Remove(e.dir.info(e.name))
		if existed != nil {
			os.RemoveAll(trashDir)
		}
	})
	if e.TrashDir != trashDir {
		t.Fatalf("trashed into %s, want %s", e.TrashDir, trashDir)
	}
	rel, _ := filepath.Rel(top, p)
	info := string(mustRead(t, e.dir.info(e.name)))
	if !strings.Contains(info, "\nPath="+EscapePath(rel)+"\n") {
		t.Errorf("top-dir trashinfo should hold a relative path %q:\n%s", rel, info)
	}
	c.Mounts = func() []string { return []string{top} }
	entries := mustList(t, c, ListOptions{Prefix: other})
	if len(entries) != 1 || entries[0].Original() != p || entries[0].ID != escapeID(e.TrashedPath()) {
		t.Fatalf("list = %+v", entries)
	}
	if _, err := c.Restore(ctx, entries[0], p, false); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != "far" {
		t.Errorf("restored %q", data)
	}
}

// TestRestoreAcrossFileSystems restores from the home trash to another
// file system: a copy that keeps modes and times, then the trashed copy
// goes.
func TestRestoreAcrossFileSystems(t *testing.T) {
	c, work := testCan(t)
	other := otherFileSystem(t, c.Home)
	tree := filepath.Join(work, "tree")
	write(t, filepath.Join(tree, "bin"), "#!", 0o755)
	old := time.Date(2021, 5, 6, 7, 8, 9, 0, time.UTC)
	os.Chtimes(filepath.Join(tree, "bin"), old, old)
	before := snapshot(t, tree)
	e, err := c.Put(ctx, tree)
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(other, "tree")
	if _, err := c.Restore(ctx, e, dest, false); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, snapshot(t, dest)); diff != "" {
		t.Errorf("cross-device restore differs:\n%s", diff)
	}
	if _, err := os.Lstat(e.TrashedPath()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("trashed copy left behind: %v", err)
	}
}

// otherFileSystem returns a fresh folder on a file system other than
// ref's, or skips.
func otherFileSystem(t *testing.T, ref string) string {
	t.Helper()
	os.MkdirAll(ref, 0o700)
	refInfo, err := os.Stat(ref)
	if err != nil {
		t.Fatal(err)
	}
	for _, cand := range []string{"/dev/shm", "/run/user/" + itoa(int64(os.Getuid()))} {
		info, err := os.Stat(cand)
		if err != nil || device(info) == device(refInfo) {
			continue
		}
		dir, err := os.MkdirTemp(cand, "mcode-trash-test-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	t.Skip("no second file system (/dev/shm) to test trashing across devices")
	return ""
}

func TestDiskUsageCountsHardLinksOnce(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a"), strings.Repeat("x", 8192), 0o644)
	u1, err := diskUsage(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	u2, _ := diskUsage(ctx, dir)
	if u1.Bytes != u2.Bytes || u2.Entries != 2 {
		t.Errorf("before link %+v, after %+v", u1, u2)
	}
}

func TestEnsureShim(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "mcode")
	write(t, exe, "#!/bin/sh\n", 0o755)
	data := filepath.Join(dir, "data")
	shims, err := EnsureShim(data, exe)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(shims, "rm")
	check := func(what string) {
		t.Helper()
		if target, err := os.Readlink(link); err != nil || target != exe {
			t.Errorf("%s: shim -> %q, %v; want %s", what, target, err, exe)
		}
	}
	check("fresh")
	os.Remove(link)
	if _, err := EnsureShim(data, exe); err != nil {
		t.Fatal(err)
	}
	check("after deletion")
	os.Remove(link)
	os.Symlink("/bin/rm", link)
	if _, err := EnsureShim(data, exe); err != nil {
		t.Fatal(err)
	}
	check("after pointing at /bin/rm")
	os.Remove(link)
	write(t, link, "#!/bin/sh\nexec /bin/rm \"$@\"\n", 0o755)
	if _, err := EnsureShim(data, exe); err != nil {
		t.Fatal(err)
	}
	check("after a script took its place")
	os.Remove(link)
	os.MkdirAll(filepath.Join(link, "x"), 0o755)
	if _, err := EnsureShim(data, exe); err != nil {
		t.Fatal(err)
	}
	check("after a directory took its place")
	if entries, _ := os.ReadDir(shims); len(entries) != 1 {
		t.Errorf("leftovers in %s: %v", shims, entries)
	}

	// A shims folder that cannot be made (a file is in the way, which
	// stops root too) is an error, never a silent pass.
	blocked := filepath.Join(dir, "blocked")
	write(t, filepath.Join(blocked, "shims"), "", 0o644)
	if _, err := EnsureShim(blocked, exe); err == nil {
		t.Error("EnsureShim succeeded with a file where the shims folder goes")
	}
	// Nor can a shim to a binary that cannot run be trusted.
	plain := filepath.Join(dir, "not-exec")
	write(t, plain, "", 0o644)
	if _, err := EnsureShim(filepath.Join(dir, "d2"), plain); err == nil {
		t.Error("EnsureShim accepted a target that is not executable")
	}
	if _, err := EnsureShim(filepath.Join(dir, "d3"), "relative/mcode"); err == nil {
		t.Error("EnsureShim accepted a relative binary path")
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.MkdirAll(ro, 0o555)
		if _, err := EnsureShim(ro, exe); err == nil {
			t.Error("EnsureShim succeeded in a read-only folder")
		}
	}
}

func TestDirsListsTopDirTrashesOnce(t *testing.T) {
	c, _ := testCan(t)
	top := t.TempDir()
	uid := itoa(int64(c.UID))
	os.MkdirAll(filepath.Join(top, ".Trash-"+uid), 0o700)
	// .Trash without the sticky bit must not be used.
	os.MkdirAll(filepath.Join(top, ".Trash", uid), 0o700)
	c.Mounts = func() []string { return []string{top, top} }
	var got []string
	for _, d := range c.Dirs() {
		got = append(got, d.Path)
	}
	sort.Strings(got[1:])
	want := []string{c.Home, filepath.Join(top, ".Trash-"+uid)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dirs (-want +got):\n%s", diff)
	}
	os.Chmod(filepath.Join(top, ".Trash"), 0o777|fs.ModeSticky)
	got = got[:0]
	for _, d := range c.Dirs() {
		got = append(got, d.Path)
	}
	want = []string{c.Home, filepath.Join(top, ".Trash", uid), filepath.Join(top, ".Trash-"+uid)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("with a sticky .Trash (-want +got):\n%s", diff)
	}
}

func TestConcurrentPutsOfTheSameName(t *testing.T) {
	c, work := testCan(t)
	const n = 8
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		dir := filepath.Join(work, itoa(int64(i)))
		write(t, filepath.Join(dir, "same.txt"), itoa(int64(i)), 0o644)
		go func() {
			_, err := c.Put(ctx, filepath.Join(dir, "same.txt"))
			errs <- err
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	entries := mustList(t, c, ListOptions{})
	seen := map[string]bool{}
	for _, e := range entries {
		data, err := os.ReadFile(e.TrashedPath())
		if err != nil || seen[string(data)] {
			t.Errorf("%s: %q, %v (duplicate or lost)", e.ID, data, err)
		}
		seen[string(data)] = true
	}
	if len(entries) != n {
		t.Errorf("%d entries for %d puts", len(entries), n)
	}
}

// Without HOME or a home directory at all, nothing goes to a trash
// folder relative to wherever rm happens to run.
func TestNoHomeTrashRefusesPut(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	f := filepath.Join(dir, "f")
	os.WriteFile(f, nil, 0o644)
	c := &Can{Home: filepath.Join("", ".local", "share", "Trash"), Now: time.Now, Mounts: func() []string { return nil }}
	if _, err := c.Put(ctx, f); err == nil {
		t.Fatal("Put succeeded into a relative home trash")
	}
	if _, err := os.Lstat(f); err != nil {
		t.Errorf("the file moved: %v", err)
	}
	if entries, _, err := c.List(ctx, ListOptions{}); err != nil || len(entries) != 0 {
		t.Errorf("List: %v, %v", entries, err)
	}
}
