package textedit

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// How an old_string was found.
const (
	MatchExact = "exact"
	MatchFuzzy = "fuzzy"
)

// Fuzzy-match guard: the original span of a fuzzy match may be at most
// FuzzySpanFactor times as long as old_string plus FuzzySpanSlack,
// counted in characters.
const (
	FuzzySpanFactor = 2
	FuzzySpanSlack  = 32
)

// Span is a byte range [start, end) of a text.
type Span struct{ Start, End int }

// Rejection is a fuzzy candidate that was found in the normal form but
// refused: its original text is too long, or does not normalize back to
// the same text as old_string.
type Rejection struct {
	Span   Span
	Runes  int  // length of the original span in characters
	TooBig bool // refused by the length guard (else: it did not verify)
}

// Located is what a search for one old_string found, at the first tier
// that found anything: how many matches, and the first of them (as many
// as the search was asked to keep).
type Located struct {
	Kind     string // MatchExact or MatchFuzzy; "" when nothing matched
	Count    int
	Spans    []Span
	Rejected []Rejection
}

// maxRejections caps the refused fuzzy candidates a search remembers.
const maxRejections = 16

// Locate finds every non-overlapping occurrence of old in text: exactly
// first; then with CRLF and LF taken as the same line break (still an
// exact match: only the line-break bytes differ); then, when fuzzy is
// set, in the normal form. Uniqueness is up to the caller, at the tier
// that matched. It counts every match and keeps the first keep of them
// (all when keep < 0), so that a pattern found millions of times costs
// no memory unless all of them are to be replaced.
func Locate(text []byte, old string, fuzzy bool, keep int) Located {
	// A bare LF of old must not match the LF of a CRLF on its own (which
	// would split the pair): in a text with CRLF, such an old is matched
	// with line breaks folded, where a CRLF is one break.
	if !hasBareLF(old) || !bytes.Contains(text, []byte("\r\n")) {
		if spans, n := findAll(text, []byte(old), keep); n > 0 {
			return Located{Kind: MatchExact, Count: n, Spans: spans}
		}
	}
	if spans, n := findAcrossLineBreaks(text, old, keep); n > 0 {
		return Located{Kind: MatchExact, Count: n, Spans: spans}
	}
	if !fuzzy {
		return Located{}
	}
	return locateFuzzyIn(text, old, fuzzyWindowBytes, keep)
}

// hasBareLF reports whether s has an LF without a CR before it.
func hasBareLF(s string) bool {
	for i := strings.IndexByte(s, '\n'); i >= 0; {
		if i == 0 || s[i-1] != '\r' {
			return true
		}
		j := strings.IndexByte(s[i+1:], '\n')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// findAll returns the first keep (all when keep < 0) non-overlapping
// occurrences of pat, left to right, and how many there are.
func findAll(text, pat []byte, keep int) ([]Span, int) {
	var out []Span
	n := 0
	for off := 0; off <= len(text)-len(pat); {
		i := bytes.Index(text[off:], pat)
		if i < 0 {
			break
		}
		if keep < 0 || n < keep {
			out = append(out, Span{off + i, off + i + len(pat)})
		}
		n++
		off += i + len(pat)
	}
	return out, n
}

// findAcrossLineBreaks matches old with every CRLF taken as LF, in old and
// in the text, and maps the matches back to the text's own bytes.
func findAcrossLineBreaks(text []byte, old string, keep int) ([]Span, int) {
	crlf := []byte("\r\n")
	oldHasCRLF := strings.Contains(old, "\r\n")
	textHasCRLF := bytes.Contains(text, crlf)
	if !strings.Contains(old, "\n") || (!oldHasCRLF && !textHasCRLF) {
		return nil, 0
	}
	pat := []byte(old)
	if oldHasCRLF {
		pat = bytes.ReplaceAll(pat, crlf, []byte("\n"))
	}
	if !textHasCRLF {
		return findAll(text, pat, keep)
	}
	// The view drops each CR of a CRLF; crs holds the view offsets of
	// the LFs that lost their CR, so a view offset v is v plus the
	// number of those before it.
	view := make([]byte, 0, len(text))
	var crs []int
	for off := 0; ; {
		i := bytes.Index(text[off:], crlf)
		if i < 0 {
			view = append(view, text[off:]...)
			break
		}
		view = append(view, text[off:off+i]...)
		crs = append(crs, len(view))
		view = append(view, '\n')
		off += i + 2
	}
	spans, n := findAll(view, pat, keep)
	k := 0
	toText := func(v int) int {
		for k < len(crs) && crs[k] < v {
			k++
		}
		return v + k
	}
	for i := range spans {
		// Starts and ends only grow, so one forward pass of k serves both.
		spans[i].Start = toText(spans[i].Start)
		spans[i].End = toText(spans[i].End)
	}
	return spans, n
}

// locateFuzzyIn finds old in the normal form of text and traces each
// find back to a span of the original bytes that must normalize to the
// same text as old and be no more than FuzzySpanFactor×+FuzzySpanSlack
// long. The normal form is built and searched window bytes at a time; the
// first keep matches are kept (all when keep < 0), every one counted.
func locateFuzzyIn(text []byte, old string, window, keep int) Located {
	want := NormText([]byte(old))
	if len(bytes.TrimSpace(want)) == 0 {
		return Located{}
	}
	maxRunes := FuzzySpanFactor*utf8.RuneCountInString(old) + FuzzySpanSlack
	var out Located
	w := &normWindow{text: text}
	from, last := 0, 0 // where the next search starts (in w.norm), end of the last span taken (in text)
	for {
		w.fill(len(want) + window)
		for {
			i := bytes.Index(w.norm[from:], want)
			if i < 0 {
				break
			}
			n := Span{from + i, from + i + len(want)}
			from = n.End
			s := Span{w.toOrig(n.Start, true), w.toOrig(n.End, false)}
			if s.Start < last || s.End < s.Start {
				continue // snapped into the previous match: take the first only
			}
			runes := utf8.RuneCount(text[s.Start:s.End])
			tooBig := runes > maxRunes
			switch {
			case tooBig || !bytes.Equal(NormText(text[s.Start:s.End]), want):
				if len(out.Rejected) < maxRejections {
					out.Rejected = append(out.Rejected, Rejection{Span: s, Runes: runes, TooBig: tooBig})
				}
			default:
				if keep < 0 || out.Count < keep {
					out.Spans = append(out.Spans, s)
				}
				out.Count++
				last = s.End
			}
		}
		if w.done() {
			break
		}
		// Keep enough of the window's end for a match that runs past it.
		from = max(from-w.slide(len(want)), 0)
	}
	if out.Count > 0 {
		out.Kind = MatchFuzzy
	}
	return out
}

// Line-break styles of the text around a match.
const (
	eolLF   = "\n"
	eolCRLF = "\r\n"
)

// EOLAround names the line break new text should use in place of s: the
// majority inside s when it holds line breaks, else the break that ends
// the line s ends on, else the file's majority.
func EOLAround(text []byte, s Span) string {
	inside := text[s.Start:s.End]
	lf, crlf := countBreaks(inside)
	switch {
	case crlf > lf-crlf:
		return eolCRLF
	case lf-crlf > crlf:
		return eolLF
	}
	if i := bytes.IndexByte(text[s.End:], '\n'); i >= 0 {
		if j := s.End + i; j > 0 && text[j-1] == '\r' {
			return eolCRLF
		}
		return eolLF
	}
	lf, crlf = countBreaks(text)
	if crlf > lf-crlf {
		return eolCRLF
	}
	return eolLF
}

func countBreaks(b []byte) (lf, crlf int) {
	return bytes.Count(b, []byte("\n")), bytes.Count(b, []byte("\r\n"))
}

// WithEOL writes bare LFs of s as CRLF when the text around uses CRLF.
// Line breaks already written as CRLF stay as they are.
func WithEOL(s, eol string) string {
	if eol != eolCRLF || !strings.Contains(s, "\n") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + strings.Count(s, "\n"))
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' && (i == 0 || s[i-1] != '\r') {
			b.WriteByte('\r')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
