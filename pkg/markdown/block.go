package markdown

import (
	"bytes"
	"strings"
)

// MaxDepth caps how deep block quotes and list items nest: a marker past
// it is text. Every line walks the open containers, so the cap keeps
// hostile input (">>>>…" on every line) linear.
const MaxDepth = 64

// Parse reads Markdown into a tree whose root is a Document.
func Parse(src []byte) *Node {
	p := &parser{doc: &Node{Kind: Document, open: true, b: &blockState{}}}
	p.tip = p.doc
	for len(src) > 0 {
		line, rest, _ := bytes.Cut(src, []byte("\n"))
		src = rest
		line = bytes.TrimSuffix(line, []byte("\r"))
		s := string(line)
		if strings.IndexByte(s, 0) >= 0 {
			s = strings.ReplaceAll(s, "\x00", "\uFFFD")
		}
		p.incorporateLine(s)
	}
	for p.tip != nil {
		p.finalize(p.tip)
	}
	p.inlines(p.doc)
	return p.doc
}

type parser struct {
	doc, tip, oldtip     *Node
	lastMatched          *Node
	line                 string
	lineNumber           int
	offset, column       int
	nextNonspace         int
	nextNonspaceColumn   int
	indent               int
	indented, blank      bool
	partiallyConsumedTab bool
	allClosed            bool
	refs                 map[string]linkRef
}

type linkRef struct{ dest, title string }

func isSpaceOrTab(c byte) bool { return c == ' ' || c == '\t' }

func (p *parser) peek(i int) byte {
	if i < len(p.line) {
		return p.line[i]
	}
	return 0
}

func (p *parser) findNextNonspace() {
	i, cols := p.offset, p.column
	for i < len(p.line) {
		switch p.line[i] {
		case ' ':
			i++
			cols++
			continue
		case '\t':
			i++
			cols += 4 - cols%4
			continue
		}
		break
	}
	p.blank = i == len(p.line)
	p.nextNonspace, p.nextNonspaceColumn = i, cols
	p.indent = cols - p.column
	p.indented = p.indent >= 4
}

func (p *parser) advanceNextNonspace() {
	p.offset, p.column = p.nextNonspace, p.nextNonspaceColumn
	p.partiallyConsumedTab = false
}

// advanceOffset moves count bytes, or count columns (a tab counting for
// the columns to its stop, perhaps partly).
func (p *parser) advanceOffset(count int, columns bool) {
	for count > 0 && p.offset < len(p.line) {
		if p.line[p.offset] != '\t' {
			p.partiallyConsumedTab = false
			p.offset++
			p.column++
			count--
			continue
		}
		toTab := 4 - p.column%4
		if !columns {
			p.partiallyConsumedTab = false
			p.column += toTab
			p.offset++
			count--
			continue
		}
		p.partiallyConsumedTab = toTab > count
		n := min(toTab, count)
		p.column += n
		if !p.partiallyConsumedTab {
			p.offset++
		}
		count -= n
	}
}

func (p *parser) addLine() {
	rest := p.line[min(p.offset, len(p.line)):]
	if p.partiallyConsumedTab {
		p.offset++
		rest = strings.Repeat(" ", 4-p.column%4) + p.line[min(p.offset, len(p.line)):]
	}
	p.tip.b.lines = append(p.tip.b.lines, rest)
}

func canContain(parent, child Kind) bool {
	switch parent {
	case Document, BlockQuote, ListItem:
		return child != ListItem
	case List:
		return child == ListItem
	}
	return false
}

func acceptsLines(k Kind) bool { return k == Paragraph || k == CodeBlock || k == HTMLBlock }

func (p *parser) addChild(kind Kind) *Node {
	for !canContain(p.tip.Kind, kind) {
		p.finalize(p.tip)
	}
	n := &Node{Kind: kind, open: true, b: &blockState{}}
	p.tip.append(n)
	p.tip = n
	return n
}

func (p *parser) closeUnmatchedBlocks() {
	if p.allClosed {
		return
	}
	for p.oldtip != p.lastMatched {
		parent := p.oldtip.Parent
		p.finalize(p.oldtip)
		p.oldtip = parent
	}
	p.allClosed = true
}

// continueBlock: 0 the container goes on, 1 it does not, 2 the line is
// used up (a closing fence).
func (p *parser) continueBlock(c *Node) int {
	switch c.Kind {
	case BlockQuote:
		if p.indented || p.peek(p.nextNonspace) != '>' {
			return 1
		}
		p.advanceNextNonspace()
		p.advanceOffset(1, false)
		if isSpaceOrTab(p.peek(p.offset)) {
			p.advanceOffset(1, true)
		}
	case ListItem:
		switch {
		case p.blank:
			if c.FirstChild == nil {
				return 1
			}
			p.advanceNextNonspace()
		case p.indent >= c.b.markerOffset+c.b.padding:
			p.advanceOffset(c.b.markerOffset+c.b.padding, true)
		default:
			return 1
		}
	case Heading, ThematicBreak:
		return 1
	case CodeBlock:
		if c.Fenced {
			if !p.indented && p.peek(p.nextNonspace) == c.b.fenceChar {
				if n := fenceRun(p.line[p.nextNonspace:], c.b.fenceChar); n >= c.b.fenceLen && strings.Trim(p.line[p.nextNonspace+n:], " \t") == "" {
					p.finalize(c)
					return 2
				}
			}
			for i := c.b.fenceOffset; i > 0 && isSpaceOrTab(p.peek(p.offset)); i-- {
				p.advanceOffset(1, true)
			}
			return 0
		}
		switch {
		case p.indent >= 4:
			p.advanceOffset(4, true)
		case p.blank:
			p.advanceNextNonspace()
		default:
			return 1
		}
	case HTMLBlock:
		if p.blank && c.HTMLType >= 6 {
			return 1
		}
	case Paragraph:
		if p.blank {
			return 1
		}
	}
	return 0
}

func fenceRun(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

func (p *parser) incorporateLine(ln string) {
	container := p.doc
	p.oldtip = p.tip
	p.offset, p.column, p.partiallyConsumedTab = 0, 0, false
	p.lineNumber++
	p.line = ln
	for {
		last := container.LastChild
		if last == nil || !last.open {
			break
		}
		p.findNextNonspace()
		r := p.continueBlock(last)
		if r == 2 {
			return
		}
		if r == 1 {
			break
		}
		container = last
	}
	p.allClosed = container == p.oldtip
	p.lastMatched = container

	matchedLeaf := container.Kind != Paragraph && acceptsLines(container.Kind)
	for !matchedLeaf {
		p.findNextNonspace()
		if !p.indented && !maybeSpecial(p.peek(p.nextNonspace)) {
			p.advanceNextNonspace()
			break
		}
		r := p.blockStart(container)
		if r == 0 {
			p.advanceNextNonspace()
			break
		}
		container = p.tip
		if r == 2 {
			matchedLeaf = true
		}
	}

	if !p.allClosed && !p.blank && p.tip.Kind == Paragraph {
		p.addLine() // a lazy continuation line
		return
	}
	p.closeUnmatchedBlocks()
	if p.blank && container.LastChild != nil {
		container.LastChild.lastLineBlank = true
	}
	t := container.Kind
	lastLineBlank := p.blank && !(t == BlockQuote || (t == CodeBlock && container.Fenced) ||
		(t == ListItem && container.FirstChild == nil && container.b.startLine == p.lineNumber))
	for c := container; c != nil; c = c.Parent {
		c.lastLineBlank = lastLineBlank
	}
	switch {
	case acceptsLines(t):
		p.addLine()
		if t == HTMLBlock && htmlBlockEnds(container.HTMLType, p.line[min(p.offset, len(p.line)):]) {
			p.finalize(container)
		}
	case p.offset < len(p.line) && !p.blank:
		p.addChild(Paragraph)
		p.advanceNextNonspace()
		p.addLine()
	}
}

func maybeSpecial(c byte) bool {
	switch c {
	case '#', '`', '~', '*', '+', '_', '=', '<', '>', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

func (p *parser) nesting(c *Node) int {
	d := 0
	for ; c != nil; c = c.Parent {
		if c.Kind == BlockQuote || c.Kind == ListItem {
			d++
		}
	}
	return d
}

// blockStart opens the block the line starts: 0 none, 1 a container,
// 2 a leaf.
func (p *parser) blockStart(container *Node) int {
	rest := p.line[p.nextNonspace:]
	c := p.peek(p.nextNonspace)
	if !p.indented {
		switch {
		case c == '>':
			if p.nesting(container) >= MaxDepth {
				return 0
			}
			p.advanceNextNonspace()
			p.advanceOffset(1, false)
			if isSpaceOrTab(p.peek(p.offset)) {
				p.advanceOffset(1, true)
			}
			p.closeUnmatchedBlocks()
			p.addChild(BlockQuote)
			return 1
		case c == '#':
			if level, text, ok := atxHeading(rest); ok {
				p.advanceNextNonspace()
				p.closeUnmatchedBlocks()
				h := p.addChild(Heading)
				h.Level = level
				h.b.content = text
				p.offset = len(p.line)
				return 2
			}
		case c == '`' || c == '~':
			if n := fenceRun(rest, c); n >= 3 && (c == '~' || strings.IndexByte(rest[n:], '`') < 0) {
				p.closeUnmatchedBlocks()
				b := p.addChild(CodeBlock)
				b.Fenced, b.b.fenceChar, b.b.fenceLen, b.b.fenceOffset = true, c, n, p.indent
				p.advanceNextNonspace()
				p.advanceOffset(n, false)
				return 2
			}
		case c == '<':
			for t := 1; t <= 7; t++ {
				if htmlBlockStarts(t, rest) && (t < 7 || (container.Kind != Paragraph && !(!p.allClosed && !p.blank && p.tip.Kind == Paragraph))) {
					p.closeUnmatchedBlocks()
					b := p.addChild(HTMLBlock)
					b.HTMLType = t
					return 2
				}
			}
		}
		if container.Kind == Paragraph && (c == '=' || c == '-') {
			if n := fenceRun(rest, c); strings.Trim(rest[n:], " \t") == "" && p.setext(container, c) {
				return 2
			}
		}
		if (c == '*' || c == '-' || c == '_') && thematicBreak(rest) {
			p.closeUnmatchedBlocks()
			p.addChild(ThematicBreak)
			p.offset = len(p.line)
			return 2
		}
	}
	if (!p.indented || container.Kind == List) && p.nesting(container) < MaxDepth && p.listItem(container) {
		return 1
	}
	if p.indented && p.tip.Kind != Paragraph && !p.blank {
		p.advanceOffset(4, true)
		p.closeUnmatchedBlocks()
		p.addChild(CodeBlock)
		return 2
	}
	return 0
}

// setext turns the paragraph into a heading, if anything is left of it
// once its link reference definitions are read.
func (p *parser) setext(para *Node, c byte) bool {
	p.closeUnmatchedBlocks()
	content := p.takeRefs(strings.Join(para.b.lines, "\n"))
	if strings.TrimSpace(content) == "" {
		para.b.lines = nil
		return false
	}
	h := &Node{Kind: Heading, Level: 1, b: &blockState{content: strings.TrimRight(content, " \t")}}
	if c == '-' {
		h.Level = 2
	}
	para.insertAfter(h)
	para.unlink()
	p.tip = h
	h.open = true
	p.offset = len(p.line)
	return true
}

func atxHeading(s string) (level int, text string, ok bool) {
	n := fenceRun(s, '#')
	if n == 0 || n > 6 || (n < len(s) && !isSpaceOrTab(s[n])) {
		return 0, "", false
	}
	text = strings.Trim(s[n:], " \t")
	// A closing run of #s goes, if a space comes before it (or it is all).
	k := len(text)
	for k > 0 && text[k-1] == '#' {
		k--
	}
	if k == 0 {
		text = ""
	} else if k < len(text) && isSpaceOrTab(text[k-1]) {
		text = strings.TrimRight(text[:k], " \t")
	}
	return n, text, true
}

func thematicBreak(s string) bool {
	c, n := s[0], 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

func (p *parser) listItem(container *Node) bool {
	if p.indent >= 4 {
		return false
	}
	rest := p.line[p.nextNonspace:]
	if rest == "" {
		return false
	}
	var bullet, delim byte
	start, markerLen := 0, 0
	switch rest[0] {
	case '*', '+', '-':
		bullet, markerLen = rest[0], 1
	default:
		i := 0
		for i < len(rest) && i < 10 && rest[i] >= '0' && rest[i] <= '9' {
			start = start*10 + int(rest[i]-'0')
			i++
		}
		if i == 0 || i > 9 || i >= len(rest) || (rest[i] != '.' && rest[i] != ')') {
			return false
		}
		if container.Kind == Paragraph && start != 1 {
			return false
		}
		delim, markerLen = rest[i], i+1
	}
	if markerLen < len(rest) && !isSpaceOrTab(rest[markerLen]) {
		return false
	}
	if container.Kind == Paragraph && strings.Trim(rest[markerLen:], " \t") == "" {
		return false
	}
	markerOffset := p.indent
	p.advanceNextNonspace()
	p.advanceOffset(markerLen, true)
	startCol, startOff := p.column, p.offset
	for {
		p.advanceOffset(1, true)
		if !(p.column-startCol < 5 && isSpaceOrTab(p.peek(p.offset))) {
			break
		}
	}
	blankItem := p.offset >= len(p.line)
	spaces := p.column - startCol
	padding := markerLen + spaces
	if spaces >= 5 || spaces < 1 || blankItem {
		padding = markerLen + 1
		p.column, p.offset, p.partiallyConsumedTab = startCol, startOff, false
		if isSpaceOrTab(p.peek(p.offset)) {
			p.advanceOffset(1, true)
		}
	}
	p.closeUnmatchedBlocks()
	if t := p.tip; t.Kind != List || t.Ordered != (bullet == 0) || t.b.bulletChar != bullet || t.b.delimiter != delim {
		l := p.addChild(List)
		l.Ordered, l.Start, l.b.bulletChar, l.b.delimiter, l.Tight = bullet == 0, start, bullet, delim, true
	}
	it := p.addChild(ListItem)
	it.b.markerOffset, it.b.padding = markerOffset, padding
	it.b.startLine = p.lineNumber
	return true
}

func (p *parser) finalize(b *Node) {
	parent := b.Parent
	b.open = false
	switch b.Kind {
	case Paragraph:
		content := p.takeRefs(strings.Join(b.b.lines, "\n"))
		b.b.lines = nil
		if strings.Trim(content, " \t\n") == "" {
			b.unlink()
			break
		}
		b.b.content = content
		splitTable(b)
	case CodeBlock:
		if b.Fenced {
			info := ""
			if len(b.b.lines) > 0 {
				info, b.b.lines = b.b.lines[0], b.b.lines[1:]
			}
			b.Info = unescapeString(strings.Trim(info, " \t"))
		} else {
			for len(b.b.lines) > 0 && strings.Trim(b.b.lines[len(b.b.lines)-1], " \t") == "" {
				b.b.lines = b.b.lines[:len(b.b.lines)-1]
			}
		}
		var sb strings.Builder
		for _, l := range b.b.lines {
			sb.WriteString(l)
			sb.WriteByte('\n')
		}
		b.Literal, b.b.lines = sb.String(), nil
	case HTMLBlock:
		b.Literal, b.b.lines = strings.Join(b.b.lines, "\n"), nil
	case List:
		b.Tight = true
		for it := b.FirstChild; it != nil && b.Tight; it = it.Next {
			if it.Next != nil && endsWithBlankLine(it) {
				b.Tight = false
			}
			for sub := it.FirstChild; sub != nil && b.Tight; sub = sub.Next {
				if (it.Next != nil || sub.Next != nil) && endsWithBlankLine(sub) {
					b.Tight = false
				}
			}
		}
	}
	p.tip = parent
}

func endsWithBlankLine(b *Node) bool {
	for b != nil {
		if b.lastLineBlank {
			return true
		}
		if b.Kind != List && b.Kind != ListItem {
			return false
		}
		b = b.LastChild
	}
	return false
}

// takeRefs reads the link reference definitions that start a
// paragraph, and returns what is left.
func (p *parser) takeRefs(s string) string {
	for strings.HasPrefix(strings.TrimLeft(s, " \t"), "[") {
		n, label, ref, ok := parseLinkRef(s)
		if !ok {
			break
		}
		if p.refs == nil {
			p.refs = map[string]linkRef{}
		}
		if _, dup := p.refs[label]; !dup {
			p.refs[label] = ref
		}
		s = s[n:]
	}
	return s
}
