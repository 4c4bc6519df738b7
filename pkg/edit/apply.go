package edit

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/textedit"
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

// Failure is the result of an edit that was refused: which edit, and the
// facts a caller needs to fix it.
type Failure struct {
	FilePath   string              `json:"file_path"`
	Edit       *int                `json:"edit"`
	OtherEdit  *int                `json:"other_edit,omitempty"`
	MatchLines []int               `json:"match_lines,omitempty"`
	Count      *int                `json:"count,omitempty"`
	Candidate  *textedit.Candidate `json:"candidate,omitempty"`
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
	if textedit.AllLinesNumbered(old, true) {
		old, repl = textedit.StripLineNumbers(old), textedit.StripLineNumbers(repl)
	}
	return textedit.IsASCII([]byte(old)) && textedit.IsASCII([]byte(repl))
}

// applyEdits applies edits to orig one after another, each to the result
// of those before it, all or nothing. It returns the pieces that turn
// orig into the result, and a report per edit. name is the file's name
// for hints.
func applyEdits(name string, orig []byte, edits []Edit, byteWise bool) ([]textedit.Piece, []EditReport, *failed) {
	if f := checkEdits(edits, byteWise); f != nil {
		return nil, nil, f
	}
	var pieces []textedit.Piece
	reports := make([]EditReport, len(edits))
	cur := orig
	for i, e := range edits {
		if i > 0 {
			cur = textedit.Render(orig, pieces)
		}
		old, repl := e.OldString, e.NewString
		keep := textedit.MaxReportedLines // enough to list them when old_string is not unique
		if e.ReplaceAll {
			keep = MaxReplacements
		}
		loc := textedit.Locate(cur, old, !byteWise, keep)
		stripped := false
		if loc.Count == 0 && textedit.AllLinesNumbered(old, true) {
			o2, r2 := textedit.StripLineNumbers(old), textedit.StripLineNumbers(repl)
			if o2 != "" && o2 != r2 {
				l2 := textedit.Locate(cur, o2, !byteWise, keep)
				switch {
				case l2.Count > 0:
					loc, old, repl, stripped = l2, o2, r2, true
				case textedit.AllLinesNumbered(old, false):
					// Surely read's "N→" prefixes: the text without them is
					// what differs from the file, and what to diagnose
					// (telling the caller to strip them would not help).
					f := noMatch(name, cur, o2, l2, i, len(edits), byteWise)
					f.err.Message += " (read's line-number prefixes were taken off old_string first)"
					return nil, nil, f
				}
			}
		}
		if loc.Count == 0 {
			if f := consumedByEarlier(orig, pieces, e.OldString, i, byteWise); f != nil {
				return nil, nil, f
			}
			return nil, nil, noMatch(name, cur, e.OldString, loc, i, len(edits), byteWise)
		}
		// read's "N→" prefixes pasted into new_string alone would be
		// written into the file: when every line of new_string has one and
		// old_string (which matched) has none, they come off.
		newStripped := false
		if !stripped && !textedit.AnyLineNumbered(old) && textedit.AllLinesNumbered(repl, false) {
			repl, newStripped = textedit.StripArrowNumbers(repl), true
		}
		n := loc.Count
		idx := i
		if e.ExpectCount != nil && *e.ExpectCount != n {
			lines := textedit.LineNumbers(cur, loc.Spans)
			return nil, nil, &failed{
				err: &tool.Error{Code: tool.CodeCountMismatch,
					Message: fmt.Sprintf("%sold_string occurs %d time%s (%s match at %s), expect_count is %d",
						label(i, len(edits)), n, textedit.Plural(n), loc.Kind, textedit.LinesPhrase(lines, n), *e.ExpectCount),
					Hint: "check that old_string is the text you mean, then set expect_count to the count you want replaced"},
				info: Failure{Edit: &idx, Count: &n, MatchLines: lines},
			}
		}
		if n > 1 && !e.ReplaceAll {
			lines := textedit.LineNumbers(cur, loc.Spans)
			return nil, nil, &failed{
				err: &tool.Error{Code: tool.CodeNotUnique,
					Message: fmt.Sprintf("%sold_string matches %d places (%s, %s match)", label(i, len(edits)), n, textedit.LinesPhrase(lines, n), loc.Kind),
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
		pieces, err = addPieces(cur, pieces, loc.Spans, repl, i)
		if err != nil {
			return nil, nil, err
		}
		reports[i] = EditReport{Index: i, Match: loc.Kind, Count: n, LineNumbersStripped: stripped, NewLineNumbersStripped: newStripped}
	}
	fillLines(orig, pieces, reports)
	return pieces, reports, nil
}

// consumedByEarlier explains an edit that matches nowhere in the text the
// earlier edits left: when its old_string is in the original text where
// an earlier edit replaced part of it, the two edits overlap, and saying
// so (both indices, the shared lines) beats a vague no_match.
func consumedByEarlier(orig []byte, pieces []textedit.Piece, old string, edit int, byteWise bool) *failed {
	if len(pieces) == 0 {
		return nil
	}
	olds := []string{old}
	if textedit.AllLinesNumbered(old, true) {
		olds = append(olds, textedit.StripLineNumbers(old))
	}
	for _, o := range olds {
		if o == "" {
			continue
		}
		loc := textedit.Locate(orig, o, !byteWise, textedit.MaxReportedLines)
		for _, s := range loc.Spans {
			for _, p := range pieces {
				from, to := max(s.Start, p.Start), min(s.End, p.End)
				if from >= to {
					continue // every piece replaces at least one byte
				}
				first, last := textedit.LineAt(orig, from), textedit.LineAt(orig, max(from, to-1))
				shared := fmt.Sprintf("line %d", first)
				if last > first {
					shared = fmt.Sprintf("lines %d-%d", first, last)
				}
				idx, other := edit, p.Edit
				lines := make([]int, 0, min(last-first+1, textedit.MaxReportedLines))
				for l := first; l <= last && len(lines) < textedit.MaxReportedLines; l++ {
					lines = append(lines, l)
				}
				return &failed{
					err: &tool.Error{Code: tool.CodeOverlappingEdits,
						Message: fmt.Sprintf("edits[%d] overlaps edits[%d]: its old_string is in the original text at line %d, but edits[%d] already replaced %s of it",
							edit, other, textedit.LineAt(orig, s.Start), other, shared),
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
func addPieces(cur []byte, pieces []textedit.Piece, spans []textedit.Span, repl string, edit int) ([]textedit.Piece, *failed) {
	// Where each existing piece sits in cur, and how far it shifted the
	// text after it.
	curStart := make([]int, len(pieces))
	shift := make([]int, len(pieces)+1)
	for j, p := range pieces {
		curStart[j] = p.Start + shift[j]
		shift[j+1] = shift[j] + len(p.Text) - (p.End - p.Start)
	}
	added := make([]textedit.Piece, 0, len(spans))
	// Every span shares one copy of the replacement per line-break style.
	texts := map[string][]byte{}
	for _, s := range spans {
		// The first piece whose written text ends after s starts; every
		// piece from there on that starts before s ends may touch it.
		j := sort.Search(len(pieces), func(j int) bool { return curStart[j]+len(pieces[j].Text) > s.Start })
		for k := j; k < len(pieces) && curStart[k] < s.End; k++ {
			ws, we := curStart[k], curStart[k]+len(pieces[k].Text)
			overlaps := s.Start < we && ws < s.End
			deletedInside := ws == we && s.Start < ws
			if overlaps || deletedInside {
				idx, other := edit, pieces[k].Edit
				return nil, &failed{
					err: &tool.Error{Code: tool.CodeOverlappingEdits,
						Message: fmt.Sprintf("edits[%d] matches at line %d, in text that edits[%d] wrote", edit, textedit.LineAt(cur, s.Start), other),
						Hint:    fmt.Sprintf("merge edits[%d] into edits[%d], or make its old_string match text that no earlier edit changed", edit, other)},
					info: Failure{Edit: &idx, OtherEdit: &other},
				}
			}
		}
		// No piece overlaps s, so those starting at or before s.start lie
		// wholly before it (an empty one at s.start too) and shifted it.
		before := sort.Search(len(pieces), func(j int) bool { return curStart[j] > s.Start })
		d := shift[before]
		eol := textedit.EOLAround(cur, s)
		text, ok := texts[eol]
		if !ok {
			text = []byte(textedit.WithEOL(repl, eol))
			texts[eol] = text
		}
		added = append(added, textedit.Piece{Start: s.Start - d, End: s.End - d, Text: text, Edit: edit})
	}
	if len(pieces) == 0 {
		return added, nil // spans come sorted
	}
	// Both lists are sorted and disjoint: merge them.
	out := make([]textedit.Piece, 0, len(pieces)+len(added))
	i, j := 0, 0
	for i < len(pieces) || j < len(added) {
		if j == len(added) || (i < len(pieces) && pieces[i].Start < added[j].Start) {
			out = append(out, pieces[i])
			i++
		} else {
			out = append(out, added[j])
			j++
		}
	}
	return out, nil
}

// fillLines sets each report's line numbers from its pieces, in the
// original text, in one pass.
func fillLines(orig []byte, pieces []textedit.Piece, reports []EditReport) {
	line, off := 1, 0
	at := func(pos int) int {
		line += bytes.Count(orig[off:pos], []byte("\n"))
		off = pos
		return line
	}
	for _, p := range pieces {
		first := at(p.Start)
		last := first
		if p.End > p.Start {
			last = first + bytes.Count(orig[p.Start:p.End-1], []byte("\n"))
		}
		r := &reports[p.Edit]
		switch {
		case len(r.Lines) == 0:
			r.LineStart, r.LineEnd = first, last
			fallthrough
		case len(r.Lines) < textedit.MaxReportedLines:
			r.Lines = append(r.Lines, first)
		default:
			r.LinesOmitted++
		}
	}
}

// MaxReplacements caps the spans one replace_all replaces: each costs
// memory (about 150 MiB for a million).
const MaxReplacements = 1_000_000

// noMatch builds the no_match error for old in text: the closest
// candidate, the first difference and its likely cause.
func noMatch(name string, text []byte, old string, loc textedit.Located, i, n int, byteWise bool) *failed {
	idx := i
	l := label(i, n)
	if len(loc.Rejected) > 0 {
		r := loc.Rejected[0]
		first, last := textedit.LineAt(text, r.Span.Start), textedit.LineAt(text, max(r.Span.End-1, r.Span.Start))
		c := &textedit.Candidate{LineStart: first, LineEnd: last, Line: first, Column: 1,
			Expected: textedit.Clip(textedit.FirstLine(old)), Found: textedit.Clip(textedit.FirstLine(string(text[r.Span.Start:r.Span.End])))}
		var msg string
		if r.TooBig {
			c.Cause = "fuzzy_too_long"
			msg = fmt.Sprintf("%sold_string was not found exactly; a fuzzy match at lines %d-%d was refused because its text is %d characters long, more than %d×%d+%d for old_string's %d",
				l, first, last, r.Runes, textedit.FuzzySpanFactor, utf8.RuneCountInString(old), textedit.FuzzySpanSlack, utf8.RuneCountInString(old))
		} else {
			c.Cause = "fuzzy_unverified"
			msg = fmt.Sprintf("%sold_string was not found exactly; a fuzzy match at lines %d-%d was refused because its text does not normalize to the same text as old_string", l, first, last)
		}
		return &failed{
			err: &tool.Error{Code: tool.CodeNoMatch, Message: msg,
				Hint: fmt.Sprintf("copy lines %d-%d exactly as mcode read shows them (mcode read %s --offset %d --limit %d) into old_string", first, last, name, first, last-first+1)},
			info: Failure{Edit: &idx, Candidate: c},
		}
	}
	c := textedit.Closest(text, old)
	if c == nil {
		return &failed{
			err: &tool.Error{Code: tool.CodeNoMatch,
				Message: l + "old_string was not found, and no line of the file resembles it",
				Hint:    "check the file path; read the file with mcode read and copy old_string exactly from it"},
			info: Failure{Edit: &idx},
		}
	}
	msg := fmt.Sprintf("%sold_string was not found. Closest: lines %d-%d; first difference at line %d, column %d: old_string has %q, the file has %q (likely cause: %s)",
		l, c.LineStart, c.LineEnd, c.Line, c.Column, c.Expected, c.Found, textedit.CauseText[c.Cause])
	if byteWise {
		msg += "; the file is not UTF-8, so only exact matches count"
	}
	return &failed{
		err:  &tool.Error{Code: tool.CodeNoMatch, Message: msg, Hint: causeHint(name, c)},
		info: Failure{Edit: &idx, Candidate: c},
	}
}

func causeHint(name string, c *textedit.Candidate) string {
	reread := fmt.Sprintf("mcode read %s --offset %d --limit %d", name, c.LineStart, c.LineEnd-c.LineStart+1)
	switch c.Cause {
	case "tabs_vs_spaces", "indentation":
		return fmt.Sprintf("copy the indentation exactly as %s shows it: edit never takes tabs for spaces", reread)
	case "line_numbers":
		return "remove the line-number prefixes (`    12→`) that read puts before each line from old_string and new_string"
	case "bom":
		return "leave the byte-order mark out of old_string: edit keeps the file's BOM by itself"
	case "crlf":
		return "old_string and the file disagree on a lone carriage return; copy the text exactly as " + reread + " shows it"
	}
	return "copy old_string exactly from " + reread
}
