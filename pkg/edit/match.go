package edit

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

// span is a byte range [start, end) of a text.
type span struct{ start, end int }

// rejection is a fuzzy candidate that was found in the normal form but
// refused: its original text is too long, or does not normalize back to
// the same text as old_string.
type rejection struct {
	span   span
	runes  int  // length of the original span in characters
	tooBig bool // refused by the length guard (else: it did not verify)
}

// located is what a search for one old_string found, at the first tier
// that found anything: how many matches, and the first of them (as many
// as the search was asked to keep).
type located struct {
	kind     string // MatchExact or MatchFuzzy; "" when nothing matched
	count    int
	spans    []span
	rejected []rejection
}

// maxRejections caps the refused fuzzy candidates a search remembers.
const maxRejections = 16

// locate finds every non-overlapping occurrence of old in text: exactly
// first; then with CRLF and LF taken as the same line break (still an
// exact match: only the line-break bytes differ); then, when fuzzy is
// set, in the normal form. Uniqueness is up to the caller, at the tier
// that matched. It counts every match and keeps the first keep of them
// (all when keep < 0), so that a pattern found millions of times costs
// no memory unless all of them are to be replaced.
func locate(text []byte, old string, fuzzy bool, keep int) located {
	// A bare LF of old must not match the LF of a CRLF on its own (which
	// would split the pair): in a text with CRLF, such an old is matched
	// with line breaks folded, where a CRLF is one break.
	if !hasBareLF(old) || !bytes.Contains(text, []byte("\r\n")) {
		if spans, n := findAll(text, []byte(old), keep); n > 0 {
			return located{kind: MatchExact, count: n, spans: spans}
		}
	}
	if spans, n := findAcrossLineBreaks(text, old, keep); n > 0 {
		return located{kind: MatchExact, count: n, spans: spans}
	}
	if !fuzzy {
		return located{}
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
func findAll(text, pat []byte, keep int) ([]span, int) {
	var out []span
	n := 0
	for off := 0; off <= len(text)-len(pat); {
		i := bytes.Index(text[off:], pat)
		if i < 0 {
			break
		}
		if keep < 0 || n < keep {
			out = append(out, span{off + i, off + i + len(pat)})
		}
		n++
		off += i + len(pat)
	}
	return out, n
}

// findAcrossLineBreaks matches old with every CRLF taken as LF, in old and
// in the text, and maps the matches back to the text's own bytes.
func findAcrossLineBreaks(text []byte, old string, keep int) ([]span, int) {
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
		spans[i].start = toText(spans[i].start)
		spans[i].end = toText(spans[i].end)
	}
	return spans, n
}

// locateFuzzyIn finds old in the normal form of text and traces each
// find back to a span of the original bytes that must normalize to the
// same text as old and be no more than FuzzySpanFactor×+FuzzySpanSlack
// long. The normal form is built and searched window bytes at a time; the
// first keep matches are kept (all when keep < 0), every one counted.
func locateFuzzyIn(text []byte, old string, window, keep int) located {
	want := normText([]byte(old))
	if len(bytes.TrimSpace(want)) == 0 {
		return located{}
	}
	maxRunes := FuzzySpanFactor*utf8.RuneCountInString(old) + FuzzySpanSlack
	var out located
	w := &normWindow{text: text}
	from, last := 0, 0 // where the next search starts (in w.norm), end of the last span taken (in text)
	for {
		w.fill(len(want) + window)
		for {
			i := bytes.Index(w.norm[from:], want)
			if i < 0 {
				break
			}
			n := span{from + i, from + i + len(want)}
			from = n.end
			s := span{w.toOrig(n.start, true), w.toOrig(n.end, false)}
			if s.start < last || s.end < s.start {
				continue // snapped into the previous match: take the first only
			}
			runes := utf8.RuneCount(text[s.start:s.end])
			tooBig := runes > maxRunes
			switch {
			case tooBig || !bytes.Equal(normText(text[s.start:s.end]), want):
				if len(out.rejected) < maxRejections {
					out.rejected = append(out.rejected, rejection{span: s, runes: runes, tooBig: tooBig})
				}
			default:
				if keep < 0 || out.count < keep {
					out.spans = append(out.spans, s)
				}
				out.count++
				last = s.end
			}
		}
		if w.done() {
			break
		}
		// Keep enough of the window's end for a match that runs past it.
		from = max(from-w.slide(len(want)), 0)
	}
	if out.count > 0 {
		out.kind = MatchFuzzy
	}
	return out
}

// Line-break styles of the text around a match.
const (
	eolLF   = "\n"
	eolCRLF = "\r\n"
)

// eolAround names the line break new text should use in place of s: the
// majority inside s when it holds line breaks, else the break that ends
// the line s ends on, else the file's majority.
func eolAround(text []byte, s span) string {
	inside := text[s.start:s.end]
	lf, crlf := countBreaks(inside)
	switch {
	case crlf > lf-crlf:
		return eolCRLF
	case lf-crlf > crlf:
		return eolLF
	}
	if i := bytes.IndexByte(text[s.end:], '\n'); i >= 0 {
		if j := s.end + i; j > 0 && text[j-1] == '\r' {
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

// withEOL writes bare LFs of s as CRLF when the text around uses CRLF.
// Line breaks already written as CRLF stay as they are.
func withEOL(s, eol string) string {
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
