package textedit

import (
	"strconv"
	"strings"
)

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

// AllLinesNumbered reports whether every non-empty line of s carries a
// read-style prefix (and there is at least one such line): text pasted
// from read's output.
func AllLinesNumbered(s string, tabToo bool) bool {
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

// StripLineNumbers removes the read-style prefix from each line of s that
// has one.
func StripLineNumbers(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for line := range strings.Lines(s) {
		b.WriteString(line[readPrefixLen(line, true):])
	}
	return b.String()
}

// AnyLineNumbered reports whether some line of s carries a read-style
// prefix.
func AnyLineNumbered(s string) bool {
	for line := range strings.Lines(s) {
		if readPrefixLen(line, true) > 0 {
			return true
		}
	}
	return false
}

// StripArrowNumbers removes read's "N→" prefix (not a tab one) from each
// line of s that has one.
func StripArrowNumbers(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for line := range strings.Lines(s) {
		b.WriteString(line[readPrefixLen(line, false):])
	}
	return b.String()
}

// PastedReadOutput reports whether s looks like read's output pasted as
// it is: every line carries a "N→" prefix and the numbers run on one by
// one, as read numbers lines. (Text of one's own rarely does both.)
func PastedReadOutput(s string) bool {
	want := -1
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, "\r\n")
		n := readPrefixLen(line, false)
		if n == 0 {
			return false
		}
		num, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(line[:n], "→")))
		if err != nil || (want >= 0 && num != want) {
			return false
		}
		want = num + 1
	}
	return want >= 0
}
