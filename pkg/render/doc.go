package render

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcode-dev/mcode/pkg/markdown"
)

// The document model every format renders from: the Markdown tree reduced to
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
	var c converter
	d := &Doc{Meta: meta, Blocks: c.blocks(markdown.Parse(body))}
	d.Warnings = c.warnings
	return d, nil
}

type converter struct {
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

func (c *converter) blocks(parent *markdown.Node) []Block {
	var out []Block
	for n := parent.FirstChild; n != nil; n = n.Next {
		out = append(out, c.block(n)...)
	}
	return out
}

func (c *converter) block(n *markdown.Node) []Block {
	switch n.Kind {
	case markdown.Heading:
		return []Block{{Kind: Heading, Level: n.Level, Runs: c.inlines(n)}}
	case markdown.Paragraph:
		return c.paragraph(n)
	case markdown.ThematicBreak:
		return []Block{{Kind: Rule}}
	case markdown.CodeBlock:
		lang, _, _ := strings.Cut(n.Info, " ")
		return []Block{{Kind: Code, Code: strings.TrimSuffix(n.Literal, "\n"), Lang: lang}}
	case markdown.BlockQuote:
		return []Block{{Kind: Quote, Children: c.blocks(n)}}
	case markdown.List:
		b := Block{Kind: List, Ordered: n.Ordered, Start: n.Start}
		for it := n.FirstChild; it != nil; it = it.Next {
			item := Item{Blocks: c.blocks(it)}
			if len(item.Blocks) > 0 && len(item.Blocks[0].Runs) > 0 && item.Blocks[0].Runs[0].Task != nil {
				item.Task = item.Blocks[0].Runs[0].Task
				item.Blocks[0].Runs = trimLeadingSpace(item.Blocks[0].Runs[1:])
			}
			b.Items = append(b.Items, item)
		}
		return []Block{b}
	case markdown.HTMLBlock:
		if n.HTMLType == 2 {
			return []Block{{Kind: Comment, Code: commentText(n.Literal)}}
		}
		c.warnHTML(n.Literal)
		return nil
	case markdown.Table:
		return []Block{c.table(n)}
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
func (c *converter) paragraph(n *markdown.Node) []Block {
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

func (c *converter) inlines(n *markdown.Node) []Run {
	var runs []Run
	c.inline(n, style{}, &runs)
	return mergeRuns(runs)
}

func (c *converter) inline(parent *markdown.Node, st style, out *[]Run) {
	add := func(s string, st style) {
		if s != "" {
			*out = append(*out, Run{Text: s, Bold: st.bold, Italic: st.italic, Mono: st.mono, Strike: st.strike, Link: st.link})
		}
	}
	for n := parent.FirstChild; n != nil; n = n.Next {
		s := st
		switch n.Kind {
		case markdown.Text:
			if st.link != "" {
				add(n.Literal, st)
				continue
			}
			for _, part := range linkify(n.Literal) {
				s.link = part.link
				add(part.text, s)
			}
		case markdown.SoftBreak:
			add(" ", st)
		case markdown.HardBreak:
			*out = append(*out, Run{Break: true})
		case markdown.CodeSpan:
			s.mono = true
			add(n.Literal, s)
		case markdown.Emph:
			s.italic = true
			c.inline(n, s, out)
		case markdown.Strong:
			s.bold = true
			c.inline(n, s, out)
		case markdown.Strike:
			s.strike = true
			c.inline(n, s, out)
		case markdown.Link:
			s.link = n.Dest
			if n.AutoLink {
				// An autolink's label keeps only bold and italic, as it did.
				s = style{bold: st.bold, italic: st.italic, link: n.Dest}
			}
			c.inline(n, s, out)
		case markdown.Image:
			var alt []Run
			c.inline(n, style{}, &alt)
			*out = append(*out, Run{Image: &Image{Src: n.Dest, Alt: PlainText(alt)}})
		case markdown.RawHTML:
			raw := n.Literal
			switch {
			case strings.HasPrefix(raw, "<!--"):
			case strings.EqualFold(raw, "<br>") || strings.EqualFold(raw, "<br/>") || strings.EqualFold(raw, "<br />"):
				*out = append(*out, Run{Break: true})
			default:
				c.warnHTML(raw)
			}
		case markdown.Task:
			checked := n.Checked
			*out = append(*out, Run{Task: &checked})
		}
	}
}

// mergeRuns joins neighbours of one style, so that writers emit one run
// where the parser had several text nodes.
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

var alignNames = [...]string{markdown.AlignNone: "", markdown.AlignLeft: "left", markdown.AlignCenter: "center", markdown.AlignRight: "right"}

func (c *converter) table(t *markdown.Node) Block {
	g := &GridTable{}
	for _, a := range t.Align {
		g.Align = append(g.Align, alignNames[a])
	}
	for row := t.FirstChild; row != nil; row = row.Next {
		var cells [][]Run
		for cell := row.FirstChild; cell != nil; cell = cell.Next {
			cells = append(cells, c.inlines(cell))
		}
		if row.Header {
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
