package patch

import (
	"fmt"
	"strings"

	"github.com/mcode-dev/mcode/pkg/textedit"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Failure is the result of a patch that was refused: where, and the facts
// a caller needs to fix it.
type Failure struct {
	File string `json:"file,omitempty"`
	// Hunk is the hunk's number in its file (1-based); PatchLine the
	// patch's line where it starts.
	Hunk      int `json:"hunk,omitempty"`
	PatchLine int `json:"patch_line,omitempty"`
	// MatchLines are the lines where an ambiguous hunk matches.
	MatchLines []int    `json:"match_lines,omitempty"`
	Nearest    *Nearest `json:"nearest,omitempty"`
}

// Nearest is the place that looks most like a hunk that matched nowhere:
// its lines, how alike (0 to 1), and the first line that differs.
type Nearest struct {
	textedit.Candidate
	Similarity float64 `json:"similarity"`
}

// failure is a refused patch: the error and its facts.
type failure struct {
	err  *tool.Error
	info Failure
}

func (f *failure) Error() string { return f.err.Error() }

// applied is what the hunks of one file did.
type applied struct {
	pieces []textedit.Piece
	tiers  []string
}

// applyHunks locates every hunk of one file, in order and without
// overlap, and returns the pieces that change the text. name is the
// file's name in messages.
func applyHunks(name string, c *textedit.Content, hunks []*hunk, keepFinal bool) (*applied, *failure) {
	f := newFileLines(c.Text, c.ByteWise)
	out := &applied{}
	from, drift := 0, 0
	for hi, h := range hunks {
		label := hunkLabel(name, hi, len(hunks), h)
		fail := func(code tool.Code, msg, hint string) *failure {
			return &failure{err: &tool.Error{Code: code, Message: label + msg, Hint: hint},
				info: Failure{File: name, Hunk: hi + 1, PatchLine: h.line}}
		}
		if err := checkAdded(h, c); err != "" {
			return nil, fail(tool.CodeEncoding, err, "nothing was written")
		}
		old := h.old()
		r := f.locate(h, old, from, drift)
		switch {
		case f.exhausted:
			return nil, fail(tool.CodeTooLarge,
				fmt.Sprintf("locating it was given up after %d line comparisons: its %d context and removed line%s could sit at very many of the file's %d lines (lines alike, such as blank or repeated ones)",
					maxCompared, len(old), textedit.Plural(len(old)), f.n),
				"add an @@ line naming a distinctive line above the change, or context lines that occur rarely in the file, or make the change with a command (sed) through bash; nothing was written")
		case r.header >= 0:
			return nil, fail(tool.CodeNoMatch,
				fmt.Sprintf("its context header %q matches no line after line %d", h.headers[r.header], from),
				"make the @@ line a copy of a line above the change (for example @@ func name(…)), or leave it out")
		case len(r.candidates) > 0:
			lines := make([]int, len(r.candidates))
			for i, c := range r.candidates {
				lines[i] = c + 1
			}
			e := fail(tool.CodeNotUnique,
				fmt.Sprintf("its %d context and removed line%s match %s (%s tier)", len(old), textedit.Plural(len(old)), textedit.LinesPhrase(lines, len(lines)), r.tier),
				"add context lines around the change, or an @@ line naming a line above it (such as @@ func name), so that the hunk matches one place; nothing was written")
			e.info.MatchLines = lines
			return nil, e
		case r.at < 0:
			return nil, noMatch(f, name, h, old, from, fail)
		}
		pieces := f.pieces(h, r.at, keepFinal, hi)
		out.pieces = append(out.pieces, pieces...)
		if len(old) > 0 {
			out.tiers = append(out.tiers, r.tier.String())
		} else {
			out.tiers = append(out.tiers, TierExact)
		}
		if h.hasHint {
			drift = r.at - (h.hint - 1)
		}
		from = r.at + len(old)
	}
	return out, nil
}

// hunkLabel names a hunk in messages: "a.go: hunk 2 of 3 (patch line 14): ".
func hunkLabel(name string, i, n int, h *hunk) string {
	where := ""
	if h.line > 0 {
		where = fmt.Sprintf(" (patch line %d)", h.line)
	}
	if n == 1 {
		return fmt.Sprintf("%s: the hunk%s: ", name, where)
	}
	return fmt.Sprintf("%s: hunk %d of %d%s: ", name, i+1, n, where)
}

// checkAdded refuses added text the file cannot hold byte for byte.
func checkAdded(h *hunk, c *textedit.Content) string {
	added, removed := 0, 0
	for _, l := range h.lines {
		switch l.op {
		case '+':
			if c.ByteWise && !textedit.IsASCII([]byte(l.text)) {
				return fmt.Sprintf("the file is not valid UTF-8, so only plain ASCII lines can be added to it byte for byte; %q is not", clip(l.text))
			}
			added += strings.Count(l.text, "\uFFFD")
		case '-', ' ':
			removed += strings.Count(l.text, "\uFFFD")
		}
	}
	if added > removed {
		return "an added line contains U+FFFD (�), the mark of text that was decoded wrongly; mcode never writes it"
	}
	return ""
}

// noMatch explains a hunk found nowhere: a hunk that matches before the
// previous one (out of order), else the nearest almost-match, its
// similarity and its first differing line.
func noMatch(f *fileLines, name string, h *hunk, old []string, from int, fail func(tool.Code, string, string) *failure) *failure {
	if from > 0 {
		for _, t := range f.tiers() {
			if c := f.matches(t, keysOf(t, old), 0, false); len(c) > 0 && c[0] < from {
				return fail(tool.CodeNoMatch,
					fmt.Sprintf("it matches at line %d, before the end of the hunk above it (line %d): hunks of one file must come in the file's order and must not overlap", c[0]+1, from),
					"order the hunks as their lines come in the file, and merge hunks that share lines; nothing was written")
			}
		}
	}
	what := fmt.Sprintf("its %d context and removed line%s", len(old), textedit.Plural(len(old)))
	where := ""
	if from > 0 {
		where = fmt.Sprintf(" after line %d", from)
	}
	if h.eof {
		where = " at the end of the file (*** End of File)"
	}
	tiers := "exact, trailing whitespace, surrounding whitespace, Unicode punctuation and spaces"
	c := textedit.Closest(f.text, strings.Join(old, "\n"))
	if c == nil {
		return fail(tool.CodeNoMatch,
			fmt.Sprintf("%s were not found%s at any tier (%s), and no place in the file resembles them", what, where, tiers),
			"check the file path; read the file (mcode read) and rebuild the hunk from the lines it holds; nothing was written")
	}
	n := &Nearest{Candidate: *c, Similarity: f.similarity(c.LineStart-1, old)}
	e := fail(tool.CodeNoMatch,
		fmt.Sprintf("%s were not found%s at any tier (%s). Nearest almost-match: lines %d-%d, %.0f%% similar; first difference at line %d: the patch has %q, the file has %q (likely cause: %s)",
			what, where, tiers, c.LineStart, c.LineEnd, 100*n.Similarity, c.Line, c.Expected, c.Found, textedit.CauseText[c.Cause]),
		fmt.Sprintf("re-read lines %d-%d (mcode read %s --offset %d --limit %d), copy the context and - lines exactly from them, and send the patch again; nothing was written",
			c.LineStart, c.LineEnd, name, c.LineStart, c.LineEnd-c.LineStart+1))
	e.info.Nearest = n
	return e
}

// similarity is how alike old is to the file's lines from line at on,
// from 0 to 1 (rounded to hundredths).
func (f *fileLines) similarity(at int, old []string) float64 {
	if len(old) == 0 || at < 0 {
		return 0
	}
	sum := 0.0
	for j, l := range old {
		if at+j < f.n {
			sum += textedit.LineSimilarity(l, string(f.line(at+j)))
		}
	}
	return float64(int(100*sum/float64(len(old))+0.5)) / 100
}

// pieces turns a hunk located at line at into pieces of the text: each
// run of removed and added lines replaces the file's lines it covers;
// context lines keep the file's own bytes. keepFinal is the final-newline
// state wanted when a run reaches the end of the file (a unified diff's
// "\ No newline at end of file" overrides it).
func (f *fileLines) pieces(h *hunk, at int, keepFinal bool, hunkIdx int) []textedit.Piece {
	var out []textedit.Piece
	fi := at
	for i := 0; i < len(h.lines); {
		if h.lines[i].op == ' ' {
			fi++
			i++
			continue
		}
		del := 0
		var adds []string
		for ; i < len(h.lines) && h.lines[i].op != ' '; i++ {
			if h.lines[i].op == '-' {
				del++
			} else {
				adds = append(adds, h.lines[i].text)
			}
		}
		final := keepFinal
		if i == len(h.lines) && h.fromDiff && fi+del == f.n {
			final = !h.newNoEOL
		}
		out = append(out, f.run(fi, del, adds, final, hunkIdx))
		fi += del
	}
	return out
}

// run is the piece that replaces del lines from line fi with adds.
func (f *fileLines) run(fi, del int, adds []string, final bool, hunkIdx int) textedit.Piece {
	eol := f.eolNear(fi, del)
	p := textedit.Piece{Start: f.start[fi], End: f.start[fi+del], Edit: hunkIdx}
	atEOF := fi+del == f.n
	var b strings.Builder
	if atEOF && del == 0 && f.n > 0 && f.eol(f.n-1) == "" && len(adds) > 0 {
		b.WriteString(eol) // the old last line is last no more
	}
	for k, a := range adds {
		b.WriteString(a)
		if k < len(adds)-1 || !atEOF || final {
			b.WriteString(eol)
		}
	}
	if atEOF && len(adds) == 0 && del > 0 && fi > 0 && !final {
		p.Start -= len(f.eol(fi - 1)) // the new last line loses its break
	}
	p.Text = []byte(b.String())
	return p
}

// eolNear is the line break for lines written in place of del lines from
// line fi: that of the lines replaced, else of the line before, else of
// the line after, else the file's majority.
func (f *fileLines) eolNear(fi, del int) string {
	for j := fi; j < fi+del; j++ {
		if e := f.eol(j); e != "" {
			return e
		}
	}
	if fi > 0 {
		if e := f.eol(fi - 1); e != "" {
			return e
		}
	}
	if fi < f.n {
		if e := f.eol(fi); e != "" {
			return e
		}
	}
	lf, crlf := 0, 0
	for j := range f.n {
		switch f.eol(j) {
		case "\n":
			lf++
		case "\r\n":
			crlf++
		}
	}
	if crlf > lf {
		return "\r\n"
	}
	return "\n"
}

// lineCount counts the lines of a text.
func lineCount(b []byte) int {
	n := strings.Count(string(b), "\n")
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}
