package render

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf16"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Sheet names: Excel's rules.
const (
	MaxSheetName   = 31
	badSheetChars  = `[]:*?/\`
	minColumnWidth = 6
	maxColumnWidth = 60
)

const nsSheet = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`

type cellKind int

const (
	cellEmpty cellKind = iota
	cellString
	cellNumber
	cellBool
	cellFormula
)

// cell is one typed spreadsheet value and its number format.
type cell struct {
	kind    cellKind
	str     string
	num     float64
	format  string // number format code, "" for General
	formula string
}

// The patterns cells are typed by; compiled on first use, so that other
// commands do not pay for them at start.
var cellPatterns = sync.OnceValue(func() map[string]*regexp.Regexp {
	const num = `(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?`
	return map[string]*regexp.Regexp{
		"number":   regexp.MustCompile(`^([+-]?)` + num + `([eE][+-]?\d+)?$`),
		"percent":  regexp.MustCompile(`^([+-]?)` + num + `\s?%$`),
		"currency": regexp.MustCompile(`^(-?)([$€£¥])\s?(-?)` + num + `$`),
		"suffixed": regexp.MustCompile(`^([+-]?)` + num + `\s?([€£¥])$`),
		"date":     regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$`),
	}
})

// boolFormat shows a boolean as TRUE or FALSE where the reader would
// show its number (LibreOffice); Excel shows booleans as such anyway.
const boolFormat = `"TRUE";"TRUE";"FALSE"`

// parseCell types the text of a table cell the way a person reading it
// would: 1,234.5 is a number, 12% a percentage, $9.99 money, 2024-01-31
// a date, TRUE a boolean, =SUM(A2:A9) a formula; 007 stays text (a code,
// not seven), and so do numbers of more digits than a double keeps.
func parseCell(s string) cell {
	s = strings.TrimSpace(s)
	if s == "" {
		return cell{}
	}
	if len(s) > 1 && s[0] == '=' {
		return cell{kind: cellFormula, formula: s[1:]}
	}
	switch strings.ToLower(s) {
	case "true":
		return cell{kind: cellBool, num: 1, format: boolFormat}
	case "false":
		return cell{kind: cellBool, format: boolFormat}
	}
	pat := cellPatterns()
	text := cell{kind: cellString, str: s}
	if m := pat["number"].FindStringSubmatch(s); m != nil {
		if keepsAsText(m[2]) {
			return text
		}
		v, ok := number(m[1], m[2], m[3]+m[4])
		if !ok {
			return text
		}
		c := cell{kind: cellNumber, num: v}
		if strings.Contains(m[2], ",") {
			c.format = "#,##0" + decimals(m[3])
		}
		return c
	}
	if m := pat["percent"].FindStringSubmatch(s); m != nil {
		if v, ok := number(m[1], m[2], m[3]); ok && !keepsAsText(m[2]) {
			return cell{kind: cellNumber, num: v / 100, format: "0" + decimals(m[3]) + "%"}
		}
	}
	if m := pat["currency"].FindStringSubmatch(s); m != nil {
		if v, ok := number(m[1]+m[3], m[4], m[5]); ok {
			return cell{kind: cellNumber, num: v, format: `"` + m[2] + `"#,##0` + decimals(m[5])}
		}
	}
	if m := pat["suffixed"].FindStringSubmatch(s); m != nil {
		if v, ok := number(m[1], m[2], m[3]); ok {
			return cell{kind: cellNumber, num: v, format: `#,##0` + decimals(m[3]) + `" ` + m[4] + `"`}
		}
	}
	if m := pat["date"].FindStringSubmatch(s); m != nil {
		if c, ok := dateCell(m); ok {
			return c
		}
	}
	return text
}

// keepsAsText is true for digits that are a code rather than a quantity:
// a leading zero (007, 0123) or more digits than a double holds exactly.
func keepsAsText(intPart string) bool {
	digits := strings.ReplaceAll(intPart, ",", "")
	return (len(digits) > 1 && digits[0] == '0') || len(digits) > 15
}

func number(sign, intPart, rest string) (float64, bool) {
	v, err := strconv.ParseFloat(sign+strings.ReplaceAll(intPart, ",", "")+rest, 64)
	return v, err == nil && !math.IsInf(v, 0)
}

// decimals is the number format's fraction for a written fraction (".25"
// → ".00").
func decimals(frac string) string {
	if len(frac) <= 1 {
		return ""
	}
	return "." + strings.Repeat("0", len(frac)-1)
}

// excelEpoch is day 0 of Excel's 1900 date system (as Excel counts, with
// its phantom 29 February 1900 folded in).
var excelEpoch = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)

func dateCell(m []string) (cell, bool) {
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	y, mo, d := atoi(m[1]), atoi(m[2]), atoi(m[3])
	h, mi, sec := atoi(m[4]), atoi(m[5]), atoi(m[6])
	t := time.Date(y, time.Month(mo), d, h, mi, sec, 0, time.UTC)
	if t.Year() != y || int(t.Month()) != mo || t.Day() != d || h > 23 || mi > 59 || sec > 59 || y < 1900 {
		return cell{}, false
	}
	serial := t.Sub(excelEpoch).Hours() / 24
	format := "yyyy-mm-dd"
	if m[4] != "" {
		format = "yyyy-mm-dd hh:mm"
		if m[6] != "" {
			format += ":ss"
		}
	}
	return cell{kind: cellNumber, num: serial, format: format}, true
}

// sheetNames makes names Excel accepts: no []:*?/\, at most 31 UTF-16
// units, not starting or ending with ', not History, unique regardless of
// case.
func sheetNames(wanted []string) []string {
	var n sheetNamer
	out := make([]string, len(wanted))
	for i, w := range wanted {
		out[i] = n.name(w)
	}
	return out
}

// sheetNamer names sheets one after another (sheetNames).
type sheetNamer struct {
	used map[string]bool
	n    int
}

func (s *sheetNamer) name(w string) string {
	if s.used == nil {
		s.used = map[string]bool{}
	}
	s.n++
	name := strings.Map(func(r rune) rune {
		if strings.ContainsRune(badSheetChars, r) || unicode.IsControl(r) {
			return ' '
		}
		return r
	}, w)
	name = strings.Trim(strings.Join(strings.Fields(name), " "), "'")
	if name == "" {
		name = fmt.Sprintf("Table %d", s.n)
	}
	if strings.EqualFold(name, "History") {
		name += " 1"
	}
	name = cutUTF16(name, MaxSheetName)
	base := name
	for n := 2; s.used[strings.ToLower(name)]; n++ {
		suffix := fmt.Sprintf(" (%d)", n)
		name = cutUTF16(base, MaxSheetName-len(suffix)) + suffix
	}
	s.used[strings.ToLower(name)] = true
	return name
}

func cutUTF16(s string, n int) string {
	if len(utf16.Encode([]rune(s))) <= n {
		return s
	}
	var b strings.Builder
	units := 0
	for _, r := range s {
		units += utf16.RuneLen(r)
		if units > n {
			break
		}
		b.WriteRune(r)
	}
	return strings.TrimRight(b.String(), " ")
}

// colName is A, B, … Z, AA, ….
func colName(i int) string {
	name := ""
	for i++; i > 0; i = (i - 1) / 26 {
		name = string(rune('A'+(i-1)%26)) + name
	}
	return name
}

// displayWidth counts East Asian wide characters twice, as a column must.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		if isWide(r) {
			w += 2
		} else {
			w++
		}
	}
	return w
}

type xlsxStyles struct {
	formats []string       // custom number format codes, ids 164…
	xfs     []string       // cellXfs
	index   map[string]int // "bold|format" → xf index
}

func newXlsxStyles() *xlsxStyles {
	return &xlsxStyles{xfs: []string{`<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>`}, index: map[string]int{"|": 0}}
}

func (s *xlsxStyles) xf(bold bool, format string) int {
	key := fmt.Sprintf("%v|%s", bold, format)
	if !bold {
		key = "|" + format
	}
	if i, ok := s.index[key]; ok {
		return i
	}
	numFmt := 0
	if format != "" {
		numFmt = 164 + len(s.formats)
		for i, f := range s.formats {
			if f == format {
				numFmt = 164 + i
			}
		}
		if numFmt == 164+len(s.formats) {
			s.formats = append(s.formats, format)
		}
	}
	font, fill := 0, 0
	if bold {
		font, fill = 1, 2
	}
	x := fmt.Sprintf(`<xf numFmtId="%d" fontId="%d" fillId="%d" borderId="0" xfId="0"`, numFmt, font, fill)
	if numFmt != 0 {
		x += ` applyNumberFormat="1"`
	}
	if bold {
		x += ` applyFont="1" applyFill="1"`
	}
	s.xfs = append(s.xfs, x+`/>`)
	s.index[key] = len(s.xfs) - 1
	return len(s.xfs) - 1
}

func (s *xlsxStyles) xml() string {
	var b strings.Builder
	b.WriteString(`<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`)
	if len(s.formats) > 0 {
		fmt.Fprintf(&b, `<numFmts count="%d">`, len(s.formats))
		for i, f := range s.formats {
			fmt.Fprintf(&b, `<numFmt numFmtId="%d" formatCode="%s"/>`, 164+i, escAttr(f))
		}
		b.WriteString(`</numFmts>`)
	}
	b.WriteString(`<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>`)
	b.WriteString(`<fills count="3"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill><fill><patternFill patternType="solid"><fgColor rgb="FFD9E2F3"/><bgColor indexed="64"/></patternFill></fill></fills>`)
	b.WriteString(`<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>`)
	b.WriteString(`<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>`)
	fmt.Fprintf(&b, `<cellXfs count="%d">%s</cellXfs>`, len(s.xfs), strings.Join(s.xfs, ""))
	b.WriteString(`<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`)
	return b.String()
}

func escAttr(s string) string {
	return strings.ReplaceAll(esc(s), `"`, "&quot;")
}

// MaxSheets bounds the sheets of a workbook (the tables of a document).
const MaxSheets = 10000

// maxSharedIndex bounds the strings the shared-string table looks up to
// use again; past it, new strings are added as they come.
const maxSharedIndex = 1 << 16

// sharedStrings is the workbook's string table, written as strings come.
type sharedStrings struct {
	w     *partWriter
	index map[string]int
	n     int
}

func (ss *sharedStrings) id(s string) int {
	if i, ok := ss.index[s]; ok {
		return i
	}
	ss.w.WriteString(`<si><t xml:space="preserve">` + esc(s) + `</t></si>`)
	ss.n++
	if len(ss.index) < maxSharedIndex {
		ss.index[s] = ss.n - 1
	}
	return ss.n - 1
}

func (j *job) xlsx(st *docStream) (func(io.Writer) error, error) {
	p := newPkg()
	j.cleanups = append(j.cleanups, p.close)
	stl := newXlsxStyles()
	p.rootRels("xl/workbook.xml")
	wb := p.create("xl/workbook.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml")
	wb.WriteString(xmlHead + `<workbook ` + nsSheet + `><bookViews><workbookView activeTab="0"/></bookViews><sheets>`)
	wbRels := p.relsPart("xl/_rels/workbook.xml.rels")
	ss := &sharedStrings{index: map[string]int{},
		w: p.create("xl/sharedStrings.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml")}
	ss.w.WriteString(xmlHead + `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`)
	var names sheetNamer
	heading, title := "", st.MetaString("title")
	sheets := 0
	for {
		b, err := st.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		j.countBlocks([]Block{b})
		switch b.Kind {
		case Heading:
			heading = PlainText(b.Runs)
			if title == "" {
				title = heading
			}
		case Table:
			if sheets == MaxSheets {
				return nil, &tool.Error{Code: tool.CodeTooLarge, Message: fmt.Sprintf("the Markdown has more than %d tables: a workbook of so many sheets is too large", MaxSheets),
					Hint: "split the document and render the parts"}
			}
			sheets++
			part := fmt.Sprintf("worksheets/sheet%d.xml", sheets)
			id := wbRels.add(relOffice+"/worksheet", part)
			fmt.Fprintf(wb, `<sheet name="%s" sheetId="%d" r:id="%s"/>`, escAttr(names.name(heading)), sheets, id)
			if err := j.worksheet(p.create("xl/"+part, "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"), b, st, stl, ss, sheets == 1); err != nil {
				return nil, err
			}
		}
	}
	if sheets == 0 {
		return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: "the Markdown has no table: xlsx makes one sheet of each GFM table",
			Hint: "write tables as | a | b | rows under a |---|---| line, each after the ## heading that names its sheet"}
	}
	j.counts.Sheets = sheets
	wb.WriteString(`</sheets><calcPr calcId="191029" fullCalcOnLoad="1"/></workbook>`)
	wb.Close()
	wbRels.add(relStyles, "styles.xml")
	wbRels.add(relOffice+"/sharedStrings", "sharedStrings.xml")
	wbRels.close()
	ss.w.WriteString(`</sst>`)
	ss.w.Close()
	p.addXML("xl/styles.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml", stl.xml())
	p.addProps(title, "mcode render")
	return p.write, p.err
}

// worksheet writes one table, read twice: once for its size and column
// widths, once for its rows: the header row bold and frozen, every other
// cell typed, columns as wide as their content.
func (j *job) worksheet(w *partWriter, first Block, st *docStream, stl *xlsxStyles, ss *sharedStrings, selected bool) error {
	defer w.Close()
	var widths []int
	rows := 0
	m := st.Mark()
	err := eachPiece(first, st, func(t *GridTable) error {
		all := t.Rows
		if rows == 0 {
			all = append([][][]Run{t.Header}, all...)
		}
		for _, r := range all {
			rows++
			for len(widths) < len(r) {
				widths = append(widths, 0)
			}
			for ci, runs := range r {
				widths[ci] = max(widths[ci], displayWidth(strings.TrimSpace(PlainText(runs))))
			}
		}
		return j.ctx.Err()
	})
	if err != nil {
		return err
	}
	if err := st.Reset(m); err != nil {
		return err
	}
	cols := len(widths)
	w.WriteString(xmlHead + `<worksheet ` + nsSheet + `>`)
	if cols > 0 {
		fmt.Fprintf(w, `<dimension ref="A1:%s%d"/>`, colName(cols-1), rows)
	}
	tab := ""
	if selected {
		tab = ` tabSelected="1"`
	}
	fmt.Fprintf(w, `<sheetViews><sheetView%s workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews>`, tab)
	w.WriteString(`<sheetFormatPr defaultRowHeight="15"/>`)
	if cols > 0 {
		w.WriteString(`<cols>`)
		for i, wd := range widths {
			fmt.Fprintf(w, `<col min="%d" max="%d" width="%d" customWidth="1"/>`, i+1, i+1, min(max(wd+2, minColumnWidth), maxColumnWidth))
		}
		w.WriteString(`</cols>`)
	}
	w.WriteString(`<sheetData>`)
	ri := 0
	row := func(r [][]Run) {
		ri++
		fmt.Fprintf(w, `<row r="%d">`, ri)
		for ci, runs := range r {
			text := PlainText(runs)
			ref := colName(ci) + strconv.Itoa(ri)
			c := cell{kind: cellString, str: strings.TrimSpace(text)}
			if ri > 1 {
				c = parseCell(text)
			}
			s := stl.xf(ri == 1, c.format)
			sAttr := ""
			if s != 0 {
				sAttr = fmt.Sprintf(` s="%d"`, s)
			}
			switch c.kind {
			case cellEmpty:
				if sAttr != "" {
					fmt.Fprintf(w, `<c r="%s"%s/>`, ref, sAttr)
				}
			case cellString:
				fmt.Fprintf(w, `<c r="%s"%s t="s"><v>%d</v></c>`, ref, sAttr, ss.id(c.str))
			case cellNumber:
				fmt.Fprintf(w, `<c r="%s"%s><v>%s</v></c>`, ref, sAttr, strconv.FormatFloat(c.num, 'g', -1, 64))
			case cellBool:
				fmt.Fprintf(w, `<c r="%s"%s t="b"><v>%d</v></c>`, ref, sAttr, int(c.num))
			case cellFormula:
				fmt.Fprintf(w, `<c r="%s"%s><f>%s</f></c>`, ref, sAttr, esc(c.formula))
			}
		}
		w.WriteString(`</row>`)
	}
	row(first.Table.Header)
	err = eachPiece(first, st, func(t *GridTable) error {
		for _, r := range t.Rows {
			row(r)
		}
		return j.ctx.Err()
	})
	w.WriteString(`</sheetData></worksheet>`)
	return err
}
