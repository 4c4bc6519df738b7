package textedit

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Candidate is the place in the file that looks most like an old_string
// that matched nowhere, and where the two first differ.
type Candidate struct {
	LineStart int `json:"line_start"`
	LineEnd   int `json:"line_end"`
	// Line and Column (1-based, in characters) locate the first
	// difference that the fuzzy tier does not look past (else the first
	// difference); Expected is old_string's line there, Found the file's.
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Expected string `json:"expected"`
	Found    string `json:"found"`
	// Cause names the likely reason: crlf, bom, tabs_vs_spaces,
	// indentation, line_numbers, curly_quote, dash, special_space,
	// unicode_form, trailing_whitespace, line_break, end_of_file, fuzzy_too_long,
	// fuzzy_unverified or different_text.
	Cause string `json:"cause"`
}

// Limits of the no-match diagnosis, which runs only on failure.
const (
	// maxShownRunes caps the lines quoted in a candidate.
	maxShownRunes = 160
	// maxSimilarityBytes is the largest text searched for a similar line
	// when no line of old_string occurs in it as such.
	maxSimilarityBytes = 16 << 20
)

var CauseText = map[string]string{
	"crlf":                "a carriage return (CR) on one side only",
	"bom":                 "a byte-order mark (U+FEFF) in old_string",
	"tabs_vs_spaces":      "tabs vs spaces in the indentation",
	"indentation":         "a different indentation",
	"line_numbers":        "read's line-number prefixes pasted into old_string",
	"curly_quote":         "a curly quote on one side, a straight one on the other",
	"dash":                "a different dash or hyphen",
	"special_space":       "a special space (no-break, thin, ideographic…)",
	"unicode_form":        "the same character in another Unicode form (full-width, ligature…)",
	"trailing_whitespace": "trailing whitespace",
	"line_break":          "a line break on one side only",
	"end_of_file":         "old_string goes on past the end of the file",
	"different_text":      "the text differs",
}

// maxVotes bounds the work of Closest (a fraction of a second): many
// lines alike in old and in the text give every line a vote from each,
// and counting them all would take minutes for a diagnosis.
const maxVotes = 5_000_000

// Closest finds the window of the text's lines that shares the most
// lines with old (compared loosely), else the line most like old's
// longest line, and the first place where they differ.
func Closest(text []byte, old string) *Candidate {
	oldLines := splitLines(old)
	if len(oldLines) == 0 {
		return nil
	}
	keys := map[string][]int{}
	var kb []byte
	for i, ol := range oldLines {
		kb = looseKey(kb[:0], []byte(ol))
		if len(kb) > 0 {
			keys[string(kb)] = append(keys[string(kb)], i)
		}
	}
	votes := map[int]int{}
	best, bestVotes := 0, 0
	nLines, spent := 0, 0
	for line := range bytes.Lines(text) {
		kb = looseKey(kb[:0], line)
		if spent += len(keys[string(kb)]); spent > maxVotes {
			break // the best window so far is the answer
		}
		for _, i := range keys[string(kb)] {
			start := nLines - i
			votes[start]++
			if v := votes[start]; v > bestVotes || (v == bestVotes && start < best) {
				best, bestVotes = start, v
			}
		}
		nLines++
	}
	if bestVotes == 0 {
		var ok bool
		if best, ok = mostSimilarLine(text, oldLines); !ok {
			return nil
		}
	}
	start := max(best, 0)
	lines := windowLines(text, start, len(oldLines))
	c := &Candidate{LineStart: start + 1, LineEnd: start + max(len(lines), 1)}
	// The first line that differs even in the normal form is what kept
	// the fuzzy tier from matching, so it is the one to name; a line that
	// differs only in what the fuzzy tier looks past (a curly quote, say)
	// is named when there is no such line.
	at := -1
	for i, ol := range oldLines {
		if i >= len(lines) {
			c.Line, c.Column = start+i+1, 1
			c.Expected, c.Found, c.Cause = Clip(ol), "(end of file)", "end_of_file"
			return c
		}
		if linesAgree(ol, lines[i], i, len(oldLines)) {
			continue
		}
		if at < 0 {
			at = i
		}
		if !linesAgree(normLine(ol), normLine(lines[i]), i, len(oldLines)) {
			at = i
			break
		}
	}
	if at >= 0 {
		ol, fl := oldLines[at], lines[at]
		c.Line = start + at + 1
		c.Expected, c.Found = Clip(ol), Clip(fl)
		// old_string may start after the indentation of its first line:
		// then the two are compared from there.
		skip := 0
		if at == 0 && indentOf(ol) == "" {
			skip = len(indentOf(fl))
		}
		col := diffColumn(ol, fl[skip:])
		c.Column = skip + col
		c.Cause = cause(old, ol, fl[skip:], col)
		return c
	}
	// Every line agrees as a line: the difference is in the breaks
	// between them (a final newline, a CR).
	c.Line, c.Column = c.LineEnd, 1
	c.Expected, c.Found = Clip(oldLines[len(oldLines)-1]), Clip(lines[len(lines)-1])
	c.Cause = "line_break"
	if strings.Contains(old, "\r") != bytes.Contains(text, []byte("\r")) {
		c.Cause = "crlf"
	}
	return c
}

// linesAgree compares line i of old's n lines with the file's line: the
// first may be the tail of the file's line and the last its head, as
// old_string need not start or end at a line boundary.
func linesAgree(ol, fl string, i, n int) bool {
	switch {
	case ol == fl:
		return true
	case n == 1:
		return strings.Contains(fl, ol)
	case i == 0:
		return strings.HasSuffix(fl, ol)
	case i == n-1:
		return strings.HasPrefix(fl, ol)
	}
	return false
}

func normLine(s string) string { return string(AppendNormLine(nil, []byte(s))) }

// splitLines splits s into lines without their breaks (a CR before LF
// dropped); a final line break ends the last line rather than starting
// an empty one.
func splitLines(s string) []string {
	var out []string
	for line := range strings.Lines(s) {
		out = append(out, strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"))
	}
	return out
}

// windowLines returns up to n lines of text starting at line start
// (0-based), without their breaks.
func windowLines(text []byte, start, n int) []string {
	var out []string
	i := 0
	for line := range bytes.Lines(text) {
		if i >= start+n {
			break
		}
		if i >= start {
			out = append(out, string(bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))))
		}
		i++
	}
	return out
}

// looseKey is a line reduced to what a model rarely gets wrong: the
// normal form with any read prefix, the indentation, runs of whitespace
// and the line break removed.
func looseKey(dst, line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	if n := readPrefixLen(string(line), true); n > 0 {
		line = line[n:]
	}
	start := len(dst)
	dst = AppendNormLine(dst, line)
	out := dst[:start]
	space := true
	for _, c := range dst[start:] {
		if c == ' ' || c == '\t' {
			if !space {
				out = append(out, ' ')
			}
			space = true
			continue
		}
		out = append(out, c)
		space = false
	}
	return bytes.TrimRight(out, " ")
}

// mostSimilarLine finds the line of text most like old's longest line by
// shared character pairs, and returns where old's window would start.
func mostSimilarLine(text []byte, oldLines []string) (int, bool) {
	if len(text) > maxSimilarityBytes {
		return 0, false
	}
	pick := 0
	for i, l := range oldLines {
		if len(strings.TrimSpace(l)) > len(strings.TrimSpace(oldLines[pick])) {
			pick = i
		}
	}
	want := pairs(looseKey(nil, []byte(oldLines[pick])))
	if len(want) == 0 {
		return 0, false
	}
	total := 0
	for _, c := range want {
		total += c
	}
	best, bestScore := -1, 0.0
	var kb []byte
	i := 0
	for line := range bytes.Lines(text) {
		kb = looseKey(kb[:0], line)
		if len(kb) > 1 {
			have := pairs(kb)
			common, n := 0, 0
			for p, c := range have {
				common += min(c, want[p])
				n += c
			}
			if score := 2 * float64(common) / float64(total+n); score > bestScore {
				best, bestScore = i, score
			}
		}
		i++
	}
	if best < 0 || bestScore < 0.5 {
		return 0, false
	}
	return best - pick, true
}

func pairs(b []byte) map[[2]byte]int {
	m := make(map[[2]byte]int, len(b))
	for i := 0; i+1 < len(b); i++ {
		m[[2]byte{b[i], b[i+1]}]++
	}
	return m
}

// diffColumn is the 1-based character column where a and b first differ.
func diffColumn(a, b string) int {
	col := 1
	for len(a) > 0 && len(b) > 0 {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			break
		}
		a, b = a[na:], b[nb:]
		col++
	}
	return col
}

// cause names the likely reason why old's line ol differs from the
// file's line fl at column col.
func cause(old, ol, fl string, col int) string {
	switch {
	case strings.ContainsRune(old, '\uFEFF'):
		return "bom"
	case readPrefixLen(ol, true) > 0 && readPrefixLen(fl, true) == 0:
		return "line_numbers"
	case strings.ContainsRune(ol, '\r') != strings.ContainsRune(fl, '\r'):
		return "crlf"
	}
	indO, indF := indentOf(ol), indentOf(fl)
	if indO != indF && col <= min(len(indO), len(indF))+1 && strings.TrimLeft(ol, " \t") == strings.TrimLeft(fl, " \t") {
		if strings.ContainsRune(indO+indF, '\t') && strings.ContainsRune(indO+indF, ' ') {
			return "tabs_vs_spaces"
		}
		return "indentation"
	}
	if strings.TrimRight(ol, " \t") == strings.TrimRight(fl, " \t") {
		return "trailing_whitespace"
	}
	ra, rb := runeAt(ol, col), runeAt(fl, col)
	for _, r := range []rune{ra, rb} {
		if !folds(r) {
			continue
		}
		switch foldRune(r) {
		case '\'', '"':
			return "curly_quote"
		case '-':
			return "dash"
		case ' ':
			return "special_space"
		}
		return "unicode_form"
	}
	return "different_text"
}

func indentOf(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// runeAt returns the character at 1-based column col, or utf8.RuneError.
func runeAt(s string, col int) rune {
	for _, r := range s {
		col--
		if col == 0 {
			return r
		}
	}
	return utf8.RuneError
}

func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSuffix(line, "\r")
}

// Clip shortens a quoted line to maxShownRunes characters.
func Clip(s string) string {
	if utf8.RuneCountInString(s) <= maxShownRunes {
		return s
	}
	r := []rune(s)
	return string(r[:maxShownRunes]) + "…"
}

// LineSimilarity is how alike two lines are once reduced as models
// rarely get them wrong (see looseKey), from 0 to 1: the Dice
// coefficient of their pairs of bytes.
func LineSimilarity(a, b string) float64 {
	ka, kb := looseKey(nil, []byte(a)), looseKey(nil, []byte(b))
	if bytes.Equal(ka, kb) {
		return 1
	}
	pa, pb := pairs(ka), pairs(kb)
	common, total := 0, 0
	for p, c := range pa {
		common += min(c, pb[p])
		total += c
	}
	for _, c := range pb {
		total += c
	}
	if total == 0 {
		return 0
	}
	return 2 * float64(common) / float64(total)
}
