package markdown

import "strings"

// CommonMark's seven kinds of HTML block, by how they start and end.

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// htmlBlockStarts says whether s (from its '<') starts an HTML block of
// type t.
func htmlBlockStarts(t int, s string) bool {
	switch t {
	case 1:
		for _, name := range []string{"script", "pre", "style", "textarea"} {
			if hasPrefixFold(s[1:], name) {
				rest := s[1+len(name):]
				return rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '>'
			}
		}
	case 2:
		return strings.HasPrefix(s, "<!--")
	case 3:
		return strings.HasPrefix(s, "<?")
	case 4:
		return len(s) > 2 && s[1] == '!' && isLetter(s[2])
	case 5:
		return strings.HasPrefix(s, "<![CDATA[")
	case 6:
		i := 1
		if len(s) > 1 && s[1] == '/' {
			i = 2
		}
		j := tagName(s, i)
		if j < 0 || !blockTag(strings.ToLower(s[i:j])) {
			return false
		}
		rest := s[j:]
		return rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '>' || strings.HasPrefix(rest, "/>")
	case 7:
		end := -1
		if len(s) > 1 && s[1] == '/' {
			if j := tagName(s, 2); j > 0 {
				if j = skipHTMLSpace(s, j); j < len(s) && s[j] == '>' {
					end = j + 1
				}
			}
		} else {
			end = openTagEnd(s, 0)
			if j := tagName(s, 1); j > 0 {
				switch strings.ToLower(s[1:j]) {
				case "script", "style", "pre", "textarea":
					return false
				}
			}
		}
		return end > 0 && strings.Trim(s[end:], " \t") == ""
	}
	return false
}

// htmlBlockEnds says whether the line ends an HTML block of type t;
// types 6 and 7 end at a blank line instead.
func htmlBlockEnds(t int, line string) bool {
	switch t {
	case 1:
		l := strings.ToLower(line)
		return strings.Contains(l, "</script>") || strings.Contains(l, "</pre>") || strings.Contains(l, "</style>") || strings.Contains(l, "</textarea>")
	case 2:
		return strings.Contains(line, "-->")
	case 3:
		return strings.Contains(line, "?>")
	case 4:
		return strings.Contains(line, ">")
	case 5:
		return strings.Contains(line, "]]>")
	}
	return false
}

func blockTag(name string) bool {
	switch name {
	case "address", "article", "aside", "base", "basefont", "blockquote", "body", "caption", "center", "col", "colgroup",
		"dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "frame",
		"frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hr", "html", "iframe", "legend", "li", "link",
		"main", "menu", "menuitem", "nav", "noframes", "ol", "optgroup", "option", "p", "param", "search", "section",
		"summary", "table", "tbody", "td", "tfoot", "th", "thead", "title", "tr", "track", "ul":
		return true
	}
	return false
}

// tagName is where the tag name at i ends, or -1.
func tagName(s string, i int) int {
	if i >= len(s) || !isLetter(s[i]) {
		return -1
	}
	j := i + 1
	for j < len(s) && (isAlnum(s[j]) || s[j] == '-') {
		j++
	}
	return j
}

func skipHTMLSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	return i
}

// openTagEnd is where the open tag at i ends, after its '>', or -1.
func openTagEnd(s string, i int) int {
	j := tagName(s, i+1)
	if j < 0 {
		return -1
	}
	for {
		k := skipHTMLSpace(s, j)
		if k < len(s) && s[k] == '>' {
			return k + 1
		}
		if strings.HasPrefix(s[k:], "/>") {
			return k + 2
		}
		if k == j || k >= len(s) {
			return -1 // an attribute needs white space before it
		}
		c := s[k]
		if !isLetter(c) && c != '_' && c != ':' {
			return -1
		}
		j = k + 1
		for j < len(s) && (isAlnum(s[j]) || strings.IndexByte("_.:-", s[j]) >= 0) {
			j++
		}
		m := skipHTMLSpace(s, j)
		if m >= len(s) || s[m] != '=' {
			continue
		}
		m = skipHTMLSpace(s, m+1)
		if m >= len(s) {
			return -1
		}
		switch q := s[m]; q {
		case '"', '\'':
			e := strings.IndexByte(s[m+1:], q)
			if e < 0 {
				return -1
			}
			j = m + 1 + e + 1
		default:
			e := m
			for e < len(s) && strings.IndexByte(" \t\n\"'=<>`", s[e]) < 0 {
				e++
			}
			if e == m {
				return -1
			}
			j = e
		}
	}
}
