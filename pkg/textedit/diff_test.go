package textedit

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// patch applies changes to a and returns the new lines.
func patch(t *testing.T, a []string, changes []Change) []string {
	t.Helper()
	var out []string
	pos := 0
	for _, c := range changes {
		if c.a < pos {
			t.Fatalf("changes out of order: %+v", changes)
		}
		out = append(out, a[pos:c.a]...)
		if len(out) != c.b {
			t.Fatalf("change %+v: new line %d, want %d", c, len(out), c.b)
		}
		for i, l := range c.del {
			if a[c.a+i] != l {
				t.Fatalf("change %+v deletes %q, which is %q", c, l, a[c.a+i])
			}
		}
		out = append(out, c.ins...)
		pos = c.a + len(c.del)
	}
	return append(out, a[pos:]...)
}

// lcs is the textbook dynamic programme, to check that Myers finds a
// shortest script.
func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

func TestLineDiffIsCorrectAndShortest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a\n", "b\n", "c\n", "d\n", "}\n", "\n"}
	gen := func() []string {
		out := make([]string, r.IntN(14))
		for i := range out {
			out[i] = words[r.IntN(len(words))]
		}
		return out
	}
	for range 3000 {
		a, b := gen(), gen()
		changes := LineDiff(a, b)
		if got := patch(t, a, changes); strings.Join(got, "") != strings.Join(b, "") {
			t.Fatalf("a=%q b=%q: patch gives %q", a, b, got)
		}
		edits := 0
		for _, c := range changes {
			edits += len(c.del) + len(c.ins)
		}
		if want := len(a) + len(b) - 2*lcs(a, b); edits != want {
			t.Fatalf("a=%q b=%q: %d line edits, shortest is %d", a, b, edits, want)
		}
	}
}

func TestLineDiffPastItsCapIsStillCorrect(t *testing.T) {
	var a, b []string
	for i := range 3 * maxDiffEdits {
		a = append(a, "x\n")
		if i%2 == 0 {
			b = append(b, "y\n")
		} else {
			b = append(b, "x\n")
		}
	}
	changes := LineDiff(a, b)
	if got := patch(t, a, changes); strings.Join(got, "") != strings.Join(b, "") {
		t.Fatal("the capped diff does not turn a into b")
	}
}

func TestUnified(t *testing.T) {
	a := SplitKeep([]byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20"))
	b := append([]string(nil), a...)
	b[1] = "two\n"
	b = append(b[:10], b[11:]...) // drop "11"
	b[len(b)-1] = "20!"
	got, cut := unified("f.txt", StringLines(a), LineDiff(a, b), nil, MaxDiffBytes)
	// What GNU diff -u prints for the same two files.
	want := `--- a/f.txt
+++ b/f.txt
@@ -1,5 +1,5 @@
 1
-2
+two
 3
 4
 5
@@ -8,7 +8,6 @@
 8
 9
 10
-11
 12
 13
 14
@@ -17,4 +16,4 @@
 17
 18
 19
-20
\ No newline at end of file
+20!
\ No newline at end of file
`
	if got != want || cut {
		t.Errorf("unified (cut %v):\n%s\nwant:\n%s", cut, got, want)
	}
	ins := LineDiff(nil, []string{"a\n"})
	if got, _ := unified("n", StringLines(nil), ins, nil, MaxDiffBytes); !strings.Contains(got, "@@ -0,0 +1 @@\n+a\n") {
		t.Errorf("insertion into empty:\n%s", got)
	}
}

func TestUnifiedIsCut(t *testing.T) {
	var a, b []string
	for i := range 2000 {
		a = append(a, strings.Repeat("x", 40)+"\n")
		b = append(b, strings.Repeat("y", 40)+"\n")
		_ = i
	}
	got, cut := unified("big", StringLines(a), LineDiff(a, b), nil, 4096)
	// The hunk's header counts all of it, though its lines were cut.
	if !strings.Contains(got, "@@ -1,2000 +1,2000 @@\n-xxxx") {
		t.Errorf("header of the cut hunk:\n%s", got[:200])
	}
	if !cut || len(got) > 4096+100 || !strings.Contains(got, "diff cut at 4 KiB") {
		t.Errorf("cut=%v len=%d tail=%q", cut, len(got), got[max(len(got)-120, 0):])
	}
}

func TestPieceChangesMatchWholeDiff(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "b", "\n", "\r\n", "c"}
	for range 2000 {
		var text strings.Builder
		for range r.IntN(30) {
			text.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		orig := []byte(text.String())
		// Random disjoint pieces.
		var pieces []Piece
		for pos := 0; pos < len(orig); {
			start := pos + r.IntN(6)
			end := start + 1 + r.IntN(4)
			if end > len(orig) {
				break
			}
			var repl strings.Builder
			for range r.IntN(4) {
				repl.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			pieces = append(pieces, Piece{Start: start, End: end, Text: []byte(repl.String())})
			pos = end
		}
		newText := Render(orig, pieces)
		a := SplitKeep(orig)
		got := patch(t, a, collectChanges(orig, pieces))
		if strings.Join(got, "") != string(newText) {
			t.Fatalf("orig %q pieces %+v: patched %q, want %q", orig, pieces, strings.Join(got, ""), newText)
		}
	}
}

func TestLineIndexAgreesWithSplitting(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 500 {
		var b strings.Builder
		for range r.IntN(300) {
			b.WriteString([]string{"x", "\n", "yy", "\r\n"}[r.IntN(4)])
		}
		text := []byte(b.String())
		lines := SplitKeep(text)
		ix := NewLineIndex(text)
		if ix.Count() != len(lines) {
			t.Fatalf("%q: count %d, want %d", text, ix.Count(), len(lines))
		}
		starts := make([]int, len(lines))
		for i := 1; i < len(lines); i++ {
			starts[i] = starts[i-1] + len(lines[i-1])
		}
		for range 50 {
			if len(lines) == 0 {
				break
			}
			i := r.IntN(len(lines))
			if got := ix.Line(i); got != lines[i] {
				t.Fatalf("line(%d) = %q, want %q", i, got, lines[i])
			}
			off := starts[i] + r.IntN(len(lines[i]))
			if got := ix.lineOf(off); got != i {
				t.Fatalf("lineOf(%d) = %d, want %d", off, got, i)
			}
		}
	}
}

func collectChanges(orig []byte, pieces []Piece) []Change {
	var out []Change
	PieceChanges(NewLineIndex(orig), pieces, func(c Change) { out = append(out, c) })
	return out
}

// unified renders changes as a unified diff of at most maxBytes.
func unified(name string, old OldLines, changes []Change, display func(string) string, maxBytes int) (string, bool) {
	d := NewDiffWriter(name, old, display, maxBytes)
	for _, ch := range changes {
		d.Add(ch)
	}
	c := d.Finish()
	return c.Diff, c.DiffTruncated
}
