package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkSmallCall measures one whole small call in-process: building
// the command tree, config, schema, the tool and the envelope.
func BenchmarkSmallCall(b *testing.B) {
	for _, argv := range [][]string{{"version"}, {"datetime"}, {"datetime", "--tz", "UTC"}} {
		b.Run(argv[0]+"-"+string(rune('0'+len(argv))), func(b *testing.B) {
			dir := b.TempDir()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				f, _ := factoryIn(dir, nil)
				if code := Run(context.Background(), f, argv); code != 0 {
					b.Fatal(code)
				}
			}
		})
	}
}

// BenchmarkReadSmall is P1 in-process: mcode read on a 20-line file.
func BenchmarkReadSmall(b *testing.B) {
	dir := b.TempDir()
	small := filepath.Join(dir, "small.go")
	if err := os.WriteFile(small, []byte(strings.Repeat("// a line of code\n", 20)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f, _ := factoryIn(dir, nil)
		if code := Run(context.Background(), f, []string{"read", small}); code != 0 {
			b.Fatal(code)
		}
	}
}
