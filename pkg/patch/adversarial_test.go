package patch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/pkg/fsutil"
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
