package pdftext

import (
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
func (d *Doc) PageText(n int) (text string, err error) {
	if n < 1 || n > len(d.pages) {
		return "", fmt.Errorf("page %d out of range 1-%d", n, len(d.pages))
	}
	defer func() {
		if x := recover(); x != nil {
			if ce, ok := x.(*CorruptError); ok {
				err = ce
				return
			}
			err = fmt.Errorf("%v", x)
		}
	}()
	pg := d.pages[n-1]
	contents := pg.v.Key("Contents")
	if contents.Kind() == pdf.Null {
		return "", nil
	}
	if d.fonts == nil {
		d.fonts = map[fontRef]*fontDecoder{}
	}
	e := &extractor{doc: d, fonts: map[string]*fontDecoder{}, forms: map[objKey]bool{}}
	e.run(contents, pg.resources, 0)
	return e.b.String(), nil
}

type extractor struct {
	doc        *Doc
	b          strings.Builder
	fonts      map[string]*fontDecoder // by font dict object, as "id gen" or the resource name
	enc        *fontDecoder
	x, y       float64
	lastX      float64
	lastY      float64
	positioned bool
	forms      map[objKey]bool // the forms being drawn, for the cycle check
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

func (e *extractor) show(s string) {
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

func (e *extractor) font(resources pdf.Value, name string) *fontDecoder {
	ref, shared := fontRef{name: name}, false
	if k, ok := keyOf(resources); ok {
		ref.resources, shared = k, true
		if dec, ok := e.doc.fonts[ref]; ok {
			return dec
		}
	}
	dec := e.lookupFont(resources, name)
	if shared {
		e.doc.fonts[ref] = dec
	}
	return dec
}

// lookupFont finds a font by its resource name and makes its decoder,
// once per font object in a page.
func (e *extractor) lookupFont(resources pdf.Value, name string) *fontDecoder {
	f := resources.Key("Font").Key(name)
	cacheKey := "name:" + name
	if k, ok := keyOf(f); ok {
		cacheKey = fmt.Sprintf("%d %d %s", k.id, k.gen, name)
	}
	if dec, ok := e.fonts[cacheKey]; ok {
		return dec
	}
	var dec *fontDecoder
	if f.Kind() == pdf.Dict {
		dec = newFontDecoder(f)
	}
	e.fonts[cacheKey] = dec
	return dec
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
		case "BT":
			e.x, e.y = 0, 0
		case "Tf":
			if len(args) == 2 {
				e.enc = e.font(resources, args[0].Name())
			}
		case "Td", "TD":
			if len(args) == 2 {
				e.moveTo(e.x+args[0].Float64(), e.y+args[1].Float64())
			}
		case "Tm":
			if len(args) == 6 {
				e.moveTo(args[4].Float64(), args[5].Float64())
			}
		case "T*":
			e.newline()
		case "'":
			e.newline()
			if len(args) == 1 {
				e.show(args[0].RawString())
			}
		case "\"":
			e.newline()
			if len(args) == 3 {
				e.show(args[2].RawString())
			}
		case "Tj":
			if len(args) == 1 {
				e.show(args[0].RawString())
			}
		case "TJ":
			if len(args) == 1 {
				v := args[0]
				for i := 0; i < v.Len(); i++ {
					switch el := v.Index(i); el.Kind() {
					case pdf.String:
						e.show(el.RawString())
					case pdf.Integer, pdf.Real:
						if el.Float64() < -250 {
							e.space()
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
	e.newline()
	e.positioned = false
	e.run(xo, inner, depth+1)
	e.enc = saved
	e.newline()
	e.positioned = false
}
