package office

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxRepeat bounds one ODF repeat count that carries content (an empty
// row or cell repeated to the sheet's end is only skipped).
const MaxRepeat = 10_000

func (p *pkg) odf(doc *Document) error {
	if err := p.odfEncrypted(); err != nil {
		return err
	}
	const content = "content.xml"
	if !p.has(content) {
		return &PartError{Part: content, Err: errMissing}
	}
	o := &odfReader{doc: doc, styles: map[string]span{}, numbered: map[string]bool{}}
	switch doc.Format {
	case ODS:
		doc.Unit = "sheet"
	case ODP:
		doc.Unit = "slide"
	}
	if p.has("styles.xml") {
		// Named list styles (numbered or not) live there.
		if err := p.walk("styles.xml", o.listStyles, nil, nil); err != nil {
			return err
		}
	}
	if err := p.walk(content, o.start, o.end, o.text); err != nil {
		return err
	}
	if doc.Format == ODT {
		doc.Parts = []Part{{Markdown: o.w.String()}}
	}
	return nil
}

// odfEncrypted: a password-protected ODF file lists encryption data for
// its parts in the manifest (and its content.xml is ciphertext).
func (p *pkg) odfEncrypted() error {
	const manifest = "META-INF/manifest.xml"
	if !p.has(manifest) {
		return nil
	}
	encrypted := false
	err := p.walk(manifest, func(d *decoder, t startTag) error {
		if t.local == "encryption-data" {
			encrypted = true
		}
		return nil
	}, nil, nil)
	if err != nil {
		return err
	}
	if encrypted {
		return ErrEncrypted
	}
	return nil
}

type odfCell struct {
	row, col int
	text     string
}

// odfReader converts content.xml in one pass.
type odfReader struct {
	doc      *Document
	w        mdWriter
	styles   map[string]span // automatic text styles: bold, italic, strike
	numbered map[string]bool // list styles whose first level is numbered
	curStyle string
	// the paragraph being read
	para    []span
	inPara  bool
	heading int
	link    string
	spans   []span // open text:span emphasis
	// lists
	lists   []odfList
	counter []int
	// tables: a stack, as in documents tables nest
	tables []*tableBuilder
	// spreadsheet
	sheetName            string
	cells                []odfCell
	row, col             int
	rowRepeat, colRepeat int
	cellText             []string
	cellValue            string
	// presentation
	tooLarge   bool // a paragraph passed MaxRunsPerParagraph
	pageName   string
	frameClass string
	title      []string
	notes      mdWriter
}

type odfList struct {
	style string
	n     int
}

func repeat(t startTag, attr string) int {
	n, err := strconv.Atoi(t.attr(attr))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

func (o *odfReader) listStyles(d *decoder, t startTag) error {
	switch t.local {
	case "list-style":
		o.curStyle = t.attr("name")
	case "list-level-style-number":
		if t.attr("level") == "1" && d.parent() == "list-style" {
			o.numbered[o.curStyle] = true
		}
	}
	return nil
}

func (o *odfReader) start(d *decoder, t startTag) error {
	switch t.local {
	// styles
	case "style":
		if d.in("automatic-styles") {
			o.curStyle = t.attr("name")
		}
	case "text-properties":
		if d.in("automatic-styles") && o.curStyle != "" {
			s := o.styles[o.curStyle]
			s.bold = s.bold || t.attr("font-weight") == "bold"
			s.italic = s.italic || t.attr("font-style") == "italic"
			s.strike = s.strike || (t.attr("text-line-through-style") != "" && t.attr("text-line-through-style") != "none")
			if isMonoFont(t.attr("font-name")) {
				s.code = true
			}
			o.styles[o.curStyle] = s
		}
	case "list-style":
		o.curStyle = t.attr("name")
	case "list-level-style-number":
		if t.attr("level") == "1" && o.curStyle != "" {
			o.numbered[o.curStyle] = true
		}
	// text
	case "h":
		o.inPara, o.para = true, nil
		o.heading = max(1, min(repeat(t, "outline-level"), 6))
	case "p":
		o.inPara, o.para, o.heading = true, nil, 0
		o.spans = append(o.spans[:0], o.styles[t.attr("style-name")])
	case "span":
		o.spans = append(o.spans, o.styles[t.attr("style-name")])
	case "a":
		o.link = t.attr("href")
	case "s":
		if o.inPara {
			o.add(strings.Repeat(" ", min(repeat(t, "c"), 100)))
		}
	case "tab":
		if o.inPara {
			o.add("\t")
		}
	case "line-break":
		if o.inPara {
			o.add("\n")
		}
	case "list":
		style := t.attr("style-name")
		if style == "" && len(o.lists) > 0 {
			style = o.lists[len(o.lists)-1].style
		}
		o.lists = append(o.lists, odfList{style: style})
	case "list-item":
		if n := len(o.lists); n > 0 {
			o.lists[n-1].n++
		}
	// tables
	case "table":
		if o.doc.Format == ODS && len(o.tables) == 0 {
			o.sheetName, o.cells, o.row = t.attr("name"), nil, 0
		}
		o.tables = append(o.tables, &tableBuilder{})
	case "table-row":
		o.rowRepeat, o.col = repeat(t, "number-rows-repeated"), 0
		if n := len(o.tables); n > 0 {
			o.tables[n-1].row()
		}
	case "table-cell", "covered-table-cell":
		o.colRepeat, o.cellText = repeat(t, "number-columns-repeated"), nil
		o.cellValue = ""
		switch t.attr("value-type") {
		case "date":
			o.cellValue = t.attr("date-value")
		case "boolean":
			o.cellValue = strings.ToUpper(t.attr("boolean-value"))
		}
		if n := len(o.tables); n > 0 && o.doc.Format != ODS {
			o.tables[n-1].cell()
			return o.tables[n-1].check("content.xml")
		}
	// presentation
	case "page":
		if d.parent() == "presentation" {
			o.pageName, o.title = t.attr("name"), nil
			o.w = mdWriter{}
			o.notes = mdWriter{}
		}
	case "frame":
		o.frameClass = t.attr("class")
	case "note":
		// footnote and endnote bodies would land mid-sentence
	}
	return nil
}

func (o *odfReader) add(s string) {
	var r span
	for _, sp := range o.spans {
		r.bold, r.italic, r.strike, r.code = r.bold || sp.bold, r.italic || sp.italic, r.strike || sp.strike, r.code || sp.code
	}
	r.text, r.link = s, o.link
	if len(o.para) >= MaxRunsPerParagraph {
		o.tooLarge = true
		return
	}
	o.para = append(o.para, r)
}

func (o *odfReader) text(d *decoder, b []byte) error {
	if o.inPara && !d.in("note") && !d.in("annotation") {
		switch d.stack[len(d.stack)-1] {
		case "p", "h", "span", "a":
			o.add(string(b))
		}
	}
	return nil
}

func (o *odfReader) end(d *decoder, local string) error {
	if o.tooLarge {
		return &TooLargeError{What: fmt.Sprintf("a paragraph of content.xml (over %d runs)", MaxRunsPerParagraph), Limit: MaxMarkdownBytes}
	}
	switch local {
	case "style", "list-style":
		o.curStyle = ""
	case "span":
		if len(o.spans) > 1 {
			o.spans = o.spans[:len(o.spans)-1]
		}
	case "a":
		o.link = ""
	case "p", "h":
		if !o.inPara || d.in("note") {
			return nil
		}
		o.inPara = false
		body := strings.TrimSpace(inline(o.para))
		o.para = nil
		return o.paragraph(d, body)
	case "list":
		if n := len(o.lists); n > 0 {
			o.lists = o.lists[:n-1]
		}
	case "table-cell", "covered-table-cell":
		if o.doc.Format == ODS && len(o.tables) == 1 {
			text := strings.Join(o.cellText, "\n")
			if o.cellValue != "" {
				text = o.cellValue
			}
			if text != "" {
				reps := min(o.colRepeat, MaxRepeat)
				for range reps {
					o.cells = append(o.cells, odfCell{o.row, o.col, text})
					o.col++
				}
				o.col += o.colRepeat - reps
			} else {
				o.col += o.colRepeat
			}
			if len(o.cells) > MaxSheetCells {
				return &TooLargeError{What: fmt.Sprintf("sheet %s", o.sheetName), Limit: MaxMarkdownBytes}
			}
		}
	case "table-row":
		if o.doc.Format == ODS && len(o.tables) == 1 {
			o.row += o.repeatRow()
			if len(o.cells) > MaxSheetCells {
				return &TooLargeError{What: fmt.Sprintf("sheet %s", o.sheetName), Limit: MaxMarkdownBytes}
			}
		}
	case "table":
		n := len(o.tables)
		if n == 0 {
			return nil
		}
		t := o.tables[n-1]
		o.tables = o.tables[:n-1]
		if o.doc.Format == ODS && n == 1 {
			o.sheet()
			return nil
		}
		md := table(t.done())
		if n > 1 {
			o.tables[n-2].add(strings.ReplaceAll(strings.TrimSpace(md), "\n", " "))
			return nil
		}
		o.target().block(md)
	case "frame":
		o.frameClass = ""
	case "page":
		if o.doc.Format == ODP && d.parent() == "presentation" {
			o.slide()
		}
	}
	return o.w.check()
}

// repeatRow copies the cells of a repeated row that has content (up to
// MaxRepeat times) and returns how many rows it stands for.
func (o *odfReader) repeatRow() int {
	if o.rowRepeat <= 1 {
		return 1
	}
	var rowCells []odfCell
	for i := len(o.cells) - 1; i >= 0 && o.cells[i].row == o.row; i-- {
		rowCells = append(rowCells, o.cells[i])
	}
	if len(rowCells) == 0 {
		return o.rowRepeat
	}
	for k := 1; k < min(o.rowRepeat, MaxRepeat) && len(o.cells) <= MaxSheetCells; k++ {
		for _, c := range rowCells {
			o.cells = append(o.cells, odfCell{c.row + k, c.col, c.text})
		}
	}
	return o.rowRepeat
}

// paragraph places a finished paragraph: a table cell, the sheet's
// current cell, a slide title, a list item or a block.
func (o *odfReader) paragraph(d *decoder, body string) error {
	if n := len(o.tables); n > 0 && (d.in("table-cell") || d.in("covered-table-cell")) {
		if o.doc.Format == ODS && n == 1 {
			if body != "" {
				o.cellText = append(o.cellText, body)
			}
			return nil
		}
		o.tables[n-1].add(body)
		return nil
	}
	if body == "" {
		return nil
	}
	if o.doc.Format == ODP && o.frameClass == "title" && !d.in("notes") {
		o.title = append(o.title, strings.ReplaceAll(body, "\n", " "))
		return nil
	}
	w := o.target()
	switch {
	case o.heading > 0:
		w.block(strings.Repeat("#", o.heading) + " " + strings.ReplaceAll(body, "\n", " "))
	case len(o.lists) > 0:
		l := o.lists[len(o.lists)-1]
		ordered := o.numbered[o.lists[0].style]
		w.listItem(len(o.lists)-1, ordered, l.n, body)
	default:
		w.block(body)
	}
	return nil
}

func (o *odfReader) target() *mdWriter {
	if o.doc.Format == ODP && o.frameClass == "notes" {
		return &o.notes
	}
	return &o.w
}

func (o *odfReader) sheet() {
	md := fmt.Sprintf("## Sheet: %s\n", o.sheetName)
	if len(o.cells) == 0 {
		md += "\n(no cells)\n"
	} else {
		minRow, minCol, maxRow, maxCol := o.cells[0].row, o.cells[0].col, 0, 0
		for _, c := range o.cells {
			minRow, minCol = min(minRow, c.row), min(minCol, c.col)
			maxRow, maxCol = max(maxRow, c.row), max(maxCol, c.col)
		}
		rows, cols := maxRow-minRow+1, maxCol-minCol+1
		if int64(rows)*int64(cols) > MaxSheetCells {
			md += fmt.Sprintf("\n(the used range, %d rows × %d columns, is too large to show)\n", rows, cols)
		} else {
			grid := make([][]string, rows)
			for i := range grid {
				grid[i] = make([]string, cols)
			}
			for _, c := range o.cells {
				grid[c.row-minRow][c.col-minCol] = c.text
			}
			md += "\n" + table(grid)
		}
	}
	o.doc.Parts = append(o.doc.Parts, Part{Title: o.sheetName, Markdown: md})
	o.cells = nil
}

func (o *odfReader) slide() {
	n := len(o.doc.Parts) + 1
	title := strings.Join(o.title, " ")
	var b mdWriter
	head := fmt.Sprintf("## Slide %d", n)
	if title != "" {
		head += ": " + title
	}
	b.block(head)
	b.block(strings.TrimSpace(o.w.String()))
	if notes := strings.TrimSpace(o.notes.String()); notes != "" {
		b.block("Notes:\n\n" + notes)
	}
	o.doc.Parts = append(o.doc.Parts, Part{Title: title, Markdown: b.String()})
	o.w = mdWriter{}
}
