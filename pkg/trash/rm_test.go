//go:build unix

package trash

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/pkg/tool"
)

func rmLines(results []RmResult) []string {
	var out []string
	for _, r := range results {
		if r.Err != nil {
			out = append(out, r.Err.Lines...)
		}
	}
	return out
}

func TestRmRefusesProtectedDirsAndAncestors(t *testing.T) {
	c, work := testCan(t)
	home := filepath.Join(work, "home", "u")
	root := filepath.Join(home, "src", "proj")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(c.Home, 0o700)
	os.Symlink(home, filepath.Join(work, "home-link"))
	opts := RmOptions{Recursive: true, Force: true, Prompt: PromptNever,
		Protected: []Protected{{home, "the home directory"}, {root, "the workspace root"}}}
	cases := map[string]string{
		"/":                                 "it is dangerous to operate recursively on '/'",
		"/../":                              "refusing to remove '.' or '..' directory: skipping '/../'",
		"//":                                "it is dangerous to operate recursively on '//' (same as '/')",
		home:                                "it is the home directory",
		home + "/":                          "it is the home directory",
		filepath.Join(work, "home"):         "it holds the home directory",
		work:                                "it holds the home directory",
		root:                                "it is the workspace root",
		filepath.Join(home, "src"):          "it holds the workspace root",
		filepath.Join(root, "..", "..", ""): "it is the home directory",
		work + "/home-link/":                "it is the home directory",
		c.Home:                              "it holds the trash",
		filepath.Dir(c.Home):                "it holds the trash",
	}
	for op, want := range cases {
		results, err := c.Rm(ctx, opts, work, []string{op})
		if err != nil {
			t.Fatal(err)
		}
		r := results[0]
		if r.Err == nil || !strings.Contains(strings.Join(r.Err.Lines, "\n"), want) {
			t.Errorf("rm -rf %s: %+v, want refusal %q", op, r, want)
			continue
		}
		if r.Entry != nil {
			t.Errorf("rm -rf %s trashed something", op)
		}
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("the workspace root is gone: %v", err)
	}
	// The symlink itself is not the home directory: it may go.
	results, _ := c.Rm(ctx, opts, work, []string{"home-link"})
	if results[0].Err != nil || results[0].Entry == nil {
		t.Errorf("rm home-link: %+v", results[0])
	}
	if _, err := os.Stat(home); err != nil {
		t.Errorf("removing the link removed its target: %v", err)
	}
	// --no-preserve-root changes nothing but the wording.
	opts.NoPreserveRoot = true
	results, _ = c.Rm(ctx, opts, work, []string{"/"})
	if got := rmLines(results); len(got) != 1 || got[0] != "refusing to remove '/': it is the root directory" {
		t.Errorf("rm -rf --no-preserve-root /: %q", got)
	}
	if results[0].Err.Code != tool.CodeDenied {
		t.Errorf("refusal code %s, want denied", results[0].Err.Code)
	}
}

func TestRmRefusesInsideTheTrash(t *testing.T) {
	c, work := testCan(t)
	write(t, filepath.Join(work, "f"), "x", 0o644)
	e, err := c.Put(ctx, filepath.Join(work, "f"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{e.TrashedPath(), filepath.Join(c.Home, "files"), filepath.Join(c.Home, "info", "f.trashinfo")} {
		results, _ := c.Rm(ctx, RmOptions{Recursive: true, Prompt: PromptNever}, work, []string{p})
		if got := rmLines(results); len(got) != 1 || !strings.Contains(got[0], "it is in the trash") {
			t.Errorf("rm -r %s: %q", p, got)
		}
	}
	top := filepath.Join(work, "mnt")
	write(t, filepath.Join(top, ".Trash-"+itoa(int64(c.UID)), "files", "x"), "", 0o644)
	results, _ := c.Rm(ctx, RmOptions{Prompt: PromptNever}, work, []string{"mnt/.Trash-" + itoa(int64(c.UID)) + "/files/x"})
	if got := rmLines(results); len(got) != 1 || !strings.Contains(got[0], "it is in the trash") {
		t.Errorf("rm in a top-dir trash: %q", got)
	}
}

func TestRmRules(t *testing.T) {
	c, work := testCan(t)
	write(t, filepath.Join(work, "file"), "x", 0o644)
	write(t, filepath.Join(work, "full", "x"), "x", 0o644)
	os.MkdirAll(filepath.Join(work, "empty"), 0o755)
	cases := []struct {
		opts  RmOptions
		op    string
		want  string // the message, "" when it goes to the trash
		code  tool.Code
		trash bool
	}{
		{RmOptions{}, "nope", "cannot remove 'nope': No such file or directory", tool.CodeNotFound, false},
		{RmOptions{Force: true}, "nope", "", "", false},
		{RmOptions{}, "", "cannot remove '': No such file or directory", tool.CodeNotFound, false},
		{RmOptions{}, "full", "cannot remove 'full': Is a directory", tool.CodeIsDirectory, false},
		{RmOptions{Dir: true}, "full", "cannot remove 'full': Directory not empty", tool.CodeInvalidArgs, false},
		{RmOptions{}, "file/", "cannot remove 'file/': Not a directory", tool.CodeNotADirectory, false},
		{RmOptions{Recursive: true}, ".", "refusing to remove '.' or '..' directory: skipping '.'", tool.CodeInvalidArgs, false},
		{RmOptions{Recursive: true}, "full/..", "refusing to remove '.' or '..' directory: skipping 'full/..'", tool.CodeInvalidArgs, false},
		{RmOptions{}, ".", "cannot remove '.': Is a directory", tool.CodeIsDirectory, false},
		{RmOptions{Dir: true}, "empty", "", "", true},
		{RmOptions{Recursive: true}, "full/", "", "", true},
		{RmOptions{}, "file", "", "", true},
	}
	for _, tc := range cases {
		tc.opts.Prompt = PromptNever
		results, err := c.Rm(ctx, tc.opts, work, []string{tc.op})
		if err != nil {
			t.Fatal(err)
		}
		r := results[0]
		got := strings.Join(rmLines(results), "\n")
		if got != tc.want || (r.Err != nil && r.Err.Code != tc.code) || (r.Entry != nil) != tc.trash {
			t.Errorf("%+v %q: got %q (%+v), want %q %s trashed=%v", tc.opts, tc.op, got, r.Err, tc.want, tc.code, tc.trash)
		}
	}
	if left, _ := os.ReadDir(work); len(left) != 0 {
		t.Errorf("left in work: %v", left)
	}
}

func TestRmSymlinkToDirWithSlashEmptiesTarget(t *testing.T) {
	// GNU rm -r LINK/ removes what the linked directory holds and then
	// fails on the link; the trash keeps every child, one entry each.
	c, work := testCan(t)
	write(t, filepath.Join(work, "d", "a"), "a", 0o644)
	write(t, filepath.Join(work, "d", "b", "c"), "c", 0o644)
	os.Symlink("d", filepath.Join(work, "link"))
	results, err := c.Rm(ctx, RmOptions{Recursive: true, Verbose: true}, work, []string{"link/"})
	if err != nil {
		t.Fatal(err)
	}
	r := results[0]
	if got := rmLines(results); len(got) != 1 || got[0] != "cannot remove 'link/': Not a directory" || len(r.Entries) != 2 {
		t.Errorf("got %q with %d entries", got, len(r.Entries))
	}
	if diff := cmp.Diff([]string{"removed 'link/a'", "removed 'link/b/c'", "removed directory 'link/b'"}, r.Verbose); diff != "" {
		t.Errorf("verbose (-want +got):\n%s", diff)
	}
	if left, _ := os.ReadDir(filepath.Join(work, "d")); len(left) != 0 {
		t.Errorf("d still holds %v", left)
	}
	if _, err := os.Lstat(filepath.Join(work, "link")); err != nil {
		t.Errorf("the link went: %v", err)
	}
}

func TestRmPrompts(t *testing.T) {
	c, work := testCan(t)
	var asked []string
	answers := map[string]bool{}
	ask := func(q string) (bool, error) {
		asked = append(asked, q)
		for k, v := range answers {
			if strings.Contains(q, k) {
				return v, nil
			}
		}
		return false, nil
	}
	write(t, filepath.Join(work, "yes"), "y", 0o644)
	write(t, filepath.Join(work, "no"), "", 0o644)
	write(t, filepath.Join(work, "dir", "x"), "x", 0o644)
	answers["'yes'"] = true
	answers["'dir'"] = true
	results, err := c.Rm(ctx, RmOptions{Prompt: PromptAlways, Recursive: true, Ask: ask}, work, []string{"yes", "no", "dir"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"remove regular file 'yes'? ", "remove regular empty file 'no'? ", "remove directory 'dir' and everything in it? "}
	if diff := cmp.Diff(want, asked); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
	if results[0].Entry == nil || results[1].Skipped != "declined" || results[1].Entry != nil || results[2].Entry == nil {
		t.Errorf("results = %+v", results)
	}

	// -I asks once for more than three operands or -r, and a no stops all.
	asked = nil
	for _, n := range []string{"a", "b", "c", "d"} {
		write(t, filepath.Join(work, n), n, 0o644)
	}
	results, err = c.Rm(ctx, RmOptions{Prompt: PromptOnce, Ask: ask}, work, []string{"a", "b", "c", "d"})
	if err != nil || len(results) != 0 || len(asked) != 1 || asked[0] != "remove 4 arguments? " {
		t.Errorf("-I: %v %+v %q", err, results, asked)
	}
	asked = nil
	results, _ = c.Rm(ctx, RmOptions{Prompt: PromptOnce, Ask: ask}, work, []string{"a", "b"})
	if len(asked) != 0 || len(results) != 2 || results[0].Entry == nil {
		t.Errorf("-I with two files asked %q", asked)
	}
	answers["argument recursively"] = true
	results, _ = c.Rm(ctx, RmOptions{Prompt: PromptOnce, Recursive: true, Ask: ask}, work, []string{"c"})
	if len(asked) != 1 || asked[0] != "remove 1 argument recursively? " || results[0].Entry == nil {
		t.Errorf("-rI asked %q", asked)
	}

	// Nobody to ask: -i and -I refuse before touching anything.
	for _, p := range []Prompting{PromptAlways, PromptOnce} {
		results, err := c.Rm(ctx, RmOptions{Prompt: p, Recursive: true}, work, []string{"d"})
		if !errors.Is(err, ErrCannotAsk) || len(results) != 0 {
			t.Errorf("prompt %d without a terminal: %v %+v", p, err, results)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "d")); err != nil {
		t.Errorf("d removed without an answer: %v", err)
	}
}

func TestRmAsksAboutWriteProtectedFiles(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write anything: no file is write-protected")
	}
	c, work := testCan(t)
	write(t, filepath.Join(work, "ro"), "x", 0o444)
	var asked []string
	ask := func(q string) (bool, error) { asked = append(asked, q); return false, nil }
	results, _ := c.Rm(ctx, RmOptions{Ask: ask}, work, []string{"ro"})
	if len(asked) != 1 || asked[0] != "remove write-protected regular file 'ro'? " || results[0].Skipped != "declined" {
		t.Errorf("asked %q, %+v", asked, results)
	}
	// Without a terminal rm goes ahead, as GNU rm does.
	results, _ = c.Rm(ctx, RmOptions{}, work, []string{"ro"})
	if results[0].Entry == nil {
		t.Errorf("not trashed: %+v", results[0])
	}
}

func TestRmVerboseMatchesGNUOrderAndQuoting(t *testing.T) {
	c, work := testCan(t)
	write(t, filepath.Join(work, "g", "h", "i"), "", 0o644)
	write(t, filepath.Join(work, "g", "a b"), "", 0o644)
	results, _ := c.Rm(ctx, RmOptions{Recursive: true, Verbose: true}, work, []string{"g/"})
	want := []string{"removed 'g/a b'", "removed 'g/h/i'", "removed directory 'g/h'", "removed directory 'g/'"}
	if diff := cmp.Diff(want, results[0].Verbose); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
