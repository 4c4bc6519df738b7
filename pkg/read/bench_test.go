package read

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkReadSmall is the work of one small call (P1) inside the process.
func BenchmarkReadSmall(b *testing.B) {
	env := testEnv(b)
	var sb strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&sb, "// line %d\n", i)
	}
	write(b, env, "small.go", []byte(sb.String()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(context.Background(), env, Params{Path: "small.go"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanDeepPage pages deep into 64 MiB held in memory (P8 without
// the disk): the cost per byte of skipping and counting.
func BenchmarkScanDeepPage(b *testing.B) {
	line := strings.Repeat("x", 99) + "\n"
	data := []byte(strings.Repeat(line, 64<<20/len(line)))
	total := len(data) / len(line)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		p, err := scanPage(context.Background(), bytes.NewReader(data), pageRequest{offset: total - 3000, limit: 2000, size: int64(len(data))})
		if err != nil || p.total != total {
			b.Fatal(err, p.total)
		}
	}
}
