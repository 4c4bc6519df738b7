package render

import (
	"fmt"
	"strings"

	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// parseGoldmark is Parse as it was, through goldmark: the reference the
// differential test holds our parser to.
func parseGoldmark(src []byte) (*Doc, error) {
	meta, body, err := splitFrontMatter(src)
	if err != nil {
		return nil, err
	}
	root := newParser().Parse(text.NewReader(body))
	c := gmConverter{src: body}
	d := &Doc{Meta: meta, Blocks: c.blocks(root)}
	d.Warnings = c.warnings
	return d, nil
}

type gmConverter struct {
	src      []byte
	warnings []string
	html     int
}

func (c *gmConverter) warnHTML(snippet string) {
	c.html++
	if c.html == 1 {
		c.warnings = append(c.warnings, fmt.Sprintf("raw HTML is not rendered (first: %q)", gmClip(strings.TrimSpace(snippet), 60)))
	}
}

func gmClip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func (c *gmConverter) blocks(parent gast.Node) []Block {
	var out []Block
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		out = append(out, c.block(n)...)
	}
	return out
}

func (c *gmConverter) lines(n gast.Node) string {
	var b strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(c.src))
	}
	return b.String()
}

func (c *gmConverter) block(n gast.Node) []Block {
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
				item.Blocks[0].Runs = gmTrimLeadingSpace(item.Blocks[0].Runs[1:])
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
			return []Block{{Kind: Comment, Code: gmCommentText(raw)}}
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

func gmTrimLeadingSpace(runs []Run) []Run {
	if len(runs) > 0 {
		runs[0].Text = strings.TrimLeft(runs[0].Text, " ")
	}
	return runs
}

func gmCommentText(raw string) string {
	s := strings.TrimSpace(raw)
	s = strings.TrimPrefix(s, "<!--")
	s = strings.TrimSuffix(s, "-->")
	return strings.TrimSpace(s)
}

// paragraph turns a paragraph into blocks: its text, and each image it
// holds as a picture block of its own after it (office formats place
// pictures between paragraphs).
func (c *gmConverter) paragraph(n gast.Node) []Block {
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

type gmStyle struct {
	bold, italic, mono, strike bool
	link                       string
}

func (c *gmConverter) inlines(n gast.Node) []Run {
	var runs []Run
	c.inline(n, gmStyle{}, &runs)
	return mergeRuns(runs)
}

func (c *gmConverter) inline(parent gast.Node, st gmStyle, out *[]Run) {
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
				for _, part := range linkify(gmUnescape(v)) {
					s := st
					s.link = part.link
					*out = append(*out, Run{Text: part.text, Bold: s.bold, Italic: s.italic, Strike: s.strike, Link: s.link})
				}
			default:
				add(gmUnescape(v))
			}
			if n.HardLineBreak() {
				*out = append(*out, Run{Break: true})
			} else if n.SoftLineBreak() {
				add(" ")
			}
		case *gast.String:
			add(gmUnescape(n.Value))
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
			c.inline(n, gmStyle{}, &alt)
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

func gmUnescape(b []byte) string {
	b = util.UnescapePunctuations(b)
	b = util.ResolveNumericReferences(b)
	b = util.ResolveEntityNames(b)
	return string(b)
}

func (c *gmConverter) table(t *tableNode) Block {
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
