package render

import (
	"os"
	"testing"
)

// BenchmarkParse reads a document with our parser and with goldmark,
// the parser it replaced (MD_BENCH names another file than the rich
// fixture, e.g. scripts/bench.sh's 200-page document).
func BenchmarkParse(b *testing.B) {
	path := os.Getenv("MD_BENCH")
	if path == "" {
		path = "testdata/rich.md"
	}
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		parse func([]byte) (*Doc, error)
	}{{"ours", Parse}, {"goldmark", parseGoldmark}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.parse(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
