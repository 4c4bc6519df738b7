package patch

import (
	"bytes"
	"hash/maphash"
	"slices"
	"sort"
	"unicode"

	"github.com/mcode-dev/mcode/pkg/textedit"
)

// tier is how loosely a hunk's lines are compared with the file's: each
// looks past a little more, and the first that finds the hunk decides.
type tier int

const (
	tierExact tier = iota
	tierTrailing
	tierSpace
	tierUnicode
	numTiers
)

// Tier names, as the result declares them.
const (
	TierExact    = "exact"
	TierTrailing = "trailing_whitespace"
	TierSpace    = "surrounding_whitespace"
	TierUnicode  = "unicode"
)

func (t tier) String() string {
	return [...]string{TierExact, TierTrailing, TierSpace, TierUnicode}[t]
}

// key is a line as tier t compares it.
func (t tier) key(line []byte) []byte {
	switch t {
	case tierTrailing:
		return bytes.TrimRightFunc(line, unicode.IsSpace)
	case tierSpace:
		return bytes.TrimFunc(line, unicode.IsSpace)
	case tierUnicode:
		return bytes.TrimFunc(textedit.AppendNormLine(nil, line), unicode.IsSpace)
	}
	return line
}

// fileLines is a file's decoded text seen as lines, with an index per
// tier built when a search first needs it.
type fileLines struct {
	text     []byte
	start    []int // start[i] is where line i starts; start[n] == len(text)
	n        int
	byteWise bool // not UTF-8: only the byte-wise tiers apply
	seed     maphash.Seed
	keys     [numTiers][][]byte
	index    [numTiers]map[uint64][]int32
	// searches counts the look-ups per tier: the first few scan the
	// lines, and only a file searched often gets an index.
	searches [numTiers]int
	// compared counts the lines compared with a hunk's; past
	// maxCompared the search stops and exhausted says so.
	compared  int
	exhausted bool
}

// maxCompared bounds the line comparisons spent locating the hunks of
// one file (a fraction of a second): a hunk of many lines alike in a
// file of many lines alike has a candidate place at every line, and
// checking each would take minutes.
const maxCompared = 50_000_000

// indexAfter is how many scans of one tier a file gets before an index.
const indexAfter = 4

func newFileLines(text []byte, byteWise bool) *fileLines {
	f := &fileLines{text: text, byteWise: byteWise, seed: maphash.MakeSeed()}
	f.start = make([]int, 0, bytes.Count(text, []byte("\n"))+2)
	for off := 0; off < len(text); {
		f.start = append(f.start, off)
		i := bytes.IndexByte(text[off:], '\n')
		if i < 0 {
			off = len(text)
		} else {
			off += i + 1
		}
	}
	f.n = len(f.start)
	f.start = append(f.start, len(text))
	return f
}

// line is line i without its line break.
func (f *fileLines) line(i int) []byte {
	l := f.text[f.start[i]:f.start[i+1]]
	l = bytes.TrimSuffix(l, []byte("\n"))
	return bytes.TrimSuffix(l, []byte("\r"))
}

// eol is line i's line break: "\r\n", "\n", or "" for a last line
// without one.
func (f *fileLines) eol(i int) string {
	l := f.text[f.start[i]:f.start[i+1]]
	switch {
	case bytes.HasSuffix(l, []byte("\r\n")):
		return "\r\n"
	case bytes.HasSuffix(l, []byte("\n")):
		return "\n"
	}
	return ""
}

// finalNewline says whether the file ends with a line break (an empty
// file counts as one that does).
func (f *fileLines) finalNewline() bool { return f.n == 0 || f.eol(f.n-1) != "" }

// tiers are the tiers that apply to this file.
func (f *fileLines) tiers() []tier {
	if f.byteWise {
		return []tier{tierExact, tierTrailing, tierSpace}
	}
	return []tier{tierExact, tierTrailing, tierSpace, tierUnicode}
}

// keyOf is line i as tier t compares it.
func (f *fileLines) keyOf(t tier, i int) []byte {
	if t == tierExact {
		return f.line(i)
	}
	return f.keys[t][i]
}

// positions lists, ascending, the lines whose tier-t key is key.
func (f *fileLines) positions(t tier, key []byte) []int32 {
	if t != tierExact && f.keys[t] == nil {
		keys := make([][]byte, f.n)
		for i := range f.n {
			keys[i] = t.key(f.line(i))
		}
		f.keys[t] = keys
	}
	if f.index[t] == nil && f.searches[t] < indexAfter {
		f.searches[t]++
		var out []int32
		for i := range f.n {
			if bytes.Equal(f.keyOf(t, i), key) {
				out = append(out, int32(i))
			}
		}
		return out
	}
	if f.index[t] == nil {
		idx := make(map[uint64][]int32, f.n/2+1)
		for i := range f.n {
			h := maphash.Bytes(f.seed, f.keyOf(t, i))
			idx[h] = append(idx[h], int32(i))
		}
		f.index[t] = idx
	}
	return f.index[t][maphash.Bytes(f.seed, key)]
}

// matches lists where the lines old (keys of tier t) sit in the file,
// starting at or after from; with eof only where they end the file.
func (f *fileLines) matches(t tier, old [][]byte, from int, eof bool) []int {
	k := len(old)
	if eof {
		i := f.n - k
		if i >= from && f.matchAt(t, old, i) {
			return []int{i}
		}
		return nil
	}
	// Anchor on the longest line: the rarest, as a rule.
	anchor := 0
	for j, l := range old {
		if len(l) > len(old[anchor]) {
			anchor = j
		}
	}
	var out []int
	for _, p := range f.positions(t, old[anchor]) {
		i := int(p) - anchor
		if i < from || i+k > f.n {
			continue
		}
		if f.exhausted {
			return nil
		}
		if f.matchAt(t, old, i) {
			out = append(out, i)
		}
	}
	return out
}

func (f *fileLines) matchAt(t tier, old [][]byte, i int) bool {
	for j, l := range old {
		if !bytes.Equal(f.keyOf(t, i+j), l) {
			f.spend(j + 1)
			return false
		}
	}
	f.spend(len(old))
	return true
}

// spend counts n line comparisons against maxCompared.
func (f *fileLines) spend(n int) {
	f.compared += n
	if f.compared > maxCompared {
		f.exhausted = true
	}
}

// keysOf is lines as tier t compares them.
func keysOf(t tier, lines []string) [][]byte {
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = t.key([]byte(l))
	}
	return out
}

// found is where a hunk was located, or why not.
type found struct {
	at   int // first old line, 0-based
	tier tier
	// candidates are the places found at the deciding tier when there
	// were several and nothing chose between them.
	candidates []int
	// header is the index of a context header that matched no line, or -1.
	header int
}

// maxCandidates caps the places an ambiguous hunk lists.
const maxCandidates = 50

// locate finds the hunk's old lines at or after line from: at the first
// tier that finds any, one place wins; several are told apart by the
// unified line-number hint (the nearest), or by the context headers (the
// first after them); else they are all returned as candidates.
func (f *fileLines) locate(h *hunk, old []string, from, drift int) found {
	res := found{header: -1, at: -1}
	anchored := false
	for hi, header := range h.headers {
		at, ok := f.findHeader(header, from)
		if !ok {
			res.header = hi
			return res
		}
		from, anchored = at+1, true
	}
	if len(old) == 0 {
		switch {
		case anchored:
			res.at = from
		case h.hasHint:
			res.at = min(max(h.hint-1+drift, from), f.n)
		default:
			res.at = f.n // Codex's rule: added lines with no context go at the end
		}
		return res
	}
	for _, t := range f.tiers() {
		cands := f.matches(t, keysOf(t, old), from, h.eof)
		if f.exhausted {
			return res
		}
		if len(cands) == 0 {
			continue
		}
		res.tier = t
		switch {
		case len(cands) == 1:
			res.at = cands[0]
		case h.hasHint:
			want := h.hint - 1 + drift
			sort.SliceStable(cands, func(a, b int) bool { return abs(cands[a]-want) < abs(cands[b]-want) })
			if abs(cands[0]-want) == abs(cands[1]-want) {
				res.candidates = cands[:min(len(cands), maxCandidates)]
				slices.Sort(res.candidates)
			} else {
				res.at = cands[0]
			}
		case anchored:
			res.at = cands[0]
		default:
			res.candidates = cands[:min(len(cands), maxCandidates)]
		}
		return res
	}
	return res
}

// findHeader finds the first line at or after from that a context header
// names: the whole line at the first tier that finds one, else the first
// line that holds the header's text ("@@ def run" names "    def run(self):").
func (f *fileLines) findHeader(header string, from int) (int, bool) {
	for _, t := range f.tiers() {
		key := t.key([]byte(header))
		if len(key) == 0 {
			continue
		}
		pos := f.positions(t, key)
		i := sort.Search(len(pos), func(i int) bool { return int(pos[i]) >= from })
		if i < len(pos) {
			return int(pos[i]), true
		}
	}
	want := bytes.TrimFunc([]byte(header), unicode.IsSpace)
	if len(want) == 0 {
		return 0, false
	}
	for i := from; i < f.n; i++ {
		if bytes.Contains(f.line(i), want) {
			return i, true
		}
	}
	return 0, false
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
