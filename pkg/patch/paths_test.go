package patch

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/pkg/tool"
)

func mustJSON(t testing.TB, input string) json.RawMessage {
	data, err := json.Marshal(Params{Input: input})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestPathsNameEveryFile: the path policy sees every path a patch
// touches, and how; a patch that does not parse touches none.
func TestPathsNameEveryFile(t *testing.T) {
	codex := "*** Begin Patch\n*** Add File: new.txt\n+x\n*** Delete File: ../outside.txt\n*** Update File: a.go\n*** Move to: .git/hooks/pre-commit\n@@\n-a\n+b\n*** Update File: ~/notes.txt\n-a\n+b\n*** End Patch\n"
	want := []tool.PathUse{
		{Path: "new.txt", Write: true},
		{Path: "../outside.txt", Write: true, Delete: true},
		{Path: "a.go", Write: true, Delete: true},
		{Path: ".git/hooks/pre-commit", Write: true},
		{Path: "~/notes.txt", Write: true},
	}
	if diff := cmp.Diff(want, paths(mustJSON(t, codex))); diff != "" {
		t.Errorf("codex paths (-want +got):\n%s", diff)
	}
	unified := "diff --git a/x.txt b/y.txt\nsimilarity index 100%\nrename from x.txt\nrename to y.txt\ndiff --git a/c.txt b/d.txt\nsimilarity index 100%\ncopy from c.txt\ncopy to d.txt\n"
	want = []tool.PathUse{
		{Path: "x.txt", Write: true, Delete: true},
		{Path: "y.txt", Write: true},
		{Path: "c.txt"},
		{Path: "d.txt", Write: true},
	}
	if diff := cmp.Diff(want, paths(mustJSON(t, unified))); diff != "" {
		t.Errorf("unified paths (-want +got):\n%s", diff)
	}
	if got := paths(mustJSON(t, "*** Begin Patch\n*** Update File: a\nnot a line\n")); got != nil {
		t.Errorf("a patch that does not parse touches %v", got)
	}
	// The tool's declaration is this function, under the alias too.
	tl := Tool()
	if !tl.TouchesPaths() {
		t.Fatal("apply_patch declares no paths")
	}
	args, err := tl.Normalize(json.RawMessage(`{"patch": "*** Begin Patch\n*** Delete File: z.txt\n*** End Patch\n"}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]tool.PathUse{{Path: "z.txt", Write: true, Delete: true}}, tl.Paths(args)); diff != "" {
		t.Errorf("paths through the alias (-want +got):\n%s", diff)
	}
}
