package markdown

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// entityAt reads the entity reference that starts s (&name;, &#123; or
// &#x1F;) and returns its text and length, or 0 when s starts none.
func entityAt(s string) (string, int) {
	if len(s) < 3 || s[0] != '&' {
		return "", 0
	}
	if s[1] == '#' {
		i, base := 2, 10
		if s[2] == 'x' || s[2] == 'X' {
			i, base = 3, 16
		}
		j := i
		for j < len(s) && j-i < 8 && (isDigit(s[j]) || base == 16 && (s[j]|0x20 >= 'a' && s[j]|0x20 <= 'f')) {
			j++
		}
		max := 7
		if base == 16 {
			max = 6
		}
		if j == i || j-i > max || j >= len(s) || s[j] != ';' {
			return "", 0
		}
		n, _ := strconv.ParseUint(s[i:j], base, 32)
		r := rune(n)
		if n == 0 || !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		return string(r), j + 1
	}
	j := 1
	for j < len(s) && j <= 32 && isAlnum(s[j]) {
		j++
	}
	if j == 1 || j >= len(s) || s[j] != ';' || !isLetter(s[1]) {
		return "", 0
	}
	if v := entity(s[1:j]); v != "" {
		return v, j + 1
	}
	return "", 0
}

// unescapeString resolves backslash escapes and entity references, as
// in link destinations, titles and info strings.
func unescapeString(s string) string {
	if strings.IndexByte(s, '\\') < 0 && strings.IndexByte(s, '&') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			i++
			b.WriteByte(s[i])
		case c == '&':
			if v, n := entityAt(s[i:]); n > 0 {
				b.WriteString(v)
				i += n - 1
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// entity is the text of a named character reference: the common ones
// of HTML's list, as a switch, so that nothing is built at start-up.
// An unknown name stays literal text.
func entity(name string) string {
	switch name {
	case "amp", "AMP":
		return "&"
	case "lt", "LT":
		return "<"
	case "gt", "GT":
		return ">"
	case "quot", "QUOT":
		return "\u0022"
	case "apos":
		return "'"
	case "nbsp":
		return "\u00A0"
	case "copy", "COPY":
		return "\u00A9"
	case "reg", "REG":
		return "\u00AE"
	case "trade":
		return "\u2122"
	case "hellip":
		return "\u2026"
	case "mdash":
		return "\u2014"
	case "ndash":
		return "\u2013"
	case "lsquo":
		return "\u2018"
	case "rsquo":
		return "\u2019"
	case "ldquo":
		return "\u201C"
	case "rdquo":
		return "\u201D"
	case "sbquo":
		return "\u201A"
	case "bdquo":
		return "\u201E"
	case "laquo":
		return "\u00AB"
	case "raquo":
		return "\u00BB"
	case "lsaquo":
		return "\u2039"
	case "rsaquo":
		return "\u203A"
	case "bull":
		return "\u2022"
	case "middot":
		return "\u00B7"
	case "deg":
		return "\u00B0"
	case "plusmn":
		return "\u00B1"
	case "times":
		return "\u00D7"
	case "divide":
		return "\u00F7"
	case "frac12":
		return "\u00BD"
	case "frac14":
		return "\u00BC"
	case "frac34":
		return "\u00BE"
	case "sup1":
		return "\u00B9"
	case "sup2":
		return "\u00B2"
	case "sup3":
		return "\u00B3"
	case "micro":
		return "\u00B5"
	case "para":
		return "\u00B6"
	case "sect":
		return "\u00A7"
	case "cent":
		return "\u00A2"
	case "pound":
		return "\u00A3"
	case "yen":
		return "\u00A5"
	case "euro":
		return "\u20AC"
	case "curren":
		return "\u00A4"
	case "iexcl":
		return "\u00A1"
	case "iquest":
		return "\u00BF"
	case "shy":
		return "\u00AD"
	case "macr":
		return "\u00AF"
	case "acute":
		return "\u00B4"
	case "cedil":
		return "\u00B8"
	case "ordf":
		return "\u00AA"
	case "ordm":
		return "\u00BA"
	case "not":
		return "\u00AC"
	case "brvbar":
		return "\u00A6"
	case "uml":
		return "\u00A8"
	case "larr":
		return "\u2190"
	case "rarr":
		return "\u2192"
	case "uarr":
		return "\u2191"
	case "darr":
		return "\u2193"
	case "harr":
		return "\u2194"
	case "lArr":
		return "\u21D0"
	case "rArr":
		return "\u21D2"
	case "uArr":
		return "\u21D1"
	case "dArr":
		return "\u21D3"
	case "hArr":
		return "\u21D4"
	case "crarr":
		return "\u21B5"
	case "le":
		return "\u2264"
	case "ge":
		return "\u2265"
	case "ne":
		return "\u2260"
	case "equiv":
		return "\u2261"
	case "asymp":
		return "\u2248"
	case "infin":
		return "\u221E"
	case "sum":
		return "\u2211"
	case "prod":
		return "\u220F"
	case "radic":
		return "\u221A"
	case "minus":
		return "\u2212"
	case "part":
		return "\u2202"
	case "nabla":
		return "\u2207"
	case "isin":
		return "\u2208"
	case "notin":
		return "\u2209"
	case "ni":
		return "\u220B"
	case "cap":
		return "\u2229"
	case "cup":
		return "\u222A"
	case "and":
		return "\u2227"
	case "or":
		return "\u2228"
	case "int":
		return "\u222B"
	case "there4":
		return "\u2234"
	case "sim":
		return "\u223C"
	case "cong":
		return "\u2245"
	case "prop":
		return "\u221D"
	case "ang":
		return "\u2220"
	case "perp":
		return "\u22A5"
	case "sub":
		return "\u2282"
	case "sup":
		return "\u2283"
	case "nsub":
		return "\u2284"
	case "sube":
		return "\u2286"
	case "supe":
		return "\u2287"
	case "oplus":
		return "\u2295"
	case "otimes":
		return "\u2297"
	case "sdot":
		return "\u22C5"
	case "lang":
		return "\u27E8"
	case "rang":
		return "\u27E9"
	case "lceil":
		return "\u2308"
	case "rceil":
		return "\u2309"
	case "lfloor":
		return "\u230A"
	case "rfloor":
		return "\u230B"
	case "loz":
		return "\u25CA"
	case "spades":
		return "\u2660"
	case "clubs":
		return "\u2663"
	case "hearts":
		return "\u2665"
	case "diams":
		return "\u2666"
	case "empty":
		return "\u2205"
	case "exist":
		return "\u2203"
	case "forall":
		return "\u2200"
	case "lowast":
		return "\u2217"
	case "dagger":
		return "\u2020"
	case "Dagger":
		return "\u2021"
	case "permil":
		return "\u2030"
	case "prime":
		return "\u2032"
	case "Prime":
		return "\u2033"
	case "oline":
		return "\u203E"
	case "frasl":
		return "\u2044"
	case "weierp":
		return "\u2118"
	case "image":
		return "\u2111"
	case "real":
		return "\u211C"
	case "alefsym":
		return "\u2135"
	case "circ":
		return "\u02C6"
	case "tilde":
		return "\u02DC"
	case "fnof":
		return "\u0192"
	case "ensp":
		return "\u2002"
	case "emsp":
		return "\u2003"
	case "thinsp":
		return "\u2009"
	case "zwnj":
		return "\u200C"
	case "zwj":
		return "\u200D"
	case "lrm":
		return "\u200E"
	case "rlm":
		return "\u200F"
	case "Alpha":
		return "\u0391"
	case "Beta":
		return "\u0392"
	case "Gamma":
		return "\u0393"
	case "Delta":
		return "\u0394"
	case "Epsilon":
		return "\u0395"
	case "Zeta":
		return "\u0396"
	case "Eta":
		return "\u0397"
	case "Theta":
		return "\u0398"
	case "Iota":
		return "\u0399"
	case "Kappa":
		return "\u039A"
	case "Lambda":
		return "\u039B"
	case "Mu":
		return "\u039C"
	case "Nu":
		return "\u039D"
	case "Xi":
		return "\u039E"
	case "Omicron":
		return "\u039F"
	case "Pi":
		return "\u03A0"
	case "Rho":
		return "\u03A1"
	case "Sigma":
		return "\u03A3"
	case "Tau":
		return "\u03A4"
	case "Upsilon":
		return "\u03A5"
	case "Phi":
		return "\u03A6"
	case "Chi":
		return "\u03A7"
	case "Psi":
		return "\u03A8"
	case "Omega":
		return "\u03A9"
	case "alpha":
		return "\u03B1"
	case "beta":
		return "\u03B2"
	case "gamma":
		return "\u03B3"
	case "delta":
		return "\u03B4"
	case "epsilon":
		return "\u03B5"
	case "zeta":
		return "\u03B6"
	case "eta":
		return "\u03B7"
	case "theta":
		return "\u03B8"
	case "iota":
		return "\u03B9"
	case "kappa":
		return "\u03BA"
	case "lambda":
		return "\u03BB"
	case "mu":
		return "\u03BC"
	case "nu":
		return "\u03BD"
	case "xi":
		return "\u03BE"
	case "omicron":
		return "\u03BF"
	case "pi":
		return "\u03C0"
	case "rho":
		return "\u03C1"
	case "sigmaf":
		return "\u03C2"
	case "sigma":
		return "\u03C3"
	case "tau":
		return "\u03C4"
	case "upsilon":
		return "\u03C5"
	case "phi":
		return "\u03C6"
	case "chi":
		return "\u03C7"
	case "psi":
		return "\u03C8"
	case "omega":
		return "\u03C9"
	case "thetasym":
		return "\u03D1"
	case "upsih":
		return "\u03D2"
	case "piv":
		return "\u03D6"
	case "Agrave":
		return "\u00C0"
	case "Aacute":
		return "\u00C1"
	case "Acirc":
		return "\u00C2"
	case "Atilde":
		return "\u00C3"
	case "Auml":
		return "\u00C4"
	case "Aring":
		return "\u00C5"
	case "AElig":
		return "\u00C6"
	case "Ccedil":
		return "\u00C7"
	case "Egrave":
		return "\u00C8"
	case "Eacute":
		return "\u00C9"
	case "Ecirc":
		return "\u00CA"
	case "Euml":
		return "\u00CB"
	case "Igrave":
		return "\u00CC"
	case "Iacute":
		return "\u00CD"
	case "Icirc":
		return "\u00CE"
	case "Iuml":
		return "\u00CF"
	case "ETH":
		return "\u00D0"
	case "Ntilde":
		return "\u00D1"
	case "Ograve":
		return "\u00D2"
	case "Oacute":
		return "\u00D3"
	case "Ocirc":
		return "\u00D4"
	case "Otilde":
		return "\u00D5"
	case "Ouml":
		return "\u00D6"
	case "Oslash":
		return "\u00D8"
	case "Ugrave":
		return "\u00D9"
	case "Uacute":
		return "\u00DA"
	case "Ucirc":
		return "\u00DB"
	case "Uuml":
		return "\u00DC"
	case "Yacute":
		return "\u00DD"
	case "THORN":
		return "\u00DE"
	case "szlig":
		return "\u00DF"
	case "agrave":
		return "\u00E0"
	case "aacute":
		return "\u00E1"
	case "acirc":
		return "\u00E2"
	case "atilde":
		return "\u00E3"
	case "auml":
		return "\u00E4"
	case "aring":
		return "\u00E5"
	case "aelig":
		return "\u00E6"
	case "ccedil":
		return "\u00E7"
	case "egrave":
		return "\u00E8"
	case "eacute":
		return "\u00E9"
	case "ecirc":
		return "\u00EA"
	case "euml":
		return "\u00EB"
	case "igrave":
		return "\u00EC"
	case "iacute":
		return "\u00ED"
	case "icirc":
		return "\u00EE"
	case "iuml":
		return "\u00EF"
	case "eth":
		return "\u00F0"
	case "ntilde":
		return "\u00F1"
	case "ograve":
		return "\u00F2"
	case "oacute":
		return "\u00F3"
	case "ocirc":
		return "\u00F4"
	case "otilde":
		return "\u00F5"
	case "ouml":
		return "\u00F6"
	case "oslash":
		return "\u00F8"
	case "ugrave":
		return "\u00F9"
	case "uacute":
		return "\u00FA"
	case "ucirc":
		return "\u00FB"
	case "uuml":
		return "\u00FC"
	case "yacute":
		return "\u00FD"
	case "thorn":
		return "\u00FE"
	case "yuml":
		return "\u00FF"
	case "OElig":
		return "\u0152"
	case "oelig":
		return "\u0153"
	case "Scaron":
		return "\u0160"
	case "scaron":
		return "\u0161"
	case "Yuml":
		return "\u0178"
	case "check":
		return "\u2713"
	case "cross":
		return "\u2717"
	case "star":
		return "\u2606"
	case "starf":
		return "\u2605"
	case "hyphen":
		return "\u2010"
	case "dash":
		return "\u2010"
	case "colon":
		return ":"
	case "comma":
		return ","
	case "period":
		return "."
	case "excl":
		return "!"
	case "quest":
		return "?"
	case "num":
		return "#"
	case "dollar":
		return "$"
	case "percnt":
		return "%"
	case "lpar":
		return "("
	case "rpar":
		return ")"
	case "ast":
		return "*"
	case "plus":
		return "+"
	case "equals":
		return "="
	case "lsqb":
		return "["
	case "rsqb":
		return "]"
	case "lbrack":
		return "["
	case "rbrack":
		return "]"
	case "lcub":
		return "{"
	case "rcub":
		return "}"
	case "lbrace":
		return "{"
	case "rbrace":
		return "}"
	case "verbar":
		return "|"
	case "vert":
		return "|"
	case "bsol":
		return "\u005C"
	case "sol":
		return "/"
	case "lowbar":
		return "_"
	case "grave":
		return "`"
	case "Hat":
		return "^"
	case "semi":
		return ";"
	case "commat":
		return "@"
	case "Tab":
		return "\u0009"
	case "NewLine":
		return "\u000A"
	}
	return ""
}
