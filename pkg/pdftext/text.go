package pdftext

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// PageText extracts page n's text (1-based) in reading order: a line
// break where the text moves to a new line, a space where it jumps along
// the line or where a TJ array leaves a gap of a quarter em or more.
// A *CorruptError is structural damage (a form XObject drawing itself);
// other errors are a page whose content does not decode.
//
// A page whose text passes MaxPageText stops there: its text so far
// comes with ErrTextCut.
func (d *Doc) PageText(n int) (text string, err error) {
	if n < 1 || n > len(d.pages) {
		return "", fmt.Errorf("page %d out of range 1-%d", n, len(d.pages))
	}
	defer pagePanic(&err)
	pg := d.pages[n-1]
	contents := pg.v.Key("Contents")
	if contents.Kind() == pdf.Null {
		return "", nil
	}
	e := d.newExtractor(false)
	defer textCutAt(func() { text, err = e.b.String(), ErrTextCut })
	e.run(contents, pg.resources, 0)
	return e.b.String(), nil
}

// MaxPageText bounds the text of one page: a content stream of a few
// hundred KiB can show a string millions of times ((a) Tj repeated: 544
// KB of PDF made 160 MB of text in 28 s).
const MaxPageText = 4 << 20

// ErrTextCut comes with a page's text cut at MaxPageText.
var ErrTextCut = errors.New("the page's text passes the 4 MiB bound: the rest of the page is left out")

// textCut is the panic that stops a content stream's interpretation
// when the page's text reached MaxPageText.
type textCut struct{}

// textCutAt recovers from textCut with cut; any other panic goes on.
func textCutAt(cut func()) {
	if x := recover(); x != nil {
		if _, ok := x.(textCut); ok {
			cut()
			return
		}
		panic(x)
	}
}

// Span is a run of text drawn in one font, one string of a content
// stream: where it starts and ends on its baseline (points from the
// page's lower left corner), its size as drawn, and its style.
type Span struct {
	Text         string
	X, Y, End    float64
	Size         float64
	Bold, Italic bool
}

// Page is a page's text as drawn: its size and its spans in drawing
// order.
type Page struct {
	Number        int
	Width, Height float64
	Spans         []Span
}

// PageSpans lays out page n's text (1-based): every string it draws,
// placed by the text and graphics matrices with the fonts' widths.
func (d *Doc) PageSpans(n int) (page *Page, err error) {
	if n < 1 || n > len(d.pages) {
		return nil, fmt.Errorf("page %d out of range 1-%d", n, len(d.pages))
	}
	defer pagePanic(&err)
	pg := d.pages[n-1]
	page = &Page{Number: n, Width: 612, Height: 792} // US Letter when the page does not say
	if box := pg.mediaBox; box.Len() == 4 {
		page.Width = math.Abs(box.Index(2).Float64() - box.Index(0).Float64())
		page.Height = math.Abs(box.Index(3).Float64() - box.Index(1).Float64())
		if x0, y0 := box.Index(0).Float64(), box.Index(1).Float64(); x0 != 0 || y0 != 0 {
			defer func() {
				for i := range page.Spans {
					page.Spans[i].X -= x0
					page.Spans[i].End -= x0
					page.Spans[i].Y -= y0
				}
			}()
		}
	}
	contents := pg.v.Key("Contents")
	if contents.Kind() == pdf.Null {
		return page, nil
	}
	e := d.newExtractor(true)
	defer textCutAt(func() {
		e.endSpan()
		page.Spans, err = e.spans, ErrTextCut
	})
	e.run(contents, pg.resources, 0)
	e.endSpan()
	page.Spans = e.spans
	return page, nil
}

type extractor struct {
	doc        *Doc
	b          strings.Builder
	fonts      map[string]fontInfo // by font dict object, as "id gen" or the resource name
	enc        *fontDecoder
	x, y       float64
	lastX      float64
	lastY      float64
	positioned bool
	forms      map[objKey]bool // the forms being drawn, for the cycle check

	// Layout (PageSpans): the graphics and text state, and the spans.
	collect  bool
	ctm      matrix
	ts       textState
	stack    []gstate
	tm, tlm  matrix
	spans    []Span
	maxSpans int
	// textBytes counts the text laid out, against MaxPageText.
	textBytes int
	glyphBuf  []glyph // reused by every string shown
	runeBuf   []rune
	// pending is the text of the last span while strings drawn right
	// after it still join it (kerned text comes a few glyphs at a time):
	// its Text is made once, when the next span starts or the page ends.
	pending []byte
	textBuf []byte // the text of the string shown
}

// MaxSpans bounds the strings one page's layout keeps.
const MaxSpans = 1 << 20

type fontInfo struct {
	dec     *fontDecoder
	metrics *fontMetrics
}

// textState is the part of the graphics state text showing reads.
type textState struct {
	font                                fontInfo
	size, charSpace, wordSpace, leading float64
	scale, rise                         float64
}

type gstate struct {
	ctm matrix
	ts  textState
}

// matrix is a PDF transformation matrix [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul is m × n: m applied first, then n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

// translated is m moved by (tx, ty) in its own space.
func (m matrix) translated(tx, ty float64) matrix {
	m[4] += tx*m[0] + ty*m[2]
	m[5] += tx*m[1] + ty*m[3]
	return m
}

func (m matrix) point(x, y float64) (float64, float64) {
	return x*m[0] + y*m[2] + m[4], x*m[1] + y*m[3] + m[5]
}

func (d *Doc) newExtractor(collect bool) *extractor {
	if d.fonts == nil {
		d.fonts = map[fontRef]fontInfo{}
	}
	return &extractor{doc: d, fonts: map[string]fontInfo{}, forms: map[objKey]bool{}, collect: collect,
		ctm: identity, tm: identity, tlm: identity, ts: textState{scale: 1}, maxSpans: MaxSpans}
}

func matrixOf(args []pdf.Value) matrix {
	var m matrix
	for i := range m {
		m[i] = args[i].Float64()
	}
	return m
}

// showSpan lays out a shown string as a span and moves the text matrix
// past it (PDF 32000-1 §9.4.4).
func (e *extractor) showSpan(raw string) {
	if !e.collect {
		return
	}
	ts := &e.ts
	trm := e.tm.mul(e.ctm)
	x0, y0 := trm.point(0, ts.rise)
	e.glyphBuf, e.runeBuf = ts.font.dec.glyphs(e.glyphBuf[:0], e.runeBuf[:0], raw, ts.font.metrics)
	text := e.textBuf[:0]
	for _, r := range e.runeBuf {
		if r != utf8.RuneError && r != 0 {
			text = utf8.AppendRune(text, r)
		}
	}
	e.textBuf = text
	for _, g := range e.glyphBuf {
		tx := g.width/1000*ts.size + ts.charSpace
		if g.space {
			tx += ts.wordSpace
		}
		e.tm = e.tm.translated(tx*ts.scale, 0)
	}
	x1, _ := e.tm.mul(e.ctm).point(0, ts.rise)
	if len(text) == 0 {
		return
	}
	if e.textBytes += len(text); e.textBytes > MaxPageText {
		panic(textCut{})
	}
	sp := Span{X: x0, Y: y0, End: x1, Size: ts.size * math.Hypot(trm[2], trm[3])}
	if m := ts.font.metrics; m != nil {
		sp.Bold, sp.Italic = m.bold, m.italic
	}
	// A string drawn right where the last one ended, in the same style,
	// continues it (kerned text comes a few glyphs at a time).
	if n := len(e.spans); n > 0 {
		last := &e.spans[n-1]
		if last.Y == sp.Y && last.Size == sp.Size && last.Bold == sp.Bold && last.Italic == sp.Italic &&
			math.Abs(sp.X-last.End) < 0.1*sp.Size {
			e.pending = append(e.pending, text...)
			last.End = sp.End
			return
		}
	}
	if len(e.spans) < e.maxSpans {
		e.endSpan()
		e.spans = append(e.spans, sp)
		e.pending = append(e.pending[:0], text...)
	}
}

// endSpan gives the last span its text.
func (e *extractor) endSpan() {
	if n := len(e.spans); n > 0 && len(e.pending) > 0 {
		e.spans[n-1].Text = string(e.pending)
		e.pending = e.pending[:0]
	}
}

func (e *extractor) newline() {
	if s := e.b.String(); s != "" && !strings.HasSuffix(s, "\n") {
		e.b.WriteByte('\n')
	}
}

func (e *extractor) space() {
	if s := e.b.String(); s != "" && !strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\n") {
		e.b.WriteByte(' ')
	}
}

func (e *extractor) moveTo(nx, ny float64) {
	if e.positioned {
		if math.Abs(ny-e.lastY) > 0.5 {
			e.newline()
		} else if nx != e.lastX {
			e.space()
		}
	}
	e.x, e.y, e.lastX, e.lastY, e.positioned = nx, ny, nx, ny, true
}

// show writes a string's text for PageText (PageSpans, collecting,
// builds its spans instead).
func (e *extractor) show(s string) {
	if e.collect {
		return
	}
	defer func() {
		if e.b.Len() > MaxPageText {
			panic(textCut{})
		}
	}()
	if e.enc == nil {
		e.b.WriteString(strings.ToValidUTF8(s, ""))
		return
	}
	for _, r := range e.enc.decode(s) {
		if r != utf8.RuneError {
			e.b.WriteRune(r)
		}
	}
}

func (e *extractor) font(resources pdf.Value, name string) fontInfo {
	ref, shared := fontRef{name: name}, false
	if k, ok := keyOf(resources); ok {
		ref.resources, shared = k, true
		if fi, ok := e.doc.fonts[ref]; ok {
			return fi
		}
	}
	fi := e.lookupFont(resources, name)
	if shared {
		e.doc.fonts[ref] = fi
	}
	return fi
}

// lookupFont finds a font by its resource name and makes its decoder and
// metrics, once per font object in a page.
func (e *extractor) lookupFont(resources pdf.Value, name string) fontInfo {
	f := resources.Key("Font").Key(name)
	cacheKey := "name:" + name
	if k, ok := keyOf(f); ok {
		cacheKey = fmt.Sprintf("%d %d %s", k.id, k.gen, name)
	}
	if fi, ok := e.fonts[cacheKey]; ok {
		return fi
	}
	var fi fontInfo
	if f.Kind() == pdf.Dict {
		// The metrics come too, for PageText as for PageSpans: the font
		// is kept for the whole document.
		fi.dec, fi.metrics = newFontDecoder(f), newFontMetrics(f)
	}
	e.fonts[cacheKey] = fi
	return fi
}

// run interprets a content stream (or an array of them) drawn with the
// given resources; depth counts the forms it is inside.
func (e *extractor) run(contents, resources pdf.Value, depth int) {
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "q":
			if len(e.stack) < 1024 {
				e.stack = append(e.stack, gstate{e.ctm, e.ts})
			}
		case "Q":
			if n := len(e.stack); n > 0 {
				e.ctm, e.ts = e.stack[n-1].ctm, e.stack[n-1].ts
				e.stack = e.stack[:n-1]
			}
		case "cm":
			if len(args) == 6 {
				e.ctm = matrixOf(args).mul(e.ctm)
			}
		case "BT":
			e.x, e.y = 0, 0
			e.tm, e.tlm = identity, identity
		case "Tf":
			if len(args) == 2 {
				fi := e.font(resources, args[0].Name())
				e.enc = fi.dec
				e.ts.font, e.ts.size = fi, args[1].Float64()
			}
		case "Tc":
			if len(args) == 1 {
				e.ts.charSpace = args[0].Float64()
			}
		case "Tw":
			if len(args) == 1 {
				e.ts.wordSpace = args[0].Float64()
			}
		case "Tz":
			if len(args) == 1 {
				e.ts.scale = args[0].Float64() / 100
			}
		case "TL":
			if len(args) == 1 {
				e.ts.leading = args[0].Float64()
			}
		case "Ts":
			if len(args) == 1 {
				e.ts.rise = args[0].Float64()
			}
		case "Td", "TD":
			if len(args) == 2 {
				tx, ty := args[0].Float64(), args[1].Float64()
				e.moveTo(e.x+tx, e.y+ty)
				if op == "TD" {
					e.ts.leading = -ty
				}
				e.tlm = e.tlm.translated(tx, ty)
				e.tm = e.tlm
			}
		case "Tm":
			if len(args) == 6 {
				e.moveTo(args[4].Float64(), args[5].Float64())
				e.tlm = matrixOf(args)
				e.tm = e.tlm
			}
		case "T*":
			e.newline()
			e.nextLine()
		case "'":
			e.newline()
			e.nextLine()
			if len(args) == 1 {
				e.show(args[0].RawString())
				e.showSpan(args[0].RawString())
			}
		case "\"":
			e.newline()
			if len(args) == 3 {
				e.ts.wordSpace, e.ts.charSpace = args[0].Float64(), args[1].Float64()
				e.nextLine()
				e.show(args[2].RawString())
				e.showSpan(args[2].RawString())
			}
		case "Tj":
			if len(args) == 1 {
				e.show(args[0].RawString())
				e.showSpan(args[0].RawString())
			}
		case "TJ":
			if len(args) == 1 {
				v := args[0]
				for i := 0; i < v.Len(); i++ {
					switch el := v.Index(i); el.Kind() {
					case pdf.String:
						e.show(el.RawString())
						e.showSpan(el.RawString())
					case pdf.Integer, pdf.Real:
						if el.Float64() < -250 {
							e.space()
						}
						if e.collect {
							e.tm = e.tm.translated(-el.Float64()/1000*e.ts.size*e.ts.scale, 0)
						}
					}
				}
			}
		case "Do":
			if len(args) == 1 {
				e.form(resources, args[0].Name(), depth)
			}
		}
	})
}

// form draws a form XObject's text, refusing forms that draw themselves
// (directly or through others) and nesting deeper than MaxFormDepth.
func (e *extractor) form(resources pdf.Value, name string, depth int) {
	xo := resources.Key("XObject").Key(name)
	if xo.Kind() != pdf.Stream || xo.Key("Subtype").Name() != "Form" {
		return // an image, or nothing
	}
	if depth+1 > MaxFormDepth {
		panic(corrupt("malformed PDF: form XObjects nested deeper than %d", MaxFormDepth))
	}
	k, ok := keyOf(xo)
	if ok {
		if e.forms[k] {
			panic(corrupt("malformed PDF: form XObject %s (object %d %d) draws itself", name, k.id, k.gen))
		}
		e.forms[k] = true
		defer delete(e.forms, k)
	}
	inner := xo.Key("Resources")
	if inner.Kind() != pdf.Dict {
		inner = resources
	}
	saved := e.enc
	savedState, savedStack := gstate{e.ctm, e.ts}, len(e.stack)
	if m := xo.Key("Matrix"); m.Len() == 6 {
		var fm matrix
		for i := range fm {
			fm[i] = m.Index(i).Float64()
		}
		e.ctm = fm.mul(e.ctm)
	}
	e.newline()
	e.positioned = false
	e.run(xo, inner, depth+1)
	e.enc = saved
	e.ctm, e.ts = savedState.ctm, savedState.ts
	e.stack = e.stack[:min(savedStack, len(e.stack))]
	e.newline()
	e.positioned = false
}

// nextLine moves to the start of the next line (T*).
func (e *extractor) nextLine() {
	e.tlm = e.tlm.translated(0, -e.ts.leading)
	e.tm = e.tlm
}

// pagePanic, deferred, turns a panic while a page is read into its error:
// a *CorruptError as it is (structural damage), anything else as a page
// whose content does not decode.
func pagePanic(err *error) {
	if x := recover(); x != nil {
		if ce, ok := x.(*CorruptError); ok {
			*err = ce
			return
		}
		*err = fmt.Errorf("%v", x)
	}
}
