// Package htmltext makes the text a person reads from an HTML page: its
// main content (readability's extraction, codeberg.org/readeck/go-readability)
// as Markdown (github.com/JohannesKaufmann/html-to-markdown) or as plain
// text, over the HTML5 parser of golang.org/x/net/html. fetch uses it for
// web pages, extract for HTML files.
package htmltext

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	"codeberg.org/readeck/go-readability/v2/render"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	mdbase "github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Formats of the text.
const (
	FormatMarkdown = "markdown"
	FormatText     = "text"
)

// Notes the text may come with.
const (
	NoteWholePage = "no main content was found: the whole page is shown"
	noteRefused   = "the HTML parser refused the page (%v): its text is shown without structure"
	noteTooMany   = "the page has more than %d elements: its text is shown without structure"
	noteTooDeep   = "the page's elements nest too deeply (%d levels; their depths add up past %d): its text is shown without structure"
)

// MaxElements is the most elements a page may have to be parsed into a
// tree and converted; past it (a tree of that size costs the parser and
// the converter seconds and hundreds of MiB per MiB of page) its text is
// read token by token.
const MaxElements = 250_000

// MaxNesting is the deepest lists, block quotes and tables are kept as
// such inside one another; deeper ones are plain blocks (each level
// indents or quotes all it holds again: 500 nested quotes made a page of
// 1.3 MB into 50 MB of Markdown, in minutes).
const MaxNesting = 8

// MaxDepthWork bounds the sum of every element's depth, which the
// conversion's cost follows (each level walks what it holds again): 100
// stacks of 500 nested <div>s, 600 KB, took 2.6 s. Past it the text is
// read token by token.
const MaxDepthWork = 10_000_000

// Page is the text of a page.
type Page struct {
	// Title is the page's own heading when its <title> is that heading
	// plus the site's name, else the <title>.
	Title string
	// Body is the text, ending in a newline; it leads with the title
	// (and the byline) when the main content does not.
	Body  string
	Notes []string
}

// Convert makes the text of src in format (FormatMarkdown or FormatText):
// its main content, or the whole page when no main content is found.
// Relative links are made absolute against base; a nil base leaves them
// as the page wrote them. A page the HTML parser refuses (nesting deeper
// than it allows) gives its text without structure. The only errors are
// ctx's.
func Convert(ctx context.Context, src string, base *url.URL, format string) (*Page, error) {
	if tooManyElements(src, MaxElements) {
		return &Page{Body: tokenText(src), Notes: []string{fmt.Sprintf(noteTooMany, MaxElements)}}, nil
	}
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return &Page{Body: tokenText(src), Notes: []string{fmt.Sprintf(noteRefused, err)}}, nil
	}
	if work, deepest := depthWork(doc); work > MaxDepthWork {
		return &Page{Body: tokenText(src), Notes: []string{fmt.Sprintf(noteTooDeep, deepest, MaxDepthWork)}}, nil
	}
	p := &Page{}
	h1 := ""
	if h := find(doc, atom.H1); h != nil {
		h1 = strings.Join(strings.Fields(visibleText(h)), " ")
	}
	focus(doc)
	unnameHeadings(doc)
	flattenDeep(doc, MaxNesting)
	parser := readability.NewParser()
	article, err := parser.ParseDocument(doc, base)
	node := article.Node
	if err != nil || node == nil || strings.TrimSpace(visibleText(node)) == "" {
		p.Notes = append(p.Notes, NoteWholePage)
		node = bodyOf(doc)
	} else {
		p.Title = strings.TrimSpace(article.Title())
	}
	if p.Title == "" {
		p.Title = titleOf(doc)
	}
	// The page's own heading, when the title is it plus the site's name.
	if h1 != "" && strings.Contains(p.Title, h1) {
		p.Title = h1
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if format == FormatText {
		markListItems(node)
		p.Body = strings.TrimSpace(render.InnerText(node)) + "\n"
	} else if p.Body, err = markdownOf(ctx, node, base); err != nil {
		return nil, err
	}
	var lead []string
	if p.Title != "" && !strings.Contains(firstLine(p.Body), p.Title) {
		if format == FormatText {
			lead = append(lead, p.Title)
		} else {
			lead = append(lead, "# "+p.Title)
		}
	}
	if by := strings.Join(strings.Fields(article.Byline()), " "); by != "" && !strings.Contains(p.Body, by) {
		lead = append(lead, by)
	}
	if len(lead) > 0 {
		p.Body = strings.Join(lead, "\n\n") + "\n\n" + p.Body
	}
	return p, nil
}

// tooManyElements says whether src holds more than max start tags.
func tooManyElements(src string, max int) bool {
	if strings.Count(src, "<") <= max {
		return false
	}
	z := html.NewTokenizer(strings.NewReader(src))
	n := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return false
		case html.StartTagToken, html.SelfClosingTagToken:
			if n++; n > max {
				return true
			}
		}
	}
}

// tokenText is the text of a page read token by token, without a tree:
// for pages the parser refuses.
func tokenText(src string) string {
	z := html.NewTokenizer(strings.NewReader(src))
	var b strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.TrimSpace(b.String()) + "\n"
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch a := atom.Lookup(name); a {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg:
				if z.Token().Type == html.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
			case atom.P, atom.Div, atom.Br, atom.Li, atom.Tr, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Pre, atom.Blockquote:
				if !strings.HasSuffix(b.String(), "\n") {
					b.WriteString("\n")
				}
			}
		case html.TextToken:
			if skip == 0 {
				if words := strings.Fields(string(z.Text())); len(words) > 0 {
					if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
						b.WriteString(" ")
					}
					b.WriteString(strings.Join(words, " "))
				}
			}
		}
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// markdownOf converts a node, with links made absolute against base when
// there is one. Tables take their first row as the header when they have
// none (GFM needs one), keep a cell's line breaks as <br>, and are padded
// minimally: a column is not widened to its longest cell on every row.
func markdownOf(ctx context.Context, node *html.Node, base *url.URL) (string, error) {
	conv := converter.NewConverter(converter.WithPlugins(
		mdbase.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(
			table.WithHeaderPromotion(true),
			table.WithNewlineBehavior(table.NewlineBehaviorPreserve),
			table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal),
		),
		strikethrough.NewStrikethroughPlugin(),
	))
	conv.Register.RendererFor("img", converter.TagTypeInline, inlineImage, converter.PriorityEarly)
	opts := []converter.ConvertOptionFunc{converter.WithContext(ctx)}
	if base != nil {
		opts = append(opts, converter.WithDomain(base.String()))
	}
	out, err := conv.ConvertNode(node, opts...)
	if err != nil {
		return "", err
	}
	return blankLines(strings.TrimSpace(string(out))) + "\n", nil
}

// inlineImage renders an image whose data is in the page (a data: URI,
// often many kilobytes of base64) by its description alone; other images
// go to the library's renderer.
func inlineImage(_ converter.Context, w converter.Writer, n *html.Node) converter.RenderStatus {
	if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(attr(n, "src"))), "data:") {
		return converter.RenderTryNext
	}
	if alt := strings.Join(strings.Fields(attr(n, "alt")), " "); alt != "" {
		w.WriteString("![" + escapeAlt(alt) + "]()")
	}
	return converter.RenderSuccess
}

// escapeAlt escapes what would end an image's description early.
func escapeAlt(alt string) string {
	var b strings.Builder
	for _, r := range alt {
		if r == '\\' || r == '[' || r == ']' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// blankLines empties the lines that hold only spaces (the converter
// indents the blank line before a nested list), outside code blocks.
func blankLines(md string) string {
	lines := strings.Split(md, "\n")
	fenced := false
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
			fenced = !fenced
		case !fenced && trimmed == "":
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// focus narrows the page to what its markup says is the main text
// before readability weighs it: the <main> element, else the page's only
// <article>, becomes the body's one child; <nav> elements (links to
// elsewhere, never the text) go. Readability's scoring keeps a small
// page's menu, and it does not know these elements.
func focus(doc *html.Node) {
	var navs, articles []*html.Node
	var main *html.Node
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.DataAtom {
		case atom.Nav:
			navs = append(navs, n)
		case atom.Main:
			if main == nil {
				main = n
			}
		case atom.Article:
			articles = append(articles, n)
		}
	}
	if main == nil && len(articles) == 1 {
		main = articles[0]
	}
	for _, n := range navs {
		if n.Parent != nil && !isAncestor(n, main) {
			n.Parent.RemoveChild(n)
		}
	}
	body := find(doc, atom.Body)
	if main == nil || body == nil {
		return
	}
	main.Parent.RemoveChild(main)
	for body.FirstChild != nil {
		body.RemoveChild(body.FirstChild)
	}
	body.AppendChild(main)
}

// depthWork is the sum of the depths of doc's nodes, and the deepest.
func depthWork(doc *html.Node) (work, deepest int) {
	type item struct {
		n     *html.Node
		depth int
	}
	stack := []item{{doc, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		work += it.depth
		deepest = max(deepest, it.depth)
		for c := it.n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, item{c, it.depth + 1})
		}
	}
	return work, deepest
}

// nests are the elements that indent, quote or tabulate what they hold.
func nests(a atom.Atom) bool {
	switch a {
	case atom.Ul, atom.Ol, atom.Dl, atom.Menu, atom.Blockquote, atom.Table:
		return true
	}
	return false
}

// structural are the elements that belong to a list, a quote or a table.
func structural(a atom.Atom) bool {
	switch a {
	case atom.Li, atom.Dd, atom.Dt, atom.Tr, atom.Td, atom.Th, atom.Thead, atom.Tbody, atom.Tfoot, atom.Caption, atom.Colgroup, atom.Col:
		return true
	}
	return nests(a)
}

// flattenDeep makes every list, quote and table inside max others, and
// the items, rows and cells in it, plain blocks (div).
func flattenDeep(doc *html.Node, max int) {
	type item struct {
		n     *html.Node
		depth int
	}
	stack := []item{{doc, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n, depth := it.n, it.depth
		if n.Type == html.ElementNode {
			if depth >= max && structural(n.DataAtom) {
				n.DataAtom, n.Data = atom.Div, "div"
			} else if nests(n.DataAtom) {
				depth++
			}
		}
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, item{c, depth})
		}
	}
}

// isAncestor says whether a is n or holds it.
func isAncestor(a, n *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if n == a {
			return true
		}
	}
	return false
}

// unnameHeadings takes the id and class off every heading and what it
// holds before readability scores the page: it removes an element whose
// name looks like boilerplate ("comments", "community", "sidebar"), and
// for a heading or its text that removes the title alone while its
// section stays (a specification's "Comments" section lost its title, a
// wiki's "Community" heading its words).
func unnameHeadings(doc *html.Node) {
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			unname(n)
			for d := range n.Descendants() {
				if d.Type == html.ElementNode {
					unname(d)
				}
			}
		}
	}
}

func unname(n *html.Node) {
	n.Attr = slices.DeleteFunc(n.Attr, func(a html.Attribute) bool { return a.Key == "id" || a.Key == "class" })
}

// markListItems starts each list item with its marker ("- ", or its
// number in an ordered list) so that the plain text keeps the list.
func markListItems(node *html.Node) {
	for n := range node.Descendants() {
		if n.Type != html.ElementNode || (n.DataAtom != atom.Ul && n.DataAtom != atom.Ol) {
			continue
		}
		num, err := strconv.Atoi(strings.TrimSpace(attr(n, "start")))
		if err != nil {
			num = 1
		}
		for li := n.FirstChild; li != nil; li = li.NextSibling {
			if li.Type != html.ElementNode || li.DataAtom != atom.Li {
				continue
			}
			marker := "- "
			if n.DataAtom == atom.Ol {
				marker = strconv.Itoa(num) + ". "
				num++
			}
			li.InsertBefore(&html.Node{Type: html.TextNode, Data: marker}, li.FirstChild)
		}
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// skipped are the elements whose content is never text to read.
func skipped(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head, atom.Svg, atom.Iframe:
		return true
	}
	return false
}

// visibleText is the text under n, without a recursion.
func visibleText(n *html.Node) string {
	var b strings.Builder
	stack := []*html.Node{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x.Type == html.TextNode {
			b.WriteString(x.Data)
			continue
		}
		if x.Type == html.ElementNode && skipped(x) {
			continue
		}
		for c := x.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
	return b.String()
}

// bodyOf is the page's body, or the document when it has none.
func bodyOf(doc *html.Node) *html.Node {
	if b := find(doc, atom.Body); b != nil {
		return b
	}
	return doc
}

// titleOf is the page's <title>.
func titleOf(doc *html.Node) string {
	if t := find(doc, atom.Title); t != nil {
		return strings.Join(strings.Fields(visibleText(t)), " ")
	}
	return ""
}

// find is the first element a under n, in document order.
func find(n *html.Node, a atom.Atom) *html.Node {
	stack := []*html.Node{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x.Type == html.ElementNode && x.DataAtom == a {
			return x
		}
		for c := x.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
	return nil
}
