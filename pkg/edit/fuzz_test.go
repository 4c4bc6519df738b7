package edit

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/textedit"
)

// FuzzEdit checks the promise of edit on any text: the bytes outside the
// reported spans never change, each span holds old_string (exactly, up to
// CRLF, or in the normal form within the length guard), and new_string
// is what replaced it (up to LF written as CRLF). (The windowed
// search and the diff are checked by textedit.FuzzLocate.)
func FuzzEdit(f *testing.F) {
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
		{"T T T", "T", "$&", true},
		{"caf\xe9\nx = 1\n", "x = 1", "x = 2", false},
		{"\tindent\n", "    indent", "x", false},
		{"a\u2014b\u00a0c\r\nd", "a-b c\nd", "e", false},
	}
	for _, s := range seeds {
		f.Add(s.text, s.old, s.repl, s.all)
	}
	f.Fuzz(func(t *testing.T, text, old, repl string, all bool) {
		if !utf8.ValidString(old) || !utf8.ValidString(repl) {
			return // JSON and flags only ever give valid UTF-8
		}
		orig := []byte(text)
		byteWise := !utf8.Valid(orig)
		pieces, reports, fail := applyEdits("f", orig, []Edit{{OldString: old, NewString: repl, ReplaceAll: all}}, byteWise)
		if fail != nil {
			if fail.err.Code == "" || fail.err.Message == "" {
				t.Fatalf("refusal without code or message: %+v", fail.err)
			}
			return
		}
		if reports[0].LineNumbersStripped {
			old, repl = textedit.StripLineNumbers(old), textedit.StripLineNumbers(repl)
		}
		out := textedit.Render(orig, pieces)
		pos, last := 0, 0
		oldNorm := textedit.NormText([]byte(old))
		for _, p := range pieces {
			if p.Start < last || p.End <= p.Start || p.End > len(orig) {
				t.Fatalf("pieces out of order or empty: %+v", pieces)
			}
			gap := orig[last:p.Start]
			if !bytes.Equal(out[pos:pos+len(gap)], gap) {
				t.Fatalf("bytes outside the span changed: %q became %q", gap, out[pos:pos+len(gap)])
			}
			pos += len(gap)
			if !bytes.Equal(out[pos:pos+len(p.Text)], p.Text) {
				t.Fatal("replacement not where it was reported")
			}
			pos += len(p.Text)
			last = p.End

			got := orig[p.Start:p.End]
			switch reports[0].Match {
			case textedit.MatchExact:
				if string(got) != old && lf(string(got)) != lf(old) {
					t.Fatalf("exact span %q does not hold old_string %q", got, old)
				}
			case textedit.MatchFuzzy:
				if !bytes.Equal(textedit.NormText(got), oldNorm) {
					t.Fatalf("fuzzy span %q does not normalize to old_string %q", got, old)
				}
				if n := utf8.RuneCount(got); n > textedit.FuzzySpanFactor*utf8.RuneCountInString(old)+textedit.FuzzySpanSlack {
					t.Fatalf("fuzzy span of %d characters passed the guard", n)
				}
			default:
				t.Fatalf("match kind %q", reports[0].Match)
			}
			if lf(string(p.Text)) != lf(repl) {
				t.Fatalf("wrote %q for new_string %q", p.Text, repl)
			}
			if strings.Count(string(p.Text), "\r\n") > strings.Count(repl, "\r\n") && !strings.Contains(string(got), "\r\n") && !bytes.Contains(orig, []byte("\r\n")) {
				t.Fatalf("CRLF invented in an LF file: %q", p.Text)
			}
		}
		if !bytes.Equal(out[pos:], orig[last:]) {
			t.Fatalf("bytes after the last span changed")
		}
		if !all && len(pieces) != 1 {
			t.Fatalf("%d spans replaced without replace_all", len(pieces))
		}
		if allCRLF(orig) && !strings.Contains(old, "\r") && !strings.Contains(repl, "\r") && bytes.Count(out, []byte("\n")) != bytes.Count(out, []byte("\r\n")) {
			t.Fatalf("a CRLF file got a bare LF: %q", out)
		}
		if byteWise && !utf8.Valid(out) && utf8.Valid(orig) {
			t.Fatal("valid UTF-8 made invalid")
		}
	})
}

func lf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// allCRLF reports whether every LF of b has a CR before it (and there is
// at least one).
func allCRLF(b []byte) bool {
	n := bytes.Count(b, []byte("\n"))
	return n > 0 && n == bytes.Count(b, []byte("\r\n"))
}
