package edit

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Edit is one replacement: old_string becomes new_string, once, or at
// every occurrence with replace_all.
type Edit struct {
	OldString   string `json:"old_string"`
	NewString   string `json:"new_string"`
	ReplaceAll  bool   `json:"replace_all,omitempty"`
	ExpectCount *int   `json:"expect_count,omitempty"`
}

// EditReport says what one edit did. Line numbers are those of the file
// as it was before the call (what read showed).
type EditReport struct {
	Index int    `json:"index"`
	Match string `json:"match"`
	Count int    `json:"count"`
	// LineStart and LineEnd are the lines of the first replaced span.
	LineStart int `json:"line_start"`
	LineEnd   int `json:"line_end"`
	// Lines holds the first line of every replaced span (the first
	// MaxReportedLines of them; LinesOmitted counts the rest).
	Lines        []int `json:"lines"`
	LinesOmitted int   `json:"lines_omitted,omitempty"`
	// LineNumbersStripped says old_string carried read's line-number
	// prefixes and matched once they were removed.
	LineNumbersStripped bool `json:"line_numbers_stripped"`
	// NewLineNumbersStripped says new_string alone carried read's
	// "N→" prefixes on every line, and they were taken off.
	NewLineNumbersStripped bool `json:"new_line_numbers_stripped,omitempty"`
}

// piece replaces orig[start:end] with text. Pieces are kept sorted and
// disjoint, in the coordinates of the original text, so that the bytes
// between them are provably the original ones.
type piece struct {
	start, end int
	text       []byte
	edit       int
}

// Failure is the result of an edit that was refused: which edit, and the
// facts a caller needs to fix it.
type Failure struct {
	FilePath   string     `json:"file_path"`
	Edit       *int       `json:"edit"`
	OtherEdit  *int       `json:"other_edit,omitempty"`
	MatchLines []int      `json:"match_lines,omitempty"`
	Count      *int       `json:"count,omitempty"`
	Candidate  *Candidate `json:"candidate,omitempty"`
}

// failed is a refused edit: the error and its facts.
type failed struct {
	err  *tool.Error
	info Failure
}

// label names edit i in messages: "edits[1]: " when there are several.
func label(i, n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf("edits[%d]: ", i)
}

// checkEdits refuses malformed edits before anything is searched.
func checkEdits(edits []Edit, byteWise bool) *failed {
	for i, e := range edits {
		l := label(i, len(edits))
		fail := func(code tool.Code, msg, hint string) *failed {
			idx := i
			return &failed{err: &tool.Error{Code: code, Message: l + msg, Hint: hint}, info: Failure{Edit: &idx}}
		}
		switch {
		case e.OldString == "":
			return fail(tool.CodeUsage, "old_string is empty",
				"to create a file or replace all of it use write; to insert text, include a neighbouring line in old_string and new_string")
		case e.OldString == e.NewString:
			return fail(tool.CodeInvalidArgs, "old_string and new_string are the same: the edit would change nothing",
				"put the text as it should be in new_string")
		case e.ExpectCount != nil && *e.ExpectCount > 1 && !e.ReplaceAll:
			return fail(tool.CodeUsage, fmt.Sprintf("expect_count %d needs replace_all", *e.ExpectCount),
				"pass replace_all (--replace-all) to replace every occurrence")
		case byteWise && !asciiEdit(e):
			return fail(tool.CodeEncoding, "the file is not valid UTF-8, so only edits whose old_string and new_string are plain ASCII can be applied byte for byte",
				"keep old_string and new_string ASCII, or convert the file to UTF-8 first")
		case strings.Count(e.NewString, "\uFFFD") > strings.Count(e.OldString, "\uFFFD"):
			return fail(tool.CodeEncoding, "new_string contains U+FFFD (�), the mark of text that was decoded wrongly; mcode never writes it",
				"send the characters you mean; if old_string came from a file read as the wrong encoding, re-read it with mcode read")
		}
	}
	return nil
}

// asciiEdit reports whether both strings of e are ASCII, as a file that
// is not UTF-8 requires (read's line-number arrows aside, as they would
// be stripped).
func asciiEdit(e Edit) bool {
	old, repl := e.OldString, e.NewString
	if allLinesNumbered(old, true) {
		old, repl = stripLineNumbers(old), stripLineNumbers(repl)
	}
	return isASCII([]byte(old)) && isASCII([]byte(repl))
}

// applyEdits applies edits to orig one after another, each to the result
// of those before it, all or nothing. It returns the pieces that turn
// orig into the result, and a report per edit. name is the file's name
// for hints.
func applyEdits(name string, orig []byte, edits []Edit, byteWise bool) ([]piece, []EditReport, *failed) {
	if f := checkEdits(edits, byteWise); f != nil {
		return nil, nil, f
	}
	var pieces []piece
	reports := make([]EditReport, len(edits))
	cur := orig
	for i, e := range edits {
		if i > 0 {
			cur = render(orig, pieces)
		}
		old, repl := e.OldString, e.NewString
		keep := MaxReportedLines // enough to list them when old_string is not unique
		if e.ReplaceAll {
			keep = MaxReplacements
		}
		loc := locate(cur, old, !byteWise, keep)
		stripped := false
		if loc.count == 0 && allLinesNumbered(old, true) {
			o2, r2 := stripLineNumbers(old), stripLineNumbers(repl)
			if o2 != "" && o2 != r2 {
				l2 := locate(cur, o2, !byteWise, keep)
				switch {
				case l2.count > 0:
					loc, old, repl, stripped = l2, o2, r2, true
				case allLinesNumbered(old, false):
					// Surely read's "N→" prefixes: the text without them is
					// what differs from the file, and what to diagnose
					// (telling the caller to strip them would not help).
					f := noMatch(name, cur, o2, l2, i, len(edits), byteWise)
					f.err.Message += " (read's line-number prefixes were taken off old_string first)"
					return nil, nil, f
				}
			}
		}
		if loc.count == 0 {
			if f := consumedByEarlier(orig, pieces, e.OldString, i, byteWise); f != nil {
				return nil, nil, f
			}
			return nil, nil, noMatch(name, cur, e.OldString, loc, i, len(edits), byteWise)
		}
		// read's "N→" prefixes pasted into new_string alone would be
		// written into the file: when every line of new_string has one and
		// old_string (which matched) has none, they come off.
		newStripped := false
		if !stripped && !anyLineNumbered(old) && allLinesNumbered(repl, false) {
			repl, newStripped = stripArrowNumbers(repl), true
		}
		n := loc.count
		idx := i
		if e.ExpectCount != nil && *e.ExpectCount != n {
			lines := lineNumbers(cur, loc.spans)
			return nil, nil, &failed{
				err: &tool.Error{Code: tool.CodeCountMismatch,
					Message: fmt.Sprintf("%sold_string occurs %d time%s (%s match at %s), expect_count is %d",
						label(i, len(edits)), n, plural(n), loc.kind, linesPhrase(lines, n), *e.ExpectCount),
					Hint: "check that old_string is the text you mean, then set expect_count to the count you want replaced"},
				info: Failure{Edit: &idx, Count: &n, MatchLines: lines},
			}
		}
		if n > 1 && !e.ReplaceAll {
			lines := lineNumbers(cur, loc.spans)
			return nil, nil, &failed{
				err: &tool.Error{Code: tool.CodeNotUnique,
					Message: fmt.Sprintf("%sold_string matches %d places (%s, %s match)", label(i, len(edits)), n, linesPhrase(lines, n), loc.kind),
					Hint:    "add surrounding lines to old_string so that it matches one place, or pass replace_all (--replace-all) to change every one"},
				info: Failure{Edit: &idx, Count: &n, MatchLines: lines},
			}
		}
		if n > MaxReplacements {
			return nil, nil, &failed{
				err: &tool.Error{Code: tool.CodeTooLarge,
					Message: fmt.Sprintf("%sreplace_all would make %d replacements, more than the %d one call makes", label(i, len(edits)), n, MaxReplacements),
					Hint:    "make old_string more specific, or make a change this wide with sed through bash"},
				info: Failure{Edit: &idx, Count: &n},
			}
		}
		var err *failed
		pieces, err = addPieces(cur, pieces, loc.spans, repl, i)
		if err != nil {
			return nil, nil, err
		}
		reports[i] = EditReport{Index: i, Match: loc.kind, Count: n, LineNumbersStripped: stripped, NewLineNumbersStripped: newStripped}
	}
	fillLines(orig, pieces, reports)
	return pieces, reports, nil
}

// consumedByEarlier explains an edit that matches nowhere in the text the
// earlier edits left: when its old_string is in the original text where
// an earlier edit replaced part of it, the two edits overlap, and saying
// so (both indices, the shared lines) beats a vague no_match.
func consumedByEarlier(orig []byte, pieces []piece, old string, edit int, byteWise bool) *failed {
	if len(pieces) == 0 {
		return nil
	}
	olds := []string{old}
	if allLinesNumbered(old, true) {
		olds = append(olds, stripLineNumbers(old))
	}
	for _, o := range olds {
		if o == "" {
			continue
		}
		loc := locate(orig, o, !byteWise, MaxReportedLines)
		for _, s := range loc.spans {
			for _, p := range pieces {
				from, to := max(s.start, p.start), min(s.end, p.end)
				if from >= to {
					continue // every piece replaces at least one byte
				}
				first, last := lineAt(orig, from), lineAt(orig, max(from, to-1))
				shared := fmt.Sprintf("line %d", first)
				if last > first {
					shared = fmt.Sprintf("lines %d-%d", first, last)
				}
				idx, other := edit, p.edit
				lines := make([]int, 0, min(last-first+1, MaxReportedLines))
				for l := first; l <= last && len(lines) < MaxReportedLines; l++ {
					lines = append(lines, l)
				}
				return &failed{
					err: &tool.Error{Code: tool.CodeOverlappingEdits,
						Message: fmt.Sprintf("edits[%d] overlaps edits[%d]: its old_string is in the original text at line %d, but edits[%d] already replaced %s of it",
							edit, other, lineAt(orig, s.start), other, shared),
						Hint: fmt.Sprintf("edits apply one after another: merge edits[%d] and edits[%d] into one edit over the lines they share, or write edits[%d]'s old_string as the text after edits[%d]", other, edit, edit, other)},
					info: Failure{Edit: &idx, OtherEdit: &other, MatchLines: lines},
				}
			}
		}
	}
	return nil
}

// addPieces records the replacement of spans (offsets of cur, the text as
// the earlier edits left it) by repl. A span that touches text an earlier
// edit wrote is refused, so that every edit replaces only original bytes.
func addPieces(cur []byte, pieces []piece, spans []span, repl string, edit int) ([]piece, *failed) {
	// Where each existing piece sits in cur, and how far it shifted the
	// text after it.
	curStart := make([]int, len(pieces))
	shift := make([]int, len(pieces)+1)
	for j, p := range pieces {
		curStart[j] = p.start + shift[j]
		shift[j+1] = shift[j] + len(p.text) - (p.end - p.start)
	}
	added := make([]piece, 0, len(spans))
	// Every span shares one copy of the replacement per line-break style.
	texts := map[string][]byte{}
	for _, s := range spans {
		// The first piece whose written text ends after s starts; every
		// piece from there on that starts before s ends may touch it.
		j := sort.Search(len(pieces), func(j int) bool { return curStart[j]+len(pieces[j].text) > s.start })
		for k := j; k < len(pieces) && curStart[k] < s.end; k++ {
			ws, we := curStart[k], curStart[k]+len(pieces[k].text)
			overlaps := s.start < we && ws < s.end
			deletedInside := ws == we && s.start < ws
			if overlaps || deletedInside {
				idx, other := edit, pieces[k].edit
				return nil, &failed{
					err: &tool.Error{Code: tool.CodeOverlappingEdits,
						Message: fmt.Sprintf("edits[%d] matches at line %d, in text that edits[%d] wrote", edit, lineAt(cur, s.start), other),
						Hint:    fmt.Sprintf("merge edits[%d] into edits[%d], or make its old_string match text that no earlier edit changed", edit, other)},
					info: Failure{Edit: &idx, OtherEdit: &other},
				}
			}
		}
		// No piece overlaps s, so those starting at or before s.start lie
		// wholly before it (an empty one at s.start too) and shifted it.
		before := sort.Search(len(pieces), func(j int) bool { return curStart[j] > s.start })
		d := shift[before]
		eol := eolAround(cur, s)
		text, ok := texts[eol]
		if !ok {
			text = []byte(withEOL(repl, eol))
			texts[eol] = text
		}
		added = append(added, piece{start: s.start - d, end: s.end - d, text: text, edit: edit})
	}
	if len(pieces) == 0 {
		return added, nil // spans come sorted
	}
	// Both lists are sorted and disjoint: merge them.
	out := make([]piece, 0, len(pieces)+len(added))
	i, j := 0, 0
	for i < len(pieces) || j < len(added) {
		if j == len(added) || (i < len(pieces) && pieces[i].start < added[j].start) {
			out = append(out, pieces[i])
			i++
		} else {
			out = append(out, added[j])
			j++
		}
	}
	return out, nil
}

// render builds the text that pieces make of orig.
func render(orig []byte, pieces []piece) []byte {
	n := len(orig)
	for _, p := range pieces {
		n += len(p.text) - (p.end - p.start)
	}
	out := make([]byte, 0, n)
	last := 0
	for _, p := range pieces {
		out = append(out, orig[last:p.start]...)
		out = append(out, p.text...)
		last = p.end
	}
	return append(out, orig[last:]...)
}

// fillLines sets each report's line numbers from its pieces, in the
// original text, in one pass.
func fillLines(orig []byte, pieces []piece, reports []EditReport) {
	line, off := 1, 0
	at := func(pos int) int {
		line += bytes.Count(orig[off:pos], []byte("\n"))
		off = pos
		return line
	}
	for _, p := range pieces {
		first := at(p.start)
		last := first
		if p.end > p.start {
			last = first + bytes.Count(orig[p.start:p.end-1], []byte("\n"))
		}
		r := &reports[p.edit]
		switch {
		case len(r.Lines) == 0:
			r.LineStart, r.LineEnd = first, last
			fallthrough
		case len(r.Lines) < MaxReportedLines:
			r.Lines = append(r.Lines, first)
		default:
			r.LinesOmitted++
		}
	}
}

// lineAt is the 1-based line of offset off.
func lineAt(text []byte, off int) int {
	return 1 + bytes.Count(text[:off], []byte("\n"))
}

// lineNumbers returns the first line of each span (of the first
// MaxReportedLines), counting once.
func lineNumbers(text []byte, spans []span) []int {
	spans = spans[:min(len(spans), MaxReportedLines)]
	out := make([]int, 0, len(spans))
	line, off := 1, 0
	for _, s := range spans {
		line += bytes.Count(text[off:s.start], []byte("\n"))
		off = s.start
		out = append(out, line)
	}
	return out
}

// maxListedLines caps how many line numbers a message lists.
const maxListedLines = 20

// MaxReportedLines caps the line numbers a result lists (the counts stay
// exact).
const MaxReportedLines = 1000

// MaxReplacements caps the spans one replace_all replaces: each costs
// memory (about 150 MiB for a million).
const MaxReplacements = 1_000_000

// linesPhrase renders "lines 12, 40, 88" for total spans whose first
// lines are lines (at most maxListedLines of them are named).
func linesPhrase(lines []int, total int) string {
	var b strings.Builder
	b.WriteString("line")
	if total > 1 {
		b.WriteString("s")
	}
	for i, l := range lines {
		if i == maxListedLines {
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %d", l)
	}
	if shown := min(len(lines), maxListedLines); total > shown {
		fmt.Fprintf(&b, " and %d more", total-shown)
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
