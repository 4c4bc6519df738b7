package search

import (
	"bytes"
)

// finder searches one literal. Folded literals are found without
// lower-casing the text: a pivot byte of the literal (a non-letter when
// there is one, else its rarest letter) is found with IndexByte in its
// one or two cases, then the literal is compared around it.
type finder struct {
	lit      string // lower-cased when fold
	litBytes []byte
	fold     bool
	pivot    int  // offset of the pivot byte in lit
	lo, up   byte // the pivot's two cases (equal for a non-letter)
	twoCases bool
}

func newFinder(l lit) finder {
	f := finder{lit: l.s, litBytes: []byte(l.s), fold: l.fold}
	if !l.fold {
		return f
	}
	best := -1
	for i := 0; i < len(l.s); i++ {
		c := l.s[i]
		if c < 'a' || c > 'z' {
			best = i
			break
		}
		if best < 0 || byteRank[c] < byteRank[l.s[best]] {
			best = i
		}
	}
	f.pivot = best
	f.lo = l.s[best]
	f.up = f.lo
	if f.lo >= 'a' && f.lo <= 'z' {
		f.up = f.lo - 'a' + 'A'
		f.twoCases = true
	}
	return f
}

// finderState caches, per file, where each case of a pivot next occurs,
// so that scanning for 'e' and 'E' never rescans text.
type finderState struct {
	nextLo, nextUp int // absolute positions; -1 none left; -2 not yet searched
	next           int // cached result of index(from) for multi-literal sets
	from           int
}

func (s *finderState) reset() { *s = finderState{nextLo: -2, nextUp: -2, next: -2} }

// index returns the first occurrence of the literal at or after from.
func (f *finder) index(buf []byte, from int, st *finderState) int {
	if !f.fold {
		i := bytes.Index(buf[from:], f.litBytes)
		if i < 0 {
			return -1
		}
		return from + i
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

// byteRank approximates how common each lower-case letter is in source
// code (lower is rarer), to pick the pivot of a folded literal.
var byteRank = func() [256]byte {
	var r [256]byte
	for i := range r {
		r[i] = 255
	}
	for i, c := range []byte("qjzxkvbwyfghpmulcdrnisotae") {
		r[c] = byte(i)
	}
	return r
}()
