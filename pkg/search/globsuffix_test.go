package search

import (
	"path"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// The suffix test that stands in for doublestar on "**/*LIT" patterns
// must answer as doublestar does, for every path.
func TestAnyNameEndingAgreesWithDoublestar(t *testing.T) {
	paths := []string{
		"a.go", ".go", "go", "x/a.go", "x/y/z/a.go", "a.go.txt", "dir.go/readme", "dir.go/a.go",
		".hidden.go", "x/.go", "a.GO", "é/ü.go", "a b/c d.go", "a.gox", "x.test.go", "x/_test.go",
	}
	for _, pat := range []string{"**/*.go", "**/*_test.go", "**/*.go.txt", "**/*o", "**/*.", "**/* d.go"} {
		lit := anyNameEnding(pat)
		if lit == "" {
			t.Fatalf("%s: no suffix found", pat)
		}
		for _, p := range paths {
			want := doublestar.MatchUnvalidated(pat, p)
			if got := strings.HasSuffix(path.Base(p), lit); got != want {
				t.Errorf("%s on %s: suffix says %v, doublestar %v", pat, p, got, want)
			}
		}
	}
	for _, pat := range []string{"**/*", "**/*.{go,md}", "**/*.g?", "**/*[a].go", "src/**/*.go", "**/x/*.go", "*.go", "**/*\\*.go"} {
		if lit := anyNameEnding(pat); lit != "" {
			t.Errorf("%s: a suffix (%q) for a pattern that needs doublestar", pat, lit)
		}
	}
}
