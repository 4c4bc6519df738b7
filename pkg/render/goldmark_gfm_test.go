package render

import (
	"bytes"

	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The GitHub additions to CommonMark as parsers of goldmark's core: how
// render read tables, task list items and strikethrough before it had
// its own parser (pkg/markdown). Kept in a test so that the differential
// test can compare the two, without linking goldmark into the binary.

var (
	kindTable    = gast.NewNodeKind("RenderTable")
	kindTableRow = gast.NewNodeKind("RenderTableRow")
	kindCell     = gast.NewNodeKind("RenderTableCell")
	kindStrike   = gast.NewNodeKind("RenderStrike")
	kindTask     = gast.NewNodeKind("RenderTask")
)

// tableNode is a GFM table; its children are rows, the first the header.
type tableNode struct {
	gast.BaseBlock
	align []string
}

func (n *tableNode) Kind() gast.NodeKind { return kindTable }
func (n *tableNode) Dump(src []byte, level int) {
	gast.DumpHelper(n, src, level, nil, nil)
}

type tableRowNode struct {
	gast.BaseBlock
	header bool
}

func (n *tableRowNode) Kind() gast.NodeKind { return kindTableRow }
func (n *tableRowNode) Dump(src []byte, level int) {
	gast.DumpHelper(n, src, level, nil, nil)
}

// tableCellNode holds its text as lines, so inline parsing reaches it.
type tableCellNode struct{ gast.BaseBlock }

func (n *tableCellNode) Kind() gast.NodeKind { return kindCell }
func (n *tableCellNode) Dump(src []byte, level int) {
	gast.DumpHelper(n, src, level, nil, nil)
}

type strikeNode struct{ gast.BaseInline }

func (n *strikeNode) Kind() gast.NodeKind { return kindStrike }
func (n *strikeNode) Dump(src []byte, level int) {
	gast.DumpHelper(n, src, level, nil, nil)
}

type taskNode struct {
	gast.BaseInline
	checked bool
}

func (n *taskNode) Kind() gast.NodeKind { return kindTask }
func (n *taskNode) Dump(src []byte, level int) {
	gast.DumpHelper(n, src, level, nil, nil)
}

// newParser is CommonMark plus the GFM parts below.
func newParser() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
			util.Prioritized(strikeParser{}, 500), util.Prioritized(taskParser{}, 0))...),
		parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
			util.Prioritized(tableTransformer{}, 200))...),
	)
}

// strikeParser reads ~text~ and ~~text~~ (one or two tildes, the same on
// both sides), through goldmark's delimiter runs like emphasis.
type strikeParser struct{}

func (strikeParser) Trigger() []byte { return []byte{'~'} }

func (strikeParser) Parse(parent gast.Node, block text.Reader, pc parser.Context) gast.Node {
	before := block.PrecendingCharacter()
	line, seg := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, strikeDelims{})
	if d == nil || d.OriginalLength > 2 || before == '~' {
		return nil
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

type strikeDelims struct{}

func (strikeDelims) IsDelimiter(b byte) bool { return b == '~' }
func (strikeDelims) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char && opener.OriginalLength == closer.OriginalLength
}
func (strikeDelims) OnMatch(consumes int) gast.Node { return &strikeNode{} }

// taskParser reads the [ ] or [x] that starts a list item's first
// paragraph.
type taskParser struct{}

func (taskParser) Trigger() []byte { return []byte{'['} }

func (taskParser) Parse(parent gast.Node, block text.Reader, pc parser.Context) gast.Node {
	if parent.HasChildren() || parent.Parent() == nil || parent.Parent().Kind() != gast.KindListItem || parent.Parent().FirstChild() != parent {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 4 || line[0] != '[' || line[2] != ']' || (line[3] != ' ' && line[3] != '\t') {
		return nil
	}
	var checked bool
	switch line[1] {
	case ' ':
	case 'x', 'X':
		checked = true
	default:
		return nil
	}
	block.Advance(3)
	return &taskNode{checked: checked}
}

// tableTransformer turns a paragraph whose second line is a delimiter row
// (|---|:--:|) with as many cells as the first into a table; the lines
// before the header stay a paragraph.
type tableTransformer struct{}

func (tableTransformer) Transform(p *gast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := p.Lines()
	src := reader.Source()
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		align, ok := delimiterRow(seg.Value(src))
		if !ok {
			continue
		}
		header := splitCells(src, lines.At(i-1))
		if len(header) != len(align) {
			continue
		}
		t := &tableNode{align: align}
		t.AppendChild(t, tableRow(src, header, len(align), true))
		for k := i + 1; k < lines.Len(); k++ {
			t.AppendChild(t, tableRow(src, splitCells(src, lines.At(k)), len(align), false))
		}
		parent := p.Parent()
		if i-1 == 0 {
			parent.ReplaceChild(parent, p, t)
		} else {
			rest := text.NewSegments()
			for k := 0; k < i-1; k++ {
				rest.Append(lines.At(k))
			}
			p.SetLines(rest)
			parent.InsertAfter(parent, p, t)
		}
		return
	}
}

// delimiterRow reads a table's delimiter row into column alignments.
func delimiterRow(line []byte) ([]string, bool) {
	line = bytes.TrimSpace(line)
	if !bytes.Contains(line, []byte("-")) {
		return nil, false
	}
	if bytes.IndexByte(line, '|') < 0 && !bytes.Contains(line, []byte(":")) {
		return nil, false // a bare --- is a setext heading or a rule, not a table
	}
	line = bytes.TrimPrefix(bytes.TrimSuffix(line, []byte("|")), []byte("|"))
	var align []string
	for _, c := range bytes.Split(line, []byte("|")) {
		c = bytes.TrimSpace(c)
		left, right := bytes.HasPrefix(c, []byte(":")), bytes.HasSuffix(c, []byte(":"))
		dashes := bytes.Trim(c, ":")
		if len(dashes) == 0 || len(bytes.Trim(dashes, "-")) != 0 {
			return nil, false
		}
		switch {
		case left && right:
			align = append(align, "center")
		case left:
			align = append(align, "left")
		case right:
			align = append(align, "right")
		default:
			align = append(align, "")
		}
	}
	return align, true
}

// splitCells cuts a table row at its unescaped pipes into trimmed cell
// segments.
func splitCells(src []byte, seg text.Segment) []text.Segment {
	line := seg.Value(src)
	start, end := 0, len(line)
	for start < end && gmIsSpace(line[start]) {
		start++
	}
	for end > start && gmIsSpace(line[end-1]) {
		end--
	}
	if start < end && line[start] == '|' {
		start++
	}
	if end > start && line[end-1] == '|' && (end-2 < start || line[end-2] != '\\') {
		end--
	}
	var cells []text.Segment
	from := start
	for i := start; i <= end; i++ {
		if i < end && line[i] == '\\' {
			i++
			continue
		}
		if i == end || line[i] == '|' {
			a, b := from, min(i, end)
			for a < b && gmIsSpace(line[a]) {
				a++
			}
			for b > a && gmIsSpace(line[b-1]) {
				b--
			}
			cells = append(cells, text.NewSegment(seg.Start+a, seg.Start+b))
			from = i + 1
		}
	}
	return cells
}

func gmIsSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// tableRow makes a row of exactly n cells (GFM pads and cuts).
func tableRow(src []byte, cells []text.Segment, n int, header bool) gast.Node {
	row := &tableRowNode{header: header}
	for i := range n {
		c := &tableCellNode{}
		if i < len(cells) {
			c.Lines().Append(cells[i])
		}
		row.AppendChild(row, c)
	}
	return row
}
