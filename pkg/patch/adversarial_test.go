package patch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// A git mode that is not a regular file's is refused: 120000 would make
// a file (or a link) whose content names any target, 160000 a gitlink.
func TestLinkAndSubmoduleModesAreRefused(t *testing.T) {
	for _, tc := range []struct{ mode, name, content string }{
		{"120000", "lnk", "/etc/passwd"},
		{"160000", "sub", "Subproject commit 1234567890123456789012345678901234567890"},
	} {
		env := testEnv(t)
		diff := "diff --git a/" + tc.name + " b/" + tc.name + "\nnew file mode " + tc.mode + "\n--- /dev/null\n+++ b/" + tc.name +
			"\n@@ -0,0 +1 @@\n+" + tc.content + "\n\\ No newline at end of file\n"
		_, te, _ := apply(t, env, Params{Input: diff})
		if te == nil || !strings.Contains(te.Message, "mode "+tc.mode) {
			t.Errorf("mode %s: got %+v, want a refusal naming the mode", tc.mode, te)
		}
		if _, err := os.Lstat(filepath.Join(env.Root, tc.name)); err == nil {
			t.Errorf("mode %s: %s was written", tc.mode, tc.name)
		}
	}
}

// Regular modes are applied as git apply does: the executable bit alone
// counts.
func TestRegularModesAsGitApply(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.Root, tree{"run.sh": "echo hi\n"})
	diff := "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n" +
		"diff --git a/new.sh b/new.sh\nnew file mode 100755\n--- /dev/null\n+++ b/new.sh\n@@ -0,0 +1 @@\n+echo new\n" +
		"diff --git a/odd.txt b/odd.txt\nnew file mode 100600\n--- /dev/null\n+++ b/odd.txt\n@@ -0,0 +1 @@\n+odd\n"
	if _, te, _ := apply(t, env, Params{Input: diff}); te != nil {
		t.Fatal(te)
	}
	for name, want := range map[string]os.FileMode{"run.sh": 0o755, "new.sh": 0o755, "odd.txt": 0o644} {
		fi, err := os.Stat(filepath.Join(env.Root, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want&^fsutil.Umask() {
			t.Errorf("%s: mode %o, want %o", name, got, want&^fsutil.Umask())
		}
	}
}

// A file named twice through two paths (a link to it, a hard link) is
// refused at once; before, its second lock waited for the first until
// the time limit.
func TestOneFileTwoPathsDoesNotWaitForItself(t *testing.T) {
	for _, link := range []func(old, new string) error{os.Symlink, os.Link} {
		env := testEnv(t)
		writeTree(t, env.Root, tree{"a.txt": "one\ntwo\n"})
		if err := link(filepath.Join(env.Root, "a.txt"), filepath.Join(env.Root, "b.txt")); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := Run(ctx, env, Params{Input: "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+1\n*** Update File: b.txt\n@@\n-two\n+2\n*** End Patch\n"})
		cancel()
		te := tool.AsError(err)
		if te == nil || te.Code != tool.CodeInvalidArgs || !strings.Contains(te.Message, "same file") {
			t.Errorf("got %v, want invalid_args naming the same file", err)
		}
		if got, _ := os.ReadFile(filepath.Join(env.Root, "a.txt")); string(got) != "one\ntwo\n" {
			t.Errorf("a.txt changed: %q", got)
		}
	}
}

// Spellings of one path (./a.txt, dir/../a.txt, \x61.txt) are one entry,
// applied in order.
func TestOnePathSpelledThreeWays(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.Root, tree{"a.txt": "one\ntwo\nthree\n", "dir/keep": ""})
	in := "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+1\n*** Update File: ./a.txt\n@@\n-two\n+2\n" +
		"*** Update File: dir/../a.txt\n@@\n-three\n+3\n*** Update File: \\x61.txt\n@@\n-1\n+one\n*** End Patch\n"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := Run(ctx, env, Params{Input: in}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(env.Root, "a.txt")); string(got) != "one\n2\n3\n" {
		t.Errorf("a.txt = %q", got)
	}
}

// A hunk of many lines alike in a file of many lines alike has a
// candidate place at every line: locating it, and diagnosing a miss, are
// bounded instead of running for minutes.
func TestLocatingManyCandidatesIsBounded(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.Root, tree{"big.txt": strings.Repeat("x\n", 400_000)})
	ctx := strings.Repeat(" x\n", 3000)
	for _, tc := range []struct {
		name, last string
		code       tool.Code
	}{
		// Every line is a candidate: the search gives up, too_large.
		{"candidates", "-y\n", tool.CodeTooLarge},
		// No candidate (the rare line is absent), but the diagnosis
		// sees every line vote for every place: it is capped.
		{"diagnosis", "-yyyyyyyyyy\n", tool.CodeNoMatch},
	} {
		start := time.Now()
		_, te, _ := apply(t, env, Params{Input: "*** Begin Patch\n*** Update File: big.txt\n@@\n" + ctx + tc.last + "+z\n*** End Patch\n"})
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s: took %v", tc.name, d)
		}
		if te == nil || te.Code != tc.code {
			t.Errorf("%s: got %+v, want %s", tc.name, te, tc.code)
		}
	}
}

// Codex's format as Codex reads it: a line that starts with a space is
// context whatever it holds, so a file's own "*** End of File" or
// "*** Delete File: x" line is matched, not obeyed.
func TestMarkerLikeContextLines(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.Root, tree{"doc.md": "doc\n*** Delete File: keep.txt\n*** End of File\n@@ x\nend\n", "keep.txt": "keep\n"})
	in := "*** Begin Patch\n*** Update File: doc.md\n@@\n-doc\n+DOC\n *** Delete File: keep.txt\n *** End of File\n @@ x\n-end\n+END\n*** End Patch\n"
	if _, te, _ := apply(t, env, Params{Input: in}); te != nil {
		t.Fatal(te)
	}
	got := readTree(t, env.Root)
	if _, ok := got["keep.txt"]; !ok {
		t.Error("keep.txt was deleted by a context line")
	}
	if d, _ := os.ReadFile(filepath.Join(env.Root, "doc.md")); string(d) != "DOC\n*** Delete File: keep.txt\n*** End of File\n@@ x\nEND\n" {
		t.Errorf("doc.md = %q", d)
	}
	// The patch's own end marker may still be indented.
	if _, te, _ := apply(t, env, Params{Input: "*** Begin Patch\n*** Update File: doc.md\n@@\n-DOC\n+doc\n  *** End Patch\n"}); te != nil {
		t.Fatal(te)
	}
}

// An @@ line names its whole line: spaces at its end are the line's own.
func TestContextHeaderIsTheWholeLine(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.Root, tree{"h.py": "def f():\n    return 1\ndef f():  \n    return 1\n"})
	if _, te, _ := apply(t, env, Params{Input: "*** Begin Patch\n*** Update File: h.py\n@@ def f():  \n-    return 1\n+    return 2\n*** End Patch\n"}); te != nil {
		t.Fatal(te)
	}
	if d, _ := os.ReadFile(filepath.Join(env.Root, "h.py")); string(d) != "def f():\n    return 1\ndef f():  \n    return 2\n" {
		t.Errorf("h.py = %q", d)
	}
}

// A path ending with a slash names a folder, and a file added twice has
// two contents: both are refused at parse, naming the lines.
func TestFolderPathsAndDoubleAdds(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"*** Begin Patch\n*** Add File: dir/\n+x\n*** End Patch\n", "ends with a slash"},
		{"*** Begin Patch\n*** Update File: a.txt\n*** Move to: dir/\n*** End Patch\n", "ends with a slash"},
		{"--- /dev/null\n+++ b/dir/\n@@ -0,0 +1 @@\n+x\n", "ends with a slash"},
		{"*** Begin Patch\n*** Add File: n.txt\n+x\n*** Add File: ./n.txt\n+y\n*** End Patch\n", "added twice, at lines 2 and 4"},
	} {
		env := testEnv(t)
		writeTree(t, env.Root, tree{"a.txt": "a\n"})
		_, te, _ := apply(t, env, Params{Input: tc.in})
		if te == nil || !strings.Contains(te.Message, tc.want) {
			t.Errorf("%q: got %+v, want %q", tc.in, te, tc.want)
		}
		if got := readTree(t, env.Root); len(got) != 1 {
			t.Errorf("%q: wrote %v", tc.in, got)
		}
	}
}

// A path with a NUL byte is the caller's mistake (invalid_args), not a
// fault of mcode (internal); apply fails the test on internal.
func TestNULInAPath(t *testing.T) {
	env := testEnv(t)
	_, te, _ := apply(t, env, Params{Input: "*** Begin Patch\n*** Add File: nu\x00l.txt\n+x\n*** End Patch\n"})
	if te == nil || te.Code != tool.CodeInvalidArgs || !strings.Contains(te.Message, "NUL") {
		t.Errorf("got %+v, want invalid_args naming the NUL byte", te)
	}
}

// A patch whose third file fails only while it is written (a folder name
// longer than the file system takes) leaves the first two as they were,
// and says so as the caller's error, not mcode's.
func TestThirdFileFailsAtCommit(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.Root, tree{"a.txt": "a\n"})
	long := strings.Repeat("x", 300)
	in := "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Add File: new.txt\n+n\n*** Add File: d/" + long + "/y.txt\n+y\n*** End Patch\n"
	_, te, _ := apply(t, env, Params{Input: in})
	if te == nil || te.Code != tool.CodeInvalidArgs || !strings.Contains(te.Message, "put back") {
		t.Errorf("got %+v, want invalid_args saying the files were put back", te)
	}
	got := readTree(t, env.Root)
	if len(got) != 1 {
		t.Errorf("left %d files, want a.txt alone", len(got))
	}
	if d, _ := os.ReadFile(filepath.Join(env.Root, "a.txt")); string(d) != "a\n" {
		t.Errorf("a.txt = %q", d)
	}
	if _, err := os.Stat(filepath.Join(env.Root, "d")); err == nil {
		t.Error("the folder d made for the third file was left")
	}
}
