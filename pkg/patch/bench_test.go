package patch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// manyFiles is P21m's shape (docs/performance.md): files of a few hundred
// lines, each changed at lines 20 and 60, in one unified diff.
func manyFiles(files, lines int) (tree, string) {
	t := tree{}
	var diff strings.Builder
	for i := range files {
		name := fmt.Sprintf("f%d.go", i)
		var b strings.Builder
		for l := 1; l <= lines; l++ {
			fmt.Fprintf(&b, "\tx%d := compute(%d, %q) // line %d of %s\n", l, l*i, name, l, name)
		}
		t[name] = b.String()
		all := strings.SplitAfter(b.String(), "\n")
		fmt.Fprintf(&diff, "--- a/%s\n+++ b/%s\n", name, name)
		for _, at := range []int{20, 60} {
			fmt.Fprintf(&diff, "@@ -%d,7 +%d,7 @@\n", at-3, at-3)
			for l := at - 3; l <= at+3; l++ {
				line := all[l-1]
				if l == at {
					fmt.Fprintf(&diff, "-%s+%s // P21\n", line, strings.TrimSuffix(line, "\n"))
				} else {
					diff.WriteString(" " + line)
				}
			}
		}
	}
	return t, diff.String()
}

// BenchmarkManyFiles applies a 50-file patch, two hunks each, to fresh
// files every time (their writing is outside the timer).
func BenchmarkManyFiles(b *testing.B) {
	files, diff := manyFiles(50, 800)
	base := b.TempDir()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		dir := filepath.Join(base, fmt.Sprint(i))
		for name, data := range files {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		env := &tool.Env{Root: dir, UserHome: dir, Now: time.Now}
		b.StartTimer()
		if _, err := Run(context.Background(), env, Params{Input: diff}); err != nil {
			b.Fatal(err)
		}
	}
}
