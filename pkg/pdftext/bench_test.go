package pdftext

import (
	"os"
	"testing"
)

// BenchmarkExtract lays out and renders every page of a real PDF, as
// mcode extract does: MCODE_BENCH_PDF names it (scripts/bench.sh P16
// makes a 223-page one, big.pdf; any PDF will do).
func BenchmarkExtract(b *testing.B) {
	path := os.Getenv("MCODE_BENCH_PDF")
	if path == "" {
		b.Skip("set MCODE_BENCH_PDF to a PDF to run the extraction benchmark")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		doc, err := Open(f, fi.Size())
		if err != nil {
			b.Fatal(err)
		}
		pages := make([]*Page, 0, doc.NumPages())
		for n := 1; n <= doc.NumPages(); n++ {
			p, err := doc.PageSpans(n)
			if err != nil {
				b.Fatal(err)
			}
			pages = append(pages, p)
		}
		if md := Markdown(pages); len(md) != len(pages) {
			b.Fatalf("%d pages rendered of %d", len(md), len(pages))
		}
	}
}
