package patch

import (
	"context"
	"strings"
	"testing"
)

// FuzzParse: any text parses or is refused with a line-numbered error,
// never a panic; and a patch that does not parse writes nothing.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n",
		"*** Begin Patch\n*** Update File: f.txt\n*** Move to: g.txt\n@@ func main\n@@ inner\n one\n-two\n+TWO\n*** End of File\n*** End Patch",
		"```\n  *** Begin Patch ***\r\n*** Delete File: f.txt\r\n```\n",
		"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n",
		"diff --git a/f.txt b/g.txt\nsimilarity index 90%\nrename from f.txt\nrename to g.txt\n--- a/f.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-one\n\\ No newline at end of file\n+one\n",
		"diff --git a/x b/x\nold mode 100644\nnew mode 100755\n",
		"*** Begin Patch\n*** Update File: f.txt\n@@ -3,0 +4,1 @@\n+x\n*** End Patch\n",
		"@@ -1 +1 @@\n-a\n+b\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		p, err := parsePatch(input, nil)
		if err != nil {
			if msg := err.Error(); msg == "" || strings.TrimSpace(msg) == "invalid patch" {
				t.Fatalf("bare error %q", msg)
			}
			env := testEnv(t)
			writeTree(t, env.Root, tree{"f.txt": "one\ntwo\n", "a.txt": "x\n"})
			before := readTree(t, env.Root)
			if _, err := Run(context.Background(), env, Params{Input: input}); err == nil {
				t.Fatalf("Run applied a patch that does not parse: %q", input)
			}
			sameTree(t, before, readTree(t, env.Root))
			return
		}
		for _, op := range p.ops {
			if op.path == "" {
				t.Fatalf("an operation without a path: %+v", op)
			}
			for _, h := range op.hunks {
				for _, l := range h.lines {
					if l.op != ' ' && l.op != '-' && l.op != '+' {
						t.Fatalf("hunk line op %q", l.op)
					}
				}
			}
		}
		paths(mustJSON(t, input))
	})
}
