// Package nearest finds the names closest to one a caller got wrong: a
// missing file's neighbours, an unknown tool or parameter.
package nearest

import (
	"slices"
	"strings"
)

// Distance is the Levenshtein distance between a and b, in runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Names returns up to n of candidates nearest to name, ignoring case,
// nearest first (ties in the candidates' order). A candidate that starts
// with name, or that name starts with, counts as one edit away.
func Names(name string, candidates []string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	lname := strings.ToLower(name)
	all := make([]scored, 0, len(candidates))
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := Distance(lname, lc)
		if strings.HasPrefix(lc, lname) || strings.HasPrefix(lname, lc) {
			d = min(d, 1)
		}
		all = append(all, scored{c, d})
	}
	slices.SortStableFunc(all, func(a, b scored) int { return a.d - b.d })
	out := make([]string, 0, n)
	for _, s := range all[:min(n, len(all))] {
		out = append(out, s.name)
	}
	return out
}
