package extract

import (
	"encoding/xml"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/office"
)

// MaxHTMLDepth bounds element nesting in an HTML page.
const MaxHTMLDepth = 512

// A small tolerant HTML tokenizer of our own: golang.org/x/net/html
// builds its 2,000-entry entity map at package init, 0.15 ms on every
// start of every mcode command (GODEBUG=inittrace=1); main-text
// extraction needs tags, text and entities only. The entities are those
// of HTML 4 (encoding/xml's table) and numeric references.

type htmlToken struct {
	kind  int // tokText, tokStart, tokEnd
	name  string
	attrs map[string]string
	text  string
	self  bool
}

const (
	tokText = iota
	tokStart
	tokEnd
)

// rawText elements hold text that is not markup; their content is
// skipped whole (scripts, styles) or kept as text (textarea, title).
var rawText = map[string]bool{"script": true, "style": true, "textarea": true, "title": true, "xmp": true, "noscript": false}

func tokenizeHTML(s string) []htmlToken {
	var out []htmlToken
	for len(s) > 0 {
		lt := strings.IndexByte(s, '<')
		if lt < 0 {
			out = append(out, htmlToken{kind: tokText, text: unescapeHTML(s)})
			break
		}
		if lt > 0 {
			out = append(out, htmlToken{kind: tokText, text: unescapeHTML(s[:lt])})
			s = s[lt:]
		}
		switch {
		case strings.HasPrefix(s, "<!--"):
			end := strings.Index(s[4:], "-->")
			if end < 0 {
				return out
			}
			s = s[4+end+3:]
			continue
		case strings.HasPrefix(s, "<!") || strings.HasPrefix(s, "<?"):
			end := strings.IndexByte(s, '>')
			if end < 0 {
				return out
			}
			s = s[end+1:]
			continue
		}
		tok, rest, ok := parseTag(s)
		if !ok {
			out = append(out, htmlToken{kind: tokText, text: "<"})
			s = s[1:]
			continue
		}
		s = rest
		out = append(out, tok)
		if _, raw := rawText[tok.name]; raw && tok.kind == tokStart && !tok.self {
			end := indexFold(s, "</"+tok.name)
			if end < 0 {
				end = len(s)
			}
			out = append(out, htmlToken{kind: tokText, text: unescapeHTML(s[:end])})
			s = s[end:]
		}
	}
	return out
}

func indexFold(s, sub string) int {
	return strings.Index(strings.ToLower(s), sub)
}

// parseTag reads "<name attr=value …>" or "</name>" at the start of s.
func parseTag(s string) (htmlToken, string, bool) {
	i := 1
	tok := htmlToken{kind: tokStart}
	if i < len(s) && s[i] == '/' {
		tok.kind = tokEnd
		i++
	}
	start := i
	for i < len(s) && (isAlnum(s[i]) || s[i] == '-' || s[i] == ':') {
		i++
	}
	if i == start {
		return tok, s, false
	}
	tok.name = strings.ToLower(s[start:i])
	for i < len(s) {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			break
		}
		if s[i] == '>' {
			return tok, s[i+1:], true
		}
		if s[i] == '/' {
			tok.self = true
			i++
			continue
		}
		ns := i
		for i < len(s) && !isSpace(s[i]) && s[i] != '=' && s[i] != '>' && s[i] != '/' {
			i++
		}
		name := strings.ToLower(s[ns:i])
		val := ""
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i < len(s) && s[i] == '=' {
			i++
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			if i < len(s) && (s[i] == '"' || s[i] == '\'') {
				q := s[i]
				end := strings.IndexByte(s[i+1:], q)
				if end < 0 {
					return tok, s, false
				}
				val = s[i+1 : i+1+end]
				i += end + 2
			} else {
				vs := i
				for i < len(s) && !isSpace(s[i]) && s[i] != '>' {
					i++
				}
				val = s[vs:i]
			}
		}
		if name != "" {
			if tok.attrs == nil {
				tok.attrs = map[string]string{}
			}
			tok.attrs[name] = unescapeHTML(val)
		}
	}
	return tok, s, false
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// unescapeHTML decodes character references: named (HTML 4's set and
// XML's five) and numeric.
func unescapeHTML(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	var b strings.Builder
	for {
		amp := strings.IndexByte(s, '&')
		if amp < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:amp])
		s = s[amp:]
		semi := strings.IndexByte(s, ';')
		if semi < 2 || semi > 12 {
			b.WriteByte('&')
			s = s[1:]
			continue
		}
		ref := s[1:semi]
		if r, ok := charRef(ref); ok {
			b.WriteString(r)
			s = s[semi+1:]
			continue
		}
		b.WriteByte('&')
		s = s[1:]
	}
}

func charRef(ref string) (string, bool) {
	if strings.HasPrefix(ref, "#") {
		base, digits := 10, ref[1:]
		if strings.HasPrefix(digits, "x") || strings.HasPrefix(digits, "X") {
			base, digits = 16, digits[1:]
		}
		n, err := strconv.ParseUint(digits, base, 32)
		if err != nil || n == 0 || n > utf8.MaxRune {
			return "", false
		}
		return string(rune(n)), true
	}
	switch ref {
	case "amp":
		return "&", true
	case "lt":
		return "<", true
	case "gt":
		return ">", true
	case "quot":
		return `"`, true
	case "apos":
		return "'", true
	}
	r, ok := xml.HTMLEntity[ref]
	return r, ok
}

// htmlToMarkdown renders an HTML page's main text as Markdown: the
// <main> or <article> element when there is one, else the body; scripts,
// styles, navigation, headers, footers and forms are dropped.
func htmlToMarkdown(src string) (title, md string) {
	toks := tokenizeHTML(src)
	for i, t := range toks {
		if t.kind == tokStart && t.name == "title" && i+1 < len(toks) && toks[i+1].kind == tokText {
			title = strings.TrimSpace(collapse(toks[i+1].text))
			break
		}
	}
	toks = mainPart(toks)
	c := &htmlConv{}
	c.run(toks)
	return title, strings.TrimSpace(c.w.String()) + "\n"
}

// mainPart is the span of the first <main>, else the first <article>,
// else everything.
func mainPart(toks []htmlToken) []htmlToken {
	for _, name := range []string{"main", "article"} {
		depth, from := 0, -1
		for i, t := range toks {
			if t.name != name {
				continue
			}
			if t.kind == tokStart && !t.self {
				if depth == 0 {
					from = i + 1
				}
				depth++
			} else if t.kind == tokEnd && depth > 0 {
				depth--
				if depth == 0 {
					return toks[from:i]
				}
			}
		}
		if from >= 0 {
			return toks[from:]
		}
	}
	return toks
}

var (
	dropped = map[string]bool{"script": true, "style": true, "noscript": true, "template": true, "svg": true,
		"head": true, "nav": true, "footer": true, "header": true, "form": true, "iframe": true, "button": true,
		"select": true, "textarea": true, "aside": true, "title": true, "object": true, "canvas": true}
	voidElements = map[string]bool{"br": true, "img": true, "hr": true, "input": true, "meta": true, "link": true,
		"area": true, "base": true, "col": true, "embed": true, "source": true, "track": true, "wbr": true, "param": true}
	blockElements = map[string]bool{"p": true, "div": true, "section": true, "h1": true, "h2": true, "h3": true,
		"h4": true, "h5": true, "h6": true, "ul": true, "ol": true, "li": true, "pre": true, "blockquote": true,
		"table": true, "tr": true, "dl": true, "dt": true, "dd": true, "figure": true, "figcaption": true, "hr": true,
		"address": true, "details": true, "summary": true, "body": true, "html": true, "main": true, "article": true}
)

type htmlConv struct {
	w      strings.Builder
	line   strings.Builder // the block being built
	lists  []listState
	quote  int
	pre    int
	skip   int // inside dropped elements
	depth  int
	table  [][]string
	inCell bool
	cell   strings.Builder
	inTbl  int
	link   string
	head   int
}

type listState struct {
	ordered bool
	n       int
}

func collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func (c *htmlConv) text(s string) {
	if c.pre > 0 {
		c.line.WriteString(s)
		return
	}
	if strings.TrimSpace(s) == "" {
		if c.line.Len() > 0 {
			c.writeInline(" ")
		}
		return
	}
	lead := isSpace(s[0])
	trail := isSpace(s[len(s)-1])
	out := collapse(s)
	if lead {
		out = " " + out
	}
	if trail {
		out += " "
	}
	c.writeInline(out)
}

func (c *htmlConv) writeInline(s string) {
	if c.inCell {
		c.cell.WriteString(s)
		return
	}
	c.line.WriteString(s)
}

// flush ends the block being built.
func (c *htmlConv) flush() {
	s := c.line.String()
	c.line.Reset()
	switch {
	case c.pre > 0:
	case len(c.lists) > 0:
		s = strings.TrimRight(s, " \t\n") // keeps the item's indent
	default:
		s = strings.TrimSpace(s)
	}
	if strings.TrimSpace(s) == "" {
		return
	}
	prefix := strings.Repeat("> ", c.quote)
	if len(c.lists) > 0 && c.head == 0 {
		// list items are written by li
		c.w.WriteString(prefix + s + "\n")
		return
	}
	if c.w.Len() > 0 {
		c.w.WriteString(strings.TrimRight(prefix, " ") + "\n")
	}
	c.w.WriteString(prefix + strings.ReplaceAll(s, "\n", "\n"+prefix) + "\n")
}

func (c *htmlConv) run(toks []htmlToken) {
	for _, t := range toks {
		switch t.kind {
		case tokText:
			if c.skip == 0 {
				c.text(t.text)
			}
		case tokStart:
			if dropped[t.name] && !t.self && !voidElements[t.name] {
				c.skip++
				continue
			}
			if c.skip > 0 {
				continue
			}
			if !voidElements[t.name] && !t.self {
				c.depth++
				if c.depth > MaxHTMLDepth {
					return
				}
			}
			c.start(t)
		case tokEnd:
			if dropped[t.name] {
				if c.skip > 0 {
					c.skip--
				}
				continue
			}
			if c.skip > 0 {
				continue
			}
			if c.depth > 0 {
				c.depth--
			}
			c.end(t.name)
		}
	}
	c.flush()
}

func (c *htmlConv) start(t htmlToken) {
	if blockElements[t.name] && !c.inCell {
		c.flush()
	}
	switch t.name {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		c.head++
		c.line.WriteString(strings.Repeat("#", int(t.name[1]-'0')) + " ")
	case "ul", "ol":
		if len(c.lists) == 0 && c.w.Len() > 0 {
			c.w.WriteString("\n")
		}
		c.lists = append(c.lists, listState{ordered: t.name == "ol"})
	case "li":
		if n := len(c.lists); n > 0 {
			l := &c.lists[n-1]
			l.n++
			marker := "- "
			if l.ordered {
				marker = strconv.Itoa(l.n) + ". "
			}
			c.line.WriteString(strings.Repeat("  ", n-1) + marker)
		}
	case "pre":
		c.pre++
		c.line.WriteString("```\n")
	case "blockquote":
		c.quote++
	case "br":
		if c.pre == 0 {
			c.writeInline("  \n")
		}
	case "hr":
		c.line.WriteString("---")
		c.flush()
	case "strong", "b":
		c.writeInline("**")
	case "em", "i":
		c.writeInline("*")
	case "code":
		if c.pre == 0 {
			c.writeInline("`")
		}
	case "a":
		c.link = t.attrs["href"]
		if c.link != "" && !strings.HasPrefix(c.link, "javascript:") {
			c.writeInline("[")
		} else {
			c.link = ""
		}
	case "img":
		if alt := t.attrs["alt"]; alt != "" {
			c.writeInline("![" + collapse(alt) + "]")
			if src := t.attrs["src"]; src != "" && !strings.HasPrefix(src, "data:") {
				c.writeInline("(" + src + ")")
			} else {
				c.writeInline("()")
			}
		}
	case "table":
		c.inTbl++
		if c.inTbl == 1 {
			c.table = nil
		}
	case "tr":
		if c.inTbl == 1 {
			c.table = append(c.table, nil)
		}
	case "td", "th":
		if c.inTbl == 1 {
			c.inCell = true
			c.cell.Reset()
		}
	}
}

func (c *htmlConv) end(name string) {
	switch name {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		if c.head > 0 {
			c.head--
		}
		c.flush()
	case "ul", "ol":
		if n := len(c.lists); n > 0 {
			c.flush()
			c.lists = c.lists[:n-1]
		}
	case "pre":
		if c.pre > 0 {
			if !strings.HasSuffix(c.line.String(), "\n") {
				c.line.WriteString("\n")
			}
			c.line.WriteString("```")
			c.flush()
			c.pre--
		}
	case "blockquote":
		c.flush()
		if c.quote > 0 {
			c.quote--
		}
	case "strong", "b":
		c.writeInline("**")
	case "em", "i":
		c.writeInline("*")
	case "code":
		if c.pre == 0 {
			c.writeInline("`")
		}
	case "a":
		if c.link != "" {
			c.writeInline("](" + c.link + ")")
			c.link = ""
		}
	case "td", "th":
		if c.inTbl == 1 && c.inCell {
			c.inCell = false
			if n := len(c.table); n > 0 {
				c.table[n-1] = append(c.table[n-1], strings.TrimSpace(c.cell.String()))
			}
		}
	case "table":
		if c.inTbl == 1 {
			c.flush()
			md := office.Table(c.table)
			if md != "" {
				if c.w.Len() > 0 {
					c.w.WriteString("\n")
				}
				c.w.WriteString(md)
			}
			c.table = nil
		}
		if c.inTbl > 0 {
			c.inTbl--
		}
	default:
		if blockElements[name] && !c.inCell {
			c.flush()
		}
	}
}
