package render

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.yaml.in/yaml/v3"
)

// The document model every format renders from: goldmark's tree reduced to
// what an office file can show, so that four writers do not each walk
// Markdown's syntax tree.

// BlockKind names a block.
type BlockKind int

const (
	Heading BlockKind = iota
	Para
	List
	Table
	Code
	Quote
	Picture
	Rule
	Comment // an HTML comment: speaker notes in pptx, nothing elsewhere
)

// Block is one block of the document.
type Block struct {
	Kind     BlockKind
	Level    int   // heading level 1–6
	Runs     []Run // heading and paragraph text
	Ordered  bool  // list
	Start    int   // first number of an ordered list
	Items    []Item
	Table    *GridTable
	Code     string // code block text, comment text
	Lang     string
	Children []Block // block quote
	Image    *Image
}

// Item is one list item: its blocks, and its check box for a task list.
type Item struct {
	Blocks []Block
	Task   *bool
}

// Run is a span of text with one style.
type Run struct {
	Text                       string
	Bold, Italic, Mono, Strike bool
	Link                       string
	Break                      bool   // a hard line break, no text
	Image                      *Image // an inline image (the paragraph moves it out)
	Task                       *bool  // a task list's check box
}

// GridTable is a GFM table.
type GridTable struct {
	Align  []string // "", "left", "center", "right"
	Header [][]Run
	Rows   [][][]Run
}

// Image is a picture the Markdown names.
type Image struct {
	Src, Alt string
}

// Doc is a parsed Markdown source.
type Doc struct {
	Meta   map[string]any
	Blocks []Block
	// Warnings say what the model dropped (raw HTML).
	Warnings []string
}

// MetaString is a front-matter value as text, or "".
func (d *Doc) MetaString(key string) string {
	v, ok := d.Meta[key]
	if !ok || v == nil {
		return ""
	}
	if t, ok := v.(time.Time); ok {
		if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 {
			return t.Format(time.DateOnly)
		}
		return t.Format(time.RFC3339)
	}
	return strings.TrimSpace(fmt.Sprint(v))
}

// Title is the front matter's title, else the first heading's text.
func (d *Doc) Title() string {
	if t := d.MetaString("title"); t != "" {
		return t
	}
	for _, b := range d.Blocks {
		if b.Kind == Heading {
			return PlainText(b.Runs)
		}
	}
	return ""
}

// PlainText joins the text of runs.
func PlainText(runs []Run) string {
	var b strings.Builder
	for _, r := range runs {
		if r.Break {
			b.WriteByte('\n')
			continue
		}
		b.WriteString(r.Text)
	}
	return b.String()
}

// splitFrontMatter cuts a leading YAML front matter block (--- … --- or
// …) off src.
func splitFrontMatter(src []byte) (meta map[string]any, body []byte, err error) {
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	first, rest, ok := bytes.Cut(src, []byte("\n"))
	if !ok || string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, src, nil
	}
	off := len(first) + 1
	for len(rest) > 0 {
		line, next, _ := bytes.Cut(rest, []byte("\n"))
		if l := string(bytes.TrimRight(line, " \t\r")); l == "---" || l == "..." {
			meta = map[string]any{}
			if err := yaml.Unmarshal(src[len(first)+1:off], &meta); err != nil {
				return nil, nil, fmt.Errorf("front matter is not valid YAML: %v", err)
			}
			// Keep the line count, so positions stay those of the file.
			pad := bytes.Repeat([]byte("\n"), bytes.Count(src[:off+len(line)], []byte("\n"))+1)
			return meta, append(pad, next...), nil
		}
		off += len(line) + 1
		rest = next
	}
	return nil, src, nil // no closing line: a thematic break, not front matter
}

// Parse reads Markdown into the document model.
func Parse(src []byte) (*Doc, error) {
	meta, body, err := splitFrontMatter(src)
	if err != nil {
		return nil, err
	}
	root := newParser().Parse(text.NewReader(body))
	c := converter{src: body}
	d := &Doc{Meta: meta, Blocks: c.blocks(root)}
	d.Warnings = c.warnings
	return d, nil
}

type converter struct {
	src      []byte
	warnings []string
	html     int
}

func (c *converter) warnHTML(snippet string) {
	c.html++
	if c.html == 1 {
		c.warnings = append(c.warnings, fmt.Sprintf("raw HTML is not rendered (first: %q)", clip(strings.TrimSpace(snippet), 60)))
	}
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func (c *converter) blocks(parent gast.Node) []Block {
	var out []Block
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		out = append(out, c.block(n)...)
	}
	return out
}

func (c *converter) lines(n gast.Node) string {
	var b strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(c.src))
	}
	return b.String()
}

func (c *converter) block(n gast.Node) []Block {
	switch n := n.(type) {
	case *gast.Heading:
		return []Block{{Kind: Heading, Level: n.Level, Runs: c.inlines(n)}}
	case *gast.Paragraph, *gast.TextBlock:
		return c.paragraph(n)
	case *gast.ThematicBreak:
		return []Block{{Kind: Rule}}
	case *gast.FencedCodeBlock:
		return []Block{{Kind: Code, Code: strings.TrimSuffix(c.lines(n), "\n"), Lang: string(n.Language(c.src))}}
	case *gast.CodeBlock:
		return []Block{{Kind: Code, Code: strings.TrimSuffix(c.lines(n), "\n")}}
	case *gast.Blockquote:
		return []Block{{Kind: Quote, Children: c.blocks(n)}}
	case *gast.List:
		b := Block{Kind: List, Ordered: n.IsOrdered(), Start: n.Start}
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			item := Item{Blocks: c.blocks(it)}
			if len(item.Blocks) > 0 && len(item.Blocks[0].Runs) > 0 && item.Blocks[0].Runs[0].Task != nil {
				item.Task = item.Blocks[0].Runs[0].Task
				item.Blocks[0].Runs = trimLeadingSpace(item.Blocks[0].Runs[1:])
			}
			b.Items = append(b.Items, item)
		}
		return []Block{b}
	case *gast.HTMLBlock:
		raw := c.lines(n)
		if n.HasClosure() {
			raw += string(n.ClosureLine.Value(c.src))
		}
		if n.HTMLBlockType == gast.HTMLBlockType2 {
			return []Block{{Kind: Comment, Code: commentText(raw)}}
		}
		c.warnHTML(raw)
		return nil
	case *tableNode:
		return []Block{c.table(n)}
	case *gast.LinkReferenceDefinition:
		return nil
	}
	if n.Type() == gast.TypeBlock {
		return c.blocks(n)
	}
	return nil
}

func trimLeadingSpace(runs []Run) []Run {
	if len(runs) > 0 {
		runs[0].Text = strings.TrimLeft(runs[0].Text, " ")
	}
	return runs
}

func commentText(raw string) string {
	s := strings.TrimSpace(raw)
	s = strings.TrimPrefix(s, "<!--")
	s = strings.TrimSuffix(s, "-->")
	return strings.TrimSpace(s)
}

// paragraph turns a paragraph into blocks: its text, and each image it
// holds as a picture block of its own after it (office formats place
// pictures between paragraphs).
func (c *converter) paragraph(n gast.Node) []Block {
	runs := c.inlines(n)
	var text []Run
	var pics []Block
	for _, r := range runs {
		if r.Image != nil {
			pics = append(pics, Block{Kind: Picture, Image: r.Image})
			continue
		}
		text = append(text, r)
	}
	var out []Block
	if strings.TrimSpace(PlainText(text)) != "" {
		out = append(out, Block{Kind: Para, Runs: text})
	}
	return append(out, pics...)
}

type style struct {
	bold, italic, mono, strike bool
	link                       string
}

func (c *converter) inlines(n gast.Node) []Run {
	var runs []Run
	c.inline(n, style{}, &runs)
	return mergeRuns(runs)
}

func (c *converter) inline(parent gast.Node, st style, out *[]Run) {
	add := func(s string) {
		if s != "" {
			*out = append(*out, Run{Text: s, Bold: st.bold, Italic: st.italic, Mono: st.mono, Strike: st.strike, Link: st.link})
		}
	}
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *gast.Text:
			v := n.Value(c.src)
			switch {
			case st.mono:
				add(string(v))
			case st.link == "":
				for _, part := range linkify(unescape(v)) {
					s := st
					s.link = part.link
					*out = append(*out, Run{Text: part.text, Bold: s.bold, Italic: s.italic, Strike: s.strike, Link: s.link})
				}
			default:
				add(unescape(v))
			}
			if n.HardLineBreak() {
				*out = append(*out, Run{Break: true})
			} else if n.SoftLineBreak() {
				add(" ")
			}
		case *gast.String:
			add(unescape(n.Value))
		case *gast.CodeSpan:
			s := st
			s.mono = true
			c.inline(n, s, out)
		case *gast.Emphasis:
			s := st
			if n.Level >= 2 {
				s.bold = true
			} else {
				s.italic = true
			}
			c.inline(n, s, out)
		case *strikeNode:
			s := st
			s.strike = true
			c.inline(n, s, out)
		case *gast.Link:
			s := st
			s.link = string(n.Destination)
			c.inline(n, s, out)
		case *gast.AutoLink:
			s := st
			s.link = string(n.URL(c.src))
			if n.AutoLinkType == gast.AutoLinkEmail && !strings.HasPrefix(s.link, "mailto:") {
				s.link = "mailto:" + s.link
			}
			c.inline(n, s, out) // children hold the label
			if n.FirstChild() == nil {
				*out = append(*out, Run{Text: string(n.Label(c.src)), Link: s.link, Bold: st.bold, Italic: st.italic})
			}
		case *gast.Image:
			var alt []Run
			c.inline(n, style{}, &alt)
			*out = append(*out, Run{Image: &Image{Src: string(n.Destination), Alt: PlainText(alt)}})
		case *gast.RawHTML:
			var b strings.Builder
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				b.Write(seg.Value(c.src))
			}
			raw := b.String()
			switch {
			case strings.HasPrefix(raw, "<!--"):
			case strings.EqualFold(raw, "<br>") || strings.EqualFold(raw, "<br/>") || strings.EqualFold(raw, "<br />"):
				*out = append(*out, Run{Break: true})
			default:
				c.warnHTML(raw)
			}
		case *taskNode:
			checked := n.checked
			*out = append(*out, Run{Task: &checked})
		default:
			c.inline(n, st, out)
		}
	}
}

func unescape(b []byte) string {
	b = util.UnescapePunctuations(b)
	b = util.ResolveNumericReferences(b)
	b = util.ResolveEntityNames(b)
	return string(b)
}

// mergeRuns joins neighbours of one style, so that writers emit one run
// where goldmark had several text segments.
func mergeRuns(runs []Run) []Run {
	var out []Run
	for _, r := range runs {
		if k := len(out) - 1; k >= 0 && plainRun(r) && plainRun(out[k]) && sameStyle(out[k], r) {
			out[k].Text += r.Text
			continue
		}
		out = append(out, r)
	}
	return out
}

func plainRun(r Run) bool { return !r.Break && r.Image == nil && r.Task == nil }

func sameStyle(a, b Run) bool {
	return a.Bold == b.Bold && a.Italic == b.Italic && a.Mono == b.Mono && a.Strike == b.Strike && a.Link == b.Link
}

func (c *converter) table(t *tableNode) Block {
	g := &GridTable{Align: t.align}
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells [][]Run
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			cells = append(cells, c.inlines(cell))
		}
		if row.(*tableRowNode).header {
			g.Header = cells
		} else {
			g.Rows = append(g.Rows, cells)
		}
	}
	return Block{Kind: Table, Table: g}
}

type textPart struct{ text, link string }

// linkify finds the bare URLs GFM links (http://, https://, www.), each
// ending before a space or '<', without the punctuation that ends a
// sentence or an unbalanced closing parenthesis.
func linkify(s string) []textPart {
	var out []textPart
	for s != "" {
		at := -1
		for _, p := range []string{"https://", "http://", "www."} {
			i := 0
			for {
				k := strings.Index(s[i:], p)
				if k < 0 {
					break
				}
				k += i
				if k == 0 || strings.ContainsRune(" \t\n(*_~", rune(s[k-1])) {
					if at < 0 || k < at {
						at = k
					}
					break
				}
				i = k + 1
			}
		}
		if at < 0 {
			break
		}
		end := at + strings.IndexAny(s[at:]+" ", " \t\n<")
		url := strings.TrimRight(s[at:end], "?!.,:*_~'\"")
		for strings.HasSuffix(url, ")") && strings.Count(url, ")") > strings.Count(url, "(") {
			url = url[:len(url)-1]
		}
		if !strings.Contains(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(url, "https://"), "http://"), "www."), ".") &&
			!strings.HasPrefix(url, "http") {
			out = append(out, textPart{text: s[:at+4]})
			s = s[at+4:]
			continue
		}
		if at > 0 {
			out = append(out, textPart{text: s[:at]})
		}
		link := url
		if strings.HasPrefix(url, "www.") {
			link = "http://" + url
		}
		out = append(out, textPart{text: url, link: link})
		s = s[at+len(url):]
	}
	if s != "" {
		out = append(out, textPart{text: s})
	}
	return out
}
