package render

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// allocated is what f allocates, in bytes.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func lineRunes(lines []pdfLine) int {
	n := 0
	for _, ln := range lines {
		for _, p := range ln.pieces {
			n += utf8.RuneCountInString(p.text)
		}
	}
	return n
}

// TestLongWordWrapsInLinearTime: wrapping a word of n characters costs
// work in proportion to n (it cost n², a minute for 200,000 characters),
// measured as memory allocated, not time.
func TestLongWordWrapsInLinearTime(t *testing.T) {
	w := testPDFWriter(t, context.Background())
	wrapWord := func(n int) uint64 {
		var lines []pdfLine
		bytes := allocated(func() { lines = w.wrap([]Run{{Text: strings.Repeat("x", n)}}, 300, bodyPt, "") })
		if got := lineRunes(lines); got != n {
			t.Fatalf("a word of %d characters wraps to %d", n, got)
		}
		return bytes
	}
	wrapWord(1000) // the widths are cached
	small, big := wrapWord(20000), wrapWord(40000)
	if big > 3*small {
		t.Fatalf("twice the word took %.1f× the memory (%d → %d bytes): the wrap is not linear", float64(big)/float64(small), small, big)
	}
	// The whole render of a 200,000-character word allocates a bounded
	// amount per character: about 400 bytes, most of it the PDF writer's
	// compressor for each page (n² would be 100 KB).
	env := testEnv(t)
	const n = 200000
	var err error
	total := allocated(func() {
		_, err = render(t, env, Params{Format: "pdf", Markdown: strings.Repeat("y", n), Out: "word.pdf"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if perChar := total / n; perChar > 1024 {
		t.Errorf("rendering a %d-character word allocated %d bytes, %d a character", n, total, perChar)
	}
}

// TestWrapStopsAtTheDeadline: with the time limit passed, the wrap of a
// long word stops within a few thousand characters instead of laying out
// all of it.
func TestWrapStopsAtTheDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	w := testPDFWriter(t, ctx)
	cancel()
	const n = 50000
	lines := w.wrap([]Run{{Text: strings.Repeat("x", n)}}, 300, bodyPt, "")
	if got := lineRunes(lines); got > 2*pollEvery {
		t.Errorf("after the deadline the wrap went on over %d of %d characters", got, n)
	}
}
