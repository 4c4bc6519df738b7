package render

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf8"

	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// A document is parsed a chunk at a time, so that render's memory stays
// bounded whatever the size of the source: goldmark holds the syntax tree
// of all it parses (an 8 MB table took gigabytes), and the writers need
// only the blocks at hand. The chunker reads the source line by line and
// cuts it where parsing the parts alone gives the same blocks as parsing
// the whole:
//
//   - before a line at the margin after a blank line, outside a fenced
//     code block or an HTML block of kinds 1–5 (which run on over blank
//     lines): every other block has ended there (CommonMark 0.31, 4–5);
//   - between two items of a list at the margin: the second chunk's list
//     goes on with the first's (Block.Cont);
//   - between two rows of a table at the margin: the second chunk is
//     parsed after the table's header and delimiter rows, and its table
//     goes on with the first's.
//
// It follows the top level of the document only: what is inside a list
// item or a block quote is skipped by its indentation or its >. Where
// a line after a list item or a quote may be read two ways (a lazy
// continuation, or a block of its own; CommonMark 5.1), it cuts nothing
// until a blank line and a line at the margin end every reading; and if
// in such a stretch a line opens a fence or an HTML block in one reading
// and not in the other, it cuts nothing more at all. The chunker cuts
// only where it is sure.

// chunkBytes is how much source a chunk gathers before it ends at the
// next place it may.
var chunkBytes int64 = 64 << 10

// headBytes is how much of a line the chunker looks at: enough for every
// block start.
const headBytes = 1 << 10

// chunk is a part of the source parsed on its own.
type chunk struct {
	start, end int64
	prefix     []byte // parsed before the chunk: the header and delimiter rows of the table it goes on with
	cont       bool   // its first block goes on with the last block of the chunk before
}

// lineInfo is one line as the chunker sees it.
type lineInfo struct {
	off   int64  // where it starts in the source
	head  []byte // its first headBytes bytes, without the line ending
	long  bool   // longer than head
	cr    bool   // a \r the head does not show: a line ending past it
	blank bool
	ends  int // bit k: the line holds the end of an HTML block of kind k (1–5)
}

// scanState is what the chunker knows of the top level after a line.
type scanState struct {
	fence    byte // '`' or '~' while a fenced code block is open
	fenceLen int
	html     int // kind (1–7) of an open HTML block
	para     bool
	// A list item at the margin: its content column (0: none) and its
	// marker (- * + . or )).
	itemCol int
	// The item at the margin has nothing yet (a marker alone on its
	// line): goldmark reads the lines after it its own way.
	itemEmpty bool
	listMark  byte
	quote     bool   // a block quote at the margin is open
	inside    bool   // the last line was inside the list item or the quote
	table     []byte // header and delimiter rows of an open table at the margin
	blank     bool   // the last line was blank
	murky     bool   // a line after a container was read two ways: cut nothing until all readings meet
	lost      bool   // the readings parted over a fence or HTML block: cut nothing more
	prevHead  []byte // the last line, when it may be a table's header row
	// No table the chunker may cut opens in this paragraph (tableRow).
	noTable bool
	// The paragraph begins with [: link reference definitions may take
	// its first lines, which the chunker does not follow.
	refPara bool
	// The line was a setext underline under an open table.
	underlined bool
}

// chunker finds the chunks of a body.
type chunker struct {
	r        *bufio.Reader
	off, end int64
	st       scanState
	chunks   []chunk
	start    int64 // of the chunk being gathered
	next     chunk // how the chunk being gathered begins
	refs     bool  // some line may define a link reference
	badUTF8  bool
	utf      utf8Tail
	// Before the first cut between the rows of the open table: a setext
	// underline under the table turns its paragraph into a heading, and
	// goldmark reads the rows anew, so the cuts are taken back.
	tableSave *chunkSave
}

// chunkSave is the chunker's place, to go back to.
type chunkSave struct {
	start int64
	next  chunk
	n     int
}

// scanChunks reads the body src[start:end] once and returns its chunks.
// ok is false when it is not UTF-8 text.
func scanChunks(src io.ReaderAt, start, end int64) (chunks []chunk, refs, ok bool, err error) {
	c := &chunker{r: bufio.NewReaderSize(io.NewSectionReader(src, start, end-start), 64<<10), off: start, end: end, start: start}
	c.next.start = start
	for {
		ln, more, err := c.readLine()
		if err != nil {
			return nil, false, false, err
		}
		if !more {
			break
		}
		c.line(ln)
	}
	if c.badUTF8 || !c.utf.done() {
		return nil, false, false, nil
	}
	if c.start < end {
		c.next.end = end
		c.chunks = append(c.chunks, c.next)
	}
	return c.chunks, c.refs, true, nil
}

// readLine reads the next line: its head, its length, whether it is
// blank and which HTML end conditions it holds, without keeping more than
// headBytes of it.
func (c *chunker) readLine() (lineInfo, bool, error) {
	ln := lineInfo{off: c.off, blank: true}
	var carry []byte // the end of the last piece, for end conditions across pieces
	for {
		piece, err := c.r.ReadSlice('\n')
		if len(piece) > 0 {
			c.off += int64(len(piece))
			c.utf.check(piece, &c.badUTF8)
			body := bytes.TrimSuffix(piece, []byte("\n"))
			if room := headBytes - len(ln.head); room > 0 {
				ln.head = append(ln.head, body[:min(room, len(body))]...)
			}
			if len(ln.head) == headBytes && len(body) > 0 && int64(len(body)) > int64(headBytes) {
				ln.long = true
			}
			for _, b := range body {
				if b != ' ' && b != '\t' && b != '\r' {
					ln.blank = false
					break
				}
			}
			if k := bytes.IndexByte(bytes.TrimSuffix(body, []byte("\r")), '\r'); k >= 0 && c.off-int64(len(piece))-ln.off+int64(k) >= headBytes {
				ln.cr = true
			}
			win := append(carry, body...)
			ln.ends |= htmlEnds(win)
			if bytes.Contains(win, []byte("]:")) {
				c.refs = true
			}
			carry = append(carry[:0], win[max(0, len(win)-12):]...)
		}
		switch err {
		case nil:
			return ln, true, nil
		case bufio.ErrBufferFull:
			ln.long = true
			continue
		case io.EOF:
			return ln, len(piece) > 0 || c.off > ln.off, nil
		default:
			return ln, false, err
		}
	}
}

// utf8Tail checks UTF-8 across pieces of text, keeping the bytes of a
// character a piece ends within.
type utf8Tail struct {
	tail []byte
}

func (u *utf8Tail) check(p []byte, bad *bool) {
	if *bad {
		return
	}
	if len(u.tail) > 0 {
		need := append(append([]byte(nil), u.tail...), p[:min(len(p), 4)]...)
		r, n := utf8.DecodeRune(need)
		if r == utf8.RuneError && n <= 1 {
			if len(need) < 4 && len(p) < 4 && !utf8.FullRune(need) {
				u.tail = need
				return
			}
			*bad = true
			return
		}
		p = p[n-len(u.tail):]
		u.tail = u.tail[:0]
	}
	// A character cut at the end waits for the next piece.
	cut := len(p)
	for i := len(p) - 1; i >= 0 && i >= len(p)-3; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				cut = i
			}
			break
		}
	}
	if !utf8.Valid(p[:cut]) {
		*bad = true
		return
	}
	u.tail = append(u.tail[:0], p[cut:]...)
}

func (u *utf8Tail) done() bool { return len(u.tail) == 0 }

// htmlEnds is the set of HTML block end conditions (kinds 1–5) a line
// holds.
func htmlEnds(line []byte) int {
	ends := 0
	if bytes.Contains(line, []byte("</")) {
		lower := bytes.ToLower(line)
		for _, tag := range []string{"</script>", "</pre>", "</style>", "</textarea>"} {
			if bytes.Contains(lower, []byte(tag)) {
				ends |= 1 << 1
			}
		}
	}
	for kind, end := range map[int]string{2: "-->", 3: "?>", 4: ">", 5: "]]>"} {
		if bytes.Contains(line, []byte(end)) {
			ends |= 1 << kind
		}
	}
	return ends
}

// line takes a line: first whether the chunk may end before it, then
// what it changes.
func (c *chunker) line(ln lineInfo) {
	st := &c.st
	if ln.cr {
		st.lost = true // a line the chunker cannot see starts past the head
	}
	// The logical lines of a physical one: \r alone ends a line too.
	lines := splitCR(ln.head)
	cut, kind := c.cutBefore(lines[0], ln)
	if cut && ln.off-c.start >= chunkBytes {
		if kind == cutTable && c.tableSave == nil {
			c.tableSave = &chunkSave{start: c.start, next: c.next, n: len(c.chunks)}
		}
		c.next.end = ln.off
		c.chunks = append(c.chunks, c.next)
		c.start = ln.off
		c.next = chunk{start: ln.off, cont: kind != cutClean}
		if kind == cutTable {
			c.next.prefix = append([]byte(nil), st.table...)
		}
	}
	for i, l := range lines {
		blank := isBlankLine(l)
		if len(lines) == 1 {
			blank = ln.blank // past the head too
		}
		ends := 0
		if i == len(lines)-1 {
			ends = ln.ends
		} else {
			ends = htmlEnds(l)
		}
		st.take(l, blank, ends)
		if st.underlined && c.tableSave != nil {
			c.start, c.next, c.chunks = c.tableSave.start, c.tableSave.next, c.chunks[:c.tableSave.n]
		}
		st.underlined = false
		if st.table == nil {
			c.tableSave = nil
		}
	}
}

// splitCR splits a line on lone \r (a line ending in CommonMark); a \r
// before the \n ends nothing more.
func splitCR(l []byte) [][]byte {
	l = bytes.TrimSuffix(l, []byte("\r"))
	if bytes.IndexByte(l, '\r') < 0 {
		return [][]byte{l}
	}
	var out [][]byte
	for _, p := range bytes.Split(l, []byte("\r")) {
		out = append(out, p)
	}
	return out
}

func isBlankLine(l []byte) bool {
	for _, b := range l {
		if b != ' ' && b != '\t' {
			return false
		}
	}
	return true
}

type cutKind int

const (
	cutClean cutKind = iota
	cutList
	cutTable
)

// cutBefore says whether a chunk may end before line l, and how the next
// one begins.
func (c *chunker) cutBefore(l []byte, ln lineInfo) (bool, cutKind) {
	st := &c.st
	if st.lost || st.fence != 0 || (st.html >= 1 && st.html <= 5) || ln.blank || len(l) == 0 || l[0] == ' ' || l[0] == '\t' {
		return false, 0
	}
	_, isItem := listMarker(l, 0)
	isItem = isItem && !isThematicBreak(l)
	if st.murky {
		// A blank line, then a line at the margin, ends every reading; a
		// list item there may go on with a list in one and not in another.
		return st.blank && !isItem, cutClean
	}
	if st.itemCol > 0 && isItem {
		if m, _ := listMarker(l, 0); m.mark == st.listMark {
			return true, cutList
		}
	}
	if st.table != nil && !st.blank && l[0] == '|' {
		return true, cutTable
	}
	return st.blank, cutClean
}

// take updates the state with a line.
func (st *scanState) take(l []byte, blank bool, ends int) {
	wasBlank := st.blank
	st.blank = blank
	if st.fence != 0 {
		col, i := indentation(l)
		if col <= 3 && closesFence(l[i:], st.fence, st.fenceLen) {
			st.fence = 0
		}
		st.blank = false // a blank line inside a fence ends nothing
		return
	}
	if st.html >= 1 && st.html <= 5 {
		if ends&(1<<st.html) != 0 {
			st.html = 0
		}
		st.blank = false
		return
	}
	if blank {
		if st.html != 0 { // kinds 6 and 7 end at a blank line
			st.html = 0
		}
		st.para, st.quote, st.table, st.prevHead, st.noTable, st.refPara = false, false, nil, nil, false, false
		st.inside = false
		return
	}
	col, i := indentation(l)
	if st.html != 0 {
		return // inside an HTML block of kind 6 or 7, until a blank line
	}
	start := blockStart(l, col, i, st.para && !st.inside)
	if st.murky {
		// Readings part here: cut nothing until a blank line and a line at
		// the margin; a fence or an HTML block seen now may be open in
		// one reading and not in another.
		if col <= 3 && (isFenceOpen(l[i:]) || start.kind == startHTML) {
			st.lost = true
		}
		if wasBlank && col == 0 && start.kind != startList {
			// (An item may go on with a list that is nested in one reading.)
			st.murky = false
			st.itemCol, st.quote, st.inside = 0, false, false
		} else {
			st.para = start.kind == startNone
			return
		}
	}
	if st.itemCol > 0 && st.itemEmpty {
		st.itemEmpty = false
		if col > 0 || start.kind != startList {
			// After an empty item goldmark may close the list at an indented
			// item, or keep a line CommonMark would not: readings part.
			st.murky = true
			st.para = start.kind == startNone
			if col <= 3 && (isFenceOpen(l[i:]) || start.kind == startHTML) {
				st.lost = true
			}
			return
		}
	}
	// Inside the open list item or block quote?
	if st.itemCol > 0 || st.quote {
		switch {
		case st.itemCol > 0 && col >= st.itemCol:
			st.inside, st.para = true, false
			if m, ok := listMarker(l, col); ok && m.empty {
				// An empty item in the item: goldmark may give it lines at
				// the margin further on.
				st.murky = true
			}
			return
		case st.quote && col <= 3 && l[i] == '>':
			st.inside, st.para = true, false
			return
		case st.itemCol > 0 && start.kind == startList && start.mark == st.listMark:
			st.itemCol, st.itemEmpty = start.content, start.empty
			st.inside, st.para = true, false
			st.murky = opensNestedList(l)
			return
		case wasBlank:
			// A blank line, then a line that belongs to neither: the
			// container has ended.
			st.itemCol, st.quote, st.inside = 0, false, false
		case start.kind == startNone || start.kind == startHTML7 || (start.kind == startList && !start.interrupts) || col >= 4:
			// A lazy continuation line, or a block of its own: it depends on
			// what the container ends with, which the chunker does not
			// follow.
			st.murky = true
			st.para = start.kind == startNone
			return
		default:
			st.itemCol, st.quote, st.inside = 0, false, false
		}
	}
	st.inside = false
	// The top level.
	para := st.para
	st.para = false
	switch start.kind {
	case startFence:
		st.fence, st.fenceLen = start.fence, start.fenceLen
	case startHTML:
		st.html = start.html
		// Kinds 1–5 end on their first line when it holds the end
		// condition, the start included (goldmark looks at the whole line).
		if start.html <= 5 && (start.closed || ends&(1<<start.html) != 0) {
			st.html = 0
		}
	case startHTML7:
		if para {
			st.para = true // kind 7 does not interrupt a paragraph
			st.tableRow(l, para)
		} else {
			st.html = 7
		}
	case startList:
		if para && !start.interrupts {
			st.para = true
			st.tableRow(l, para)
			break
		}
		st.itemCol, st.listMark, st.inside, st.itemEmpty = start.content, start.mark, true, start.empty
		st.murky = opensNestedList(l)
		st.table = nil
	case startQuote:
		st.quote, st.inside = true, true
		st.table = nil
	case startSetext:
		if st.table != nil {
			// goldmark closes the paragraph for the heading, the table takes
			// all its lines, and the underline is read as what it would be
			// alone (text, an empty list item, or the start of the next
			// paragraph): the chunker does not follow it.
			st.underlined, st.lost = true, true
		}
		st.table = nil
		if st.refPara {
			// An underline under nothing but link reference definitions is
			// text of the paragraph; under more, a heading's.
			st.murky, st.para = true, true
			return
		}
	case startHeading, startBreak:
		st.table = nil
	default:
		if col >= 4 && !para {
			break // indented code
		}
		st.para = true
		st.tableRow(l, para)
	}
	if !st.para {
		st.table, st.prevHead, st.noTable, st.refPara = nil, nil, false, false
	}
}

// tableRow follows a table at the margin: a table the chunker may cut
// between rows begins a paragraph, its header the paragraph's first line
// and its delimiter row the second. Any other (after lines of text, or
// after link reference definitions) it leaves whole: the lines before
// its header may yet become a setext heading's, which goldmark places
// after the table.
func (st *scanState) tableRow(l []byte, para bool) {
	if !para {
		col, i := indentation(l)
		st.noTable = col <= 3 && i < len(l) && l[i] == '['
		st.refPara = st.noTable
		st.prevHead = append(st.prevHead[:0], l...)
		return
	}
	if st.table != nil || st.noTable {
		return
	}
	st.noTable = true // whatever follows the second line
	if st.prevHead != nil && isDelimiterRow(l) {
		pair := append(append(append([]byte(nil), st.prevHead...), '\n'), l...)
		pair = append(pair, '\n')
		if isTable(pair) {
			st.table, st.noTable = pair, false
		}
	}
	st.prevHead = nil
}

// isDelimiterRow: | :--- | ---: |, the row under a table's header; it
// takes every line goldmark's table extension may take for one (and
// a few more).
func isDelimiterRow(l []byte) bool {
	t := bytes.TrimSpace(l)
	if len(t) == 0 || bytes.IndexByte(t, '-') < 0 {
		return false
	}
	for _, b := range t {
		switch b {
		case '|', '-', ':', ' ', '\t', '\v', '\f', '\r', '\n':
		default:
			return false
		}
	}
	return true
}

// isTable asks goldmark whether a header and a delimiter row make a
// table.
func isTable(pair []byte) bool {
	doc := markdownParser().Parse(text.NewReader(pair))
	first := doc.FirstChild()
	return first != nil && first.NextSibling() == nil && first.Kind().String() == "Table"
}

// indentation is a line's indentation in columns (a tab to the next
// multiple of 4) and the index of its first other character.
func indentation(l []byte) (col, i int) {
	for i < len(l) {
		switch l[i] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col, i
		}
		i++
	}
	return col, i
}

type startKind int

const (
	startNone startKind = iota
	startFence
	startHTML  // kinds 1–6
	startHTML7 // kind 7, which does not interrupt a paragraph
	startList
	startQuote
	startHeading
	startBreak
	startSetext
)

// blockStartInfo is what block a line starts at the top level.
type blockStartInfo struct {
	kind       startKind
	fence      byte
	fenceLen   int
	html       int
	closed     bool // an HTML block that ends on its first line
	mark       byte // list marker
	content    int  // a list item's content column
	interrupts bool // the list item may interrupt a paragraph
	empty      bool // a list marker alone on its line
}

// blockStart classifies a line by its start (CommonMark 4–5), when it
// is indented at most three columns.
func blockStart(l []byte, col, i int, para bool) blockStartInfo {
	if col > 3 || i >= len(l) {
		return blockStartInfo{}
	}
	rest := l[i:]
	switch c := rest[0]; {
	case c == '`' || c == '~':
		if n := run(rest, c); n >= 3 && (c == '~' || bytes.IndexByte(rest[n:], '`') < 0) {
			return blockStartInfo{kind: startFence, fence: c, fenceLen: n}
		}
	case c == '#':
		if n := run(rest, '#'); n <= 6 && (n == len(rest) || rest[n] == ' ' || rest[n] == '\t') {
			return blockStartInfo{kind: startHeading}
		}
	case c == '>':
		return blockStartInfo{kind: startQuote}
	case c == '<':
		return htmlStart(l)
	}
	if para && (rest[0] == '=' || rest[0] == '-') && isSetext(rest) {
		return blockStartInfo{kind: startSetext}
	}
	if isThematicBreak(l) {
		return blockStartInfo{kind: startBreak}
	}
	if m, ok := listMarker(l, col); ok {
		return blockStartInfo{kind: startList, mark: m.mark, content: m.content, interrupts: !m.empty && (m.ordered < 0 || m.ordered == 1), empty: m.empty}
	}
	return blockStartInfo{}
}

func run(b []byte, c byte) int {
	n := 0
	for n < len(b) && b[n] == c {
		n++
	}
	return n
}

func isFenceOpen(rest []byte) bool {
	if len(rest) == 0 || (rest[0] != '`' && rest[0] != '~') {
		return false
	}
	n := run(rest, rest[0])
	return n >= 3 && (rest[0] == '~' || bytes.IndexByte(rest[n:], '`') < 0)
}

// closesFence: a run of the fence's character at least as long, then
// nothing but blanks.
func closesFence(rest []byte, c byte, n int) bool {
	k := run(rest, c)
	return k >= n && isBlankLine(rest[k:])
}

// isSetext: a setext heading's underline, = or - and trailing blanks.
func isSetext(rest []byte) bool {
	k := run(rest, rest[0])
	return k >= 1 && isBlankLine(rest[k:])
}

type marker struct {
	mark    byte
	ordered int // the number, -1 for a bullet
	content int // the content column
	empty   bool
}

// listMarker reads a list item's marker: - * + or 1–9 digits and . or ),
// then a blank or the line's end.
func listMarker(l []byte, col int) (marker, bool) {
	_, i := indentation(l)
	rest := l[i:]
	if len(rest) == 0 {
		return marker{}, false
	}
	m := marker{ordered: -1}
	w := 0
	switch c := rest[0]; {
	case c == '-' || c == '*' || c == '+':
		m.mark, w = c, 1
	case c >= '0' && c <= '9':
		k := 0
		n := 0
		for k < len(rest) && k < 9 && rest[k] >= '0' && rest[k] <= '9' {
			n = n*10 + int(rest[k]-'0')
			k++
		}
		if k >= len(rest) || (rest[k] != '.' && rest[k] != ')') {
			return marker{}, false
		}
		m.mark, m.ordered, w = rest[k], n, k+1
	default:
		return marker{}, false
	}
	after := rest[w:]
	if len(after) > 0 && after[0] != ' ' && after[0] != '\t' {
		return marker{}, false
	}
	if isBlankLine(after) {
		m.empty = true
		m.content = col + w + 1
		return m, true
	}
	spaces, k := indentation(after)
	_ = k
	if spaces > 4 {
		spaces = 1 // indented code in the item: one space belongs to the marker
	}
	m.content = col + w + spaces
	return m, true
}

// opensNestedList: an item whose first line opens a list in it (- - a,
// - *): what goldmark makes of the lines after it the chunker does not
// follow.
func opensNestedList(l []byte) bool {
	_, i := indentation(l)
	rest := bytes.TrimLeft(l[i:], "0123456789")
	if len(rest) == 0 {
		return false
	}
	rest = bytes.TrimLeft(rest[1:], " \t")
	_, ok := listMarker(rest, 0)
	return ok
}

// htmlStart classifies a line beginning with < by asking goldmark, whose
// HTML block starts are CommonMark's (4.6).
func htmlStart(l []byte) blockStartInfo {
	doc := markdownParser().Parse(text.NewReader(append([]byte(nil), l...)))
	h, ok := doc.FirstChild().(*gast.HTMLBlock)
	if !ok {
		return blockStartInfo{}
	}
	kind := int(h.HTMLBlockType)
	if kind == 7 {
		return blockStartInfo{kind: startHTML7, html: 7}
	}
	return blockStartInfo{kind: startHTML, html: kind, closed: h.HasClosure()}
}
