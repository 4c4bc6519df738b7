package office

import (
	"fmt"
	"strconv"
	"strings"
)

const docxMain = "word/document.xml"

// docxStyle is what a paragraph style means for Markdown.
type docxStyle struct {
	heading int // 1-6, 0: not a heading
	code    bool
	quote   bool
	// A list style ("List Bullet 2") numbers its paragraphs itself.
	numID   string
	ilvl    int
	list    bool
	ordered bool
}

func (p *pkg) docx(doc *Document) error {
	main := docxMain
	if ct, err := p.contentTypeMain("wordprocessingml.document.main"); err == nil && ct != "" {
		main = ct
	}
	styles, err := p.docxStyles(main)
	if err != nil {
		return err
	}
	lists, err := p.docxNumbering(main)
	if err != nil {
		return err
	}
	rels, err := p.rels(main)
	if err != nil {
		return err
	}
	w := &mdWriter{}
	if err := p.docxBody(main, w, styles, lists, rels); err != nil {
		return err
	}
	doc.Parts = []Part{{Markdown: w.String()}}
	return nil
}

// contentTypeMain finds the part whose content type ends in suffix in
// [Content_Types].xml ("" when none names it).
func (p *pkg) contentTypeMain(suffix string) (string, error) {
	const name = "[Content_Types].xml"
	if !p.has(name) {
		return "", &PartError{Part: name, Err: errMissing}
	}
	found := ""
	err := p.walk(name, func(d *decoder, t startTag) error {
		if t.local == "Override" && found == "" && strings.Contains(t.attr("ContentType"), suffix) {
			found = strings.TrimPrefix(t.attr("PartName"), "/")
		}
		return nil
	}, nil, nil)
	return found, err
}

// docxStyles maps style ids to headings, code and quotes, by their names
// (ids are localized: "berschrift1" in a German Word) or outline level.
func (p *pkg) docxStyles(main string) (map[string]docxStyle, error) {
	out := map[string]docxStyle{}
	rels, err := p.rels(main)
	if err != nil {
		return nil, err
	}
	name := ""
	for _, target := range rels {
		if strings.HasSuffix(target, "styles.xml") && !strings.HasSuffix(target, "stylesWithEffects.xml") {
			name = target
		}
	}
	if name == "" {
		name = "word/styles.xml"
	}
	if !p.has(name) {
		return out, nil
	}
	var id string
	var cur docxStyle
	err = p.walk(name, func(d *decoder, t startTag) error {
		switch t.local {
		case "style":
			id, cur = t.attr("styleId"), docxStyle{}
		case "name":
			if d.parent() == "style" {
				cur = styleByName(t.attr("val"))
			}
		case "numId":
			if d.in("style") && d.in("numPr") {
				cur.numID = t.attr("val")
			}
		case "ilvl":
			if d.in("style") && d.in("numPr") {
				cur.ilvl, _ = strconv.Atoi(t.attr("val"))
			}
		case "outlineLvl":
			if d.in("style") && cur.heading == 0 {
				if n, err := strconv.Atoi(t.attr("val")); err == nil && n < 9 {
					cur.heading = min(n+1, 6)
				}
			}
		}
		return nil
	}, func(d *decoder, local string) error {
		if local == "style" && id != "" {
			out[id] = cur
		}
		return nil
	}, nil)
	return out, err
}

func styleByName(name string) docxStyle {
	n := strings.ToLower(strings.TrimSpace(name))
	switch {
	case n == "title":
		return docxStyle{heading: 1}
	case strings.HasPrefix(n, "heading "):
		if level, err := strconv.Atoi(strings.TrimPrefix(n, "heading ")); err == nil && level >= 1 {
			return docxStyle{heading: min(level, 6)}
		}
	case strings.Contains(n, "code") || n == "html preformatted" || n == "source text" || n == "preformatted text":
		return docxStyle{code: true}
	case n == "quote" || n == "intense quote" || n == "block text":
		return docxStyle{quote: true}
	case strings.HasPrefix(n, "list bullet") || strings.HasPrefix(n, "list number"):
		level := 0
		if k, err := strconv.Atoi(strings.TrimSpace(n[len("list bullet"):])); err == nil && k > 1 {
			level = k - 1
		}
		return docxStyle{list: true, ilvl: level, ordered: strings.HasPrefix(n, "list number")}
	}
	return docxStyle{}
}

// docxLists maps numId → level → ordered.
type docxLists map[string]map[int]bool

func (p *pkg) docxNumbering(main string) (docxLists, error) {
	out := docxLists{}
	name := path0(main) + "numbering.xml"
	if !p.has(name) {
		return out, nil
	}
	abstract := map[string]map[int]bool{}
	numToAbs := map[string]string{}
	var absID, numID string
	level := 0
	err := p.walk(name, func(d *decoder, t startTag) error {
		switch t.local {
		case "abstractNum":
			absID = t.attr("abstractNumId")
			abstract[absID] = map[int]bool{}
		case "lvl":
			level, _ = strconv.Atoi(t.attr("ilvl"))
		case "numFmt":
			if d.in("abstractNum") {
				abstract[absID][level] = t.attr("val") != "bullet" && t.attr("val") != "none"
			}
		case "num":
			numID = t.attr("numId")
		case "abstractNumId":
			if d.parent() == "num" {
				numToAbs[numID] = t.attr("val")
			}
		}
		return nil
	}, nil, nil)
	for num, abs := range numToAbs {
		out[num] = abstract[abs]
	}
	return out, err
}

func path0(part string) string {
	if i := strings.LastIndexByte(part, '/'); i >= 0 {
		return part[:i+1]
	}
	return ""
}

// docxPara is a paragraph being read.
type docxPara struct {
	runs    []span
	style   string
	outline int // from w:outlineLvl, 1-based; 0 none
	numID   string
	ilvl    int
}

func (pp *docxPara) add(r span, part string) (err error) {
	pp.runs, err = addRun(pp.runs, r, part)
	return err
}

func (p *pkg) docxBody(main string, w *mdWriter, styles map[string]docxStyle, lists docxLists, rels map[string]string) error {
	var (
		para    *docxPara
		run     span
		link    string
		tables  []*tableBuilder
		counter = map[string][]int{} // numId → item count per level
		codeBuf []string
	)
	flushCode := func() {
		if len(codeBuf) > 0 {
			w.block("```\n" + strings.Join(codeBuf, "\n") + "\n```")
			codeBuf = nil
		}
	}
	on := func(t startTag) bool {
		v := t.attr("val")
		return v != "0" && v != "false" && v != "none"
	}
	start := func(d *decoder, t startTag) error {
		switch t.local {
		case "p":
			para = &docxPara{}
		case "pStyle":
			if para != nil {
				para.style = t.attr("val")
			}
		case "outlineLvl":
			if para != nil && d.in("pPr") {
				if n, err := strconv.Atoi(t.attr("val")); err == nil && n < 9 {
					para.outline = n + 1
				}
			}
		case "ilvl":
			if para != nil && d.in("numPr") {
				para.ilvl, _ = strconv.Atoi(t.attr("val"))
			}
		case "numId":
			if para != nil && d.in("numPr") {
				para.numID = t.attr("val")
			}
		case "r":
			run = span{link: link}
		case "b":
			if d.parent() == "rPr" && d.in("r") {
				run.bold = on(t)
			}
		case "i":
			if d.parent() == "rPr" && d.in("r") {
				run.italic = on(t)
			}
		case "strike", "dstrike":
			if d.parent() == "rPr" && d.in("r") {
				run.strike = on(t)
			}
		case "rFonts":
			if d.parent() == "rPr" && d.in("r") && isMonoFont(t.attr("ascii")) {
				run.code = true
			}
		case "hyperlink":
			link = ""
			if id := t.relID(); id != "" {
				link = rels[id]
			} else if a := t.attr("anchor"); a != "" {
				link = "#" + a
			}
		case "tab":
			if para != nil && d.in("r") {
				return para.add(span{text: "\t"}, main)
			}
		case "br", "cr":
			if para != nil && d.in("r") && t.attr("type") != "page" {
				return para.add(span{text: "\n"}, main)
			}
		case "tbl":
			flushCode()
			tables = append(tables, &tableBuilder{})
		case "tr":
			if n := len(tables); n > 0 {
				tables[n-1].row()
			}
		case "tc":
			if n := len(tables); n > 0 {
				tables[n-1].cell()
				return tables[n-1].check(main)
			}
		}
		return nil
	}
	text := func(d *decoder, b []byte) error {
		if para != nil && d.stack[len(d.stack)-1] == "t" && d.in("r") {
			r := run
			r.text = string(b)
			return para.add(r, main)
		}
		return nil
	}
	end := func(d *decoder, local string) error {
		switch local {
		case "hyperlink":
			link = ""
		case "p":
			if para == nil {
				return nil
			}
			pp := para
			para = nil
			body := inline(pp.runs)
			if n := len(tables); n > 0 && d.in("tc") {
				tables[n-1].add(body)
				return nil
			}
			st := styles[pp.style]
			if pp.outline > 0 && st.heading == 0 {
				st.heading = min(pp.outline, 6)
			}
			if st.code {
				codeBuf = append(codeBuf, plainText(pp.runs))
				return nil
			}
			flushCode()
			numID, ilvl, ordered := pp.numID, pp.ilvl, false
			if numID == "" && (st.numID != "" || st.list) {
				numID, ilvl = st.numID, st.ilvl
				if numID == "" {
					numID = "style:" + pp.style
				}
			}
			if levels, ok := lists[numID]; ok {
				ordered = levels[ilvl]
			} else {
				ordered = st.ordered
			}
			switch {
			case strings.TrimSpace(body) == "":
			case st.heading > 0:
				w.block(strings.Repeat("#", st.heading) + " " + strings.ReplaceAll(strings.TrimSpace(body), "\n", " "))
			case numID != "" && numID != "0":
				levels := counter[numID]
				for len(levels) <= ilvl {
					levels = append(levels, 0)
				}
				levels[ilvl]++
				levels = levels[:ilvl+1]
				counter[numID] = levels
				w.listItem(ilvl, ordered, levels[ilvl], body)
			case st.quote:
				w.block("> " + strings.ReplaceAll(strings.TrimSpace(body), "\n", "\n> "))
			default:
				w.block(strings.TrimSpace(body))
			}
			return w.check()
		case "tbl":
			n := len(tables)
			if n == 0 {
				return nil
			}
			t := tables[n-1]
			tables = tables[:n-1]
			md := table(t.done())
			if n > 1 && d.in("tc") {
				// A table inside a cell: its rows flattened into the cell.
				tables[n-2].add(strings.ReplaceAll(strings.TrimSpace(md), "\n", " "))
				return nil
			}
			w.block(md)
			return w.check()
		}
		return nil
	}
	if err := p.walk(main, start, end, text); err != nil {
		return err
	}
	flushCode()
	return nil
}

func plainText(runs []span) string {
	var b strings.Builder
	for _, r := range runs {
		b.WriteString(r.text)
	}
	return b.String()
}

func isMonoFont(name string) bool {
	n := strings.ToLower(name)
	for _, m := range []string{"courier", "consolas", "mono", "menlo", "monaco", "inconsolata"} {
		if strings.Contains(n, m) {
			return true
		}
	}
	return false
}

// tableBuilder collects the cells of a table being read.
type tableBuilder struct {
	rows  [][]string
	inRow bool
	cells int
}

func (t *tableBuilder) row() { t.rows = append(t.rows, nil); t.inRow = true }

func (t *tableBuilder) cell() {
	if len(t.rows) == 0 {
		t.row()
	}
	t.cells++
	n := len(t.rows) - 1
	t.rows[n] = append(t.rows[n], "")
}

// check refuses a table past MaxTableCells.
func (t *tableBuilder) check(part string) error {
	if t.cells > MaxTableCells {
		return &TooLargeError{What: fmt.Sprintf("a table of %s (over %d cells)", part, MaxTableCells), Limit: MaxMarkdownBytes}
	}
	return nil
}

// add appends a paragraph to the current cell.
func (t *tableBuilder) add(text string) {
	if len(t.rows) == 0 {
		t.row()
	}
	r := &t.rows[len(t.rows)-1]
	if len(*r) == 0 {
		*r = append(*r, "")
	}
	c := &(*r)[len(*r)-1]
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if *c != "" {
		*c += "\n"
	}
	*c += text
}

func (t *tableBuilder) done() [][]string { return t.rows }
