package shell

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// literal is a word's value with quotes and escapes removed, when bash
// knows it before running anything: only literal text, single and double
// quotes (with no expansion inside) and $'…' strings. A leading ~ stays.
func (s *scope) literal(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if p.Dollar {
				v, _, err := expand.Format(nil, p.Value, nil)
				if err != nil {
					return "", false
				}
				v, _, _ = strings.Cut(v, "\x00")
				b.WriteString(v)
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			if p.Dollar { // $"…" is a translated string: as good as dynamic
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(lit.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes backslashes as bash does: outside quotes every
// backslash quotes the next character; inside double quotes only before
// $ ` " \ and newline. A backslash-newline disappears.
func unescape(s string, dquoted bool) string {
	if !dquoted {
		return unescapeBefore(s, "")
	}
	return unescapeBefore(s, "$`\"\\")
}

// unescapeHereDoc removes backslashes as bash does in an unquoted
// here-document: before $ ` \ and newline only.
func unescapeHereDoc(s string) string { return unescapeBefore(s, "$`\\") }

// unescapeBefore drops a backslash before a newline (with the newline)
// and before one of special, keeping the character; "" takes every
// character as special.
func unescapeBefore(s, special string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		next := s[i+1]
		switch {
		case next == '\n':
			i++
		case special == "" || strings.IndexByte(special, next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// hasGlob reports an unquoted glob or brace expansion: bash turns such a
// command name into whatever files or words match. A [ with no ] after
// it is no pattern ([ -f x ] is test).
func hasGlob(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			for i := 0; i < len(v); i++ {
				switch v[i] {
				case '\\':
					i++
				case '*', '?', '{':
					return true
				case '[':
					if strings.IndexByte(v[i+1:], ']') >= 0 {
						return true
					}
				}
			}
		case *syntax.ExtGlob, *syntax.BraceExp:
			return true
		}
	}
	return false
}
