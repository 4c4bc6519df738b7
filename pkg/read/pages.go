package read

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// pageRange is one part of a pages spec: first to last inclusive; last 0
// means "to the end".
type pageRange struct{ first, last int }

// parsePages reads a pages spec: "3", "1-5", "10-" (to the end), or a
// comma list of those ("1-3,7,9-"). Whitespace around parts is ignored.
func parsePages(spec string) ([]pageRange, error) {
	bad := func(why string) error {
		return fmt.Errorf("pages %q: %s; use a page (3), a range (1-5), an open range (10-) or a comma list (1-3,7)", spec, why)
	}
	if strings.TrimSpace(spec) == "" {
		return nil, bad("empty")
	}
	var out []pageRange
	for part := range strings.SplitSeq(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, bad("an empty part")
		}
		a, b, isRange := strings.Cut(part, "-")
		first, err := pageNumber(a)
		if err != nil {
			return nil, bad(err.Error())
		}
		r := pageRange{first, first}
		if isRange {
			r.last = 0
			if b = strings.TrimSpace(b); b != "" {
				if r.last, err = pageNumber(b); err != nil {
					return nil, bad(err.Error())
				}
				if r.last < first {
					return nil, bad(fmt.Sprintf("range %s ends before it starts", part))
				}
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func pageNumber(s string) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a page number (pages count from 1)", s)
	}
	return n, nil
}

// selectPages expands ranges against a document of total pages into the
// sorted, distinct pages to show, at most limit of them; rest are the
// pages left over. A page past the end is an error. It works on merged
// ranges, so "1-" on a huge page count costs nothing.
func selectPages(ranges []pageRange, total, limit int) (shown []int, rest []pageRange, err error) {
	if len(ranges) == 0 {
		return nil, nil, nil
	}
	merged := make([]pageRange, 0, len(ranges))
	for _, r := range ranges {
		if r.first > total {
			return nil, nil, fmt.Errorf("page %d is past the end: the document has %d %s", r.first, total, plural(total, "page"))
		}
		if r.last == 0 || r.last > total {
			r.last = total
		}
		merged = append(merged, r)
	}
	slices.SortFunc(merged, func(a, b pageRange) int { return a.first - b.first })
	j := 0
	for _, r := range merged[1:] {
		if r.first <= merged[j].last+1 {
			merged[j].last = max(merged[j].last, r.last)
		} else {
			j++
			merged[j] = r
		}
	}
	merged = merged[:j+1]
	for _, r := range merged {
		take := min(r.last-r.first+1, limit-len(shown))
		for p := r.first; p < r.first+take; p++ {
			shown = append(shown, p)
		}
		if r.first+take <= r.last {
			rest = append(rest, pageRange{r.first + take, r.last})
		}
	}
	return shown, rest, nil
}

// formatRanges writes ranges back as a spec: 1-3,7,9-12.
func formatRanges(rs []pageRange) string {
	var b strings.Builder
	for _, r := range rs {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(r.first))
		if r.last > r.first {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(r.last))
		}
	}
	return b.String()
}
