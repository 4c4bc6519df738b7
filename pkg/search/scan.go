package search

import (
	"bytes"
)

// finder searches one literal by its rarest byte: IndexByte (SIMD) finds
// the pivot, then the literal is compared around it. When the pivot turns
// out to be common in this text, the search falls back to bytes.Index.
// Folded literals are found the same way without lower-casing the text:
// the pivot is looked for in both its cases.
type finder struct {
	lit      string // lower-cased when fold
	litBytes []byte
	fold     bool
	pivot    int  // offset of the pivot byte in lit
	lo, up   byte // the pivot's two cases (equal unless a folded letter)
	twoCases bool
}

func newFinder(l lit) finder {
	f := finder{lit: l.s, litBytes: []byte(l.s), fold: l.fold}
	best, bestCost := 0, 1<<30
	for i := 0; i < len(l.s); i++ {
		c := l.s[i]
		cost := int(byteRank[c])
		if l.fold && c >= 'a' && c <= 'z' {
			cost = max(cost, int(byteRank[c-'a'+'A'])) + 16 // two IndexByte streams
		}
		if cost < bestCost {
			best, bestCost = i, cost
		}
	}
	f.pivot = best
	if len(l.s) > 0 {
		f.lo = l.s[best]
	}
	f.up = f.lo
	if l.fold && f.lo >= 'a' && f.lo <= 'z' {
		f.up = f.lo - 'a' + 'A'
		f.twoCases = true
	}
	return f
}

// finderState caches, per file, where each case of a pivot next occurs,
// so that scanning for 'e' and 'E' never rescans text.
type finderState struct {
	nextLo, nextUp int  // absolute positions; -1 none left; -2 not yet searched
	next           int  // cached result of index(from) for multi-literal sets
	common         bool // the exact pivot proved common in this text: use bytes.Index
}

func (s *finderState) reset() { *s = finderState{nextLo: -2, nextUp: -2, next: -2} }

// index returns the first occurrence of the literal at or after from.
func (f *finder) index(buf []byte, from int, st *finderState) int {
	if !f.fold {
		return f.indexExact(buf, from, st)
	}
	n := len(f.lit)
	for start := from; ; {
		p := start + f.pivot // the pivot of a candidate starting at >= start
		if p >= len(buf) {
			return -1
		}
		var at int
		if !f.twoCases {
			i := bytes.IndexByte(buf[p:], f.lo)
			if i < 0 {
				return -1
			}
			at = p + i
		} else {
			if st.nextLo != -1 && st.nextLo < p {
				if i := bytes.IndexByte(buf[p:], f.lo); i >= 0 {
					st.nextLo = p + i
				} else {
					st.nextLo = -1
				}
			}
			if st.nextUp != -1 && st.nextUp < p {
				if i := bytes.IndexByte(buf[p:], f.up); i >= 0 {
					st.nextUp = p + i
				} else {
					st.nextUp = -1
				}
			}
			switch {
			case st.nextLo < 0 && st.nextUp < 0:
				return -1
			case st.nextLo < 0:
				at = st.nextUp
			case st.nextUp < 0:
				at = st.nextLo
			default:
				at = min(st.nextLo, st.nextUp)
			}
		}
		cand := at - f.pivot
		if cand+n <= len(buf) && equalFoldASCII(buf[cand:cand+n], f.lit) {
			return cand
		}
		start = cand + 1
	}
}

// falsePivotLimit is how many pivots that are not the literal the exact
// search tolerates (beyond one per 512 bytes scanned) before it hands
// this text to bytes.Index.
const falsePivotLimit = 8

func (f *finder) indexExact(buf []byte, from int, st *finderState) int {
	n := len(f.litBytes)
	if n <= 1 || st.common || len(buf)-from < 64 {
		i := bytes.Index(buf[from:], f.litBytes)
		if i < 0 {
			return -1
		}
		return from + i
	}
	false_ := 0
	for start := from; ; {
		p := start + f.pivot
		if p >= len(buf) {
			return -1
		}
		i := bytes.IndexByte(buf[p:], f.lo)
		if i < 0 {
			return -1
		}
		cand := p + i - f.pivot
		if cand+n <= len(buf) && buf[cand] == f.litBytes[0] && bytes.Equal(buf[cand:cand+n], f.litBytes) {
			return cand
		}
		start = cand + 1
		false_++
		if false_ > falsePivotLimit+(start-from)>>9 {
			st.common = true
			j := bytes.Index(buf[start:], f.litBytes)
			if j < 0 {
				return -1
			}
			return start + j
		}
	}
}

// equalFoldASCII compares b with the lower-case ASCII string lower.
func equalFoldASCII(b []byte, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// containsAny reports whether line holds a literal of the set.
func containsAny(line []byte, fs []finder, st []finderState) bool {
	for i := range fs {
		st[i].reset()
		if fs[i].index(line, 0, &st[i]) >= 0 {
			return true
		}
	}
	return false
}

// byteRank ranks bytes by how common they are in source code and text
// (0 is the rarest), counted over the Go tree and Python's library. A
// literal is searched for by its rarest byte, as ripgrep does.
var byteRank = [256]uint8{
	0, 43, 1, 2, 3, 4, 5, 44, 39, 247, 250, 40, 51, 56, 6, 7,
	8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
	255, 178, 229, 182, 165, 171, 172, 209, 234, 233, 186, 181, 243, 196, 235, 230,
	244, 231, 222, 216, 217, 200, 213, 194, 206, 197, 227, 173, 174, 224, 177, 160,
	156, 215, 192, 208, 201, 218, 193, 185, 184, 207, 163, 169, 199, 195, 198, 205,
	204, 166, 212, 221, 219, 187, 191, 180, 183, 175, 164, 189, 190, 188, 159, 225,
	168, 249, 223, 241, 240, 254, 239, 226, 228, 248, 167, 203, 242, 232, 251, 245,
	236, 170, 252, 246, 253, 237, 214, 202, 238, 220, 176, 211, 179, 210, 158, 24,
	150, 145, 148, 139, 117, 130, 124, 133, 147, 120, 116, 78, 104, 79, 88, 136,
	106, 121, 98, 109, 132, 129, 144, 115, 128, 137, 85, 77, 126, 127, 93, 153,
	99, 92, 82, 89, 123, 110, 103, 113, 90, 125, 95, 91, 105, 100, 94, 80,
	87, 122, 112, 111, 97, 96, 86, 161, 149, 146, 107, 102, 134, 108, 119, 83,
	25, 26, 162, 142, 71, 72, 52, 64, 58, 70, 68, 59, 76, 66, 152, 114,
	155, 138, 53, 55, 54, 65, 84, 135, 140, 143, 60, 62, 50, 41, 46, 49,
	151, 131, 157, 141, 73, 101, 118, 81, 75, 69, 67, 61, 63, 57, 42, 74,
	154, 47, 27, 28, 48, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 45,
}
