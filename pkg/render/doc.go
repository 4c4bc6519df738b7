package render

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"
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
	// Cont: the block goes on with the one before it, a list or a table
	// the document stream delivers in parts (see docStream).
	Cont bool
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

// Parse reads Markdown into the document model: CommonMark with GitHub's
// tables, task lists, strikethrough and bare links (goldmark and its GFM
// extensions). It reads the document whole, through the stream the
// writers read it from.
func Parse(src []byte) (*Doc, error) {
	return parseWithin(context.Background(), src)
}

// parseWithin is Parse until ctx ends.
func parseWithin(ctx context.Context, src []byte) (*Doc, error) {
	s, err := openStream(ctx, bytes.NewReader(src), int64(len(src)))
	if err != nil {
		return nil, err
	}
	return s.collect()
}

// markdownParser is built on first use: no work at init.
var markdownParser = sync.OnceValue(func() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()
})

// refParser finds link reference definitions only: block structure, no
// inline parsing.
var refParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
})

// normalizeInput makes every line ending \n and replaces NUL with U+FFFD,
// as CommonMark reads its input (goldmark leaves both to its renderer).
func normalizeInput(b []byte) []byte {
	if bytes.IndexByte(b, '\r') >= 0 {
		b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
		b = bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
	}
	if bytes.IndexByte(b, 0) >= 0 {
		b = bytes.ReplaceAll(b, []byte{0}, []byte("\uFFFD"))
	}
	return b
}

// MaxDepth is how deep block quotes and lists nest in the document model:
// the blocks of a deeper one join the level above, so that every writer's
// recursion stays shallow whatever the source.
const MaxDepth = 64

// capNesting makes the container markers a line opens past MaxDepth
// text, with a backslash before the first of them: goldmark's time grows
// with the square of the containers one line opens ("> > > …" or
// "- - - …" thousands deep), and no document nests so deep. A thematic
// break ("- - - …") is left alone.
func capNesting(b []byte) []byte {
	var out []byte // nil until a line needs a change
	copied := 0    // b[:copied] is in out
	for off := 0; off < len(b); {
		end := bytes.IndexByte(b[off:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += off
		}
		if at := pastMaxDepth(b[off:end]); at >= 0 {
			out = append(append(out, b[copied:off+at]...), '\\')
			copied = off + at
		}
		off = end + 1
	}
	if out == nil {
		return b
	}
	return append(out, b[copied:]...)
}

// pastMaxDepth is the offset of the first container marker of a line
// past MaxDepth (a block quote's >, a list item's -, *, + or N. or N),
// where the backslash goes), or -1.
func pastMaxDepth(line []byte) int {
	blank := func(i int) bool { return i < len(line) && (line[i] == ' ' || line[i] == '\t') }
	depth := 0
	for i := 0; i < len(line); {
		for blank(i) {
			i++
		}
		if i == len(line) {
			return -1
		}
		at := i
		switch c := line[i]; {
		case c == '>':
			i++
		case (c == '-' || c == '*' || c == '+') && blank(i+1):
			i += 2
		case '0' <= c && c <= '9':
			k := i
			for k < len(line) && k-i < 9 && '0' <= line[k] && line[k] <= '9' {
				k++
			}
			if k >= len(line) || (line[k] != '.' && line[k] != ')') || !blank(k+1) {
				return -1
			}
			at, i = k, k+2
		default:
			return -1
		}
		if depth++; depth > MaxDepth {
			if isThematicBreak(line) {
				return -1
			}
			return at
		}
	}
	return -1
}

// isThematicBreak: three or more of one of - * _, and blanks.
func isThematicBreak(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	if len(t) == 0 || (t[0] != '-' && t[0] != '*' && t[0] != '_') {
		return false
	}
	n := 0
	for _, c := range t {
		switch {
		case c == t[0]:
			n++
		case c != ' ' && c != '\t':
			return false
		}
	}
	return n >= 3
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

func (c *converter) blocks(parent gast.Node, depth int) []Block {
	var out []Block
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		out = append(out, c.block(n, depth)...)
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

func (c *converter) block(n gast.Node, depth int) []Block {
	switch n := n.(type) {
	case *gast.Heading:
		return []Block{{Kind: Heading, Level: n.Level, Runs: c.inlines(n)}}
	case *gast.Paragraph, *gast.TextBlock:
		return c.paragraph(n)
	case *gast.ThematicBreak:
		return []Block{{Kind: Rule}}
	case *gast.FencedCodeBlock:
		return []Block{{Kind: Code, Code: strings.TrimSuffix(c.lines(n), "\n"), Lang: unescape(n.Language(c.src))}}
	case *gast.CodeBlock:
		return []Block{{Kind: Code, Code: strings.TrimSuffix(c.lines(n), "\n")}}
	case *gast.Blockquote:
		if depth >= MaxDepth {
			return c.blocks(n, depth)
		}
		return []Block{{Kind: Quote, Children: c.blocks(n, depth+1)}}
	case *gast.List:
		if depth >= MaxDepth {
			var out []Block
			for it := n.FirstChild(); it != nil; it = it.NextSibling() {
				out = append(out, c.blocks(it, depth)...)
			}
			return out
		}
		b := Block{Kind: List, Ordered: n.IsOrdered(), Start: n.Start}
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			item := Item{Blocks: c.blocks(it, depth+1)}
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
	case *east.Table:
		return []Block{c.table(n)}
	case *gast.LinkReferenceDefinition:
		return nil
	}
	if n.Type() == gast.TypeBlock {
		return c.blocks(n, depth)
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
	add := func(s string, st style) {
		if s != "" {
			*out = append(*out, Run{Text: s, Bold: st.bold, Italic: st.italic, Mono: st.mono, Strike: st.strike, Link: st.link})
		}
	}
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		s := st
		switch n := n.(type) {
		case *gast.Text:
			v := n.Value(c.src)
			if st.mono {
				// CommonMark: a line ending in a code span is a space.
				add(strings.ReplaceAll(string(v), "\n", " "), st)
			} else {
				add(unescape(v), st)
			}
			if n.HardLineBreak() {
				*out = append(*out, Run{Break: true})
			} else if n.SoftLineBreak() {
				add(" ", st)
			}
		case *gast.String:
			if st.mono || n.IsRaw() {
				add(string(n.Value), st)
			} else {
				add(unescape(n.Value), st)
			}
		case *gast.CodeSpan:
			s.mono = true
			c.inline(n, s, out)
		case *gast.Emphasis:
			if n.Level >= 2 {
				s.bold = true
			} else {
				s.italic = true
			}
			c.inline(n, s, out)
		case *east.Strikethrough:
			s.strike = true
			c.inline(n, s, out)
		case *gast.Link:
			s.link = unescape(n.Destination)
			c.inline(n, s, out)
		case *gast.AutoLink:
			link := string(n.URL(c.src))
			if n.AutoLinkType == gast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(link), "mailto:") {
				link = "mailto:" + link
			}
			s.link = link
			add(string(n.Label(c.src)), s)
		case *gast.Image:
			var alt []Run
			c.inline(n, style{}, &alt)
			*out = append(*out, Run{Image: &Image{Src: unescape(n.Destination), Alt: PlainText(alt)}})
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
		case *east.TaskCheckBox:
			checked := n.IsChecked
			*out = append(*out, Run{Task: &checked})
		default:
			c.inline(n, st, out)
		}
	}
}

// unescape resolves what CommonMark resolves in text and destinations, in
// one pass: a backslash before ASCII punctuation, and entity and numeric
// character references (so "\&amp;" stays "&amp;", and "&#x26;amp;" is
// "&amp;").
func unescape(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 && bytes.IndexByte(b, '&') < 0 {
		return string(b)
	}
	var out strings.Builder
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\\' && i+1 < len(b) && util.IsPunct(b[i+1]):
			out.WriteByte(b[i+1])
			i++
		case c == '&':
			if n, s := reference(b[i:]); n > 0 {
				out.WriteString(s)
				i += n - 1
				continue
			}
			out.WriteByte(c)
		default:
			out.WriteByte(c)
		}
	}
	return out.String()
}

// reference reads a character reference at the start of b: &name;, &#N;
// (1–7 digits) or &#xH; (1–6 hex digits); it returns its length and text,
// or 0.
func reference(b []byte) (int, string) {
	end := bytes.IndexByte(b[:min(len(b), 34)], ';')
	if end < 2 {
		return 0, ""
	}
	body := string(b[1:end])
	if body[0] != '#' {
		for _, r := range body {
			if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
				return 0, ""
			}
		}
		if e, ok := util.LookUpHTML5EntityByName(body); ok {
			return end + 1, string(e.Characters)
		}
		return 0, ""
	}
	digits, base, maxLen := body[1:], 10, 7
	if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
		digits, base, maxLen = digits[1:], 16, 6
	}
	if len(digits) == 0 || len(digits) > maxLen {
		return 0, ""
	}
	v, err := strconv.ParseUint(digits, base, 32)
	if err != nil {
		return 0, ""
	}
	r := rune(v)
	if r == 0 || !utf8.ValidRune(r) {
		r = utf8.RuneError
	}
	return end + 1, string(r)
}

// mergeRuns joins neighbours of one style, so that writers emit one run
// where the parser had several text nodes.
func mergeRuns(runs []Run) []Run {
	var out []Run
	for i := 0; i < len(runs); i++ {
		r := runs[i]
		k := i + 1
		for k < len(runs) && plainRun(r) && plainRun(runs[k]) && sameStyle(r, runs[k]) {
			k++
		}
		if k > i+1 {
			var b strings.Builder
			for _, m := range runs[i:k] {
				b.WriteString(m.Text)
			}
			r.Text = b.String()
			i = k - 1
		}
		out = append(out, r)
	}
	return out
}

func plainRun(r Run) bool { return !r.Break && r.Image == nil && r.Task == nil }

func sameStyle(a, b Run) bool {
	return a.Bold == b.Bold && a.Italic == b.Italic && a.Mono == b.Mono && a.Strike == b.Strike && a.Link == b.Link
}

var alignNames = map[east.Alignment]string{east.AlignLeft: "left", east.AlignCenter: "center", east.AlignRight: "right"}

func (c *converter) table(t *east.Table) Block {
	g := &GridTable{}
	for _, a := range t.Alignments {
		g.Align = append(g.Align, alignNames[a])
	}
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells [][]Run
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			cells = append(cells, c.inlines(cell))
		}
		if _, header := row.(*east.TableHeader); header {
			g.Header = cells
		} else {
			g.Rows = append(g.Rows, cells)
		}
	}
	return Block{Kind: Table, Table: g}
}
