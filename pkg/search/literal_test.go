package search

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

func TestPlanFor(t *testing.T) {
	cases := []struct {
		pattern string
		scan    []string
		fold    bool
		exact   bool
	}{
		{"needle", []string{"needle"}, false, true},
		{"(?i)Needle", []string{"needle"}, true, true},
		{"foo|bar", []string{"foo", "bar"}, false, true},
		{`func \w+Context\(`, []string{"Context("}, false, false},
		{`\w+_\w+\(`, []string{"_"}, false, false},
		{`[Ff]oo`, []string{"Foo", "foo"}, false, true},
		{`^package`, []string{"package"}, false, false},
		{`\bword\b`, []string{"word"}, false, false},
		{`a+bcd`, []string{"bcd"}, false, false},
		{`(abc)+`, []string{"abc"}, false, false},
		{`x{3}`, []string{"x"}, false, false},
		{`.*`, nil, false, false},
		{`\d+`, nil, false, false},
		{`a?`, nil, false, false},
		{``, nil, false, false},
		{`(?i)task`, []string{"ta"}, true, false}, // 'k' and 's' fold to non-ASCII runes
		{`(?i)straße`, []string{"tra"}, true, false},
		{`(foo|ba)r`, []string{"foor", "bar"}, false, true},
		{`foo(?i)bar`, []string{"foo"}, false, false},
	}
	for _, c := range cases {
		re, err := syntax.Parse(c.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		p := planFor(re)
		var got []string
		for _, l := range p.scan {
			got = append(got, l.s)
			if l.fold != c.fold {
				t.Errorf("%q: literal %q fold %v, want %v", c.pattern, l.s, l.fold, c.fold)
			}
		}
		if !slices.Equal(got, c.scan) || p.exact != c.exact {
			t.Errorf("planFor(%q) = %q exact %v, want %q exact %v", c.pattern, got, p.exact, c.scan, c.exact)
		}
	}
}

func TestFoldFinder(t *testing.T) {
	hay := []byte("xx Deadline DEADLINE deadLine deadlin")
	f := newFinder(lit{s: "deadline", fold: true})
	var st finderState
	st.reset()
	var got []int
	for from := 0; ; {
		i := f.index(hay, from, &st)
		if i < 0 {
			break
		}
		got = append(got, i)
		from = i + 1
	}
	if want := []int{3, 12, 21}; !slices.Equal(got, want) {
		t.Errorf("found at %v, want %v", got, want)
	}
}

// naiveLines is the reference: every line on which the regex matches.
func naiveLines(m *matcher, text []byte) []int {
	var starts []int
	for pos := 0; pos < len(text); {
		end := bytes.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		if m.re.Match(text[pos:end]) {
			starts = append(starts, pos)
		}
		pos = end + 1
	}
	return starts
}

// FuzzMatcher checks that the literal prefilter never changes the answer:
// the lines found are exactly those on which the regex matches.
func FuzzMatcher(f *testing.F) {
	for _, s := range []string{"needle", "(?i)deadline", `func \w+Context\(`, `foo|bar`, `\w+_\w+\(`, `[Ff]oo$`, `^a`, `(?i)k`, `x{2,}`, `(a|b)c+d`} {
		f.Add(s, "a Needle\nfoo_bar(x)\nfunc fooContext(\nDEADLINE dead\nKelvin \u212a\nxxcd acd bccd\n", false, false)
	}
	f.Fuzz(func(t *testing.T, pattern, text string, fold, fixed bool) {
		if len(pattern) > 40 || len(text) > 400 {
			return
		}
		m, err := compileMatcher(pattern, fixed, fold, false)
		if err != nil {
			return
		}
		data := []byte(text)
		var got []int
		m.eachLine(data, m.newState(), func(ls, le int) bool {
			got = append(got, ls)
			return true
		})
		if want := naiveLines(m, data); !slices.Equal(got, want) {
			t.Errorf("pattern %q fold %v fixed %v on %q: lines at %v, want %v", pattern, fold, fixed, text, got, want)
		}
	})
}

func TestClipLine(t *testing.T) {
	long := strings.Repeat("a", 2000) + "NEEDLE" + strings.Repeat("b", 2000)
	got := clipLine([]byte(long), 2000, 2006)
	if !strings.Contains(got, "NEEDLE") || !strings.HasPrefix(got, "[…") || !strings.HasSuffix(got, "bytes]") {
		t.Errorf("clipped line lost the match or its markers: %.80q…", got)
	}
	if n := len([]rune(got)); n > MaxLineChars+40 {
		t.Errorf("clipped line has %d characters", n)
	}
	if got := clipLine([]byte("short\r"), 0, 0); got != "short" {
		t.Errorf("short line: %q", got)
	}
	// Never cut inside a UTF-8 sequence.
	uni := strings.Repeat("é", 1000)
	if got := clipLine([]byte(uni), 999, 1001); !strings.Contains(got, "é") || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("clipped UTF-8 badly: %.40q", got)
	}
}
