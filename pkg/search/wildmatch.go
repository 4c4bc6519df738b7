package search

// wildmatch is git's wildmatch.c (the matcher behind .gitignore), ported
// byte for byte so that patterns mean here exactly what they mean to git:
// '*' and '?' stop at '/' when pathname is set, '**' between slashes
// spans folders, classes take ranges, '!'/'^' negation and [:alpha:]
// names, and '\' quotes the next byte.

const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// at returns s[i], or 0 past the end (the C code's NUL terminator).
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// wildmatch reports whether text matches pattern. With pathname, '*' and
// '?' do not match '/'.
func wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, 0, text, 0, pathname) == wmMatch
}

func dowild(pat string, p int, text string, t int, pathname bool) int {
	for ; p < len(pat); t, p = t+1, p+1 {
		pch := pat[p]
		tch := at(text, t)
		if t >= len(text) && pch != '*' {
			return wmAbortAll
		}
		switch pch {
		case '\\':
			p++
			pch = at(pat, p)
			if tch != pch {
				return wmNoMatch
			}
			continue
		default:
			if tch != pch {
				return wmNoMatch
			}
			continue
		case '?':
			if pathname && tch == '/' {
				return wmNoMatch
			}
			continue
		case '*':
			var matchSlash bool
			p++
			if at(pat, p) == '*' {
				prevP := p - 2
				for p++; at(pat, p) == '*'; p++ {
				}
				if (prevP < 0 || pat[prevP] == '/') &&
					(p >= len(pat) || pat[p] == '/' || (pat[p] == '\\' && at(pat, p+1) == '/')) {
					if at(pat, p) == '/' && dowild(pat, p+1, text, t, pathname) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				} else {
					matchSlash = !pathname
				}
			} else {
				matchSlash = !pathname
			}
			if p >= len(pat) {
				if !matchSlash {
					for i := t; i < len(text); i++ {
						if text[i] == '/' {
							return wmNoMatch
						}
					}
				}
				return wmMatch
			} else if !matchSlash && pat[p] == '/' {
				i := t
				for i < len(text) && text[i] != '/' {
					i++
				}
				if i >= len(text) {
					return wmNoMatch
				}
				t = i
				// The slash is consumed by the loop's step.
				break
			}
			for {
				if t >= len(text) {
					break
				}
				if !isGlobSpecial(pat[p]) {
					pch = pat[p]
					for t < len(text) && (matchSlash || text[t] != '/') {
						if text[t] == pch {
							break
						}
						t++
					}
					if at(text, t) != pch || t >= len(text) {
						return wmNoMatch
					}
				}
				tch = text[t]
				if m := dowild(pat, p, text, t, pathname); m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && tch == '/' {
					return wmAbortToStarStar
				}
				t++
			}
			return wmAbortAll
		case '[':
			p++
			pch = at(pat, p)
			if pch == '^' {
				pch = '!'
			}
			negated := pch == '!'
			if negated {
				p++
				pch = at(pat, p)
			}
			var prevCh byte
			matched := false
			for {
				if p >= len(pat) {
					return wmAbortAll
				}
				switch {
				case pch == '\\':
					p++
					if p >= len(pat) {
						return wmAbortAll
					}
					pch = pat[p]
					if tch == pch {
						matched = true
					}
				case pch == '-' && prevCh != 0 && p+1 < len(pat) && pat[p+1] != ']':
					p++
					pch = pat[p]
					if pch == '\\' {
						p++
						if p >= len(pat) {
							return wmAbortAll
						}
						pch = pat[p]
					}
					if tch <= pch && tch >= prevCh {
						matched = true
					}
					pch = 0
				case pch == '[' && at(pat, p+1) == ':':
					p += 2
					s := p
					for p < len(pat) && pat[p] != ']' {
						p++
					}
					if p >= len(pat) {
						return wmAbortAll
					}
					i := p - s - 1
					if i < 0 || pat[p-1] != ':' {
						// Not "[:name:]": a plain '['.
						p = s - 2
						pch = '['
						if tch == pch {
							matched = true
						}
						prevCh = pch
						p++
						pch = at(pat, p)
						if pch == ']' {
							goto endClass
						}
						continue
					}
					ok, known := posixClass(pat[s:s+i], tch)
					if !known {
						return wmAbortAll
					}
					if ok {
						matched = true
					}
					pch = 0
				default:
					if tch == pch {
						matched = true
					}
				}
				prevCh = pch
				p++
				pch = at(pat, p)
				if pch == ']' {
					break
				}
			}
		endClass:
			if matched == negated || (pathname && tch == '/') {
				return wmNoMatch
			}
			continue
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// posixClass answers [:name:] for one byte; known is false for a name git
// does not know (which makes the whole pattern fail, as in git).
func posixClass(name string, c byte) (ok, known bool) {
	isUpper := c >= 'A' && c <= 'Z'
	isLower := c >= 'a' && c <= 'z'
	isDigit := c >= '0' && c <= '9'
	isAlpha := isUpper || isLower
	switch name {
	case "alnum":
		return isAlpha || isDigit, true
	case "alpha":
		return isAlpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return c > 0x20 && c < 0x7f, true
	case "lower":
		return isLower, true
	case "print":
		return c >= 0x20 && c < 0x7f, true
	case "punct":
		return c > 0x20 && c < 0x7f && !isAlpha && !isDigit, true
	case "space":
		return c == ' ' || (c >= '\t' && c <= '\r'), true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
