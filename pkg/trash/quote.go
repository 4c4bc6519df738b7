package trash

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// QuoteRm quotes a file name the way GNU rm does in its messages
// (gnulib's shell-escape-always style): 'name', "it's" when a single quote
// is the only awkward character, and 'a'$'\n”b' for bytes a terminal
// cannot show. utf8 says whether the locale's charset is UTF-8 (else
// every non-ASCII byte is escaped, as in the C locale).
func QuoteRm(name string, utf8Locale bool) string {
	out, pending, single, compat := quotePass(name, utf8Locale, false)
	if !single {
		return out
	}
	if compat {
		return quoteC(name)
	}
	// gnulib writes the string a second time once it has seen a single
	// quote, starting from the escape state the first pass ended in; this
	// is visible in the output (C locale, escapes before a quote lose
	// their $'), so it is reproduced.
	out, _, _, _ = quotePass(name, utf8Locale, pending)
	return out
}

// quotePass is one pass of gnulib's quotearg_buffer_restyled in
// shell_escape_always style.
func quotePass(s string, utf8Locale, pending bool) (out string, pendingEnd, single, allCompat bool) {
	var b strings.Builder
	b.WriteByte('\'')
	allCompat = true
	escaping := false
	startEsc := func() {
		escaping = true
		if !pending {
			b.WriteString(`'$'`)
			pending = true
		}
		b.WriteByte('\\')
	}
	endEsc := func() {
		if pending && !escaping {
			b.WriteString(`''`)
			pending = false
		}
	}
	storeC := func(c byte) {
		endEsc()
		b.WriteByte(c)
	}
	octal := func(c byte) {
		startEsc()
		b.WriteByte('0' + c>>6)
		b.WriteByte('0' + (c>>3)&7)
		storeC('0' + c&7)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		escaping = false
		compat := false
		switch {
		case c == '\a' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t' || c == '\v':
			startEsc()
			storeC("abfnrtv"[strings.IndexByte("\a\b\f\n\r\t\v", c)])
		case c == 0:
			startEsc()
			storeC('0')
		case c == '\\' || c == '?':
			storeC(c)
		case c == '{' || c == '}':
			if len(s) == 1 {
				compat = true
			}
			storeC(c)
		case c == '#' || c == '~':
			compat = i == 0
			storeC(c)
		case c == ' ':
			compat = true
			storeC(c)
		case strings.IndexByte("!\"$&()*;<=>[^`|", c) >= 0:
			storeC(c)
		case c == '\'':
			single, compat = true, true
			b.WriteString(`'\''`)
			pending = false
		case c == '%' || c == '+' || c == ',' || c == '-' || c == '.' || c == '/' || c == ':' || c == ']' || c == '_' ||
			'0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z':
			compat = true
			storeC(c)
		case !utf8Locale || c < utf8.RuneSelf:
			compat = 0x20 <= c && c < 0x7f
			if compat {
				storeC(c)
			} else {
				octal(c)
			}
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size <= 1 && !utf8.FullRuneInString(s[i:]):
				// An incomplete sequence at the end: every byte left
				// is escaped.
				for ; i < len(s); i++ {
					escaping = false
					octal(s[i])
				}
			case r == utf8.RuneError && size <= 1:
				octal(c)
			case !runePrintable(r):
				for j := 0; j < size; j++ {
					escaping = false
					octal(s[i+j])
				}
				i += size - 1
			default:
				compat = true
				endEsc()
				b.WriteString(s[i : i+size])
				i += size - 1
			}
		}
		if !compat {
			allCompat = false
		}
	}
	b.WriteByte('\'')
	return b.String(), pending, single, allCompat
}

// quoteC is gnulib's c_quoting_style for the strings QuoteRm sends to it:
// every character is printable and none needs a backslash but '"', so
// only that and '\' are escaped.
func quoteC(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String()
}

// runePrintable approximates glibc's iswprint in a UTF-8 locale.
func runePrintable(r rune) bool {
	return unicode.IsPrint(r) || unicode.Is(unicode.Zs, r) || unicode.Is(unicode.Cf, r) && r != 0xfeff
}

// UTF8Locale says whether the environment selects a UTF-8 charset (LC_ALL,
// then LC_CTYPE, then LANG, as setlocale reads them).
func UTF8Locale(getenv func(string) string) bool {
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := getenv(k); v != "" {
			v = strings.ToLower(v)
			return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
		}
	}
	return false
}
