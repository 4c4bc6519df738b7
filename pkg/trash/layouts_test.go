//go:build unix

package trash

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMacTrashName(t *testing.T) {
	now := time.Date(2026, 12, 2, 14, 3, 27, 0, time.Local)
	taken := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, x := range names {
				if x == n {
					return true
				}
			}
			return false
		}
	}
	tests := []struct {
		base  string
		isDir bool
		used  []string
		want  string
	}{
		{"notes.txt", false, nil, "notes.txt"},
		{"notes.txt", false, []string{"notes.txt"}, "notes 14.03.27.txt"},
		{"notes.txt", false, []string{"notes.txt", "notes 14.03.27.txt"}, "notes 14.03.27 2.txt"},
		{"notes.txt", false, []string{"notes.txt", "notes 14.03.27.txt", "notes 14.03.27 2.txt"}, "notes 14.03.27 3.txt"},
		{"archive.tar.gz", false, []string{"archive.tar.gz"}, "archive.tar 14.03.27.gz"},
		{".env", false, []string{".env"}, ".env 14.03.27"},
		{"my.project", true, []string{"my.project"}, "my.project 14.03.27"},
		{"Makefile", false, []string{"Makefile"}, "Makefile 14.03.27"},
	}
	for _, tt := range tests {
		if got := MacTrashName(tt.base, tt.isDir, now, taken(tt.used...)); got != tt.want {
			t.Errorf("MacTrashName(%q, dir %v, used %v) = %q, want %q", tt.base, tt.isDir, tt.used, got, tt.want)
		}
	}
}

func TestRecordRoundTrip(t *testing.T) {
	when := time.Date(2026, 12, 2, 14, 3, 27, 0, time.Local)
	data := FormatRecord("/Users/ann/my notes%.txt", "/Users/ann/.Trash/my notes%.txt", when)
	want := "[Trash Info]\nPath=/Users/ann/my%20notes%25.txt\nDeletionDate=2026-12-02T14:03:27\nX-Mcode-TrashedPath=/Users/ann/.Trash/my%20notes%25.txt\n"
	if string(data) != want {
		t.Fatalf("FormatRecord =\n%s\nwant\n%s", data, want)
	}
	info, err := ParseInfo(data, time.Local)
	if err != nil || info.Path != "/Users/ann/my notes%.txt" || info.Trashed != "/Users/ann/.Trash/my notes%.txt" || !info.Deleted.Equal(when) {
		t.Fatalf("ParseInfo = %+v, %v", info, err)
	}
}

// macCan is a macOS-layout trash in a temp dir: what Put, List, Restore
// and Erase do there is the same code as on a Mac.
func macCan(t *testing.T) (*Can, string) {
	t.Helper()
	c, work := testCan(t)
	base := filepath.Dir(work)
	c.Layout = MacTrash
	c.Home = filepath.Join(base, "home", ".Trash")
	c.Records = filepath.Join(base, "mcode-home", "trash-records")
	if err := os.MkdirAll(c.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	return c, work
}

func TestMacTrashRoundTrip(t *testing.T) {
	c, work := macCan(t)
	a := filepath.Join(work, "a.txt")
	write(t, a, "first", 0o640)
	first, err := c.Put(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if first.ID != "a.txt" || first.TrashedPath() != filepath.Join(c.Home, "a.txt") || first.Kind != "file" || first.Size != 5 {
		t.Fatalf("first entry: %+v at %s", first, first.TrashedPath())
	}
	write(t, a, "second!", 0o600)
	second, err := c.Put(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	// Finder's kind of name in the trash, a free name for the record.
	if second.ID != "a.txt_1" || !strings.HasPrefix(filepath.Base(second.TrashedPath()), "a ") || filepath.Ext(second.TrashedPath()) != ".txt" {
		t.Fatalf("second entry: %+v at %s", second, second.TrashedPath())
	}
	if _, err := os.Stat(a); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the original is still there: %v", err)
	}
	dir := filepath.Join(work, "src")
	write(t, filepath.Join(dir, "x.go"), "package x\n", 0o644)
	if _, err := c.Put(ctx, dir); err != nil {
		t.Fatal(err)
	}

	entries, problems, err := c.List(ctx, ListOptions{Sizes: true})
	if err != nil || len(problems) != 0 {
		t.Fatalf("List: %v %v", err, problems)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.ID+" "+e.OriginalPath+" "+e.Kind)
	}
	want := []string{"src " + dir + " directory", "a.txt_1 " + a + " file", "a.txt " + a + " file"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("List (-want +got):\n%s", diff)
	}
	// Restore by path takes the newest a.txt, bytes and mode.
	e, older, err := Find(entries, a, func(p string) string { return p })
	if err != nil || e.ID != "a.txt_1" || len(older) != 1 {
		t.Fatalf("Find = %v, %v, %v", e, older, err)
	}
	if _, err := c.Restore(ctx, e, a, false); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(a); string(data) != "second!" {
		t.Fatalf("restored %q", data)
	}
	if st, _ := os.Stat(a); st.Mode().Perm() != 0o600 {
		t.Errorf("restored mode %v", st.Mode())
	}
	// Finder emptied the trash behind mcode's back: the record shows the
	// item missing, and erasing it clears the record.
	if err := os.Remove(first.TrashedPath()); err != nil {
		t.Fatal(err)
	}
	entries, _, _ = c.List(ctx, ListOptions{})
	var missing *Entry
	for _, e := range entries {
		if e.ID == "a.txt" {
			missing = e
		}
	}
	if missing == nil || missing.Kind != "missing" {
		t.Fatalf("after Finder emptied it: %+v", missing)
	}
	if _, err := c.Erase(ctx, entries); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(c.Records); len(left) != 0 {
		t.Errorf("records left after erasing everything: %v", left)
	}
	if left, _ := os.ReadDir(c.Home); len(left) != 0 {
		t.Errorf("items left in the trash: %v", left)
	}
}

func TestMacTrashRefusals(t *testing.T) {
	c, work := macCan(t)
	vol := filepath.Join(work, "Volumes", "USB", ".Trashes", "501", "x")
	write(t, vol, "x", 0o644)
	res, _ := c.Rm(ctx, RmOptions{Force: true, Quote: func(s string) string { return s }}, work, []string{vol})
	if len(res) != 1 || res[0].Err == nil || !strings.Contains(res[0].Err.Message(), "it is in the trash") {
		t.Fatalf("rm of a file in a volume's .Trashes: %+v", res)
	}
	c.Records = ""
	write(t, filepath.Join(work, "y"), "y", 0o644)
	if _, err := c.Put(ctx, filepath.Join(work, "y")); err == nil {
		t.Fatal("Put without a records folder succeeded")
	}
	if _, err := os.Stat(filepath.Join(work, "y")); err != nil {
		t.Fatalf("a refused Put moved the file: %v", err)
	}
}

// recycleCan is a Recycle Bin layout in a temp dir: two "drives", each
// with the user's folder in $Recycle.Bin, filled as Explorer fills them.
func recycleCan(t *testing.T) (c *Can, home, other string) {
	t.Helper()
	base := t.TempDir()
	const sid = "S-1-5-21-1004336348-1177238915-682003330-1001"
	home = filepath.Join(base, "C", recycleBinFolder, sid)
	other = filepath.Join(base, "D", recycleBinFolder, sid)
	for _, d := range []string{home, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	c = &Can{Home: home, Layout: RecycleBin, Now: time.Now,
		Mounts: func() []string {
			return []string{filepath.Join(base, "C"), filepath.Join(base, "D"), filepath.Join(base, "E")}
		}}
	return c, home, other
}

func TestRecycleBinListRestoreErase(t *testing.T) {
	c, home, other := recycleCan(t)
	t1 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Hour)
	work := t.TempDir()
	orig := filepath.Join(work, "report.txt")
	write(t, filepath.Join(home, "$RAB12CD.txt"), "report", 0o644)
	write(t, filepath.Join(home, "$IAB12CD.txt"), string(recycleRecord(2, 6, t1, orig)), 0o644)
	write(t, filepath.Join(home, "$RZZ99YY", "main.go"), "package main\n", 0o644)
	write(t, filepath.Join(home, "$IZZ99YY"), string(recycleRecord(1, 13, t2, filepath.Join(work, "cmd"))), 0o644)
	write(t, filepath.Join(home, "$RORPHAN.bin"), "?", 0o644)
	write(t, filepath.Join(home, "desktop.ini"), "[.ShellClassInfo]", 0o644)
	write(t, filepath.Join(other, "$IQQ11QQ.log"), string(recycleRecord(2, 3, t1.Add(-time.Minute), `D:\logs\x.log`)), 0o644)
	write(t, filepath.Join(other, "$IBROKEN"), "short", 0o644)

	entries, problems, err := c.List(ctx, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.ID+" | "+e.OriginalPath+" | "+e.Kind)
	}
	want := []string{
		"ZZ99YY | " + filepath.Join(work, "cmd") + " | directory",
		"AB12CD.txt | " + orig + " | file",
		filepath.Join(other, "$RQQ11QQ.log") + ` | D:\logs\x.log | missing`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("List (-want +got):\n%s", diff)
	}
	var kinds []string
	for _, p := range problems {
		kinds = append(kinds, p.Kind+" "+filepath.Base(p.Path))
	}
	if diff := cmp.Diff([]string{"orphan $RORPHAN.bin", "unreadable $IBROKEN"}, kinds); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}

	e, _, err := Find(entries, orig, func(p string) string { return p })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Restore(ctx, e, orig, false); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(orig); string(data) != "report" {
		t.Fatalf("restored %q", data)
	}
	for _, gone := range []string{"$RAB12CD.txt", "$IAB12CD.txt"} {
		if _, err := os.Lstat(filepath.Join(home, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still in the bin after the restore", gone)
		}
	}
	dirEntry, _, _ := Find(entries, "ZZ99YY", func(p string) string { return p })
	if freed, err := c.Erase(ctx, []*Entry{dirEntry}); err != nil || freed != 13 {
		t.Fatalf("Erase = %d, %v", freed, err)
	}
	if _, err := os.Lstat(filepath.Join(home, "$RZZ99YY")); !errors.Is(err, os.ErrNotExist) {
		t.Error("the erased folder is still there")
	}
	if _, err := os.Lstat(filepath.Join(home, "directorysizes")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a FreeDesktop cache file was written into the Recycle Bin")
	}
}

func TestFindRecycled(t *testing.T) {
	c, home, _ := recycleCan(t)
	start := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	orig := `C:\Users\Ann\src\a.go`
	write(t, filepath.Join(home, "$IOLD001.go"), string(recycleRecord(2, 1, start.Add(-time.Hour), orig)), 0o644)
	write(t, filepath.Join(home, "$ROLD001.go"), "old", 0o644)
	write(t, filepath.Join(home, "$INEW001.go"), string(recycleRecord(2, 1, start.Add(time.Second), `c:\users\ann\SRC\a.go`)), 0o644)
	write(t, filepath.Join(home, "$RNEW001.go"), "new", 0o644)
	d := c.recycleBins()[0]
	e, err := c.findRecycled(ctx, d, orig, start)
	if err != nil || e.ID != "NEW001.go" {
		t.Fatalf("findRecycled = %+v, %v", e, err)
	}
	if _, err := c.findRecycled(ctx, d, `C:\Users\Ann\other.txt`, start); err == nil || !strings.Contains(err.Error(), "deleted it for good") {
		t.Fatalf("no record: err = %v", err)
	}
}
