package search

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// matcher finds the lines of a file that match a pattern.
type matcher struct {
	re        *regexp.Regexp
	multiline bool
	scan      []finder   // literals to scan for; empty: run the regex on every line
	also      [][]finder // sets a candidate line must also contain
	exact     bool       // a scanned literal on a line is a match
}

// scanState is one worker's scratch for a matcher.
type scanState struct {
	scan []finderState
	also [][]finderState
}

func (m *matcher) newState() *scanState {
	st := &scanState{scan: make([]finderState, len(m.scan))}
	for _, a := range m.also {
		st.also = append(st.also, make([]finderState, len(a)))
	}
	return st
}

func (st *scanState) reset() {
	for i := range st.scan {
		st.scan[i].reset()
	}
}

// compileMatcher builds the matcher of a grep call. An invalid pattern is
// invalid_args naming where and what is wrong.
func compileMatcher(pattern string, fixed, fold, multiline bool) (*matcher, error) {
	expr := pattern
	if fixed {
		expr = regexp.QuoteMeta(pattern)
	}
	flags := ""
	if fold {
		flags += "i"
	}
	if multiline {
		flags += "m"
	}
	if flags != "" {
		expr = "(?" + flags + ")" + expr
	}
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, patternError(pattern, err)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, patternError(pattern, err)
	}
	if !multiline && hasNewline(parsed) {
		return nil, &tool.Error{Code: tool.CodeInvalidArgs,
			Message: fmt.Sprintf("pattern %q contains a line break, which a line-by-line search never matches", pattern),
			Hint:    "pass --multiline to match across lines"}
	}
	m := &matcher{re: re, multiline: multiline}
	p := planFor(parsed)
	if !multiline {
		p = p.withoutNewlines()
	}
	for _, l := range p.scan {
		m.scan = append(m.scan, newFinder(l))
	}
	for _, set := range p.also {
		var fs []finder
		for _, l := range set {
			fs = append(fs, newFinder(l))
		}
		m.also = append(m.also, fs)
	}
	m.exact = p.exact && !multiline
	for _, l := range p.scan {
		if strings.ContainsRune(l.s, utf8.RuneError) {
			m.exact = false // regexp matches invalid bytes as U+FFFD; bytes.Index would not
		}
	}
	return m, nil
}

// withoutNewlines drops the literals that hold a line break: a line never
// contains one (a "\s" class offers "\n" as one of its strings).
func (p plan) withoutNewlines() plan {
	keep := func(s litSet) litSet {
		return slices.DeleteFunc(slices.Clone(s), func(l lit) bool { return strings.ContainsRune(l.s, '\n') })
	}
	out := plan{scan: keep(p.scan), exact: p.exact}
	if len(out.scan) == 0 {
		return plan{}
	}
	for _, s := range p.also {
		if k := keep(s); len(k) > 0 {
			out.also = append(out.also, k)
		}
	}
	return out
}

// patternError explains a regexp syntax error with the column it is at.
func patternError(pattern string, err error) *tool.Error {
	msg := err.Error()
	var se *syntax.Error
	if e, ok := err.(*syntax.Error); ok {
		se = e
	}
	if se != nil {
		col := strings.Index(pattern, se.Expr)
		where := ""
		if col >= 0 && se.Expr != pattern {
			where = fmt.Sprintf(" at column %d", utf8.RuneCountInString(pattern[:col])+1)
		}
		msg = fmt.Sprintf("invalid regular expression%s: %s: `%s`", where, se.Code, se.Expr)
	}
	hint := "patterns use RE2 syntax (Go regexp): escape ( ) [ ] { } . * + ? | \\ with a backslash, or pass --fixed-strings (-F) to search the text literally"
	if look := lookaround(pattern); look != "" {
		msg = fmt.Sprintf("invalid regular expression: RE2 has no lookaround (%s)", look)
		hint = "match without it and narrow in a second step (grep the lines, then grep those results), match the surrounding text itself (foo(?=bar) as foobar), or use a PCRE tool through mcode bash (rg -P, grep -P)"
	} else if se != nil && se.Code == syntax.ErrInvalidEscape && backreference(se.Expr) {
		msg = fmt.Sprintf("invalid regular expression: RE2 has no backreferences (%s)", se.Expr)
		hint = "spell the repeated text out, or use a PCRE tool through mcode bash (rg -P, grep -P)"
	}
	return &tool.Error{Code: tool.CodeInvalidArgs, Message: msg, Hint: hint}
}

// lookaround names the lookahead or lookbehind a pattern uses, which RE2
// cannot match in linear time and so does not have.
func lookaround(pattern string) string {
	for _, l := range []string{"(?<=", "(?<!", "(?=", "(?!"} {
		if strings.Contains(pattern, l) {
			return "`" + l + "…)`"
		}
	}
	return ""
}

// backreference says whether an invalid escape is \1 … \9.
func backreference(expr string) bool {
	return len(expr) == 2 && expr[0] == '\\' && expr[1] >= '1' && expr[1] <= '9'
}

func hasNewline(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral && strings.ContainsRune(string(re.Rune), '\n') {
		return true
	}
	for _, s := range re.Sub {
		if hasNewline(s) {
			return true
		}
	}
	return false
}

// next is the first position at or after from where a scanned literal starts.
func (m *matcher) next(buf []byte, from int, st *scanState) int {
	if len(m.scan) == 1 {
		return m.scan[0].index(buf, from, &st.scan[0])
	}
	best := -1
	for i := range m.scan {
		s := &st.scan[i]
		if s.next == -1 {
			continue
		}
		if s.next < from {
			s.next = m.scan[i].index(buf, from, s)
			if s.next < 0 {
				s.next = -1
				continue
			}
		}
		if best < 0 || s.next < best {
			best = s.next
		}
	}
	return best
}

// lineMatches decides a candidate line.
func (m *matcher) lineMatches(line []byte, st *scanState, scanned bool) bool {
	for i, set := range m.also {
		if !containsAny(line, set, st.also[i]) {
			return false
		}
	}
	if scanned && m.exact {
		return true
	}
	return m.re.Match(line)
}

// eachLine calls fn with the start and end (before the '\n') of every
// matching line, in order, until fn returns false. In multiline mode a
// match spanning lines reports the whole span once.
func (m *matcher) eachLine(buf []byte, st *scanState, fn func(ls, le int) bool) {
	st.reset()
	if m.multiline {
		m.eachMultiline(buf, st, fn)
		return
	}
	for pos := 0; pos < len(buf); {
		var ls, le int
		scanned := len(m.scan) > 0
		if scanned {
			i := m.next(buf, pos, st)
			if i < 0 {
				return
			}
			ls = bytes.LastIndexByte(buf[pos:i], '\n') + 1 + pos
			le = i
		} else {
			ls, le = pos, pos
		}
		if j := bytes.IndexByte(buf[le:], '\n'); j >= 0 {
			le += j
		} else {
			le = len(buf)
		}
		if m.lineMatches(buf[ls:le], st, scanned) && !fn(ls, le) {
			return
		}
		pos = le + 1
	}
}

func (m *matcher) eachMultiline(buf []byte, st *scanState, fn func(ls, le int) bool) {
	if len(m.scan) > 0 && m.next(buf, 0, st) < 0 {
		return
	}
	for pos := 0; pos <= len(buf); {
		loc := m.re.FindIndex(buf[pos:])
		if loc == nil {
			return
		}
		s, e := pos+loc[0], pos+loc[1]
		ls := bytes.LastIndexByte(buf[:s], '\n') + 1
		last := max(s, e-1)
		le := len(buf)
		if last < len(buf) {
			if j := bytes.IndexByte(buf[last:], '\n'); j >= 0 {
				le = last + j
			}
		}
		if s == len(buf) && ls == s {
			return // an empty match after the final newline is not a line
		}
		if !fn(ls, le) {
			return
		}
		pos = le + 1
	}
}

// matchSpan finds the first match within a line, for clipping long lines.
func (m *matcher) matchSpan(line []byte) (int, int) {
	if loc := m.re.FindIndex(line); loc != nil {
		return loc[0], loc[1]
	}
	return 0, 0
}
