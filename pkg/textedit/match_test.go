package textedit

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLocate(t *testing.T) {
	cases := []struct {
		name string
		text string
		old  string
		kind string
		want []string // the original text of each span found
	}{
		{"exact", "a := 1\nb := 2\n", "b := 2", MatchExact, []string{"b := 2"}},
		{"exact twice", "x\ny\nx\n", "x", MatchExact, []string{"x", "x"}},
		{"non-overlapping", "aaaa", "aa", MatchExact, []string{"aa", "aa"}},
		{"LF matches CRLF", "a\r\nb\r\nc\r\n", "a\nb\n", MatchExact, []string{"a\r\nb\r\n"}},
		{"CRLF matches LF", "a\nb\nc\n", "a\r\nb", MatchExact, []string{"a\nb"}},
		{"span ends before CR", "one\r\ntwo\r\n", "one\ntwo", MatchExact, []string{"one\r\ntwo"}},
		{"mixed endings", "a\r\nb\nc\r\n", "a\nb\nc", MatchExact, []string{"a\r\nb\nc"}},
		{"curly quotes in file", "say(\u201chello\u201d)\n", `say("hello")`, MatchFuzzy, []string{"say(\u201chello\u201d)"}},
		{"curly quotes in old", "it's\n", "it\u2019s", MatchFuzzy, []string{"it's"}},
		{"dashes", "a \u2014 b\n", "a - b", MatchFuzzy, []string{"a \u2014 b"}},
		{"nbsp", "x\u00a0=\u00a01\n", "x = 1", MatchFuzzy, []string{"x\u00a0=\u00a01"}},
		{"ideographic space", "\u3000\u3000return\n", "  return", MatchFuzzy, []string{"\u3000\u3000return"}},
		{"full-width letters", "\uff46\uff4f\uff4f()\n", "foo()", MatchFuzzy, []string{"\uff46\uff4f\uff4f()"}},
		{"combining mark composed", "caf\u0065\u0301 ok\n", "caf\u00e9 ok", MatchFuzzy, []string{"caf\u0065\u0301 ok"}},
		{"trailing spaces in file", "if x {   \n\treturn\n}\n", "if x {\n\treturn", MatchFuzzy, []string{"if x {   \n\treturn"}},
		{"trailing spaces in old", "if x {\n\treturn\n", "if x {  \n\treturn", MatchFuzzy, []string{"if x {\n\treturn"}},
		{"fuzzy with CRLF", "a \u201cq\u201d\r\nb\r\n", "a \"q\"\nb", MatchFuzzy, []string{"a \u201cq\u201d\r\nb"}},
		{"tabs are not spaces", "\treturn x\n", "    return x", "", nil},
		{"spaces are not tabs", "    return x\n", "\treturn x", "", nil},
		{"inner spaces count", "a  b\n", "a b", "", nil},
		{"exact wins over fuzzy twin", "say(\u201chi\u201d)\nsay(\"hi\")\n", `say("hi")`, MatchExact, []string{`say("hi")`}},
		{"fuzzy twins both found", "\u201cx\u201d\n\u201cx\u201d\n", `"x"`, MatchFuzzy, []string{"\u201cx\u201d", "\u201cx\u201d"}},
		{"whitespace-only old never fuzzy", "a\n\t\nb\n", "  ", "", nil},
		{"old starting with a break", "end  \nnext \u201cq\u201d\n", "\nnext \"q\"", MatchFuzzy, []string{"\nnext \u201cq\u201d"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Locate([]byte(c.text), c.old, true, -1)
			if got.Kind != c.kind {
				t.Fatalf("kind = %q, want %q (rejected %v)", got.Kind, c.kind, got.Rejected)
			}
			var spans []string
			for _, s := range got.Spans {
				spans = append(spans, c.text[s.Start:s.End])
			}
			if diff := cmp.Diff(c.want, spans); diff != "" {
				t.Errorf("spans (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLocateFuzzyRefusesALongSpan(t *testing.T) {
	// Twenty lines of trailing blanks hide between the lines of old: the
	// normal form matches, but the original span is far longer.
	pad := strings.Repeat(" ", 40)
	var text strings.Builder
	var old strings.Builder
	for i := range 5 {
		text.WriteString("x" + string(rune('a'+i)) + pad + "\n")
		old.WriteString("x" + string(rune('a'+i)) + "\n")
	}
	got := Locate([]byte(text.String()), old.String(), true, -1)
	if got.Kind != "" || len(got.Rejected) != 1 || !got.Rejected[0].TooBig {
		t.Fatalf("Locate = %+v, want one rejection for length", got)
	}
	if r := got.Rejected[0]; r.Runes <= FuzzySpanFactor*15+FuzzySpanSlack {
		t.Errorf("rejected span is %d characters, which the guard allows", r.Runes)
	}
}

func TestNormalFormKeepsLinesApart(t *testing.T) {
	in := "a\u00a0b  \r\n\u201cq\u201d\n\tx\u3000\n"
	want := "a b\n\"q\"\n\tx\n"
	if got := string(NormText([]byte(in))); got != want {
		t.Errorf("NormText = %q, want %q", got, want)
	}
}

func TestEOLAround(t *testing.T) {
	cases := []struct {
		text       string
		start, end int
		want       string
	}{
		{"a\r\nb\r\n", 0, 1, eolCRLF},      // the line the span ends on
		{"a\nb\n", 0, 1, eolLF},            // ditto
		{"a\r\nb\nc\n", 0, 4, eolCRLF},     // inside: one CRLF
		{"a\nb\nc\r\nd", 0, 4, eolLF},      // inside: two LF, no CRLF
		{"x\r\ny\r\nlast", 6, 10, eolCRLF}, // last line: the file's majority
		{"x\ny\nlast", 4, 8, eolLF},
	}
	for _, c := range cases {
		if got := EOLAround([]byte(c.text), Span{c.start, c.end}); got != c.want {
			t.Errorf("EOLAround(%q, %d-%d) = %q, want %q", c.text, c.start, c.end, got, c.want)
		}
	}
	if got := WithEOL("a\nb\r\nc\n", eolCRLF); got != "a\r\nb\r\nc\r\n" {
		t.Errorf("WithEOL = %q", got)
	}
	if got := WithEOL("a\nb", eolLF); got != "a\nb" {
		t.Errorf("WithEOL LF = %q", got)
	}
}

func TestReadPrefixes(t *testing.T) {
	numbered := "    12→func a() {\n    13→\treturn\n\n    14→}\n"
	if !AllLinesNumbered(numbered, true) {
		t.Error("read output not recognised")
	}
	if AllLinesNumbered("    12→a\nb\n", true) {
		t.Error("a line without prefix was accepted")
	}
	if AllLinesNumbered("1\tx\n2\ty\n", false) || !AllLinesNumbered("1\tx\n2\ty\n", true) {
		t.Error("tab prefixes: only when asked")
	}
	if AllLinesNumbered("\n\n", true) {
		t.Error("blank text taken as numbered")
	}
	if got, want := StripLineNumbers(numbered), "func a() {\n\treturn\n\n}\n"; got != want {
		t.Errorf("StripLineNumbers = %q, want %q", got, want)
	}
	for text, want := range map[string]bool{
		"     1→package main\n     2→\n     3→func main() {}\n": true,
		"    41→a\n    42→b":   true,
		"1→2\n":                true,
		"     1→a\n     3→b\n": false, // not one after another
		"     1→a\nb\n":        false,
		"1\ta\n2\tb\n":         false, // tabs: a TSV, not read output
		"":                     false,
	} {
		if got := PastedReadOutput(text); got != want {
			t.Errorf("PastedReadOutput(%q) = %v", text, got)
		}
	}
	if got := StripLineNumbers("  7→kept\nnew line\n"); got != "kept\nnew line\n" {
		t.Errorf("partial strip = %q", got)
	}
}

// TestFuzzyWindowsFindWhatTheWholeTextHolds: searching the normal form a
// small window at a time finds exactly what one window over the whole
// text finds, matches across window ends included.
func TestFuzzyWindowsFindWhatTheWholeTextHolds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	parts := []string{"a", "b", "\u201c", "\"", " ", "\u00a0", "\n", "\r\n", "  \n", "\t", "\uff41", "e\u0301", "\u00e9"}
	gen := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		return b.String()
	}
	for range 5000 {
		text, old := gen(r.IntN(40)), gen(1+r.IntN(6))
		whole := locateFuzzyIn([]byte(text), old, 1<<30, -1)
		for _, window := range []int{0, 1, 3, 7} {
			got := locateFuzzyIn([]byte(text), old, window, -1)
			if !reflect.DeepEqual(got, whole) {
				t.Fatalf("text %q old %q window %d:\n got %+v\nwant %+v", text, old, window, got, whole)
			}
		}
	}
}
