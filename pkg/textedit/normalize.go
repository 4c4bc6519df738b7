package textedit

import (
	"bytes"
	"sort"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The fuzzy tier compares text in a normal form, one line at a time: NFKC,
// the typographic variants of quotes, dashes and spaces folded to ASCII,
// trailing whitespace dropped. Tabs and spaces are never folded into each
// other, so indentation is compared as it is. The form only locates a
// match: the bytes written back are always the original ones around the
// span and new_string inside it.

// foldRune maps a typographic variant to its ASCII twin. It runs after
// NFKC, which already turns full-width forms and most special spaces
// (NBSP, the U+2000 family, the ideographic space) into ASCII.
func foldRune(r rune) rune {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032', '\u2035':
		return '\''
	case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033', '\u2036':
		return '"'
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\uFE58', '\uFE63', '\uFF0D':
		return '-'
	case '\u00A0', '\u2007', '\u202F', '\u205F', '\u3000', '\u180E', '\u2000', '\u2001', '\u2002',
		'\u2003', '\u2004', '\u2005', '\u2006', '\u2008', '\u2009', '\u200A':
		return ' '
	}
	return r
}

// folds reports whether foldRune changes r or NFKC would: the runes a
// fuzzy match may have looked past.
func folds(r rune) bool {
	if r < utf8.RuneSelf {
		return false
	}
	if foldRune(r) != r {
		return true
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	return !norm.NFKC.IsNormal(buf[:n])
}

// IsASCII reports whether b holds only ASCII bytes.
func IsASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// trimRightSpace drops trailing whitespace (CR included: a line of a
// CRLF file ends in one).
func trimRightSpace(b []byte) []byte {
	for len(b) > 0 {
		c := b[len(b)-1]
		if c < utf8.RuneSelf {
			if c != ' ' && c != '\t' && c != '\r' && c != '\v' && c != '\f' {
				return b
			}
			b = b[:len(b)-1]
			continue
		}
		r, size := utf8.DecodeLastRune(b)
		if !unicode.IsSpace(r) {
			return b
		}
		b = b[:len(b)-size]
	}
	return b
}

// AppendNormLine appends the normal form of one line (without its "\n")
// to dst.
func AppendNormLine(dst, line []byte) []byte {
	if IsASCII(line) {
		return append(dst, trimRightSpace(line)...)
	}
	start := len(dst)
	dst = norm.NFKC.Append(dst, line...)
	return appendFolded(dst[:start], dst[start:])
}

// appendFolded appends src with every rune folded, then trims trailing
// whitespace. src may alias the free tail of dst: folding never makes
// text longer (every fold target is one ASCII byte).
func appendFolded(dst, src []byte) []byte {
	start := len(dst)
	dst = appendFoldedRunes(dst, src)
	return append(dst[:start], trimRightSpace(dst[start:])...)
}

// NormText is the normal form of a whole text: each line normalized,
// joined by "\n".
func NormText(text []byte) []byte {
	out := make([]byte, 0, len(text))
	for {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			return AppendNormLine(out, text)
		}
		out = AppendNormLine(out, text[:i])
		out = append(out, '\n')
		text = text[i+1:]
	}
}

// fuzzyWindowBytes is how much of the normal form the fuzzy tier holds at
// once (plus the length of old_string): the text is normalized and searched
// window by window, so memory stays bounded however large the file.
const fuzzyWindowBytes = 1 << 20

// normWindow is the normal form of a run of whole lines of a text, with
// where each line starts and ends in both, so that a match in the window
// can be traced back to the original bytes.
type normWindow struct {
	text []byte
	norm []byte
	// Per line of the window: start and end (before the line break) in
	// norm and in text.
	normStart, normEnd, origStart, origEnd []int
	// next is the offset in text of the first line not yet in the
	// window; past len(text) when every line is in.
	next int
}

func (w *normWindow) done() bool { return w.next > len(w.text) }

// fill appends normalized lines until the window holds at least n bytes
// or the text is used up; at least one line, so that a search window by
// window always moves on.
func (w *normWindow) fill(n int) {
	for first := true; !w.done() && (first || len(w.norm) < n); first = false {
		start := w.next
		end := len(w.text)
		if i := bytes.IndexByte(w.text[start:], '\n'); i >= 0 {
			end = start + i
		}
		w.normStart = append(w.normStart, len(w.norm))
		w.origStart = append(w.origStart, start)
		w.norm = AppendNormLine(w.norm, w.text[start:end])
		w.normEnd = append(w.normEnd, len(w.norm))
		w.origEnd = append(w.origEnd, end)
		if end < len(w.text) {
			w.norm = append(w.norm, '\n')
		}
		w.next = end + 1
	}
}

// slide drops the lines before the last keep bytes of the window: no
// later match can start in them. It returns how many bytes went.
func (w *normWindow) slide(keep int) int {
	l := w.lineOf(max(len(w.norm)-keep, 0))
	drop := w.normStart[l]
	w.norm = w.norm[:copy(w.norm, w.norm[drop:])]
	n := copy(w.normStart, w.normStart[l:])
	copy(w.normEnd, w.normEnd[l:])
	copy(w.origStart, w.origStart[l:])
	copy(w.origEnd, w.origEnd[l:])
	w.normStart, w.normEnd, w.origStart, w.origEnd = w.normStart[:n], w.normEnd[:n], w.origStart[:n], w.origEnd[:n]
	for i := range w.normStart {
		w.normStart[i] -= drop
		w.normEnd[i] -= drop
	}
	return drop
}

// lineOf returns the window line holding normalized offset n: the last
// line that starts at or before n.
func (w *normWindow) lineOf(n int) int {
	return max(sort.SearchInts(w.normStart, n+1)-1, 0)
}

// toOrig maps an offset of the window's normal form to an offset of the
// text. A start snaps back and an end snaps forward to the nearest
// normalization boundary, so a span never cuts a character or its
// combining marks. A start at the end of a normalized line maps to the
// line break (trailing whitespace stays where it is); an end there maps
// past the last kept character.
func (w *normWindow) toOrig(n int, isStart bool) int {
	l := w.lineOf(n)
	if n > w.normEnd[l] {
		return w.origEnd[l] + 1 // just past the line break of the window's last line
	}
	col := n - w.normStart[l]
	line := w.text[w.origStart[l]:w.origEnd[l]]
	if isStart && col >= w.normEnd[l]-w.normStart[l] {
		return w.origStart[l] + len(bytes.TrimSuffix(line, []byte("\r")))
	}
	if IsASCII(line) {
		return w.origStart[l] + col
	}
	segs := lineSegments(line)
	if isStart {
		return w.origStart[l] + origStartOf(segs, col)
	}
	return w.origStart[l] + origEndOf(segs, col)
}

// segment maps one normalization segment of a line: the input bytes up
// to inEnd became the output bytes up to outEnd.
type segment struct{ inEnd, outEnd int }

// lineSegments normalizes a line segment by segment (a segment is a
// starter and the marks that combine with it), so that any boundary in
// the output can be traced to a boundary in the input.
func lineSegments(line []byte) []segment {
	var segs []segment
	var it norm.Iter
	it.Init(norm.NFKC, line)
	out := 0
	var buf []byte
	for !it.Done() {
		buf = appendFoldedRunes(buf[:0], it.Next())
		out += len(buf)
		segs = append(segs, segment{inEnd: it.Pos(), outEnd: out})
	}
	return segs
}

// appendFoldedRunes appends src with every rune folded.
func appendFoldedRunes(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		if c := src[i]; c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if f := foldRune(r); f != r {
			dst = append(dst, byte(f))
		} else {
			dst = append(dst, src[i:i+size]...)
		}
		i += size
	}
	return dst
}

// origStartOf maps a column of a normalized line to the input offset
// where the segment holding it starts (snapping out to a boundary).
func origStartOf(segs []segment, col int) int {
	in := 0
	for _, s := range segs {
		if col < s.outEnd {
			return in
		}
		in = s.inEnd
	}
	return in
}

// origEndOf maps an end column (exclusive) of a normalized line to the
// input offset where the segment holding col-1 ends.
func origEndOf(segs []segment, col int) int {
	if col == 0 {
		return 0
	}
	for _, s := range segs {
		if col <= s.outEnd {
			return s.inEnd
		}
	}
	if len(segs) == 0 {
		return 0
	}
	return segs[len(segs)-1].inEnd
}
