//go:build unix

package trash

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcode-dev/mcode/internal/peer"
)

// cliTrash is a home trash shared by mcode and trash-cli: both get the
// same HOME and XDG_DATA_HOME.
type cliTrash struct {
	can  *Can
	env  []string
	work string
}

func newCLITrash(t *testing.T) *cliTrash {
	t.Helper()
	peer.Require(t, "trash-put", "trash-cli")
	base := t.TempDir()
	home := filepath.Join(base, "home")
	data := filepath.Join(home, ".local", "share")
	work := filepath.Join(base, "work")
	for _, d := range []string{data, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home, "XDG_DATA_HOME=" + data, "PATH=" + os.Getenv("PATH"), "LC_ALL=C.UTF-8", "TZ=" + os.Getenv("TZ")}
	return &cliTrash{
		can:  &Can{Home: filepath.Join(data, "Trash"), UID: os.Getuid(), Now: time.Now},
		env:  env,
		work: work,
	}
}

func (c *cliTrash) run(t *testing.T, stdin string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = c.env
	cmd.Dir = c.work
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %q: %v\nstdout: %s\nstderr: %s", name, args, err, out.String(), errb.String())
	}
	return out.String()
}

// trashList parses trash-list: "YYYY-MM-DD hh:mm:ss /original/path".
func (c *cliTrash) trashList(t *testing.T) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(c.run(t, "", "trash-list"), "\n"), "\n") {
		if line == "" {
			continue
		}
		if len(line) < 21 || line[19] != ' ' {
			t.Fatalf("odd trash-list line %q", line)
		}
		got[line[20:]] = line[:19]
	}
	return got
}

var interopNames = []string{"plain.txt", "with space.txt", "日本語.md", "100%.txt", "quote's", "-leading-dash"}

func TestInteropMcodeTrashesTrashCliSees(t *testing.T) {
	tc := newCLITrash(t)
	want := map[string]string{}
	for _, n := range interopNames {
		p := filepath.Join(tc.work, n)
		write(t, p, n, 0o644)
		e, err := tc.can.Put(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		want[p] = strings.Replace(e.DeletedAt, "T", " ", 1)
	}
	dir := filepath.Join(tc.work, "tree")
	write(t, filepath.Join(dir, "bin", "tool"), "#!/bin/sh", 0o750)
	e, err := tc.can.Put(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	want[dir] = strings.Replace(e.DeletedAt, "T", " ", 1)
	if diff := cmp.Diff(want, tc.trashList(t)); diff != "" {
		t.Errorf("trash-list (-want +got):\n%s", diff)
	}

	// trash-restore (interactive: it lists what was trashed from the path
	// given and reads the number to restore) brings back what mcode put.
	for _, n := range []string{"with space.txt", "tree"} {
		p := filepath.Join(tc.work, n)
		out := tc.run(t, "0\n", "trash-restore", p)
		if !strings.Contains(out, p) {
			t.Errorf("trash-restore did not offer %s:\n%s", p, out)
		}
	}
	if data, err := os.ReadFile(filepath.Join(tc.work, "with space.txt")); err != nil || string(data) != "with space.txt" {
		t.Errorf("restored by trash-restore: %q, %v", data, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "bin", "tool")); err != nil || st.Mode().Perm() != 0o750 {
		t.Errorf("tree restored by trash-restore: %v, %v", st, err)
	}
	entries := mustList(t, tc.can, ListOptions{Sizes: true})
	if len(entries) != len(interopNames)-1 {
		t.Errorf("mcode still lists %d entries, want %d", len(entries), len(interopNames)-1)
	}

	// trash-empty empties it; the directorysizes line left by mcode for
	// the directory trash-cli restored is pruned at the next listing.
	tc.run(t, "", "trash-empty")
	if entries := mustList(t, tc.can, ListOptions{Sizes: true}); len(entries) != 0 {
		t.Errorf("after trash-empty mcode lists %+v", entries)
	}
	if m := parseDirSizes(mustRead(t, filepath.Join(tc.can.Home, sizesFile))); len(m) != 0 {
		t.Errorf("directorysizes not pruned: %v", m)
	}
}

func TestInteropTrashCliTrashesMcodeSees(t *testing.T) {
	tc := newCLITrash(t)
	before := time.Now().Add(-2 * time.Second)
	var paths []string
	for _, n := range interopNames {
		p := filepath.Join(tc.work, n)
		write(t, p, n, 0o640)
		paths = append(paths, p)
	}
	tree := filepath.Join(tc.work, "proj")
	write(t, filepath.Join(tree, "run.sh"), "#!", 0o755)
	write(t, filepath.Join(tree, "sub", "x"), "x", 0o600)
	old := time.Date(2022, 2, 2, 2, 2, 2, 0, time.UTC)
	os.Chtimes(filepath.Join(tree, "run.sh"), old, old)
	treeBefore := snapshot(t, tree)
	tc.run(t, "", "trash-put", append(slices.Clone(paths), "--", tree)...)
	// The same name twice: trash-cli names the second one name_1.
	write(t, paths[0], "second", 0o644)
	tc.run(t, "", "trash-put", paths[0])

	entries := mustList(t, tc.can, ListOptions{Sizes: true})
	var got []string
	for _, e := range entries {
		got = append(got, e.Original())
		if e.Deleted().Before(before) || e.Deleted().After(time.Now().Add(2*time.Second)) {
			t.Errorf("%s: deletion time %v is not now", e.Original(), e.Deleted())
		}
	}
	want := append(slices.Clone(paths), tree, paths[0])
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mcode list (-want +got):\n%s", diff)
	}

	// Restore by original path takes the newest of the two.
	e, older, err := Find(entries, paths[0], func(s string) string { return s })
	if err != nil || len(older) != 1 {
		t.Fatalf("find %s: %v, %d older", paths[0], err, len(older))
	}
	if _, err := tc.can.Restore(ctx, e, e.Original(), false); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(paths[0]); string(data) != "second" {
		t.Errorf("restored %q, want the newest", data)
	}
	e, _, err = Find(entries, tree, func(s string) string { return s })
	if err != nil {
		t.Fatal(err)
	}
	if e.Size <= 0 {
		t.Errorf("directory trashed by trash-cli has no size: %+v", e)
	}
	if _, err := tc.can.Restore(ctx, e, tree, false); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(treeBefore, snapshot(t, tree)); diff != "" {
		t.Errorf("tree trashed by trash-cli, restored by mcode (-before +after):\n%s", diff)
	}
	// What is left is still what trash-cli lists.
	left := tc.trashList(t)
	if len(left) != len(paths) {
		t.Errorf("trash-list after mcode's restores: %v", left)
	}
}

// TestInteropOtherFileSystem trashes on a second file system (/dev/shm)
// from both sides: each lands in $topdir/.Trash-$uid, and each side lists
// what the other put there.
func TestInteropOtherFileSystem(t *testing.T) {
	tc := newCLITrash(t)
	other := otherFileSystem(t, tc.can.Home)
	top, err := mountTop(other)
	if err != nil {
		t.Fatal(err)
	}
	trashDir := filepath.Join(top, ".Trash-"+itoa(int64(tc.can.UID)))
	if _, err := os.Lstat(trashDir); err == nil {
		t.Skipf("%s exists already; not touching someone's trash", trashDir)
	}
	t.Cleanup(func() { os.RemoveAll(trashDir) })
	mine, theirs := filepath.Join(other, "mine.txt"), filepath.Join(other, "theirs.txt")
	write(t, mine, "m", 0o644)
	write(t, theirs, "t", 0o644)
	if _, err := tc.can.Put(ctx, mine); err != nil {
		t.Fatal(err)
	}
	tc.run(t, "", "trash-put", theirs)
	if got := tc.trashList(t); got[mine] == "" || got[theirs] == "" {
		t.Errorf("trash-list: %v", got)
	}
	entries := mustList(t, tc.can, ListOptions{Prefix: other})
	if len(entries) != 2 {
		t.Fatalf("mcode list: %+v", entries)
	}
	for _, e := range entries {
		if e.TrashDir != trashDir {
			t.Errorf("%s in %s, want %s", e.Original(), e.TrashDir, trashDir)
		}
		if _, err := tc.can.Restore(ctx, e, e.Original(), false); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{mine, theirs} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s not restored: %v", p, err)
		}
	}
}
