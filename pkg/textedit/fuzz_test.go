package textedit

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzLocate checks the engine under edit and apply_patch on any text:
// the fuzzy tier finds the same spans window by window as over the whole
// text, and the diff of the pieces that replace what Locate found turns
// the old lines into exactly the new text.
func FuzzLocate(f *testing.F) {
	seeds := []struct {
		text, old, repl string
		all             bool
	}{
		{"a := 1\nb := 2\n", "b := 2", "b := 3", false},
		{"a\r\nb\r\nc\r\n", "a\nb\n", "x\n", false},
		{"say(\u201chi\u201d)\n\u3000\u4e2d\u6587\u3000\n", `say("hi")`, `say("bye")`, false},
		{"x  \ny\t \nz\n", "x\ny", "X\nY", false},
		{"caf\u0065\u0301\n", "caf\u00e9", "cafe", false},
		{"\uff46\uff4f\uff4f \uff46\uff4f\uff4f\n", "foo", "bar", true},
		{"a\u2014b\u00a0c\r\nd", "a-b c\nd", "e", false},
	}
	for _, s := range seeds {
		f.Add(s.text, s.old, s.repl, s.all)
	}
	f.Fuzz(func(t *testing.T, text, old, repl string, all bool) {
		if !utf8.ValidString(old) || !utf8.ValidString(repl) || old == "" {
			return
		}
		orig := []byte(text)
		fuzzy := utf8.Valid(orig)
		if fuzzy {
			whole := locateFuzzyIn(orig, old, 1<<30, -1)
			if small := locateFuzzyIn(orig, old, 2, -1); !reflect.DeepEqual(small, whole) {
				t.Fatalf("windowed search found %+v, whole-text search %+v", small, whole)
			}
		}
		keep := 1
		if all {
			keep = -1
		}
		loc := Locate(orig, old, fuzzy, keep)
		var pieces []Piece
		for _, s := range loc.Spans {
			pieces = append(pieces, Piece{Start: s.Start, End: s.End, Text: []byte(WithEOL(repl, EOLAround(orig, s)))})
		}
		out := Render(orig, pieces)
		got := patch(t, SplitKeep(orig), collectChanges(orig, pieces))
		if strings.Join(got, "") != string(out) {
			t.Fatalf("the diff does not describe the change")
		}
	})
}
