package patch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/internal/peer"
)

// gitRun runs git in dir and returns its stdout.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("git %v: %v\n%s", args, err, msg)
	}
	return string(out)
}

// gitDiff commits before in a new repository, changes it with change,
// and returns git diff's text of the change (renames found, staged).
func gitDiff(t *testing.T, before tree, modes map[string]os.FileMode, change func(dir string), args ...string) string {
	t.Helper()
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q")
	gitRun(t, dir, "config", "user.email", "t@example.com")
	gitRun(t, dir, "config", "user.name", "t")
	gitRun(t, dir, "config", "core.fileMode", "true")
	gitRun(t, dir, "config", "core.autocrlf", "false")
	writeTree(t, dir, before)
	for p, m := range modes {
		if err := os.Chmod(filepath.Join(dir, p), m); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "before")
	change(dir)
	gitRun(t, dir, "add", "-A")
	return gitRun(t, dir, append([]string{"diff", "--cached", "-M"}, args...)...)
}

// gitApply applies diff to a copy of before with git apply and returns
// the tree it leaves (or the error text when git refuses).
func gitApply(t *testing.T, before tree, modes map[string]os.FileMode, diff string, args ...string) (tree, string) {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, before)
	for p, m := range modes {
		os.Chmod(filepath.Join(dir, p), m)
	}
	patchFile := filepath.Join(t.TempDir(), "change.diff")
	os.WriteFile(patchFile, []byte(diff), 0o644)
	cmd := exec.Command("git", append([]string{"apply"}, append(args, patchFile)...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, string(out)
	}
	return readTree(t, dir), ""
}

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGitDiffsApplyAsGitApplies: diffs that real git produced, applied
// here and by git apply to the same files, give the same files, modes
// included.
func TestGitDiffsApplyAsGitApplies(t *testing.T) {
	peer.Require(t, "git", "git")
	var long strings.Builder
	for i := range 60 {
		long.WriteString("line " + strings.Repeat("x", i%7) + " " + string(rune('a'+i%26)) + "\n")
	}
	before := tree{
		"src/main.go":   greet,
		"src/long.txt":  long.String(),
		"old/name.txt":  "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\n",
		"gone.txt":      "to be deleted\nsecond line\n",
		"script.sh":     "#!/bin/sh\necho hi\n",
		"noeol.txt":     "first\nlast without newline",
		"addeol.txt":    "a\nb",
		"dropeol.txt":   "a\nb\n",
		"crlf.txt":      "one\r\ntwo\r\nthree\r\n",
		"plain/same.md": "unchanged\n",
	}
	modes := map[string]os.FileMode{"script.sh": 0o644}
	change := func(dir string) {
		write(t, dir, "src/main.go", strings.Replace(strings.Replace(greet, "\"hello\"", "\"hi\"", 1), "\"bye\"", "\"ciao\"", 1))
		l := strings.Split(long.String(), "\n")
		l[3] = "changed near the top"
		l = append(l[:30], append([]string{"inserted in the middle"}, l[30:]...)...)
		l[55] = "changed near the end"
		write(t, dir, "src/long.txt", strings.Join(l, "\n"))
		os.MkdirAll(filepath.Join(dir, "new/dir"), 0o755)
		os.Rename(filepath.Join(dir, "old/name.txt"), filepath.Join(dir, "new/dir/name.txt"))
		write(t, dir, "new/dir/name.txt", "alpha\nbeta\ngamma\nDELTA\nepsilon\nzeta\neta\n")
		os.Remove(filepath.Join(dir, "gone.txt"))
		write(t, dir, "brand/new.txt", "fresh\nfile\n")
		write(t, dir, "brand/crlf-new.txt", "dos\r\nlines\r\n")
		os.Chmod(filepath.Join(dir, "script.sh"), 0o755)
		write(t, dir, "noeol.txt", "first\nlast changed, still without newline")
		write(t, dir, "addeol.txt", "a\nb\n")
		write(t, dir, "dropeol.txt", "a\nb")
		write(t, dir, "crlf.txt", "one\r\nTWO\r\nthree\r\n")
	}
	diff := gitDiff(t, before, modes, change)
	for _, want := range []string{"rename from old/name.txt", "new mode 100755", "new file mode", "deleted file mode", "\\ No newline at end of file"} {
		if !strings.Contains(diff, want) {
			t.Fatalf("git diff lacks %q:\n%s", want, diff)
		}
	}
	want, gitErr := gitApply(t, before, modes, diff)
	if gitErr != "" {
		t.Fatalf("git apply: %s", gitErr)
	}
	env := testEnv(t)
	writeTree(t, env.Root, before)
	for p, m := range modes {
		os.Chmod(filepath.Join(env.Root, p), m)
	}
	res, terr, _ := apply(t, env, Params{Input: diff})
	if terr != nil {
		t.Fatalf("%s: %s", terr.Code, terr.Message)
	}
	if res.Format != FormatUnified {
		t.Errorf("format %s", res.Format)
	}
	sameTree(t, want, readTree(t, env.Root))

	// The same diff as plain diff -u would name the files: a/ and b/
	// understood, or dropped by strip.
	t.Run("strip", func(t *testing.T) {
		plain := gitDiff(t, tree{"d/x.txt": "1\n2\n3\n"}, nil, func(dir string) { write(t, dir, "d/x.txt", "1\ntwo\n3\n") }, "--src-prefix=x/y/", "--dst-prefix=x/y/")
		env := testEnv(t)
		writeTree(t, env.Root, tree{"d/x.txt": "1\n2\n3\n"})
		two := 2
		if _, terr, _ := apply(t, env, Params{Input: plain, Strip: &two}); terr != nil {
			t.Fatalf("%s: %s", terr.Code, terr.Message)
		}
		sameTree(t, tree{"d/x.txt": "1\ntwo\n3\n"}, contents(readTree(t, env.Root)))
	})
}

// TestDriftedContextAppliesWhereGitRefuses: context that changed in
// whitespace and moved down the file is refused by git apply; here a
// tier finds its one place and says which tier.
func TestDriftedContextAppliesWhereGitRefuses(t *testing.T) {
	peer.Require(t, "git", "git")
	before := tree{"f.py": "def f(x):\n    y = x + 1\n    return y\n\ndef g():\n    pass\n"}
	diff := gitDiff(t, before, nil, func(dir string) {
		write(t, dir, "f.py", "def f(x):\n    y = x + 2\n    return y\n\ndef g():\n    pass\n")
	})
	drifted := tree{"f.py": "import os\nimport sys\n\ndef f(x):   \n    y = x + 1\t\n    return y\n\ndef g():\n    pass\n"}
	if _, gitErr := gitApply(t, drifted, nil, diff); gitErr == "" {
		t.Fatal("git apply took the drifted context; the test needs one it refuses")
	}
	env := testEnv(t)
	writeTree(t, env.Root, drifted)
	res, terr, _ := apply(t, env, Params{Input: diff})
	if terr != nil {
		t.Fatalf("%s: %s", terr.Code, terr.Message)
	}
	if got := res.Files[0].Tiers; len(got) != 1 || got[0] != TierTrailing {
		t.Errorf("tiers %v, want [%s]", got, TierTrailing)
	}
	sameTree(t, tree{"f.py": "import os\nimport sys\n\ndef f(x):   \n    y = x + 2\n    return y\n\ndef g():\n    pass\n"}, contents(readTree(t, env.Root)))
}
