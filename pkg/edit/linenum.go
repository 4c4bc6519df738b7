package edit

import "strings"

// readPrefixLen returns the length of a read-style line-number prefix at
// the start of line (optional spaces, digits, then "→" or a tab), or 0.
func readPrefixLen(line string, tabToo bool) int {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	digits := i
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i == digits {
		return 0
	}
	switch {
	case strings.HasPrefix(line[i:], "→"):
		return i + len("→")
	case tabToo && i < len(line) && line[i] == '\t':
		return i + 1
	}
	return 0
}

// allLinesNumbered reports whether every non-empty line of s carries a
// read-style prefix (and there is at least one such line): text pasted
// from read's output.
func allLinesNumbered(s string, tabToo bool) bool {
	seen := false
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			continue
		}
		if readPrefixLen(line, tabToo) == 0 {
			return false
		}
		seen = true
	}
	return seen
}

// stripLineNumbers removes the read-style prefix from each line of s that
// has one.
func stripLineNumbers(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for line := range strings.Lines(s) {
		b.WriteString(line[readPrefixLen(line, true):])
	}
	return b.String()
}
