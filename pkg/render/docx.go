package render

import (
	"fmt"
	"io"
	"strings"
)

// Word's page: A4 with 1 inch margins, in twentieths of a point.
const (
	docxPageW   = 11906
	docxPageH   = 16838
	docxMargin  = 1440
	docxIndent  = 720  // one list level
	docxTextW   = 6.27 // inches between the margins
	docxMaxImgH = 8.0
)

const nsWordML = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"`

type docxWriter struct {
	*job
	pkg    *pkgWriter
	rels   *relsPart
	body   *partWriter
	num    *partWriter // numbering.xml: a w:num for each list
	nums   int
	links  map[string]string
	images map[string]string // source → relationship id
	nPics  int
	title  string // the first heading's text
}

// maxLinkRels bounds the hyperlinks a DOCX shares one relationship for;
// past it each link gets its own.
const maxLinkRels = 1 << 12

func (j *job) docx(st *docStream) (func(io.Writer) error, error) {
	p := newPkg()
	j.cleanups = append(j.cleanups, p.close)
	w := &docxWriter{job: j, pkg: p, links: map[string]string{}, images: map[string]string{}}
	p.rootRels("word/document.xml")
	w.body = p.create("word/document.xml", "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml")
	w.rels = p.relsPart("word/_rels/document.xml.rels")
	w.rels.add(relStyles, "styles.xml")
	w.rels.add(relNumber, "numbering.xml")
	w.rels.add(relSettings, "settings.xml")
	w.num = p.create("word/numbering.xml", "application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml")
	w.num.WriteString(xmlHead + docxNumbering())
	w.body.WriteString(xmlHead + `<w:document ` + nsWordML + `><w:body>`)
	if t := st.MetaString("title"); t != "" {
		first, err := st.Peek()
		if err != nil && err != io.EOF {
			return nil, err
		}
		if !(err == nil && first.Kind == Heading && strings.TrimSpace(PlainText(first.Runs)) == t) {
			w.para("Title", "", []Run{{Text: t}}, "")
		}
	}
	for {
		b, err := st.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		j.countBlocks([]Block{b})
		if b.Kind == Heading && w.title == "" {
			w.title = PlainText(b.Runs)
		}
		if b.Kind == Table {
			if err := w.table(b, st); err != nil {
				return nil, err
			}
			continue
		}
		if err := w.blocks([]Block{b}, 0, ""); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(w.body, `<w:sectPr><w:pgSz w:w="%d" w:h="%d"/><w:pgMar w:top="%d" w:right="%d" w:bottom="%d" w:left="%d" w:header="720" w:footer="720" w:gutter="0"/></w:sectPr>`,
		docxPageW, docxPageH, docxMargin, docxMargin, docxMargin, docxMargin)
	w.body.WriteString(`</w:body></w:document>`)
	w.body.Close()
	w.num.WriteString(`</w:numbering>`)
	w.num.Close()
	w.rels.close()
	p.addXML("word/styles.xml", "application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml", docxStyles())
	p.addXML("word/settings.xml", "application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml",
		`<w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:defaultTabStop w:val="720"/><w:compat><w:compatSetting w:name="compatibilityMode" w:uri="http://schemas.microsoft.com/office/word" w:val="15"/></w:compat></w:settings>`)
	title := st.MetaString("title")
	if title == "" {
		title = w.title
	}
	p.addProps(title, "mcode render")
	return p.write, p.err
}

// blocks writes blocks at a list depth (for the indent of what follows a
// list item's first paragraph) and in a paragraph style ("Quote" inside a
// block quote).
func (w *docxWriter) blocks(blocks []Block, depth int, pstyle string) error {
	for _, b := range blocks {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		switch b.Kind {
		case Heading:
			w.para(fmt.Sprintf("Heading%d", min(b.Level, 6)), "", b.Runs, "")
		case Para:
			w.para(pstyleOr(pstyle, depth), indentXML(depth), b.Runs, "")
		case Code:
			for _, line := range strings.Split(b.Code, "\n") {
				w.para("SourceCode", indentXML(depth), []Run{{Text: line, Mono: true}}, "")
			}
		case Quote:
			if err := w.blocks(b.Children, depth, "Quote"); err != nil {
				return err
			}
		case List:
			if err := w.list(b, depth, pstyle); err != nil {
				return err
			}
		case Table:
			if err := w.table(b, nil); err != nil {
				return err
			}
		case Picture:
			w.picture(b.Image, depth)
		case Rule:
			w.body.WriteString(`<w:p><w:pPr><w:pBdr><w:bottom w:val="single" w:sz="6" w:space="1" w:color="auto"/></w:pBdr></w:pPr></w:p>`)
		}
	}
	return nil
}

func pstyleOr(s string, depth int) string {
	if s != "" {
		return s
	}
	if depth > 0 {
		return "ListParagraph"
	}
	return ""
}

func indentXML(depth int) string {
	if depth == 0 {
		return ""
	}
	return fmt.Sprintf(`<w:ind w:left="%d"/>`, docxIndentAt(depth))
}

// docxIndentAt is the left indent of list depth, in twips: one step a
// level, as far as leaves the text minIndentedShare of the width.
func docxIndentAt(depth int) int {
	maxIndent := (1 - minIndentedShare) * docxTextW * 1440
	return min(depth*docxIndent, int(maxIndent))
}

func (w *docxWriter) list(b Block, depth int, pstyle string) error {
	abstract := 0
	if b.Ordered {
		abstract = 1
	}
	w.nums++
	numID := w.nums
	start := b.Start
	if !b.Ordered {
		start = 1
	}
	fmt.Fprintf(w.num, `<w:num w:numId="%d"><w:abstractNumId w:val="%d"/><w:lvlOverride w:ilvl="%d"><w:startOverride w:val="%d"/></w:lvlOverride></w:num>`,
		numID, abstract, min(depth, 8), start)
	for _, it := range b.Items {
		rest := it.Blocks
		var first []Run
		if len(rest) > 0 && rest[0].Kind == Para {
			first, rest = rest[0].Runs, rest[1:]
		}
		if it.Task != nil {
			box := "☐ "
			if *it.Task {
				box = "☒ "
			}
			first = append([]Run{{Text: box}}, first...)
		}
		num := fmt.Sprintf(`<w:numPr><w:ilvl w:val="%d"/><w:numId w:val="%d"/></w:numPr>`, min(depth, 8), numID)
		if it.Task != nil {
			// The check box is the item's mark: no bullet beside it.
			num = fmt.Sprintf(`<w:ind w:left="%d" w:hanging="360"/>`, docxIndentAt(depth+1))
		}
		w.para("ListParagraph", num, first, "")
		if err := w.blocks(rest, depth+1, pstyle); err != nil {
			return err
		}
	}
	return nil
}

// para writes one paragraph; ppr is extra paragraph properties, jc its
// alignment.
func (w *docxWriter) para(style, ppr string, runs []Run, jc string) {
	w.body.WriteString(`<w:p>`)
	if style != "" || ppr != "" || jc != "" {
		w.body.WriteString(`<w:pPr>`)
		if style != "" {
			fmt.Fprintf(w.body, `<w:pStyle w:val="%s"/>`, style)
		}
		w.body.WriteString(ppr)
		if jc != "" {
			fmt.Fprintf(w.body, `<w:jc w:val="%s"/>`, jc)
		}
		w.body.WriteString(`</w:pPr>`)
	}
	w.runs(runs, false)
	w.body.WriteString(`</w:p>`)
}

func (w *docxWriter) runs(runs []Run, bold bool) {
	for _, r := range runs {
		if r.Link != "" {
			id, ok := w.links[r.Link]
			if !ok {
				id = w.rels.addExternal(relLink, r.Link)
				if len(w.links) < maxLinkRels {
					w.links[r.Link] = id
				}
			}
			fmt.Fprintf(w.body, `<w:hyperlink r:id="%s">`, id)
			w.run(r, bold, "Hyperlink")
			w.body.WriteString(`</w:hyperlink>`)
			continue
		}
		w.run(r, bold, "")
	}
}

func (w *docxWriter) run(r Run, bold bool, cstyle string) {
	if r.Break {
		w.body.WriteString(`<w:r><w:br/></w:r>`)
		return
	}
	w.body.WriteString(`<w:r>`)
	var rpr strings.Builder
	if r.Mono {
		cstyle = "VerbatimChar"
	}
	if cstyle != "" {
		fmt.Fprintf(&rpr, `<w:rStyle w:val="%s"/>`, cstyle)
	}
	if r.Bold || bold {
		rpr.WriteString(`<w:b/>`)
	}
	if r.Italic {
		rpr.WriteString(`<w:i/>`)
	}
	if r.Strike {
		rpr.WriteString(`<w:strike/>`)
	}
	if rpr.Len() > 0 {
		w.body.WriteString(`<w:rPr>` + rpr.String() + `</w:rPr>`)
	}
	for i, part := range strings.Split(r.Text, "\t") {
		if i > 0 {
			w.body.WriteString(`<w:tab/>`)
		}
		if part != "" {
			w.body.WriteString(`<w:t xml:space="preserve">` + esc(part) + `</w:t>`)
		}
	}
	w.body.WriteString(`</w:r>`)
}

// table writes a table; a top-level one may go on in the blocks st
// gives next (nil: it is whole), read twice: once to size the columns,
// once to write the rows.
func (w *docxWriter) table(first Block, st *docStream) error {
	var size docxSizer
	m := streamMark{}
	if st != nil {
		m = st.Mark()
	}
	if err := eachPiece(first, st, size.measure); err != nil {
		return err
	}
	if st != nil {
		if err := st.Reset(m); err != nil {
			return err
		}
	}
	t := first.Table
	cols := size.cols
	if cols == 0 {
		return nil
	}
	colW := size.widths()
	w.body.WriteString(`<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="5000" w:type="pct"/><w:tblLayout w:type="fixed"/><w:tblLook w:val="04A0" w:firstRow="1" w:lastRow="0" w:firstColumn="0" w:lastColumn="0" w:noHBand="0" w:noVBand="1"/></w:tblPr><w:tblGrid>`)
	for _, cw := range colW {
		fmt.Fprintf(w.body, `<w:gridCol w:w="%d"/>`, cw)
	}
	w.body.WriteString(`</w:tblGrid>`)
	row := func(cells [][]Run, header bool) {
		w.body.WriteString(`<w:tr>`)
		if header {
			w.body.WriteString(`<w:trPr><w:tblHeader/></w:trPr>`)
		}
		for c := range cols {
			fmt.Fprintf(w.body, `<w:tc><w:tcPr><w:tcW w:w="%d" w:type="dxa"/>`, colW[c])
			if header {
				w.body.WriteString(`<w:shd w:val="clear" w:color="auto" w:fill="D9E2F3"/>`)
			}
			w.body.WriteString(`</w:tcPr><w:p><w:pPr><w:pStyle w:val="Compact"/>`)
			if c < len(t.Align) && t.Align[c] != "" {
				fmt.Fprintf(w.body, `<w:jc w:val="%s"/>`, t.Align[c])
			}
			w.body.WriteString(`</w:pPr>`)
			if c < len(cells) {
				w.runs(cells[c], header)
			}
			w.body.WriteString(`</w:p></w:tc>`)
		}
		w.body.WriteString(`</w:tr>`)
	}
	row(t.Header, true)
	err := eachPiece(first, st, func(piece *GridTable) error {
		for _, r := range piece.Rows {
			row(r, false)
		}
		return w.ctx.Err()
	})
	w.body.WriteString(`</w:tbl><w:p><w:pPr><w:pStyle w:val="Compact"/></w:pPr></w:p>`)
	return err
}

// eachPiece calls f with a table's rows: first's, then those of each
// block st gives next that goes on with it (st nil: first alone).
func eachPiece(first Block, st *docStream, f func(*GridTable) error) error {
	if err := f(first.Table); err != nil {
		return err
	}
	for st != nil {
		b, ok, err := st.NextCont(Table)
		if err != nil || !ok {
			return err
		}
		if err := f(b.Table); err != nil {
			return err
		}
	}
	return nil
}

func (w *docxWriter) picture(img *Image, depth int) {
	im := w.image(img)
	if im == nil {
		if img.Alt != "" {
			w.para("", indentXML(depth), []Run{{Text: "[" + img.Alt + "]", Italic: true}}, "")
		}
		return
	}
	id, ok := w.images[img.Src]
	if !ok {
		name := fmt.Sprintf("media/image%d.%s", len(w.images)+1, im.Format)
		w.pkg.add("word/"+name, "", im.Data)
		im.Data = nil // in the package now
		id = w.rels.add(relImage, name)
		w.images[img.Src] = id
	}
	w.nPics++
	w.counts.Images++
	cw, ch := fit(im.Width, im.Height, 914400, float64(emu(docxTextW-float64(docxIndentAt(depth))/1440)), float64(emu(docxMaxImgH)))
	fmt.Fprintf(w.body, `<w:p><w:pPr>%s</w:pPr><w:r><w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0"><wp:extent cx="%d" cy="%d"/><wp:docPr id="%d" name="Picture %d" descr="%s"/><wp:cNvGraphicFramePr><a:graphicFrameLocks noChangeAspect="1"/></wp:cNvGraphicFramePr><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="%d" name="Picture %d" descr="%s"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="%s"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="%d" cy="%d"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`,
		indentXML(depth), int64(cw), int64(ch), w.nPics, w.nPics, esc(img.Alt), w.nPics, w.nPics, esc(img.Alt), id, int64(cw), int64(ch))
}

// docxNumbering begins numbering.xml: the bullet and the numbered list
// definitions, each level indented a step (the lists' w:num follow).
func docxNumbering() string {
	var b strings.Builder
	b.WriteString(`<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">`)
	bullets := []string{"•", "◦", "▪"}
	formats := []string{"decimal", "lowerLetter", "lowerRoman"}
	for a := range 2 {
		fmt.Fprintf(&b, `<w:abstractNum w:abstractNumId="%d"><w:multiLevelType w:val="hybridMultilevel"/>`, a)
		for l := range 9 {
			fmtVal, text := "bullet", bullets[l%3]
			if a == 1 {
				fmtVal, text = formats[l%3], fmt.Sprintf("%%%d.", l+1)
			}
			fmt.Fprintf(&b, `<w:lvl w:ilvl="%d"><w:start w:val="1"/><w:numFmt w:val="%s"/><w:lvlText w:val="%s"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="%d" w:hanging="360"/></w:pPr></w:lvl>`,
				l, fmtVal, text, docxIndentAt(l+1))
		}
		b.WriteString(`</w:abstractNum>`)
	}
	return b.String()
}

// docxStyles declares Word's built-in styles by their built-in names
// ("heading 1"…), which is what makes the navigation pane and a table of
// contents find the headings.
func docxStyles() string {
	var b strings.Builder
	b.WriteString(`<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">`)
	b.WriteString(`<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:eastAsia="SimSun" w:cs="Calibri"/><w:sz w:val="22"/><w:szCs w:val="22"/><w:lang w:val="en-US" w:eastAsia="zh-CN"/></w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="160" w:line="259" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults>`)
	b.WriteString(`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>`)
	b.WriteString(`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:pPr><w:spacing w:after="240"/></w:pPr><w:rPr><w:sz w:val="56"/><w:szCs w:val="56"/></w:rPr></w:style>`)
	sizes := []int{32, 28, 26, 24, 22, 22}
	for l := 1; l <= 6; l++ {
		fmt.Fprintf(&b, `<w:style w:type="paragraph" w:styleId="Heading%d"><w:name w:val="heading %d"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:uiPriority w:val="9"/><w:qFormat/><w:pPr><w:keepNext/><w:keepLines/><w:spacing w:before="240" w:after="80"/><w:outlineLvl w:val="%d"/></w:pPr><w:rPr><w:b/><w:color w:val="2F5496"/><w:sz w:val="%d"/><w:szCs w:val="%d"/></w:rPr></w:style>`,
			l, l, l-1, sizes[l-1], sizes[l-1])
	}
	b.WriteString(`<w:style w:type="paragraph" w:styleId="Quote"><w:name w:val="Quote"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:pPr><w:pBdr><w:left w:val="single" w:sz="18" w:space="8" w:color="BFBFBF"/></w:pBdr><w:ind w:left="576" w:right="576"/></w:pPr><w:rPr><w:i/><w:color w:val="404040"/></w:rPr></w:style>`)
	b.WriteString(`<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/><w:qFormat/><w:pPr><w:spacing w:after="60"/><w:contextualSpacing/></w:pPr></w:style>`)
	b.WriteString(`<w:style w:type="paragraph" w:styleId="Compact"><w:name w:val="Compact"/><w:basedOn w:val="Normal"/><w:pPr><w:spacing w:before="36" w:after="36"/></w:pPr></w:style>`)
	b.WriteString(`<w:style w:type="paragraph" w:customStyle="1" w:styleId="SourceCode"><w:name w:val="Source Code"/><w:basedOn w:val="Normal"/><w:pPr><w:shd w:val="clear" w:color="auto" w:fill="F2F2F2"/><w:spacing w:after="0" w:line="240" w:lineRule="auto"/><w:contextualSpacing/></w:pPr><w:rPr><w:rFonts w:ascii="Consolas" w:hAnsi="Consolas" w:cs="Courier New"/><w:sz w:val="20"/></w:rPr></w:style>`)
	b.WriteString(`<w:style w:type="character" w:default="1" w:styleId="DefaultParagraphFont"><w:name w:val="Default Paragraph Font"/><w:uiPriority w:val="1"/><w:semiHidden/></w:style>`)
	b.WriteString(`<w:style w:type="character" w:customStyle="1" w:styleId="VerbatimChar"><w:name w:val="Verbatim Char"/><w:rPr><w:rFonts w:ascii="Consolas" w:hAnsi="Consolas" w:cs="Courier New"/><w:sz w:val="20"/><w:shd w:val="clear" w:color="auto" w:fill="F2F2F2"/></w:rPr></w:style>`)
	b.WriteString(`<w:style w:type="character" w:styleId="Hyperlink"><w:name w:val="Hyperlink"/><w:rPr><w:color w:val="0563C1"/><w:u w:val="single"/></w:rPr></w:style>`)
	b.WriteString(`<w:style w:type="table" w:default="1" w:styleId="TableNormal"><w:name w:val="Normal Table"/><w:semiHidden/><w:tblPr><w:tblInd w:w="0" w:type="dxa"/><w:tblCellMar><w:top w:w="0" w:type="dxa"/><w:left w:w="108" w:type="dxa"/><w:bottom w:w="0" w:type="dxa"/><w:right w:w="108" w:type="dxa"/></w:tblCellMar></w:tblPr></w:style>`)
	b.WriteString(`<w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/><w:basedOn w:val="TableNormal"/><w:tblPr><w:tblBorders><w:top w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:left w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:bottom w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:right w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:insideH w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:insideV w:val="single" w:sz="4" w:space="0" w:color="auto"/></w:tblBorders></w:tblPr></w:style>`)
	b.WriteString(`</w:styles>`)
	return b.String()
}

// docxSizer shares the text width among a table's columns by the length
// of their longest cell (at least 4 characters, at most 40), in twips.
type docxSizer struct {
	cols  int
	chars []int
}

func (z *docxSizer) measure(t *GridTable) error {
	rows := t.Rows
	if len(z.chars) == 0 {
		rows = append([][][]Run{t.Header}, rows...)
	}
	for _, r := range rows {
		z.cols = max(z.cols, len(r))
		for len(z.chars) < z.cols {
			z.chars = append(z.chars, 0)
		}
		for c := range r {
			z.chars[c] = max(z.chars[c], min(displayWidth(PlainText(r[c])), 40))
		}
	}
	return nil
}

func (z *docxSizer) widths() []int {
	total := 0
	chars := make([]int, z.cols)
	for c := range chars {
		chars[c] = max(z.chars[c], 4)
		total += chars[c]
	}
	out := make([]int, z.cols)
	for c := range chars {
		out[c] = int(docxTextW * 1440 * float64(chars[c]) / float64(total))
	}
	return out
}
