package office

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// MaxSheetCells bounds the cells of one sheet's used range as rendered
// (a sheet with one cell at A1 and one at XFD1048576 would otherwise
// render seventeen billion).
const MaxSheetCells = 4_000_000

// MaxCellText bounds the text of all the cells of a workbook, counted as
// they are read: cells can all show one shared string (10,000 cells of a
// 1 MB string are 10 GB from a file of kilobytes). Cells past it are left
// out, and the document says it was cut.
const MaxCellText = 32 << 20

var errMissing = errors.New("missing from the archive")

func (p *pkg) xlsx(doc *Document) error {
	doc.Unit = "sheet"
	const workbook = "xl/workbook.xml"
	main := workbook
	if ct, err := p.contentTypeMain("spreadsheetml.sheet.main"); err == nil && ct != "" {
		main = ct
	} else if ct, err := p.contentTypeMain("ms-excel.sheet.macroEnabled.main"); err == nil && ct != "" {
		main = ct
	}
	rels, err := p.rels(main)
	if err != nil {
		return err
	}
	type sheetRef struct{ name, part string }
	var sheets []sheetRef
	date1904 := false
	err = p.walk(main, func(d *decoder, t startTag) error {
		switch t.local {
		case "sheet":
			sheets = append(sheets, sheetRef{t.attr("name"), rels[t.relID()]})
		case "workbookPr":
			v := t.attr("date1904")
			date1904 = v == "1" || v == "true"
		}
		return nil
	}, nil, nil)
	if err != nil {
		return err
	}
	var sharedPart, stylesPart string
	for _, target := range rels {
		switch {
		case strings.HasSuffix(target, "sharedStrings.xml"):
			sharedPart = target
		case strings.HasSuffix(target, "styles.xml"):
			stylesPart = target
		}
	}
	shared, err := p.sharedStrings(sharedPart)
	if err != nil {
		return err
	}
	dates, err := p.dateStyles(stylesPart)
	if err != nil {
		return err
	}
	for _, s := range sheets {
		md := fmt.Sprintf("## Sheet: %s\n", s.name)
		if s.part == "" || !p.has(s.part) {
			// A chart sheet or a missing part: named, with nothing in it.
			doc.Parts = append(doc.Parts, Part{Title: s.name, Markdown: md + "\n(no cells)\n"})
			continue
		}
		grid, err := p.sheetCells(s.part, shared, dates, date1904)
		if err != nil {
			return err
		}
		if len(grid) == 0 {
			md += "\n(no cells)\n"
		} else {
			md += "\n" + table(grid)
		}
		doc.Parts = append(doc.Parts, Part{Title: s.name, Markdown: md})
	}
	if p.cellsCut {
		doc.Truncated = true
		doc.Notes = append(doc.Notes, fmt.Sprintf("the cells hold more than %d MiB of text (many cells may show one long shared string): the cells past it are left out", MaxCellText>>20))
	}
	return nil
}

func (p *pkg) sharedStrings(part string) ([]string, error) {
	if part == "" || !p.has(part) {
		return nil, nil
	}
	var out []string
	var cur strings.Builder
	inPhonetic := false
	err := p.walk(part, func(d *decoder, t startTag) error {
		switch t.local {
		case "si":
			cur.Reset()
		case "rPh":
			inPhonetic = true
		}
		return nil
	}, func(d *decoder, local string) error {
		switch local {
		case "si":
			out = append(out, cur.String())
		case "rPh":
			inPhonetic = false
		}
		return nil
	}, func(d *decoder, b []byte) error {
		if !inPhonetic && d.stack[len(d.stack)-1] == "t" && d.in("si") {
			cur.Write(b)
			if cur.Len() > MaxMarkdownBytes {
				return &TooLargeError{What: "a shared string", Limit: MaxMarkdownBytes}
			}
		}
		return nil
	})
	return out, err
}

// dateStyles lists, per cell style index, whether its number format shows
// a date or time.
func (p *pkg) dateStyles(part string) ([]bool, error) {
	if part == "" || !p.has(part) {
		return nil, nil
	}
	custom := map[int]string{}
	var out []bool
	err := p.walk(part, func(d *decoder, t startTag) error {
		switch t.local {
		case "numFmt":
			id, _ := strconv.Atoi(t.attr("numFmtId"))
			custom[id] = t.attr("formatCode")
		case "xf":
			if d.parent() == "cellXfs" {
				id, _ := strconv.Atoi(t.attr("numFmtId"))
				out = append(out, isDateFormat(id, custom[id]))
			}
		}
		return nil
	}, nil, nil)
	return out, err
}

// isDateFormat: the built-in date formats (ECMA-376 §18.8.30) and custom
// codes with date or time letters outside quotes and brackets.
func isDateFormat(id int, code string) bool {
	if (id >= 14 && id <= 22) || (id >= 45 && id <= 47) || (id >= 27 && id <= 36) || (id >= 50 && id <= 58) {
		return true
	}
	if code == "" {
		return false
	}
	inQuote, inBracket := false, false
	for _, r := range code {
		switch {
		case r == '"':
			inQuote = !inQuote
		case inQuote:
		case r == '[':
			inBracket = true
		case r == ']':
			inBracket = false
		case inBracket:
		case strings.ContainsRune("dmyhsDMYHS", r):
			return true
		}
	}
	return false
}

// sheetCells reads a worksheet's cells into the rows of its used range.
func (p *pkg) sheetCells(part string, shared []string, dates []bool, date1904 bool) ([][]string, error) {
	type cell struct {
		row, col int
		text     string
	}
	var (
		cells          []cell
		maxRow, maxCol int
		minRow, minCol = math.MaxInt, math.MaxInt
		cur            cell
		typ, style     string
		val, inline    strings.Builder
		formula        strings.Builder
		nextRow        int
		nextCol        int
	)
	err := p.walk(part, func(d *decoder, t startTag) error {
		switch t.local {
		case "row":
			if r, err := strconv.Atoi(t.attr("r")); err == nil && r > 0 {
				nextRow = r
			} else {
				nextRow++
			}
			nextCol = 1
		case "c":
			cur = cell{row: nextRow, col: nextCol}
			if ref := t.attr("r"); ref != "" {
				if r, c, ok := cellRef(ref); ok {
					cur.row, cur.col = r, c
				}
			}
			nextCol = cur.col + 1
			typ, style = t.attr("t"), t.attr("s")
			val.Reset()
			inline.Reset()
			formula.Reset()
		}
		return nil
	}, func(d *decoder, local string) error {
		if local != "c" {
			return nil
		}
		text := cellValue(typ, style, val.String(), inline.String(), shared, dates, date1904)
		if text == "" && strings.TrimSpace(formula.String()) != "" {
			// No cached result (the file was never opened in a
			// spreadsheet): the formula itself.
			text = "=" + strings.TrimSpace(formula.String())
		}
		if text == "" {
			return nil
		}
		if p.cellText+int64(len(text)) > MaxCellText {
			p.cellsCut = true
			return nil
		}
		p.cellText += int64(len(text))
		cur.text = text
		cells = append(cells, cur)
		maxRow, maxCol = max(maxRow, cur.row), max(maxCol, cur.col)
		minRow, minCol = min(minRow, cur.row), min(minCol, cur.col)
		return nil
	}, func(d *decoder, b []byte) error {
		switch top := d.stack[len(d.stack)-1]; {
		case top == "v" && d.parent() == "c":
			val.Write(b)
		case top == "f" && d.parent() == "c":
			formula.Write(b)
		case top == "t" && d.in("is") && !d.in("rPh"):
			inline.Write(b)
		}
		return nil
	})
	if err != nil || len(cells) == 0 {
		return nil, err
	}
	rows, cols := maxRow-minRow+1, maxCol-minCol+1
	if int64(rows)*int64(cols) > MaxSheetCells {
		return nil, &TooLargeError{What: fmt.Sprintf("the used range of %s (%d rows × %d columns)", part, rows, cols), Limit: MaxMarkdownBytes}
	}
	grid := make([][]string, rows)
	for i := range grid {
		grid[i] = make([]string, cols)
	}
	for _, c := range cells {
		grid[c.row-minRow][c.col-minCol] = c.text
	}
	return grid, nil
}

// cellRef parses "B12" into row 12, column 2.
func cellRef(ref string) (row, col int, ok bool) {
	i := 0
	for i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z' {
		col = col*26 + int(ref[i]-'A'+1)
		i++
		if col > 16384 {
			return 0, 0, false
		}
	}
	row, err := strconv.Atoi(ref[i:])
	if i == 0 || err != nil || row < 1 || row > 1<<20 {
		return 0, 0, false
	}
	return row, col, true
}

// cellValue shows a cell as Excel would: shared and inline strings,
// booleans, errors, cached formula results, dates as ISO 8601.
func cellValue(typ, style, v, inline string, shared []string, dates []bool, date1904 bool) string {
	switch typ {
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 || i >= len(shared) {
			return ""
		}
		return shared[i]
	case "inlineStr":
		return inline
	case "b":
		if strings.TrimSpace(v) == "1" {
			return "TRUE"
		}
		return "FALSE"
	case "str", "e", "d":
		return v
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return ""
	}
	if si, err := strconv.Atoi(style); err == nil && si >= 0 && si < len(dates) && dates[si] {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return serialDate(f, date1904)
		}
	}
	return v
}

// serialDate turns an Excel serial day number into ISO 8601: a date, or
// a date and time when it has a fraction of a day.
func serialDate(f float64, date1904 bool) string {
	if f < 0 || f > 2958465 { // past 9999-12-31
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	epoch := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	if date1904 {
		epoch = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	} else if f < 61 {
		// Excel counts 1900-02-29, which did not exist.
		epoch = epoch.AddDate(0, 0, 1)
	}
	days := math.Floor(f)
	secs := math.Round((f - days) * 86400)
	t := epoch.AddDate(0, 0, int(days)).Add(time.Duration(secs) * time.Second)
	switch {
	case f < 1 && !date1904:
		return t.Format("15:04:05")
	case secs == 0:
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02T15:04:05")
}
