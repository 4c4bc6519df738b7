package pdftext

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Markdown turns laid-out pages into Markdown, one string per page, with
// the structure the layout shows: headings by font size (and short bold
// lines of the body's size), bulleted and numbered lists, tables by cells
// that line up in columns, paragraphs joined from their lines, bold and
// italic runs. Running headers and footers (a line at the top or the
// bottom of the page that repeats on half the pages or more) and page
// numbers are left out. The pages are judged together: the body size,
// the heading sizes and the repeats come from all of them.
func Markdown(pages []*Page) []string {
	var all [][]*line
	for _, p := range pages {
		all = append(all, pageLines(p))
	}
	dropRunning(pages, all)
	st := styleOf(all)
	out := make([]string, len(pages))
	for i, lines := range all {
		out[i] = st.render(pages[i], lines)
	}
	return out
}

// Thresholds, in ems of the text's size.
const (
	// sameLine: baselines this close are one line.
	sameLine = 0.35
	// wordGap: a gap this wide between two strings is a space.
	wordGap = 0.15
	// cellGap: a gap this wide separates cells (table columns, a list's
	// marker and its text).
	cellGap = 0.5
	// headingRatio: text this much larger than the body's is a heading.
	headingRatio = 1.12
	// marginZone: the top and bottom fraction of a page where running
	// headers, footers and page numbers live.
	marginZone = 0.08
)

// cell is text that stands apart on its line.
type cell struct {
	x, end       float64
	plain, text  string // without and with inline **bold** and *italic*
	bold, italic bool   // every letter of it
}

type line struct {
	y, size float64
	cells   []cell
	x, end  float64
}

func (l *line) plain() string {
	parts := make([]string, len(l.cells))
	for i, c := range l.cells {
		parts[i] = c.plain
	}
	return strings.Join(parts, " ")
}

func (l *line) text() string {
	parts := make([]string, len(l.cells))
	for i, c := range l.cells {
		parts[i] = c.text
	}
	return strings.Join(parts, " ")
}

func (l *line) bold() bool {
	for _, c := range l.cells {
		if !c.bold {
			return false
		}
	}
	return len(l.cells) > 0
}

// pageLines groups a page's spans into lines, top to bottom, and each
// line's spans into cells, left to right.
func pageLines(p *Page) []*line {
	spans := slices.Clone(p.Spans)
	slices.SortStableFunc(spans, func(a, b Span) int {
		if a.Y != b.Y {
			if a.Y > b.Y {
				return -1
			}
			return 1
		}
		return compareFloat(a.X, b.X)
	})
	var lines []*line
	var cur []Span
	flush := func() {
		if len(cur) > 0 {
			if l := makeLine(cur); l != nil {
				lines = append(lines, l)
			}
		}
		cur = nil
	}
	for _, s := range spans {
		if s.Size <= 0 {
			s.Size = 1
		}
		if len(cur) > 0 && math.Abs(cur[0].Y-s.Y) > sameLine*max(cur[0].Size, s.Size) {
			flush()
		}
		cur = append(cur, s)
	}
	flush()
	return lines
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// segment is a styled piece of a cell's text.
type segment struct {
	text         string
	bold, italic bool
}

func makeLine(spans []Span) *line {
	slices.SortStableFunc(spans, func(a, b Span) int { return compareFloat(a.X, b.X) })
	l := &line{y: spans[0].Y}
	var segs []segment
	var cx, cend float64
	sizeChars := map[float64]int{}
	flush := func() {
		if c, ok := makeCell(segs, cx, cend); ok {
			l.cells = append(l.cells, c)
		}
		segs = nil
	}
	for i, s := range spans {
		n := len([]rune(strings.TrimSpace(s.Text)))
		sizeChars[math.Round(s.Size*2)/2] += n
		if i == 0 {
			cx, cend = s.X, s.End
			segs = append(segs, segment{s.Text, s.Bold, s.Italic})
			continue
		}
		gap := s.X - cend
		em := max(s.Size, spans[i-1].Size)
		if gap > cellGap*em {
			flush()
			cx = s.X
		} else if gap > wordGap*em && !endsSpace(segs) && !strings.HasPrefix(s.Text, " ") {
			segs = append(segs, segment{" ", false, false})
		}
		segs = append(segs, segment{s.Text, s.Bold, s.Italic})
		cend = max(cend, s.End)
	}
	flush()
	if len(l.cells) == 0 {
		return nil
	}
	best := 0
	for size, n := range sizeChars {
		if n > best || n == best && size > l.size {
			l.size, best = size, n
		}
	}
	l.x, l.end = l.cells[0].x, l.cells[len(l.cells)-1].end
	return l
}

func endsSpace(segs []segment) bool {
	return len(segs) > 0 && strings.HasSuffix(segs[len(segs)-1].text, " ")
}

// makeCell writes a cell's text, with **bold** and *italic* around the
// styled runs when the cell is not all of one style.
func makeCell(segs []segment, x, end float64) (cell, bool) {
	var plain strings.Builder
	allBold, allItalic, letters := true, true, 0
	for _, s := range segs {
		plain.WriteString(s.text)
		if n := countLetters(s.text); n > 0 {
			letters += n
			allBold = allBold && s.bold
			allItalic = allItalic && s.italic
		}
	}
	text := collapseSpaces(plain.String())
	if text == "" {
		return cell{}, false
	}
	c := cell{x: x, end: end, plain: text, text: escapeMarkdown(text), bold: allBold && letters > 0, italic: allItalic && letters > 0}
	if !c.bold && !c.italic {
		// Merge runs of one style, then mark the styled ones.
		var b strings.Builder
		for i := 0; i < len(segs); {
			j := i
			var run strings.Builder
			for j < len(segs) && segs[j].bold == segs[i].bold && segs[j].italic == segs[i].italic {
				run.WriteString(segs[j].text)
				j++
			}
			b.WriteString(mark(run.String(), segs[i].bold, segs[i].italic))
			i = j
		}
		c.text = collapseSpaces(b.String())
	}
	return c, true
}

// mark wraps the text of a run in Markdown's emphasis, spaces outside.
func mark(s string, bold, italic bool) string {
	core := strings.TrimSpace(s)
	if core == "" || (!bold && !italic) {
		return escapeMarkdown(s)
	}
	lead := s[:len(s)-len(strings.TrimLeft(s, " "))]
	trail := s[len(strings.TrimRight(s, " ")):]
	m := "*"
	switch {
	case bold && italic:
		m = "***"
	case bold:
		m = "**"
	}
	return lead + m + escapeMarkdown(core) + m + trail
}

func countLetters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

func collapseSpaces(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// escapeMarkdown keeps text from reading as markup it is not: emphasis
// marks, a leading heading mark, table bars.
var markdownEscaper = strings.NewReplacer("*", `\*`, "_", `\_`, "|", `\|`, "`", "\\`")

func escapeMarkdown(s string) string { return markdownEscaper.Replace(s) }

var (
	pageNumberRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(page\s+)?[-–—]?\s*(\d{1,5}|[ivxlcdm]{1,7})\s*[-–—]?(\s*(/|of)\s*\d{1,5})?$`)
	})
	bulletRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([•◦▪▫‣⁃∙·●○■□–—*\-])(\s+|$)`)
	})
	numberRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d{1,3}|[a-z])([.)])(\s+|$)`)
	})
)

// dropRunning removes running headers and footers and page numbers: a
// line in the top or bottom zone of the page that comes back as it is on
// half the pages or more (and two at least); the outermost line of the
// page when it comes back so with only its numbers changed and one of
// them is the page's own ("Annual report, page 3"); a line that is only a
// page number ("7", "- 7 -", "Page 7 of 20").
func dropRunning(pages []*Page, all [][]*line) {
	top := func(p *Page, l *line) bool { return l.y > p.Height*(1-marginZone) }
	bottom := func(p *Page, l *line) bool { return l.y < p.Height*marginZone }
	inZone := func(p *Page, l *line) bool { return top(p, l) || bottom(p, l) }
	// outer: the first line of the page in the top zone, the last in the
	// bottom one.
	outer := func(p *Page, lines []*line, j int) bool {
		return j == 0 && top(p, lines[j]) || j == len(lines)-1 && bottom(p, lines[j])
	}
	numbered := func(l *line) string {
		return collapseSpaces(strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return '#'
			}
			return r
		}, strings.ToLower(l.plain())))
	}
	exact, byNumber := map[string]int{}, map[string]int{}
	for i, lines := range all {
		seenExact, seenNumbered := map[string]bool{}, map[string]bool{}
		for j, l := range lines {
			if !inZone(pages[i], l) {
				continue
			}
			seenExact[collapseSpaces(l.plain())] = true
			if outer(pages[i], lines, j) {
				seenNumbered[numbered(l)] = true
			}
		}
		for k := range seenExact {
			exact[k]++
		}
		for k := range seenNumbered {
			byNumber[k]++
		}
	}
	repeats := func(n int) bool { return n >= 2 && 2*n >= len(pages) }
	for i, lines := range all {
		pageNo := fmt.Sprint(pages[i].Number)
		keep := lines[:0]
		for j, l := range lines {
			drop := false
			if inZone(pages[i], l) {
				text := collapseSpaces(l.plain())
				switch {
				case pageNumberRE().MatchString(text), repeats(exact[text]):
					drop = true
				case outer(pages[i], lines, j) && repeats(byNumber[numbered(l)]):
					drop = slices.Contains(strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsDigit(r) }), pageNo)
				}
			}
			if !drop {
				keep = append(keep, l)
			}
		}
		all[i] = keep
	}
}

// style is what the document's lines are measured against.
type style struct {
	body     float64   // the body text's size
	headings []float64 // sizes of headings, largest first
	pitch    float64   // the usual distance between the body's lines
}

func styleOf(all [][]*line) style {
	chars := map[float64]int{}
	for _, lines := range all {
		for _, l := range lines {
			chars[l.size] += len([]rune(l.plain()))
		}
	}
	var st style
	best := 0
	for size, n := range chars {
		if n > best || n == best && size < st.body {
			st.body, best = size, n
		}
	}
	for size := range chars {
		if size > st.body*headingRatio {
			st.headings = append(st.headings, size)
		}
	}
	slices.SortFunc(st.headings, func(a, b float64) int { return compareFloat(b, a) })
	pitches := map[float64]int{}
	for _, lines := range all {
		for i := 1; i < len(lines); i++ {
			a, b := lines[i-1], lines[i]
			if a.size == st.body && b.size == st.body {
				pitches[math.Round((a.y-b.y)*2)/2]++
			}
		}
	}
	best = 0
	for p, n := range pitches {
		if p > 0 && (n > best || n == best && p < st.pitch) {
			st.pitch, best = p, n
		}
	}
	if st.pitch == 0 {
		st.pitch = st.body * 1.2
	}
	return st
}

// headingLevel is the Markdown level of a line that is a heading, else 0.
func (st style) headingLevel(l *line) int {
	if len(l.cells) != 1 && !l.bold() {
		return 0
	}
	for i, h := range st.headings {
		if math.Abs(l.size-h) < 0.25 {
			return min(i+1, 6)
		}
	}
	text := l.plain()
	if l.bold() && len(l.cells) == 1 && math.Abs(l.size-st.body) < 0.75 && len([]rune(text)) <= 80 &&
		!strings.ContainsAny(text[len(text)-1:], ".,;:") && !listMarker(text) {
		return min(len(st.headings)+1, 6)
	}
	return 0
}

func listMarker(s string) bool {
	return bulletRE().MatchString(s) || numberRE().MatchString(s)
}

// block is one piece of the page's Markdown.
type block struct {
	kind  string // "h", "p", "li", "table"
	level int    // heading level; list depth
	text  string
	lines []*line // table rows
	last  *line
	// indent is where a list item's text starts, for its continuation
	// lines; marker is its marker ("-", "1.").
	indent float64
	marker string
	markX  float64
}

// render writes one page's lines as Markdown blocks.
func (st style) render(p *Page, lines []*line) string {
	// The right edge of the text (as far from the page's right edge as
	// the text is from its left one, or further): a line that ends short
	// of it where the next line's first word would have fitted was
	// broken on purpose.
	right, left := 0.0, math.Inf(1)
	for _, l := range lines {
		if math.Abs(l.size-st.body) < 0.75 {
			right, left = max(right, l.end), min(left, l.x)
		}
	}
	if p.Width > 0 && left < p.Width/2 {
		right = max(right, p.Width-left)
	}
	var blocks []*block
	var list []float64 // marker x of the open list's levels
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		var prev *block
		if len(blocks) > 0 {
			prev = blocks[len(blocks)-1]
		}
		gap := math.Inf(1)
		if prev != nil && prev.last != nil {
			gap = prev.last.y - l.y
		}
		if n := st.tableAt(lines, i); n > 0 {
			blocks = append(blocks, &block{kind: "table", lines: lines[i : i+n], last: lines[i+n-1]})
			list = nil
			i += n - 1
			continue
		}
		if lvl := st.headingLevel(l); lvl > 0 {
			if prev != nil && prev.kind == "h" && prev.level == lvl && gap <= 1.6*l.size {
				prev.text += " " + l.plain()
				prev.last = l
				continue
			}
			blocks = append(blocks, &block{kind: "h", level: lvl, text: l.plain(), last: l})
			list = nil
			continue
		}
		if marker, text, textX, ok := itemOf(l); ok {
			for len(list) > 0 && l.x < list[len(list)-1]-0.5*l.size {
				list = list[:len(list)-1]
			}
			if len(list) == 0 || l.x > list[len(list)-1]+0.5*l.size {
				list = append(list, l.x)
			}
			blocks = append(blocks, &block{kind: "li", level: len(list) - 1, text: text, marker: marker, indent: textX, markX: l.x, last: l})
			continue
		}
		joinable := prev != nil && prev.last != nil && gap <= max(st.pitch*1.15, 1.3*l.size) && math.Abs(prev.last.size-l.size) < 0.75
		if joinable && prev.kind == "li" && math.Abs(l.x-prev.indent) < l.size {
			prev.text = joinText(prev.text, l.text(), wrapped(prev.last, l, right))
			prev.last = l
			continue
		}
		if joinable && prev.kind == "p" && l.x < prev.last.x+l.size {
			prev.text = joinText(prev.text, l.text(), wrapped(prev.last, l, right))
			prev.last = l
			continue
		}
		blocks = append(blocks, &block{kind: "p", text: l.text(), last: l})
		list = nil
	}
	var b strings.Builder
	for i, bl := range blocks {
		if i > 0 && !(bl.kind == "li" && blocks[i-1].kind == "li" && (bl.level > 0 || bulletKind(bl.marker) == bulletKind(blocks[i-1].marker))) {
			b.WriteString("\n")
		}
		switch bl.kind {
		case "h":
			fmt.Fprintf(&b, "%s %s\n", strings.Repeat("#", bl.level), escapeMarkdown(bl.text))
		case "li":
			fmt.Fprintf(&b, "%s%s %s\n", strings.Repeat("  ", bl.level), bl.marker, bl.text)
		case "table":
			writeTable(&b, bl.lines, st)
		default:
			fmt.Fprintf(&b, "%s\n", bl.text)
		}
	}
	return b.String()
}

// bulletKind tells a bulleted list's marker from a numbered one's: a
// list of the other kind starts a list of its own.
func bulletKind(marker string) bool { return marker == "-" }

// joinText joins a paragraph's next line: a line break where the line
// was broken on purpose; else a space, or nothing after a hyphen that
// ends the line.
func joinText(a, b string, wrapped bool) string {
	switch {
	case !wrapped:
		return a + "\n" + b
	case strings.HasSuffix(a, "-"):
		return a + b
	}
	return a + " " + b
}

// wrapped says whether prev ends where the text wrapped: the first word
// of next would not have fitted before the right edge.
func wrapped(prev, next *line, right float64) bool {
	text := next.plain()
	word, _, _ := strings.Cut(text, " ")
	perChar := (next.end - next.x) / float64(max(1, len([]rune(text))))
	return prev.end+(float64(len([]rune(word)))+1)*perChar >= right-0.5*next.size
}

// itemOf reads a list item: its marker as Markdown writes it, its text,
// and where the text starts.
func itemOf(l *line) (marker, text string, textX float64, ok bool) {
	first := l.cells[0]
	rest := l.cells[1:]
	var m []string
	if m = bulletRE().FindStringSubmatch(first.plain); m != nil {
		marker = "-"
	} else if m = numberRE().FindStringSubmatch(first.plain); m != nil {
		marker = m[1] + "."
		if m[2] == ")" && !isDigits(m[1]) {
			marker = m[1] + ")"
		}
		if !isDigits(m[1]) && m[3] == "" && len(rest) == 0 {
			return "", "", 0, false
		}
	} else {
		return "", "", 0, false
	}
	parts := []string{}
	textX = first.x
	if head := strings.TrimSpace(first.plain[len(m[0]):]); head != "" {
		// The marker and the text are one cell: the text keeps its
		// inline marks, past the marker.
		parts = append(parts, strings.TrimSpace(strings.TrimPrefix(first.text, escapeMarkdown(m[0]))))
		if strings.HasPrefix(parts[0], strings.TrimSpace(escapeMarkdown(m[0]))) {
			parts[0] = head
		}
	} else if len(rest) > 0 {
		textX = rest[0].x
	} else {
		return "", "", 0, false // a lone marker is no item
	}
	for _, c := range rest {
		parts = append(parts, c.text)
	}
	return marker, strings.Join(parts, " "), textX, true
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// tableAt is how many lines from i on make a table: two rows or more of
// two cells or more whose cells fall into columns that line up, each
// cell in a column of its own; 0 when they do not.
func (st style) tableAt(lines []*line, i int) int {
	n := 0
	for j := i; j < len(lines); j++ {
		l := lines[j]
		if len(l.cells) < 2 || st.headingLevel(l) > 0 && len(l.cells) < 2 {
			break
		}
		if _, _, _, item := itemOf(l); item && len(l.cells) <= 2 {
			break
		}
		if j > i && lines[j-1].y-l.y > 3*max(st.pitch, l.size*1.2) {
			break
		}
		n++
	}
	for ; n >= 2; n-- {
		if cols := columns(lines[i : i+n]); cols != nil {
			return n
		}
	}
	return 0
}

// columns finds the columns of table rows: the spans of x that the
// cells cover, merged where they overlap. nil when a row puts two cells
// in one column, or there are fewer than two columns.
func columns(rows []*line) [][2]float64 {
	var spans [][2]float64
	for _, r := range rows {
		for _, c := range r.cells {
			spans = append(spans, [2]float64{c.x, c.end})
		}
	}
	slices.SortFunc(spans, func(a, b [2]float64) int { return compareFloat(a[0], b[0]) })
	var cols [][2]float64
	for _, s := range spans {
		if n := len(cols); n > 0 && s[0] <= cols[n-1][1]+1 {
			cols[n-1][1] = max(cols[n-1][1], s[1])
			continue
		}
		cols = append(cols, s)
	}
	if len(cols) < 2 {
		return nil
	}
	for _, r := range rows {
		used := map[int]bool{}
		for _, c := range r.cells {
			k := columnOf(cols, c)
			if used[k] {
				return nil
			}
			used[k] = true
		}
	}
	return cols
}

func columnOf(cols [][2]float64, c cell) int {
	mid := (c.x + c.end) / 2
	for k, col := range cols {
		if mid >= col[0]-1 && mid <= col[1]+1 {
			return k
		}
	}
	return 0
}

// writeTable writes rows as a GFM table, the first row its header.
func writeTable(b *strings.Builder, rows []*line, st style) {
	cols := columns(rows)
	for i, r := range rows {
		cells := make([]string, len(cols))
		for _, c := range r.cells {
			text := c.text
			if i == 0 || c.bold && r.bold() {
				text = escapeMarkdown(c.plain)
			}
			cells[columnOf(cols, c)] = text
		}
		fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
		if i == 0 {
			fmt.Fprintf(b, "|%s\n", strings.Repeat(" --- |", len(cols)))
		}
	}
}
