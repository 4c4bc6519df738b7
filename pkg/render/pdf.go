package render

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-pdf/fpdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// PDF page geometry, in points.
const (
	pdfMargin   = 72 // one inch
	bodyPt      = 11
	codePt      = 9
	tablePt     = 9.5
	lineFactor  = 1.45
	listIndent  = 18
	quoteIndent = 14
	cellPad     = 4
)

var headingPt = [...]float64{22, 18, 15, 13, 12, 11}

// Font families registered with the PDF: the Go fonts (embedded in mcode,
// so Latin text looks the same everywhere) and one fallback font found on
// the system for what they lack (CJK).
// Family names start with fontPrefix, which the finished file trades for
// a subset tag of the same length (see tagSubsets).
const (
	fontPrefix = "fnt"
	famSans    = fontPrefix + "gosans"
	famMono    = fontPrefix + "gomono"
	famFall    = fontPrefix + "fallback"
)

type fontKey struct {
	family, style string
}

// piece is text in one font on one line.
type piece struct {
	text   string
	font   fontKey
	size   float64
	w      float64
	link   string
	strike bool
	code   bool
	space  bool
	run    int // the run the text is from, and where in its text it starts
	off    int
}

type pdfLine struct {
	pieces []piece
	w      float64
}

type pdfWriter struct {
	*job
	f          *fpdf.Fpdf
	pageW      float64
	pageH      float64
	y          float64
	cover      bool
	primary    *fontFace
	fallRunes  map[rune]bool // what the fallback font has
	fallFamily string        // its family name in the PDF
	bestFont   string        // the font file that came nearest, for the error
	lacking    map[rune]bool // characters met that no font has
	noGap      bool          // the block drawn goes on in the next: no space after it
	widths     map[widthKey]float64
	decos      []func(top, h float64)
	lastLevel  int
	registered map[string]string  // image source → registered name
	fonts      map[fontKey][]byte // fonts not registered yet
	// The PDF writer orders images by pixel width and ties by map order,
	// which would make two renders differ: each width is used once.
	pixelWidths map[int]bool
	shown       map[string]*loadedImage // image source → what was embedded
	polls       int                     // see stopped
	halted      bool
}

// padToUniqueWidth returns the picture as a PNG with transparent columns
// on its right, as few as make its width one not used yet.
func padToUniqueWidth(im *loadedImage, used map[int]bool) (*loadedImage, error) {
	m, _, err := image.Decode(bytes.NewReader(im.Data))
	if err != nil {
		return nil, err
	}
	w := im.Width + 1
	for used[w] {
		w++
	}
	padded := image.NewNRGBA(image.Rect(0, 0, w, im.Height))
	draw.Draw(padded, m.Bounds().Sub(m.Bounds().Min), m, m.Bounds().Min, draw.Src)
	var b bytes.Buffer
	if err := png.Encode(&b, padded); err != nil {
		return nil, err
	}
	return &loadedImage{Data: b.Bytes(), Format: "png", Width: w, Height: im.Height}, nil
}

type widthKey struct {
	font fontKey
	size float64
	r    rune
}

func (j *job) pdf(st *docStream) (func(io.Writer) error, error) {
	w, err := newPDFWriter(j, "", st.MetaString("author"))
	if err != nil {
		return nil, err
	}
	f := w.f
	if err := w.findFallback(st); err != nil {
		return nil, err
	}
	f.SetFooterFunc(w.footer)
	title, err := st.Title()
	if err != nil {
		return nil, err
	}
	f.SetTitle(title, true)
	if w.cover {
		w.coverPage(title, st)
	}
	w.newPage()
	width := w.pageW - 2*pdfMargin
	for {
		b, err := st.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		j.countBlocks([]Block{b})
		if next, err := st.Peek(); err == nil && next.Cont && next.Kind == b.Kind {
			w.noGap = true // the list goes on in the next block
		}
		if b.Kind == Table {
			err = w.table(b, st, pdfMargin, width)
			w.gap(8)
		} else {
			err = w.blocks([]Block{b}, pdfMargin, width, "")
		}
		w.noGap = false
		if err != nil {
			return nil, err
		}
	}
	if err := j.ctx.Err(); err != nil {
		return nil, err // what the layout did after the deadline is cut short
	}
	if err := w.lackingFonts(); err != nil {
		return nil, err
	}
	if err := f.Error(); err != nil {
		return nil, fmt.Errorf("pdf: %w", err)
	}
	j.counts.Pages = f.PageCount()
	return func(out io.Writer) error {
		if err := f.Output(&subsetTagger{w: out}); err != nil {
			return fmt.Errorf("pdf: %w", err)
		}
		return nil
	}, nil
}

// newPDFWriter starts a PDF on the job's paper, with the Go fonts ready
// to register.
func newPDFWriter(j *job, title, author string) (*pdfWriter, error) {
	paper := "A4"
	if j.p.Paper == PaperLtr {
		paper = "Letter"
	}
	f := fpdf.New("P", "pt", paper, "")
	f.SetCompression(true)
	f.SetCatalogSort(true)
	f.SetCreationDate(zipTime)
	f.SetModificationDate(zipTime)
	f.SetAutoPageBreak(false, 0)
	f.SetMargins(pdfMargin, pdfMargin, pdfMargin)
	f.SetTitle(title, true)
	if author != "" {
		f.SetAuthor(author, true)
	}
	f.SetCreator("mcode render", true)
	w := &pdfWriter{job: j, f: f, cover: j.p.Cover, widths: map[widthKey]float64{}, registered: map[string]string{}, lastLevel: -1,
		pixelWidths: map[int]bool{}, shown: map[string]*loadedImage{}}
	w.pageW, w.pageH = f.GetPageSize()
	w.fonts = map[fontKey][]byte{
		{famSans, ""}: goregular.TTF, {famSans, "B"}: gobold.TTF, {famSans, "I"}: goitalic.TTF, {famSans, "BI"}: gobolditalic.TTF,
		{famMono, ""}: gomono.TTF, {famMono, "B"}: gomonobold.TTF,
	}
	primary, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		return nil, err
	}
	w.primary = &fontFace{font: primary}
	return w, nil
}

// subsetTagger names each embedded font as the subset it is
// ("ABCDEF+name", PDF 9.6.4), which the PDF writer does not: its names are
// "utf8" and the family, and the family's prefix makes the tag fit in the
// same bytes, so no offset in the file moves. The PDF writer writes the
// file in one piece; a name cut between two writes would keep its untagged
// name.
type subsetTagger struct {
	w io.Writer
}

func (t *subsetTagger) Write(pdf []byte) (int, error) {
	marker := []byte("/utf8" + fontPrefix)
	last := 0
	for {
		i := bytes.Index(pdf[last:], marker)
		if i < 0 {
			break
		}
		i += last
		end := i + len(marker)
		for end < len(pdf) && (pdf[end] >= 'a' && pdf[end] <= 'z' || pdf[end] >= 'A' && pdf[end] <= 'Z' || pdf[end] >= '0' && pdf[end] <= '9') {
			end++
		}
		sum := sha256.Sum256(pdf[i+len(marker) : end])
		tag := []byte("/ABCDEF+")
		for k := range 6 {
			tag[1+k] = 'A' + sum[k]%26
		}
		if _, err := t.w.Write(pdf[last:i]); err != nil {
			return 0, err
		}
		if _, err := t.w.Write(tag); err != nil {
			return 0, err
		}
		last = i + len(marker)
	}
	if _, err := t.w.Write(pdf[last:]); err != nil {
		return 0, err
	}
	return len(pdf), nil
}

// findFallback looks for a font with every character the Go fonts lack,
// reading the source once for them (in text or not: the fallback is
// chosen for all it may have to show).
func (w *pdfWriter) findFallback(st *docStream) error {
	seen := map[rune]bool{}
	var missing []rune
	r := bufio.NewReader(io.NewSectionReader(st.src, 0, st.size))
	for {
		c, _, err := r.ReadRune()
		if err != nil {
			break
		}
		if !seen[c] && !unicode.IsSpace(c) && !unicode.IsControl(c) && c != utf8.RuneError {
			seen[c] = true
			if !w.primary.has(c) {
				missing = append(missing, c)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Slice(missing, func(a, b int) bool { return missing[a] < missing[b] })
	face, lack := w.fallbackFace(missing)
	if face != nil && len(lack) < len(missing) {
		if err := w.useFallback(face, missing, lack); err != nil {
			w.warn("font %s cannot be used: %v", face.path, err)
		}
	}
	if face != nil {
		w.bestFont = face.path
		face.close()
	}
	return nil
}

// lackingFonts is the error (CJK) or the warning (other characters) of
// the characters the layout met that no font has.
func (w *pdfWriter) lackingFonts() error {
	if len(w.lacking) == 0 {
		return nil
	}
	var cjk, other []rune
	for r := range w.lacking {
		if isWide(r) {
			cjk = append(cjk, r)
		} else {
			other = append(other, r)
		}
	}
	sort.Slice(cjk, func(a, b int) bool { return cjk[a] < cjk[b] })
	sort.Slice(other, func(a, b int) bool { return other[a] < other[b] })
	if len(cjk) > 0 {
		msg := fmt.Sprintf("no font found for the CJK characters %s", sample(cjk))
		if w.bestFont != "" {
			msg += fmt.Sprintf(" (the best, %s, lacks them)", w.bestFont)
		}
		return &tool.Error{Code: tool.CodeNotFound, Message: msg,
			Hint: fmt.Sprintf("install a CJK font (apt-get install %s), or name a font file (.ttf, .otf, .ttc, .otc) in the config key render.fonts", CJKPackage)}
	}
	w.warn("no font has the characters %s; they are left out of the PDF (name a font that has them in render.fonts)", sample(other))
	return nil
}

// useFallback makes face the fallback font for the characters of missing
// it has (all but lack): a TrueType font of just their glyphs, whatever
// the outlines of face (see trueTypeSubset), named after face.
func (w *pdfWriter) useFallback(face *fontFace, missing, lack []rune) error {
	lacks := map[rune]bool{}
	for _, r := range lack {
		lacks[r] = true
	}
	has := map[rune]bool{}
	var runes []rune
	for _, r := range missing {
		if !lacks[r] {
			has[r] = true
			runes = append(runes, r)
		}
	}
	data, err := trueTypeSubset(face.font, runes, face.os2)
	if err != nil {
		return err
	}
	family := famFall
	for _, r := range strings.ToLower(face.name()) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			family += string(r)
		}
	}
	w.fallRunes, w.fallFamily = has, family
	w.fonts[fontKey{family, ""}] = data
	return nil
}

func sample(rs []rune) string {
	var b strings.Builder
	for i, r := range rs {
		if i == 12 {
			fmt.Fprintf(&b, " and %d more", len(rs)-i)
			break
		}
		b.WriteString(strconv.QuoteRune(r))
		if i < len(rs)-1 && i < 11 {
			b.WriteString(" ")
		}
	}
	return b.String()
}

func (w *pdfWriter) newPage() {
	w.f.AddPage()
	w.y = pdfMargin
}

func (w *pdfWriter) bottom() float64 { return w.pageH - pdfMargin }

func (w *pdfWriter) footer() {
	n := w.f.PageNo()
	if w.cover {
		if n == 1 {
			return
		}
		n--
	}
	w.setFont(fontKey{famSans, ""}, 9)
	w.f.SetTextColor(110, 110, 110)
	s := strconv.Itoa(n)
	w.f.Text((w.pageW-w.f.GetStringWidth(s))/2, w.pageH-pdfMargin/2, s)
	w.f.SetTextColor(0, 0, 0)
}

func (w *pdfWriter) coverPage(title string, doc *docStream) {
	w.newPage()
	if title == "" {
		w.warn("the cover page has no title: give one as title in the front matter or as the first heading")
	}
	width := w.pageW - 2*pdfMargin
	w.y = w.pageH / 3
	w.paragraph([]Run{{Text: title, Bold: true}}, pdfMargin, width, 28, "", "center")
	for _, key := range []string{"subtitle", "author", "date"} {
		if v := doc.MetaString(key); v != "" {
			w.y += 10
			size := 13.0
			if key == "subtitle" {
				size = 16
			}
			w.paragraph([]Run{{Text: v}}, pdfMargin, width, size, "", "center")
		}
	}
}

// line places a line of height h: on a new page when it does not fit,
// with the decorations of the blocks it is inside (quote bars, code
// shading) drawn beside it.
func (w *pdfWriter) line(h float64, draw func(top float64)) {
	if w.y+h > w.bottom() && w.y > pdfMargin {
		w.newPage()
	}
	for _, d := range w.decos {
		d(w.y, h)
	}
	draw(w.y)
	w.y += h
}

func (w *pdfWriter) gap(h float64) {
	if w.y > pdfMargin {
		w.y = min(w.y+h, w.bottom())
	}
}

func (w *pdfWriter) blocks(bs []Block, x, width float64, base string) error {
	for i, b := range bs {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		switch b.Kind {
		case Heading:
			size := headingPt[min(b.Level, 6)-1]
			if i > 0 || w.y > pdfMargin {
				w.gap(size * 0.8)
			}
			// Keep a heading with the first line after it.
			if w.y+size*lineFactor+bodyPt*lineFactor*2 > w.bottom() {
				w.newPage()
			}
			level := min(b.Level-1, w.lastLevel+1)
			w.lastLevel = level
			// The outline entry is UTF-16 only while a UTF-8 font is set.
			w.setFont(fontKey{famSans, "B"}, size)
			w.f.Bookmark(PlainText(b.Runs), level, w.y)
			w.paragraph(b.Runs, x, width, size, "B", "")
			w.gap(4)
		case Para:
			w.paragraph(b.Runs, x, width, bodyPt, base, "")
			w.gap(6)
		case List:
			if err := w.list(b, x, width, base, 0); err != nil {
				return err
			}
			if !w.noGap {
				w.gap(4)
			}
		case Code:
			w.code(b.Code, x, width)
			w.gap(8)
		case Quote:
			bar := x + 2
			w.decos = append(w.decos, func(top, h float64) {
				w.f.SetFillColor(191, 191, 191)
				w.f.Rect(bar, top, 2.5, h, "F")
			})
			qx, qw := w.indented(x, width, quoteIndent)
			err := w.blocks(b.Children, qx, qw, "I")
			w.decos = w.decos[:len(w.decos)-1]
			if err != nil {
				return err
			}
		case Table:
			if err := w.table(b, nil, x, width); err != nil {
				return err
			}
			w.gap(8)
		case Picture:
			w.picture(b.Image, x, width)
			w.gap(6)
		case Rule:
			w.line(14, func(top float64) {
				w.f.SetDrawColor(160, 160, 160)
				w.f.SetLineWidth(0.7)
				w.f.Line(x, top+7, x+width, top+7)
			})
		}
	}
	return nil
}

// indented is the left edge and width of a block nested step further in
// than x, width: as far as leaves it a share of the text width
// (minIndentedShare); deeper blocks line up with it, so that text nested
// forty deep stays on the page.
func (w *pdfWriter) indented(x, width, step float64) (float64, float64) {
	step = max(0, min(step, width-minIndentedShare*(w.pageW-2*pdfMargin)))
	return x + step, width - step
}

func (w *pdfWriter) list(b Block, x, width float64, base string, depth int) error {
	for i, it := range b.Items {
		marker := "•"
		if depth%2 == 1 {
			marker = "–"
		}
		if b.Ordered {
			marker = strconv.Itoa(b.Start+i) + "."
		}
		if it.Task != nil {
			marker = "[ ]"
			if *it.Task {
				marker = "[x]"
			}
		}
		rest := it.Blocks
		ix, iw := w.indented(x, width, listIndent+float64(len(marker)-1)*2)
		if len(rest) > 0 && rest[0].Kind == Para {
			w.paragraphMarker(rest[0].Runs, ix, iw, bodyPt, base, "", marker)
			rest = rest[1:]
		} else {
			w.paragraphMarker([]Run{{Text: " "}}, ix, iw, bodyPt, base, "", marker)
		}
		for _, c := range rest {
			if c.Kind == List {
				if err := w.list(c, ix, iw, base, depth+1); err != nil {
					return err
				}
				continue
			}
			if err := w.blocks([]Block{c}, ix, iw, base); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *pdfWriter) paragraph(runs []Run, x, width, size float64, base, align string) {
	w.paragraphMarker(runs, x, width, size, base, align, "")
}

// paragraphMarker wraps and draws runs; a list marker goes left of the
// first line.
func (w *pdfWriter) paragraphMarker(runs []Run, x, width, size float64, base, align, marker string) {
	lines := w.wrap(runs, width, size, base)
	h := size * lineFactor
	for i, ln := range lines {
		w.line(h, func(top float64) {
			lx := x
			switch align {
			case "center":
				lx = x + (width-ln.w)/2
			case "right":
				lx = x + width - ln.w
			}
			if i == 0 && marker != "" {
				w.setFont(fontKey{famSans, ""}, size)
				w.f.SetTextColor(0, 0, 0)
				w.f.Text(x-w.f.GetStringWidth(marker)-5, top+size, marker)
			}
			w.drawLine(ln, lx, top+size)
		})
	}
}

// setFont selects a font, registering it on first use so that only the
// fonts a document uses are embedded.
func (w *pdfWriter) setFont(k fontKey, size float64) {
	if data, ok := w.fonts[k]; ok {
		if k.family != w.fallFamily {
			// A copy: the PDF writer edits glyph data in the bytes it is
			// given, which would change the next render of this process
			// (the fallback is built for each render).
			data = bytes.Clone(data)
		}
		w.f.AddUTF8FontFromBytes(k.family, k.style, data)
		delete(w.fonts, k)
	}
	w.f.SetFont(k.family, k.style, size)
}

func (w *pdfWriter) width(k fontKey, size float64, r rune) float64 {
	key := widthKey{k, size, r}
	if v, ok := w.widths[key]; ok {
		return v
	}
	w.setFont(k, size)
	v := w.f.GetStringWidth(string(r))
	w.widths[key] = v
	return v
}

// fontFor picks the font a character is set in: the Go font of the run's
// style, else the fallback; ok is false when no font has it.
func (w *pdfWriter) fontFor(r rune, mono bool, style string) (fontKey, bool) {
	if unicode.IsSpace(r) || w.primary.has(r) {
		if mono {
			if strings.Contains(style, "B") {
				return fontKey{famMono, "B"}, true
			}
			return fontKey{famMono, ""}, true
		}
		return fontKey{famSans, style}, true
	}
	if w.fallRunes[r] {
		return fontKey{w.fallFamily, ""}, true
	}
	return fontKey{}, false
}

// noLineStart are characters a CJK line must not begin with (kinsoku):
// they stay with the character before them.
const noLineStart = "，。、；：！？）」』】》〉”’,.;:!?)]}%"

// atom is what a line cannot be broken inside: a word, one CJK character,
// or a space.
type atom struct {
	pieces []piece
	w      float64
	space  bool
}

func (w *pdfWriter) atoms(runs []Run, size float64, base string) []atom {
	var out []atom
	var cur *atom
	end := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for ri, run := range runs {
		if run.Break {
			end()
			out = append(out, atom{pieces: []piece{{text: "\n"}}})
			continue
		}
		style := base
		if run.Bold && !strings.Contains(style, "B") {
			style = "B" + style
		}
		if run.Italic && !strings.Contains(style, "I") {
			style += "I"
		}
		if style == "IB" {
			style = "BI"
		}
		for i, r := range run.Text {
			if w.stopped() {
				end()
				return out
			}
			if r == '\t' {
				r = ' '
			}
			if unicode.IsControl(r) {
				continue
			}
			k, ok := w.fontFor(r, run.Mono, style)
			if !ok {
				if w.lacking == nil {
					w.lacking = map[rune]bool{}
				}
				w.lacking[r] = true
				continue
			}
			rw := w.width(k, size, r)
			space := unicode.IsSpace(r)
			wide := isWide(r)
			attach := strings.ContainsRune(noLineStart, r)
			if space || (wide && !attach) {
				end()
			}
			if space {
				out = append(out, atom{pieces: []piece{{text: " ", font: k, size: size, w: rw, link: run.Link, strike: run.Strike, code: run.Mono, space: true}}, w: rw, space: true})
				continue
			}
			if cur == nil {
				if attach && len(out) > 0 && !out[len(out)-1].space {
					last := out[len(out)-1]
					out = out[:len(out)-1]
					cur = &last
				} else {
					cur = &atom{}
				}
			}
			// A piece is a slice of its run's text, grown in place while the
			// characters follow one another in one font: building it by
			// concatenation would copy a long word once per character.
			if last := lastPiece(cur.pieces); last != nil && last.run == ri && last.off+len(last.text) == i && last.font == k {
				last.text = run.Text[last.off : i+utf8.RuneLen(r)]
				last.w += rw
			} else {
				cur.pieces = append(cur.pieces, piece{text: run.Text[i : i+utf8.RuneLen(r)], run: ri, off: i, font: k, size: size, w: rw, link: run.Link, strike: run.Strike, code: run.Mono})
			}
			cur.w += rw
			if wide {
				end()
			}
		}
		// A word goes on across runs (**bold**ness), so cur stays open.
	}
	end()
	return out
}

func lastPiece(ps []piece) *piece {
	if len(ps) == 0 {
		return nil
	}
	return &ps[len(ps)-1]
}

// stopped is true once the time limit has passed; the loops over
// characters ask it for each one and it looks at the deadline every
// pollEvery asks. Once stopped, what the loops return is cut short and
// the render ends with the context's error.
func (w *pdfWriter) stopped() bool {
	if w.halted {
		return true
	}
	w.polls++
	if w.polls%pollEvery == 0 && w.ctx.Err() != nil {
		w.halted = true
	}
	return w.halted
}

// wrap breaks runs into lines at most width wide, measuring each
// character in the font it is set in.
func (w *pdfWriter) wrap(runs []Run, width, size float64, base string) []pdfLine {
	var lines []pdfLine
	var cur pdfLine
	push := func() {
		// Trailing spaces take no room.
		for len(cur.pieces) > 0 && cur.pieces[len(cur.pieces)-1].space {
			cur.w -= cur.pieces[len(cur.pieces)-1].w
			cur.pieces = cur.pieces[:len(cur.pieces)-1]
		}
		lines = append(lines, cur)
		cur = pdfLine{}
	}
	for _, a := range w.atoms(runs, size, base) {
		if len(a.pieces) == 1 && a.pieces[0].text == "\n" {
			push()
			continue
		}
		if a.space {
			if len(cur.pieces) > 0 {
				cur.pieces = append(cur.pieces, a.pieces...)
				cur.w += a.w
			}
			continue
		}
		if cur.w+a.w > width && len(cur.pieces) > 0 {
			push()
		}
		if a.w > width {
			// A word wider than the line is cut where it must be.
			for _, p := range w.splitPieces(a.pieces, width-cur.w, width) {
				if cur.w+p.w > width+0.01 && len(cur.pieces) > 0 {
					push()
				}
				cur.pieces = append(cur.pieces, p)
				cur.w += p.w
			}
			continue
		}
		cur.pieces = append(cur.pieces, a.pieces...)
		cur.w += a.w
	}
	if len(cur.pieces) > 0 || len(lines) == 0 {
		push()
	}
	return lines
}

// splitPieces cuts pieces into chunks that fit: the first into room, the
// others into width. Each chunk is a slice of its piece's text.
func (w *pdfWriter) splitPieces(ps []piece, room, width float64) []piece {
	var out []piece
	for _, p := range ps {
		from := 0
		cw := 0.0
		for i, r := range p.text {
			if w.stopped() {
				return out
			}
			rw := w.width(p.font, p.size, r)
			if cw+rw > room && i > from {
				out = append(out, p.slice(from, i, cw))
				from, cw, room = i, 0, width
			}
			cw += rw
		}
		if from < len(p.text) {
			room -= cw
			out = append(out, p.slice(from, len(p.text), cw))
		}
	}
	return out
}

// slice is the piece's text from byte i to j, w wide.
func (p piece) slice(i, j int, w float64) piece {
	q := p
	q.text, q.off, q.w = p.text[i:j], p.off+i, w
	return q
}

// drawLine sets a line's pieces from x on the baseline, joining pieces of
// one font so the text extracts as words, not letters.
func (w *pdfWriter) drawLine(ln pdfLine, x, baseline float64) {
	var merged []piece
	for _, p := range ln.pieces {
		if n := len(merged); n > 0 && merged[n-1].font == p.font && merged[n-1].size == p.size &&
			merged[n-1].link == p.link && merged[n-1].strike == p.strike && merged[n-1].code == p.code {
			merged[n-1].text += p.text
			merged[n-1].w += p.w
			continue
		}
		merged = append(merged, p)
	}
	for _, p := range merged {
		if p.code && p.font.family == famMono {
			w.f.SetFillColor(236, 236, 236)
			w.f.Rect(x-0.5, baseline-p.size*0.85, p.w+1, p.size*1.15, "F")
		}
		w.setFont(p.font, p.size)
		if p.link != "" {
			w.f.SetTextColor(5, 99, 193)
		} else {
			w.f.SetTextColor(0, 0, 0)
		}
		w.f.Text(x, baseline, p.text)
		if p.link != "" {
			w.f.LinkString(x, baseline-p.size, p.w, p.size*1.25, p.link)
		}
		if p.strike {
			w.f.SetDrawColor(0, 0, 0)
			w.f.SetLineWidth(p.size / 16)
			w.f.Line(x, baseline-p.size*0.3, x+p.w, baseline-p.size*0.3)
		}
		x += p.w
	}
	w.f.SetTextColor(0, 0, 0)
}

func (w *pdfWriter) code(text string, x, width float64) {
	h := codePt * 1.35
	w.decos = append(w.decos, func(top, lh float64) {
		w.f.SetFillColor(242, 242, 242)
		w.f.Rect(x, top, width, lh, "F")
	})
	defer func() { w.decos = w.decos[:len(w.decos)-1] }()
	w.line(4, func(float64) {})
	for _, src := range strings.Split(text, "\n") {
		if w.stopped() {
			return
		}
		var pieces []piece
		src = strings.ReplaceAll(src, "\t", "    ")
		for _, a := range w.atoms([]Run{{Text: src, Mono: true}}, codePt, "") {
			pieces = append(pieces, a.pieces...)
		}
		// Code keeps its spaces and breaks anywhere.
		var lines []pdfLine
		cur := pdfLine{}
		for _, p := range w.splitPieces(pieces, width-12, width-12) {
			if cur.w+p.w > width-12+0.01 && len(cur.pieces) > 0 {
				lines = append(lines, cur)
				cur = pdfLine{}
			}
			cur.pieces = append(cur.pieces, piece{text: p.text, font: p.font, size: p.size, w: p.w})
			cur.w += p.w
		}
		lines = append(lines, cur)
		for _, ln := range lines {
			w.line(h, func(top float64) { w.drawLine(ln, x+6, top+codePt) })
		}
	}
	w.line(4, func(float64) {})
}

// table draws a table, its rows from first and the blocks st gives next
// that go on with it (st nil: first alone), read twice: once to size the
// columns, once to draw the rows.
func (w *pdfWriter) table(first Block, st *docStream, x, width float64) error {
	t := first.Table
	cols := 0
	var natural, least []float64
	cell := func(row [][]Run, c int) []Run {
		if c < len(row) {
			return row[c]
		}
		return nil
	}
	measure := func(row [][]Run, base string) {
		cols = max(cols, len(row))
		for len(natural) < cols {
			natural, least = append(natural, 0), append(least, 0)
		}
		for c := range row {
			sum := 0.0
			for _, a := range w.atoms(row[c], tablePt, base) {
				sum += a.w
				least[c] = max(least[c], a.w)
			}
			natural[c] = max(natural[c], sum)
		}
	}
	m := streamMark{}
	if st != nil {
		m = st.Mark()
	}
	measure(t.Header, "B")
	err := eachPiece(first, st, func(piece *GridTable) error {
		for _, r := range piece.Rows {
			measure(r, "")
		}
		return w.ctx.Err()
	})
	if err != nil {
		return err
	}
	if st != nil {
		if err := st.Reset(m); err != nil {
			return err
		}
	}
	if cols == 0 {
		return nil
	}
	colW := columnWidths(natural, least, width, 2*cellPad)
	lh := tablePt * 1.35
	var drawRow func(row [][]Run, header bool)
	drawRow = func(row [][]Run, header bool) {
		base := ""
		if header {
			base = "B"
		}
		wrapped := make([][]pdfLine, cols)
		n := 1
		for c := range cols {
			wrapped[c] = w.wrap(cell(row, c), colW[c]-2*cellPad, tablePt, base)
			n = max(n, len(wrapped[c]))
		}
		// A row goes whole onto the next page when it does not fit; one
		// taller than a page is cut between its lines.
		for from := 0; from < n; {
			fit := int((w.bottom() - w.y - 2*cellPad) / lh)
			if fit < n-from && (w.y > pdfMargin && (from > 0 || fit < 1 || float64(n)*lh+2*cellPad <= w.bottom()-pdfMargin)) {
				w.newPage()
				if !header {
					drawRow(t.Header, true) // the header again on each page
				}
				fit = int((w.bottom() - w.y - 2*cellPad) / lh)
			}
			to := min(n, from+max(fit, 1))
			w.rowSlice(t, wrapped, colW, x, lh, from, to, header)
			from = to
		}
	}
	drawRow(t.Header, true)
	return eachPiece(first, st, func(piece *GridTable) error {
		for _, r := range piece.Rows {
			if err := w.ctx.Err(); err != nil {
				return err
			}
			drawRow(r, false)
		}
		return nil
	})
}

// rowSlice draws lines from…to of a table row's cells at the cursor.
func (w *pdfWriter) rowSlice(t *GridTable, wrapped [][]pdfLine, colW []float64, x, lh float64, from, to int, header bool) {
	h := float64(to-from)*lh + 2*cellPad
	top := w.y
	cx := x
	for c := range colW {
		if header {
			w.f.SetFillColor(217, 226, 243)
			w.f.Rect(cx, top, colW[c], h, "F")
		}
		w.f.SetDrawColor(166, 166, 166)
		w.f.SetLineWidth(0.5)
		w.f.Rect(cx, top, colW[c], h, "D")
		align := ""
		if c < len(t.Align) {
			align = t.Align[c]
		}
		for i := from; i < min(to, len(wrapped[c])); i++ {
			ln := wrapped[c][i]
			lx := cx + cellPad
			switch align {
			case "center":
				lx = cx + (colW[c]-ln.w)/2
			case "right":
				lx = cx + colW[c] - cellPad - ln.w
			}
			w.drawLine(ln, lx, top+cellPad+float64(i-from)*lh+tablePt)
		}
		cx += colW[c]
	}
	w.y += h
}

// columnWidths shares width among columns: as wide as their content when
// it fits, else each at least its longest word, the rest by content.
func columnWidths(natural, least []float64, width, pad float64) []float64 {
	n := len(natural)
	out := make([]float64, n)
	sumNat, sumLeast := 0.0, 0.0
	for i := range n {
		natural[i] += pad
		least[i] += pad
		sumNat += natural[i]
		sumLeast += least[i]
	}
	switch {
	case sumNat <= width:
		// Fits: spread what is left evenly, so the table spans the text.
		extra := (width - sumNat) / float64(n)
		for i := range n {
			out[i] = natural[i] + extra
		}
	case sumLeast <= width:
		rest := width - sumLeast
		for i := range n {
			out[i] = least[i] + rest*(natural[i]-least[i])/(sumNat-sumLeast)
		}
	default:
		for i := range n {
			out[i] = width * least[i] / sumLeast
		}
	}
	return out
}

func (w *pdfWriter) picture(img *Image, x, width float64) {
	im := w.image(img)
	if im == nil {
		if img.Alt != "" {
			w.paragraph([]Run{{Text: "[" + img.Alt + "]", Italic: true}}, x, width, bodyPt, "", "")
		}
		return
	}
	name, ok := w.registered[img.Src]
	if !ok {
		conv, err := im.asPNG()
		if err != nil {
			w.warn("image %s cannot be converted: %v", img.Src, err)
			return
		}
		if w.pixelWidths[conv.Width] {
			if conv, err = padToUniqueWidth(conv, w.pixelWidths); err != nil {
				w.warn("image %s cannot be converted: %v", img.Src, err)
				return
			}
		}
		w.pixelWidths[conv.Width] = true
		w.shown[img.Src] = conv
		name = fmt.Sprintf("img%d", len(w.registered)+1)
		typ := map[string]string{"png": "PNG", "jpeg": "JPG", "gif": "GIF"}[conv.Format]
		w.f.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: typ}, bytes.NewReader(conv.Data))
		if err := w.f.Error(); err != nil {
			w.f.ClearError()
			w.warn("image %s cannot be embedded: %v", img.Src, err)
			w.registered[img.Src] = ""
			return
		}
		w.registered[img.Src] = name
	}
	if name == "" {
		return
	}
	iw, ih := fit(im.Width, im.Height, 72, width, w.bottom()-pdfMargin)
	// A padded copy is drawn wider by its padding, which is transparent.
	drawn := iw * float64(w.shown[img.Src].Width) / float64(im.Width)
	w.counts.Images++
	w.line(ih, func(top float64) {
		w.f.ImageOptions(name, x+(width-iw)/2, top, drawn, ih, false, fpdf.ImageOptions{}, 0, "")
	})
}

// pollEvery is how many characters the layout loops handle between two
// looks at the deadline.
const pollEvery = 1024
