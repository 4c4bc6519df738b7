package search

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/internal/peer"
)

// indexRepo makes a repository with awkward names, long names and an
// intent-to-add entry (which sets the extended flags of version 3).
func indexRepo(t *testing.T, initArgs ...string) string {
	t.Helper()
	peer.Require(t, "git", "git")
	isolate(t)
	root := t.TempDir()
	run(t, root, "git", append([]string{"init", "-q"}, initArgs...)...)
	long := strings.Repeat("d", 200) + "/" + strings.Repeat("n", 3900) + ".txt" // a name over 0xFFF bytes
	files := map[string]string{
		"a.txt": "a", "b/c.txt": "c", "b/d/e.txt": "e", "with space.txt": "s", "ünï.txt": "u",
		"z/" + strings.Repeat("y", 40) + ".go": "y",
	}
	writeFiles(t, root, files)
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(long)), 0o755); err == nil {
		if os.WriteFile(filepath.Join(root, long), []byte("l"), 0o644) != nil {
			long = ""
		}
	}
	run(t, root, "git", "add", "-A")
	writeFiles(t, root, map[string]string{"new/intent.txt": "i"})
	run(t, root, "git", "add", "-N", "new/intent.txt")
	return root
}

func lsFiles(t *testing.T, root string) []string {
	out := strings.Split(strings.TrimRight(run(t, root, "git", "ls-files", "-z"), "\x00"), "\x00")
	slices.Sort(out)
	return slices.Compact(out)
}

func TestReadIndexVersions(t *testing.T) {
	for _, tc := range []struct {
		name     string
		initArgs []string
		update   []string
		hashSize int
	}{
		{"v2-or-3", nil, nil, 20},
		{"v3", nil, []string{"--index-version", "3"}, 20},
		{"v4", nil, []string{"--index-version", "4"}, 20},
		{"split", nil, []string{"--split-index"}, 20},
		{"sha256", []string{"--object-format=sha256"}, []string{"--index-version", "4"}, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := indexRepo(t, tc.initArgs...)
			if tc.update != nil {
				run(t, root, "git", append([]string{"update-index"}, tc.update...)...)
			}
			if tc.name == "split" {
				// Change the index after the split, so both parts hold entries.
				writeFiles(t, root, map[string]string{"after/split.txt": "x"})
				run(t, root, "git", "add", "after/split.txt")
			}
			repo := findRepo(root, gitEnv{})
			if repo == nil {
				t.Fatal("repository not found")
			}
			if repo.hashSize != tc.hashSize {
				t.Fatalf("hash size %d, want %d", repo.hashSize, tc.hashSize)
			}
			got, err := repo.tracked()
			if err != nil {
				t.Fatal(err)
			}
			got = slices.Compact(slices.Clone(got))
			if want := lsFiles(t, root); !slices.Equal(got, want) {
				t.Errorf("index names differ from git ls-files:\n%s", diffLists(want, got))
			}
			if !repo.isTracked("b/d/e.txt") || repo.isTracked("b/d") || !repo.tracksUnder("b/d") || repo.tracksUnder("b/d/e.txt") || repo.tracksUnder("nope") {
				t.Error("isTracked/tracksUnder disagree with the index")
			}
		})
	}
}

func TestReadIndexInLinkedWorktree(t *testing.T) {
	root := indexRepo(t)
	run(t, root, "git", "commit", "-qm", "x")
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, root, "git", "worktree", "add", "-q", wt)
	writeFiles(t, root, map[string]string{".git/info/exclude": "*.local\n"})
	repo := findRepo(filepath.Join(wt, "b", "d"), gitEnv{})
	if repo == nil || repo.top != wt {
		t.Fatalf("worktree repo %+v", repo)
	}
	got, err := repo.tracked()
	if err != nil || !slices.Contains(got, "b/d/e.txt") {
		t.Fatalf("worktree index: %v %v", got, err)
	}
	if ign, _ := repo.baseRules(nil, "").ignored("x.local", "x.local", false); !ign {
		t.Error("the shared info/exclude of a linked worktree is not applied")
	}
}

func TestParseIndexRejectsGarbage(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("DIRC"), []byte("DIRX\x00\x00\x00\x02\x00\x00\x00\x00" + strings.Repeat("\x00", 20)),
		[]byte("DIRC\x00\x00\x00\x05\x00\x00\x00\x00" + strings.Repeat("\x00", 20)),
		[]byte("DIRC\x00\x00\x00\x02\xff\xff\xff\xff" + strings.Repeat("\x00", 20))} {
		if _, _, err := parseIndex(data, 20); err == nil {
			t.Errorf("parseIndex(%q) accepted garbage", data)
		}
	}
}

// FuzzParseIndex feeds damaged indexes: the parser must fail cleanly,
// never panic or allocate without bound.
func FuzzParseIndex(f *testing.F) {
	for _, v := range []string{"2", "4"} {
		dir := f.TempDir()
		if _, err := os.Stat("/usr/bin/git"); err != nil {
			break
		}
		for _, args := range [][]string{{"init", "-q"}, {"update-index", "--index-version", v}} {
			if args[0] == "update-index" {
				_ = os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644)
				_ = os.MkdirAll(filepath.Join(dir, "b"), 0o755)
				_ = os.WriteFile(filepath.Join(dir, "b", "c.txt"), []byte("c"), 0o644)
				cmdRun(dir, "git", "add", "-A")
			}
			cmdRun(dir, "git", args...)
		}
		if data, err := os.ReadFile(filepath.Join(dir, ".git", "index")); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		names, _, err := parseIndex(data, 20)
		if err == nil && len(names) > len(data) {
			t.Errorf("%d names from %d bytes", len(names), len(data))
		}
	})
}
