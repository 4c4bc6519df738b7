// Package htmlmd renders the main text of an HTML page as Markdown: the
// <main> or <article> element when the page has one, else the body;
// scripts, styles, navigation, headers, footers and forms are dropped;
// headings, lists, links, emphasis, code, quotes and tables are kept. The
// page is parsed as a browser parses it (golang.org/x/net/html, the HTML5
// algorithm), so unclosed and misnested tags mean what they mean there.
package htmlmd

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/mcode-dev/mcode/pkg/office"
)

// MaxDepth bounds element nesting: what lies deeper is left out.
const MaxDepth = 512

// Convert gives a page's title and its main text as Markdown.
func Convert(src string) (title, md string) {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return "", "\n" // html.Parse fails only when reading fails
	}
	if t := find(doc, atom.Title); t != nil {
		title = strings.TrimSpace(collapse(textOf(t)))
	}
	part := find(doc, atom.Main)
	if part == nil {
		part = find(doc, atom.Article)
	}
	if part == nil {
		part = doc
	}
	c := &htmlConv{}
	c.children(part)
	c.flush()
	return title, strings.TrimSpace(c.w.String()) + "\n"
}

// find is the first element of a kind in document order.
func find(n *html.Node, a atom.Atom) *html.Node {
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && d.DataAtom == a {
			return d
		}
	}
	return nil
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

func (c *htmlConv) children(n *html.Node) {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.node(ch)
	}
}

func (c *htmlConv) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		c.text(n.Data)
	case html.DocumentNode:
		c.children(n)
	case html.ElementNode:
		name := n.Data
		if dropped[name] {
			return
		}
		if voidElements[name] {
			c.start(n)
			return
		}
		if c.depth++; c.depth > MaxDepth {
			c.depth--
			return
		}
		c.start(n)
		c.children(n)
		c.end(name)
		c.depth--
	}
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

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

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

func (c *htmlConv) start(n *html.Node) {
	name := n.Data
	if blockElements[name] && !c.inCell {
		c.flush()
	}
	switch name {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		c.head++
		c.line.WriteString(strings.Repeat("#", int(name[1]-'0')) + " ")
	case "ul", "ol":
		if len(c.lists) == 0 && c.w.Len() > 0 {
			c.w.WriteString("\n")
		}
		c.lists = append(c.lists, listState{ordered: name == "ol"})
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
		c.link = attr(n, "href")
		if c.link != "" && !strings.HasPrefix(c.link, "javascript:") {
			c.writeInline("[")
		} else {
			c.link = ""
		}
	case "img":
		if alt := attr(n, "alt"); alt != "" {
			c.writeInline("![" + collapse(alt) + "]")
			if src := attr(n, "src"); src != "" && !strings.HasPrefix(src, "data:") {
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
