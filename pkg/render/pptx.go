package render

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Slide sizes in EMU.
const (
	slideH       = 6858000
	slideW169    = 12192000
	slideW43     = 9144000
	slideMargin  = 457200 // half an inch
	titleTop     = 304800
	titleHeight  = 1143000
	bodyFontPt   = 20
	codeFontPt   = 14
	tableFontPt  = 14
	titleFontPt  = 36
	bulletIndent = 342900
)

const nsPresML = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`

// marpDirective matches a comment that is a Marp directive (<!-- paginate:
// true -->), which is not a speaker note.
var marpDirective = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^_?(theme|paginate|header|footer|class|backgroundColor|backgroundImage|backgroundPosition|backgroundRepeat|backgroundSize|color|size|headingDivider|style|math|title|author|description|image|keywords|url|marp|lang|transition)\s*:`)
})

func isDirective(comment string) bool {
	for _, line := range strings.Split(comment, "\n") {
		if line = strings.TrimSpace(line); line != "" && !marpDirective().MatchString(line) {
			return false
		}
	}
	return true
}

// MaxSlides bounds the slides of a deck.
const MaxSlides = 10000

type pptxWriter struct {
	*job
	pkg     *pkgWriter
	w, h    int64
	images  map[string]string // source → media part name
	shapeID int
	paras   int  // paragraphs of the text box being written
	italic  bool // inside a block quote
}

// slidePlan is what a first reading of a slide's blocks finds: whether it
// has anything, its title, and the shapes of its body with the heights
// they would like.
type slidePlan struct {
	empty bool
	title []Run // nil: none
	parts []partPlan
}

// partPlan is one shape of a slide's body: a text box of neighbouring
// text blocks, or a table, a picture or a code block.
type partPlan struct {
	kind   BlockKind // Para for a text box
	height int64
	cols   int // a table's
	rows   int
}

func (j *job) pptx(st *docStream) (func(io.Writer) error, error) {
	aspect := j.p.Aspect
	if aspect == "" {
		aspect = st.MetaString("size")
	}
	p := newPkg()
	j.cleanups = append(j.cleanups, p.close)
	w := &pptxWriter{job: j, pkg: p, w: slideW169, h: slideH, images: map[string]string{}}
	sizeType := "custom"
	switch aspect {
	case "", Aspect169:
	case Aspect43:
		w.w, sizeType = slideW43, "screen4x3"
	default:
		j.warn("front matter size %q is neither 16:9 nor 4:3; using 16:9", aspect)
	}
	p.rootRels("ppt/presentation.xml")
	pres := p.create("ppt/presentation.xml", "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml")
	presRels := p.relsPart("ppt/_rels/presentation.xml.rels")
	presRels.add(relOffice+"/slideMaster", "slideMasters/slideMaster1.xml")
	notesMasterID := presRels.add(relOffice+"/notesMaster", "notesMasters/notesMaster1.xml")
	presRels.add(relTheme, "theme/theme1.xml")
	presRels.add(relOffice+"/presProps", "presProps.xml")
	presRels.add(relOffice+"/tableStyles", "tableStyles.xml")
	pres.WriteString(xmlHead + `<p:presentation ` + nsPresML + ` saveSubsetFonts="1"><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>` +
		`<p:notesMasterIdLst><p:notesMasterId r:id="` + notesMasterID + `"/></p:notesMasterIdLst><p:sldIdLst>`)
	n := 0
	addSlide := func(draw func(n int) error) error {
		if n == MaxSlides {
			return &tool.Error{Code: tool.CodeTooLarge, Message: fmt.Sprintf("the deck would have more than %d slides", MaxSlides),
				Hint: "split the document and render the parts"}
		}
		n++
		id := presRels.add(relOffice+"/slide", fmt.Sprintf("slides/slide%d.xml", n))
		fmt.Fprintf(pres, `<p:sldId id="%d" r:id="%s"/>`, 255+n, id)
		return draw(n)
	}
	for {
		if err := j.ctx.Err(); err != nil {
			return nil, err
		}
		m := st.Mark()
		plan, more, err := w.plan(st)
		if err != nil {
			return nil, err
		}
		if !plan.empty {
			if err := st.Reset(m); err != nil {
				return nil, err
			}
			if err := addSlide(func(n int) error { return w.slide(n, plan, st) }); err != nil {
				return nil, err
			}
		}
		if !more {
			break
		}
	}
	if n == 0 {
		title := st.MetaString("title")
		if err := addSlide(func(n int) error { return w.slide(n, slidePlan{title: []Run{{Text: title}}}, nil) }); err != nil {
			return nil, err
		}
	}
	j.counts.Slides = n
	pres.WriteString(`</p:sldIdLst>` + fmt.Sprintf(`<p:sldSz cx="%d" cy="%d" type="%s"/><p:notesSz cx="6858000" cy="9144000"/>`, w.w, w.h, sizeType) +
		`<p:defaultTextStyle><a:lvl1pPr><a:defRPr sz="1800"><a:latin typeface="+mn-lt"/><a:ea typeface="+mn-ea"/><a:cs typeface="+mn-cs"/></a:defRPr></a:lvl1pPr></p:defaultTextStyle></p:presentation>`)
	pres.Close()
	presRels.close()
	p.addXML("ppt/presProps.xml", "application/vnd.openxmlformats-officedocument.presentationml.presProps+xml", `<p:presentationPr `+nsPresML+`/>`)
	p.addXML("ppt/tableStyles.xml", "application/vnd.openxmlformats-officedocument.presentationml.tableStyles+xml",
		`<a:tblStyleLst xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" def="{5C22544A-7EE6-4342-B048-85BDC9FD1C3A}"/>`)
	w.master()
	title, err := st.Title()
	if err != nil {
		return nil, err
	}
	p.addProps(title, "mcode render")
	return p.write, p.err
}

func (w *pptxWriter) nextID() int {
	w.shapeID++
	return w.shapeID
}

// slideBlocks reads a slide's blocks, up to the --- that ends it (taken)
// or the end; f gets each with whether it is the slide's title.
func slideBlocks(st *docStream, f func(b Block, title bool) error) (more bool, err error) {
	titled, body := false, false
	for {
		b, err := st.Next()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if b.Kind == Rule {
			return true, nil
		}
		isTitle := b.Kind == Heading && !titled && !body
		if isTitle {
			titled = true
		} else if b.Kind != Comment {
			body = true
		}
		if err := f(b, isTitle); err != nil {
			return false, err
		}
	}
}

// plan reads a slide's blocks a first time, for its title and the shapes
// of its body (see layoutBody).
func (w *pptxWriter) plan(st *docStream) (slidePlan, bool, error) {
	plan := slidePlan{empty: true}
	innerW := w.w - 2*slideMargin
	textLines := -1 // the text box being gathered: its lines, -1 for none
	flush := func() {
		if textLines >= 0 {
			plan.parts = append(plan.parts, partPlan{kind: Para, height: int64(textLines) * bodyFontPt * 12700 * 14 / 10})
			textLines = -1
		}
	}
	var table *partPlan
	more, err := slideBlocks(st, func(b Block, title bool) error {
		if title {
			plan.title, plan.empty = b.Runs, false
			if plan.title == nil {
				plan.title = []Run{}
			}
			return nil
		}
		if b.Kind == Comment {
			if b.Code != "" && !isDirective(b.Code) {
				plan.empty = false
			}
			return nil
		}
		plan.empty = false
		if b.Kind == Table && b.Cont && table != nil {
			table.rows += len(b.Table.Rows)
			table.height = int64(table.rows+1) * tableFontPt * 12700 * 24 / 10
			for _, r := range b.Table.Rows {
				table.cols = max(table.cols, len(r))
			}
			return nil
		}
		table = nil
		switch b.Kind {
		case Table:
			flush()
			cols := len(b.Table.Header)
			for _, r := range b.Table.Rows {
				cols = max(cols, len(r))
			}
			plan.parts = append(plan.parts, partPlan{kind: Table, cols: cols, rows: len(b.Table.Rows),
				height: int64(len(b.Table.Rows)+1) * tableFontPt * 12700 * 24 / 10})
			table = &plan.parts[len(plan.parts)-1]
		case Picture:
			flush()
			if im := w.image(b.Image); im != nil {
				_, ih := fit(im.Width, im.Height, 914400, float64(innerW), float64(w.h))
				plan.parts = append(plan.parts, partPlan{kind: Picture, height: int64(ih)})
			}
		case Code:
			flush()
			lines := int64(strings.Count(b.Code, "\n") + 1)
			plan.parts = append(plan.parts, partPlan{kind: Code, height: lines*codeFontPt*12700*13/10 + 182880})
		default:
			textLines = max(textLines, 0) + estimateLines(b, innerW, bodyFontPt)
		}
		return w.ctx.Err()
	})
	flush()
	return plan, more, err
}

// slide writes slide n: it reads the slide's blocks again (st nil: the
// slide is its title alone) and draws each shape the plan found, scaled
// to fit the slide.
func (w *pptxWriter) slide(n int, plan slidePlan, st *docStream) error {
	p := w.pkg
	sp := p.create(fmt.Sprintf("ppt/slides/slide%d.xml", n), "application/vnd.openxmlformats-officedocument.presentationml.slide+xml")
	r := p.relsPart(fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", n))
	defer sp.Close()
	defer r.close()
	r.add(relOffice+"/slideLayout", "../slideLayouts/slideLayout1.xml")
	sp.WriteString(xmlHead + `<p:sld ` + nsPresML + `><p:cSld><p:spTree>` + groupProps)
	w.shapeID = 1
	top := int64(titleTop)
	innerW := w.w - 2*slideMargin
	if plan.title != nil {
		if len(plan.parts) == 0 {
			// A slide of a heading alone is a title slide: centred.
			w.textShape(sp, "Title", `<p:ph type="ctrTitle"/>`, slideMargin, w.h/2-titleHeight, innerW, titleHeight*3/2,
				`<a:bodyPr anchor="ctr"><a:normAutofit/></a:bodyPr>`, []string{w.paragraph(plan.title, titleFontPt+8, true, "ctr", "", r)})
		} else {
			w.textShape(sp, "Title", `<p:ph type="title"/>`, slideMargin, titleTop, innerW, titleHeight,
				`<a:bodyPr anchor="b"><a:normAutofit/></a:bodyPr>`, []string{w.paragraph(plan.title, titleFontPt, true, "", "", r)})
		}
		top = titleTop + titleHeight + 152400
	}
	bottom := w.h - slideMargin
	natural := int64(0)
	for _, part := range plan.parts {
		natural += part.height + 91440
	}
	scale := 1.0
	if avail := bottom - top; natural > avail && natural > 0 {
		scale = float64(avail) / float64(natural)
	}
	y := top
	k := -1 // the part being drawn
	next := func() (partPlan, int64, int64) {
		k++
		if k > 0 {
			y += int64(float64(plan.parts[k-1].height)*scale) + int64(91440*scale)
		}
		return plan.parts[k], y, int64(float64(plan.parts[k].height) * scale)
	}
	var notes *slideNotes
	inText := false
	endText := func() {
		if inText {
			w.endTextShape(sp)
			inText = false
		}
	}
	var err error
	if st != nil {
		_, err = slideBlocks(st, func(b Block, title bool) error {
			w.countBlocks([]Block{b})
			if title {
				return nil
			}
			if b.Kind == Comment {
				if b.Code != "" && !isDirective(b.Code) {
					if notes == nil {
						notes = w.startNotes(n, r)
					}
					notes.add(b.Code)
				}
				return nil
			}
			if b.Kind == Table && b.Cont {
				return nil // drawn with the table it goes on
			}
			switch b.Kind {
			case Table, Picture, Code:
				endText()
			}
			switch b.Kind {
			case Table:
				part, y, h := next()
				return w.table(sp, r, b, st, part, slideMargin, y, innerW, h)
			case Picture:
				im := w.image(b.Image)
				if im == nil {
					return nil
				}
				_, y, h := next()
				w.picture(sp, r, b.Image, im, slideMargin, y, innerW, h)
			case Code:
				_, y, h := next()
				var paras []string
				for _, line := range strings.Split(b.Code, "\n") {
					paras = append(paras, w.paragraph([]Run{{Text: line, Mono: true}}, codeFontPt, false, "", `<a:buNone/>`, r))
				}
				w.textShape(sp, "Code", "", slideMargin, y, innerW, h, `<a:bodyPr wrap="square" lIns="137160" tIns="91440" rIns="137160" bIns="91440"><a:normAutofit/></a:bodyPr>`, paras,
					`<a:solidFill><a:srgbClr val="F2F2F2"/></a:solidFill>`)
			default:
				if !inText {
					_, y, h := next()
					w.startTextShape(sp, "Content", "", slideMargin, y, innerW, h, `<a:bodyPr wrap="square"><a:normAutofit/></a:bodyPr>`)
					inText = true
				}
				for _, para := range w.textBlock(b, 0, r) {
					sp.WriteString(para)
					w.paras++
				}
			}
			return w.ctx.Err()
		})
	}
	endText()
	if notes != nil {
		notes.close()
	}
	sp.WriteString(`</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>`)
	return err
}

const groupProps = `<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>`

// estimateLines guesses how many lines of a text box a block fills.
func estimateLines(b Block, width int64, pt int) int {
	perLine := max(int(float64(width)/12700/(float64(pt)*0.55)), 10)
	count := func(runs []Run) int { return displayWidth(PlainText(runs))/perLine + 1 }
	switch b.Kind {
	case Heading, Para:
		return count(b.Runs)
	case List:
		n := 0
		for _, it := range b.Items {
			for _, c := range it.Blocks {
				n += estimateLines(c, width, pt)
			}
		}
		return n
	case Quote:
		n := 0
		for _, c := range b.Children {
			n += estimateLines(c, width, pt)
		}
		return n
	}
	return 1
}

// textBlock turns a block into DrawingML paragraphs at a list level.
func (w *pptxWriter) textBlock(b Block, level int, r relAdder) []string {
	none := `<a:buNone/>`
	switch b.Kind {
	case Heading:
		return []string{w.paragraph(b.Runs, bodyFontPt+4, true, "", none, r)}
	case Para:
		return []string{w.paragraphAt(b.Runs, bodyFontPt, level, none, r)}
	case Quote:
		var out []string
		w.italic = true
		for _, c := range b.Children {
			out = append(out, w.textBlock(c, level, r)...)
		}
		w.italic = false
		return out
	case List:
		var out []string
		for i, it := range b.Items {
			bullet := `<a:buFont typeface="Arial"/><a:buChar char="•"/>`
			if b.Ordered {
				bullet = fmt.Sprintf(`<a:buFont typeface="+mj-lt"/><a:buAutoNum type="arabicPeriod" startAt="%d"/>`, max(b.Start, 1)+i)
			}
			rest := it.Blocks
			var first []Run
			if len(rest) > 0 && rest[0].Kind == Para {
				first, rest = rest[0].Runs, rest[1:]
			}
			if it.Task != nil {
				bullet = `<a:buNone/>`
				box := "☐ "
				if *it.Task {
					box = "☒ "
				}
				first = append([]Run{{Text: box}}, first...)
			}
			out = append(out, w.paragraphAt(first, bodyFontPt-2*min(level, 3), level+1, bullet, r))
			for _, c := range rest {
				out = append(out, w.textBlock(c, level+1, r)...)
			}
		}
		return out
	}
	return nil
}

func (w *pptxWriter) paragraphAt(runs []Run, pt, level int, bullet string, r relAdder) string {
	// One step a level, as far as leaves the text minIndentedShare of the
	// slide's width; DrawingML has nine levels (lvl 0–8).
	marL := min(int64(level)*bulletIndent, int64((1-minIndentedShare)*float64(w.w-2*slideMargin)))
	ppr := fmt.Sprintf(`<a:pPr marL="%d" lvl="%d" indent="%d">%s</a:pPr>`, marL, min(max(level-1, 0), 8), -min(level, 1)*bulletIndent, bullet)
	if level == 0 {
		ppr = `<a:pPr marL="0" indent="0">` + bullet + `</a:pPr>`
	}
	return `<a:p>` + ppr + w.runs(runs, pt, false, r) + fmt.Sprintf(`<a:endParaRPr lang="en-US" sz="%d"/></a:p>`, pt*100)
}

func (w *pptxWriter) paragraph(runs []Run, pt int, bold bool, algn, bullet string, r relAdder) string {
	ppr := ""
	if algn != "" || bullet != "" {
		a := ""
		if algn != "" {
			a = ` algn="` + algn + `"`
		}
		ppr = `<a:pPr marL="0" indent="0"` + a + `>` + bullet + `</a:pPr>`
	}
	return `<a:p>` + ppr + w.runs(runs, pt, bold, r) + fmt.Sprintf(`<a:endParaRPr lang="en-US" sz="%d"/></a:p>`, pt*100)
}

func (w *pptxWriter) runs(runs []Run, pt int, bold bool, r relAdder) string {
	var b strings.Builder
	for _, run := range runs {
		if run.Break {
			b.WriteString(`<a:br/>`)
			continue
		}
		attrs := fmt.Sprintf(` sz="%d"`, pt*100)
		if run.Bold || bold {
			attrs += ` b="1"`
		}
		if run.Italic || w.italic {
			attrs += ` i="1"`
		}
		if run.Strike {
			attrs += ` strike="sngStrike"`
		}
		if run.Link != "" {
			attrs += ` u="sng"`
		}
		inner := ""
		if run.Mono {
			inner += `<a:latin typeface="Consolas"/><a:cs typeface="Consolas"/>`
		}
		if run.Link != "" {
			inner += `<a:hlinkClick r:id="` + r.addExternal(relLink, run.Link) + `"/>`
		}
		fmt.Fprintf(&b, `<a:r><a:rPr lang="en-US"%s dirty="0">%s</a:rPr><a:t>%s</a:t></a:r>`, attrs, inner, esc(run.Text))
	}
	return b.String()
}

func (w *pptxWriter) textShape(sp *partWriter, name, ph string, x, y, cx, cy int64, bodyPr string, paras []string, fill ...string) {
	w.startTextShape(sp, name, ph, x, y, cx, cy, bodyPr, fill...)
	for _, p := range paras {
		sp.WriteString(p)
	}
	w.paras += len(paras)
	w.endTextShape(sp)
}

// startTextShape begins a text box; its paragraphs follow, then
// endTextShape.
func (w *pptxWriter) startTextShape(sp *partWriter, name, ph string, x, y, cx, cy int64, bodyPr string, fill ...string) {
	id := w.nextID()
	cNvSpPr := `<p:cNvSpPr txBox="1"/>`
	if ph != "" {
		cNvSpPr = `<p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr>`
	}
	fmt.Fprintf(sp, `<p:sp><p:nvSpPr><p:cNvPr id="%d" name="%s %d"/>%s<p:nvPr>%s</p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="%d" y="%d"/><a:ext cx="%d" cy="%d"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom>%s</p:spPr><p:txBody>%s<a:lstStyle/>`,
		id, name, id, cNvSpPr, ph, x, y, cx, max(cy, 12700), strings.Join(fill, ""), bodyPr)
	w.paras = 0
}

// endTextShape ends a text box; one without paragraphs gets an empty one
// (DrawingML wants at least one).
func (w *pptxWriter) endTextShape(sp *partWriter) {
	if w.paras == 0 {
		sp.WriteString(`<a:p><a:endParaRPr lang="en-US"/></a:p>`)
	}
	sp.WriteString(`</p:txBody></p:sp>`)
}

// table draws a table, its rows from first and the blocks st gives next
// that go on with it; part is what the plan found of it.
func (w *pptxWriter) table(sp *partWriter, r relAdder, first Block, st *docStream, part partPlan, x, y, cx, cy int64) error {
	t := first.Table
	cols := part.cols
	if cols == 0 {
		return nil
	}
	rows := part.rows + 1
	colW := cx / int64(cols)
	rowH := cy / int64(rows)
	pt := tableFontPt
	if rowH < int64(pt)*12700*2 {
		pt = max(int(rowH/12700/2), 8)
	}
	id := w.nextID()
	fmt.Fprintf(sp, `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="%d" name="Table %d"/><p:cNvGraphicFramePr><a:graphicFrameLocks noGrp="1"/></p:cNvGraphicFramePr><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="%d" y="%d"/><a:ext cx="%d" cy="%d"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblPr firstRow="1" bandRow="1"/><a:tblGrid>`,
		id, id, x, y, colW*int64(cols), rowH*int64(rows))
	for range cols {
		fmt.Fprintf(sp, `<a:gridCol w="%d"/>`, colW)
	}
	sp.WriteString(`</a:tblGrid>`)
	line := `<a:lnB w="12700"><a:solidFill><a:srgbClr val="A6A6A6"/></a:solidFill></a:lnB>`
	row := func(cells [][]Run, header bool) {
		fmt.Fprintf(sp, `<a:tr h="%d">`, rowH)
		for c := range cols {
			var runs []Run
			if c < len(cells) {
				runs = cells[c]
			}
			algn := ""
			if c < len(t.Align) {
				algn = map[string]string{"left": "l", "center": "ctr", "right": "r"}[t.Align[c]]
			}
			sp.WriteString(`<a:tc><a:txBody><a:bodyPr/><a:lstStyle/>` + w.paragraph(runs, pt, header, algn, "", r) + `</a:txBody><a:tcPr>` + line)
			if header {
				sp.WriteString(`<a:solidFill><a:srgbClr val="D9E2F3"/></a:solidFill>`)
			}
			sp.WriteString(`</a:tcPr></a:tc>`)
		}
		sp.WriteString(`</a:tr>`)
	}
	row(t.Header, true)
	err := eachPiece(first, st, func(t *GridTable) error {
		for _, cells := range t.Rows {
			row(cells, false)
		}
		return w.ctx.Err()
	})
	sp.WriteString(`</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`)
	return err
}

func (w *pptxWriter) picture(sp *partWriter, r relAdder, img *Image, im *loadedImage, x, y, cx, cy int64) {
	part, ok := w.images[img.Src]
	if !ok {
		part = fmt.Sprintf("media/image%d.%s", len(w.images)+1, im.Format)
		w.pkg.add("ppt/"+part, "", im.Data)
		im.Data = nil // in the package now
		w.images[img.Src] = part
	}
	w.counts.Images++
	rid := r.add(relImage, "../"+part)
	iw, ih := fit(im.Width, im.Height, 914400, float64(cx), float64(cy))
	x += (cx - int64(iw)) / 2
	id := w.nextID()
	fmt.Fprintf(sp, `<p:pic><p:nvPicPr><p:cNvPr id="%d" name="Picture %d" descr="%s"/><p:cNvPicPr><a:picLocks noChangeAspect="1"/></p:cNvPicPr><p:nvPr/></p:nvPicPr><p:blipFill><a:blip r:embed="%s"/><a:stretch><a:fillRect/></a:stretch></p:blipFill><p:spPr><a:xfrm><a:off x="%d" y="%d"/><a:ext cx="%d" cy="%d"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr></p:pic>`,
		id, id, esc(img.Alt), rid, x, y, int64(iw), int64(ih))
}

// slideNotes is the notes slide of a slide, written as its comments come.
type slideNotes struct {
	w *partWriter
	n int
}

// startNotes begins slide n's notes slide and relates the slide to it.
func (w *pptxWriter) startNotes(n int, r relAdder) *slideNotes {
	r.add(relOffice+"/notesSlide", fmt.Sprintf("../notesSlides/notesSlide%d.xml", n))
	nw := w.pkg.create(fmt.Sprintf("ppt/notesSlides/notesSlide%d.xml", n), "application/vnd.openxmlformats-officedocument.presentationml.notesSlide+xml")
	nw.WriteString(xmlHead + `<p:notes ` + nsPresML + `><p:cSld><p:spTree>` + groupProps +
		`<p:sp><p:nvSpPr><p:cNvPr id="2" name="Slide Image Placeholder 1"/><p:cNvSpPr><a:spLocks noGrp="1" noRot="1" noChangeAspect="1"/></p:cNvSpPr><p:nvPr><p:ph type="sldImg"/></p:nvPr></p:nvSpPr><p:spPr/></p:sp>` +
		`<p:sp><p:nvSpPr><p:cNvPr id="3" name="Notes Placeholder 2"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="body" idx="1"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/>`)
	var nr rels
	nr.add(relOffice+"/notesMaster", "../notesMasters/notesMaster1.xml")
	nr.add(relOffice+"/slide", fmt.Sprintf("../slides/slide%d.xml", n))
	w.pkg.addXML(fmt.Sprintf("ppt/notesSlides/_rels/notesSlide%d.xml.rels", n), "", nr.xml())
	return &slideNotes{w: nw, n: n}
}

func (s *slideNotes) add(note string) {
	for _, line := range strings.Split(note, "\n") {
		fmt.Fprintf(s.w, `<a:p><a:r><a:rPr lang="en-US" dirty="0"/><a:t>%s</a:t></a:r></a:p>`, esc(strings.TrimSpace(line)))
	}
}

func (s *slideNotes) close() {
	s.w.WriteString(`</p:txBody></p:sp></p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:notes>`)
	s.w.Close()
}

const clrMap = `bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"`

// master writes the slide master, its one layout, the notes master and
// their themes.
func (w *pptxWriter) master() {
	p := w.pkg
	lvl := func(pt int, bullet bool) string {
		bu := `<a:buNone/>`
		if bullet {
			bu = `<a:buFont typeface="Arial"/><a:buChar char="•"/>`
		}
		return fmt.Sprintf(`<a:lvl1pPr marL="0" indent="0" algn="l">%s<a:defRPr sz="%d"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill><a:latin typeface="+mn-lt"/><a:ea typeface="+mn-ea"/><a:cs typeface="+mn-cs"/></a:defRPr></a:lvl1pPr>`, bu, pt*100)
	}
	titlePh := fmt.Sprintf(`<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title Placeholder 1"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="%d" y="%d"/><a:ext cx="%d" cy="%d"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr><p:txBody><a:bodyPr anchor="b"><a:normAutofit/></a:bodyPr><a:lstStyle/><a:p><a:endParaRPr lang="en-US"/></a:p></p:txBody></p:sp>`,
		slideMargin, titleTop, w.w-2*slideMargin, titleHeight)
	p.addXML("ppt/slideMasters/slideMaster1.xml", "application/vnd.openxmlformats-officedocument.presentationml.slideMaster+xml",
		`<p:sldMaster `+nsPresML+`><p:cSld><p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef></p:bg><p:spTree>`+groupProps+titlePh+`</p:spTree></p:cSld>`+
			`<p:clrMap `+clrMap+`/><p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst>`+
			`<p:txStyles><p:titleStyle>`+strings.Replace(lvl(titleFontPt, false), `<a:latin typeface="+mn-lt"/>`, `<a:latin typeface="+mj-lt"/>`, 1)+`</p:titleStyle><p:bodyStyle>`+lvl(bodyFontPt, true)+`</p:bodyStyle><p:otherStyle>`+lvl(18, false)+`</p:otherStyle></p:txStyles></p:sldMaster>`)
	var mr rels
	mr.add(relOffice+"/slideLayout", "../slideLayouts/slideLayout1.xml")
	mr.add(relTheme, "../theme/theme1.xml")
	p.addXML("ppt/slideMasters/_rels/slideMaster1.xml.rels", "", mr.xml())
	p.addXML("ppt/slideLayouts/slideLayout1.xml", "application/vnd.openxmlformats-officedocument.presentationml.slideLayout+xml",
		`<p:sldLayout `+nsPresML+` type="titleOnly" preserve="1"><p:cSld name="Title Only"><p:spTree>`+groupProps+
			`<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title 1"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:endParaRPr lang="en-US"/></a:p></p:txBody></p:sp>`+
			`</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>`)
	var lr rels
	lr.add(relOffice+"/slideMaster", "../slideMasters/slideMaster1.xml")
	p.addXML("ppt/slideLayouts/_rels/slideLayout1.xml.rels", "", lr.xml())
	p.addXML("ppt/theme/theme1.xml", "application/vnd.openxmlformats-officedocument.theme+xml", theme("Office Theme"))
	p.addXML("ppt/theme/theme2.xml", "application/vnd.openxmlformats-officedocument.theme+xml", theme("Notes Theme"))
	p.addXML("ppt/notesMasters/notesMaster1.xml", "application/vnd.openxmlformats-officedocument.presentationml.notesMaster+xml",
		`<p:notesMaster `+nsPresML+`><p:cSld><p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef></p:bg><p:spTree>`+groupProps+
			`<p:sp><p:nvSpPr><p:cNvPr id="2" name="Slide Image Placeholder 1"/><p:cNvSpPr><a:spLocks noGrp="1" noRot="1" noChangeAspect="1"/></p:cNvSpPr><p:nvPr><p:ph type="sldImg" idx="2"/></p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="381000" y="685800"/><a:ext cx="6096000" cy="3429000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr></p:sp>`+
			`<p:sp><p:nvSpPr><p:cNvPr id="3" name="Notes Placeholder 2"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="body" sz="quarter" idx="3"/></p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="685800" y="4400550"/><a:ext cx="5486400" cy="3600450"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr><p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:endParaRPr lang="en-US"/></a:p></p:txBody></p:sp>`+
			`</p:spTree></p:cSld><p:clrMap `+clrMap+`/><p:notesStyle>`+lvl(12, false)+`</p:notesStyle></p:notesMaster>`)
	var nr rels
	nr.add(relTheme, "../theme/theme2.xml")
	p.addXML("ppt/notesMasters/_rels/notesMaster1.xml.rels", "", nr.xml())
}

// theme is a complete DrawingML theme (PowerPoint insists on all three
// schemes).
func theme(name string) string {
	solid := func(c string) string { return `<a:solidFill><a:schemeClr val="` + c + `"/></a:solidFill>` }
	ln := func(w int) string {
		return fmt.Sprintf(`<a:ln w="%d" cap="flat" cmpd="sng" algn="ctr">%s<a:prstDash val="solid"/><a:miter lim="800000"/></a:ln>`, w, solid("phClr"))
	}
	return `<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="` + name + `"><a:themeElements>` +
		`<a:clrScheme name="Office"><a:dk1><a:sysClr val="windowText" lastClr="000000"/></a:dk1><a:lt1><a:sysClr val="window" lastClr="FFFFFF"/></a:lt1><a:dk2><a:srgbClr val="44546A"/></a:dk2><a:lt2><a:srgbClr val="E7E6E6"/></a:lt2><a:accent1><a:srgbClr val="4472C4"/></a:accent1><a:accent2><a:srgbClr val="ED7D31"/></a:accent2><a:accent3><a:srgbClr val="A5A5A5"/></a:accent3><a:accent4><a:srgbClr val="FFC000"/></a:accent4><a:accent5><a:srgbClr val="5B9BD5"/></a:accent5><a:accent6><a:srgbClr val="70AD47"/></a:accent6><a:hlink><a:srgbClr val="0563C1"/></a:hlink><a:folHlink><a:srgbClr val="954F72"/></a:folHlink></a:clrScheme>` +
		`<a:fontScheme name="Office"><a:majorFont><a:latin typeface="Calibri Light"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont><a:minorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme>` +
		`<a:fmtScheme name="Office"><a:fillStyleLst>` + solid("phClr") + solid("phClr") + solid("phClr") + `</a:fillStyleLst><a:lnStyleLst>` + ln(6350) + ln(12700) + ln(19050) +
		`</a:lnStyleLst><a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst><a:bgFillStyleLst>` +
		solid("phClr") + solid("phClr") + solid("phClr") + `</a:bgFillStyleLst></a:fmtScheme></a:themeElements><a:objectDefaults/><a:extraClrSchemeLst/></a:theme>`
}
