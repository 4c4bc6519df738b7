package search

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Required literals: before Go's regexp runs on a line, a byte search
// (bytes.Index, IndexByte: SIMD in Go) finds the lines that can match at
// all. The analysis below walks the parsed pattern and derives sets of
// literals such that every match contains at least one literal of each
// set.

// lit is one literal; fold means ASCII case-insensitive.
type lit struct {
	s    string
	fold bool
}

type litSet []lit

const (
	maxSetSize = 64  // larger alternations are not worth a literal scan
	maxLitLen  = 256 // cross products stop growing past this
)

type litInfo struct {
	exact   litSet // when isExact: the node matches exactly these strings
	isExact bool
	req     []litSet
}

// analyze derives the literal facts of a node.
func analyze(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return litInfo{exact: litSet{{}}, isExact: true}
	case syntax.OpLiteral:
		return literalInfo(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		return classInfo(re.Rune)
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpConcat:
		return concatInfo(re.Sub)
	case syntax.OpAlternate:
		return alternateInfo(re.Sub)
	case syntax.OpPlus:
		return atLeastOnce(analyze(re.Sub[0]))
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return atLeastOnce(analyze(re.Sub[0]))
		}
	}
	// Star, quest, any char, anchors and word boundaries: nothing certain.
	return litInfo{}
}

func atLeastOnce(in litInfo) litInfo {
	out := litInfo{req: in.req}
	if in.isExact {
		out.req = append(out.req, in.exact)
	}
	return out
}

// literalInfo handles a literal. Under (?i) Go folds 'k' with the Kelvin
// sign and 's' with the long s, which an ASCII fold search would miss:
// such a literal is split and only its longest safe run is required.
func literalInfo(runes []rune, fold bool) litInfo {
	if !fold {
		return litInfo{exact: litSet{{s: string(runes)}}, isExact: true}
	}
	safe := true
	for _, r := range runes {
		if !foldSafe(r) {
			safe = false
			break
		}
	}
	if safe {
		low := asciiLower(string(runes))
		if i := letterIndex(low); i >= 0 && letterIndex(low[i+1:]) < 0 {
			// One letter ("[Ff]" parses as a folded "f"): its two cases
			// combine with neighbouring plain literals.
			up := low[:i] + string(low[i]-'a'+'A') + low[i+1:]
			return litInfo{exact: litSet{{s: up}, {s: low}}, isExact: true}
		}
		return litInfo{exact: litSet{{s: low, fold: hasLetter(low)}}, isExact: true}
	}
	best, cur := "", []rune{}
	for _, r := range append(runes, utf8.RuneError) {
		if r != utf8.RuneError && foldSafe(r) {
			cur = append(cur, r)
			continue
		}
		if len(cur) > len(best) {
			best = string(cur)
		}
		cur = cur[:0]
	}
	if best == "" {
		return litInfo{}
	}
	return litInfo{req: []litSet{{{s: asciiLower(best), fold: true}}}}
}

func foldSafe(r rune) bool {
	return r < utf8.RuneSelf && r != 'k' && r != 'K' && r != 's' && r != 'S'
}

func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// classInfo turns a small class ([Ff], [abc]) into its strings.
func classInfo(ranges []rune) litInfo {
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > 8 {
			return litInfo{}
		}
	}
	var set litSet
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			set = append(set, lit{s: string(r)})
		}
	}
	if len(set) == 0 {
		return litInfo{}
	}
	return litInfo{exact: set, isExact: true}
}

func concatInfo(subs []*syntax.Regexp) litInfo {
	out := litInfo{isExact: true}
	run := litSet{{}}
	flush := func() {
		if s := usefulSet(run); s != nil {
			out.req = append(out.req, s)
		}
		run = litSet{{}}
	}
	for _, sub := range subs {
		in := analyze(sub)
		if in.isExact {
			if p, ok := product(run, in.exact); ok {
				run = p
				continue
			}
			flush()
			out.isExact = false
			run = in.exact
			out.req = append(out.req, in.req...)
			continue
		}
		out.isExact = false
		flush()
		out.req = append(out.req, in.req...)
	}
	if out.isExact {
		out.exact = run
		return out
	}
	flush()
	return out
}

// product concatenates every pair; ok is false when it would grow too big.
// A folded half makes the pair folded: a case-insensitive search finds a
// superset of the case-sensitive one, which is all a prefilter needs, but
// the result is then no longer exact.
func product(a, b litSet) (litSet, bool) {
	if len(a)*len(b) > maxSetSize {
		return nil, false
	}
	out := make(litSet, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			if len(x.s)+len(y.s) > maxLitLen {
				return nil, false
			}
			if x.fold != y.fold && hasLetter(x.s) && hasLetter(y.s) {
				return nil, false
			}
			s := x.s + y.s
			fold := x.fold || y.fold
			if fold {
				s = asciiLower(s)
			}
			out = append(out, lit{s: s, fold: fold && hasLetter(s)})
		}
	}
	return out, true
}

func letterIndex(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' {
			return i
		}
	}
	return -1
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

func alternateInfo(subs []*syntax.Regexp) litInfo {
	out := litInfo{isExact: true}
	var union litSet
	for _, sub := range subs {
		in := analyze(sub)
		if in.isExact {
			union = append(union, in.exact...)
			continue
		}
		out.isExact = false
		best := bestSet(in.req)
		if best == nil {
			return litInfo{}
		}
		union = append(union, best...)
	}
	if len(union) > maxSetSize {
		return litInfo{}
	}
	if out.isExact {
		out.exact = union
		return out
	}
	if s := usefulSet(union); s != nil {
		out.req = []litSet{s}
	}
	return out
}

// usefulSet returns s if every literal in it is non-empty.
func usefulSet(s litSet) litSet {
	if len(s) == 0 {
		return nil
	}
	for _, l := range s {
		if l.s == "" {
			return nil
		}
	}
	return s
}

// setScore ranks a set for scanning: longer shortest literal first, then
// fewer literals, then case-sensitive over folded.
func setScore(s litSet) int {
	shortest := maxLitLen
	folded := 0
	for _, l := range s {
		shortest = min(shortest, len(l.s))
		if l.fold {
			folded = 1
		}
	}
	return min(shortest, 16)*1000 - len(s)*10 - folded
}

func bestSet(sets []litSet) litSet {
	var best litSet
	for _, s := range sets {
		if usefulSet(s) == nil {
			continue
		}
		if best == nil || setScore(s) > setScore(best) {
			best = s
		}
	}
	return best
}

// plan is what the analysis hands to the scanner: the set to scan for,
// other sets a candidate line must also contain, and whether finding a
// literal on a line is already a match (the pattern is only literals).
type plan struct {
	scan  litSet
	also  []litSet
	exact bool
}

const maxAlsoSets = 3

func planFor(re *syntax.Regexp) plan {
	in := analyze(re)
	if in.isExact {
		if s := usefulSet(in.exact); s != nil {
			return plan{scan: s, exact: true}
		}
		return plan{}
	}
	var p plan
	p.scan = bestSet(in.req)
	if p.scan == nil {
		return plan{}
	}
	for _, s := range in.req {
		if usefulSet(s) == nil || sameSet(s, p.scan) || len(p.also) == maxAlsoSets {
			continue
		}
		p.also = append(p.also, s)
	}
	return p
}

func sameSet(a, b litSet) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
