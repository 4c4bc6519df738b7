package render

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"unicode/utf16"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// The PDF writer embeds TrueType fonts only (glyf outlines, which it
// subsets), while the CJK fonts systems install are mostly OpenType with
// CFF outlines (Noto CJK). So a fallback font, whichever its kind, is
// embedded through a small TrueType font built here from the outlines of
// the characters a document uses: golang.org/x/image/font/sfnt reads
// either kind of outline as segments, cubic curves are approximated by
// quadratic ones within cubicTolerance, and the tables the PDF writer and
// PDF viewers read (OpenType spec, "TrueType outlines" and "required
// tables") are written around them. The font is small (the characters
// used, nothing else), and the same characters give the same bytes.

// cubicTolerance is how far, in font units (1/1000 or 1/2048 of the
// size), a quadratic approximation may stray from a cubic curve.
const cubicTolerance = 0.5

// maxCubicPieces bounds the quadratics one cubic curve becomes.
const maxCubicPieces = 32

// ttPoint is a point of a TrueType contour, in font units.
type ttPoint struct {
	x, y int
	on   bool
}

// ttGlyph is a converted glyph.
type ttGlyph struct {
	contours [][]ttPoint
	advance  int
}

// trueTypeSubset builds a TrueType font of face's glyphs for runes (which
// face has, all in the Basic Multilingual Plane, none repeated), plus its
// .notdef glyph; raw gives the source's OS/2 table or nil.
func trueTypeSubset(f *sfnt.Font, runes []rune, os2 []byte) ([]byte, error) {
	runes = append([]rune(nil), runes...)
	sort.Slice(runes, func(a, b int) bool { return runes[a] < runes[b] })
	var buf sfnt.Buffer
	upem := int(f.UnitsPerEm())
	ppem := fixed.I(upem) // one pixel a font unit: coordinates come out in font units
	glyphs := make([]ttGlyph, 0, len(runes)+1)
	load := func(idx sfnt.GlyphIndex) error {
		segs, err := f.LoadGlyph(&buf, idx, ppem, nil)
		if err != nil {
			return err
		}
		adv, err := f.GlyphAdvance(&buf, idx, ppem, font.HintingNone)
		if err != nil {
			return err
		}
		glyphs = append(glyphs, ttGlyph{contours: quadContours(segs), advance: int(math.Round(float64(adv) / 64))})
		return nil
	}
	if err := load(0); err != nil {
		return nil, fmt.Errorf(".notdef: %w", err)
	}
	for _, r := range runes {
		idx, err := f.GlyphIndex(&buf, r)
		if err != nil || idx == 0 {
			return nil, fmt.Errorf("the font has no glyph for %q", r)
		}
		if err := load(idx); err != nil {
			return nil, fmt.Errorf("glyph of %q: %w", r, err)
		}
	}
	m, err := f.Metrics(&buf, ppem, font.HintingNone)
	if err != nil {
		return nil, err
	}
	name := func(id sfnt.NameID) string {
		s, _ := f.Name(&buf, id)
		return s
	}
	t := ttTables{upem: upem, glyphs: glyphs, runes: runes,
		ascent: int(math.Round(float64(m.Ascent) / 64)), descent: -int(math.Round(float64(m.Descent) / 64)),
		capHeight: int(math.Round(float64(m.CapHeight) / 64)), os2: os2,
		names: map[uint16]string{
			0: name(sfnt.NameIDCopyright), 1: name(sfnt.NameIDFamily), 2: name(sfnt.NameIDSubfamily),
			3: name(sfnt.NameIDUniqueIdentifier), 4: name(sfnt.NameIDFull), 6: name(sfnt.NameIDPostScript),
			13: name(sfnt.NameIDLicense), 14: name(sfnt.NameIDLicenseURL),
		}}
	return t.font(), nil
}

// quadContours turns sfnt's segments (y down) into TrueType contours (y
// up) of lines and quadratic curves.
func quadContours(segs []sfnt.Segment) [][]ttPoint {
	type pt struct{ x, y float64 }
	at := func(p fixed.Point26_6) pt { return pt{float64(p.X) / 64, -float64(p.Y) / 64} }
	round := func(p pt, on bool) ttPoint {
		return ttPoint{int(math.Round(p.x)), int(math.Round(p.y)), on}
	}
	var out [][]ttPoint
	var cur []ttPoint
	var last pt
	end := func() {
		// A contour closes by itself: a last point on the first is dropped.
		if n := len(cur); n > 1 && cur[n-1] == cur[0] {
			cur = cur[:n-1]
		}
		if len(cur) > 0 {
			out = append(out, cur)
		}
		cur = nil
	}
	for _, s := range segs {
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			end()
			last = at(s.Args[0])
			cur = append(cur, round(last, true))
		case sfnt.SegmentOpLineTo:
			last = at(s.Args[0])
			cur = append(cur, round(last, true))
		case sfnt.SegmentOpQuadTo:
			c, p := at(s.Args[0]), at(s.Args[1])
			cur = append(cur, round(c, false), round(p, true))
			last = p
		case sfnt.SegmentOpCubeTo:
			p0, c1, c2, p3 := last, at(s.Args[0]), at(s.Args[1]), at(s.Args[2])
			// One quadratic strays from the cubic by at most about
			// √3/36·|p3 − 3c2 + 3c1 − p0|, and n pieces by 1/n³ of that.
			dx, dy := p3.x-3*c2.x+3*c1.x-p0.x, p3.y-3*c2.y+3*c1.y-p0.y
			stray := math.Sqrt(3) / 36 * math.Hypot(dx, dy)
			n := min(max(int(math.Ceil(math.Cbrt(stray/cubicTolerance))), 1), maxCubicPieces)
			bez := func(t float64) (pt, pt) { // the point and the derivative at t
				u := 1 - t
				p := pt{u*u*u*p0.x + 3*u*u*t*c1.x + 3*u*t*t*c2.x + t*t*t*p3.x, u*u*u*p0.y + 3*u*u*t*c1.y + 3*u*t*t*c2.y + t*t*t*p3.y}
				d := pt{3*u*u*(c1.x-p0.x) + 6*u*t*(c2.x-c1.x) + 3*t*t*(p3.x-c2.x), 3*u*u*(c1.y-p0.y) + 6*u*t*(c2.y-c1.y) + 3*t*t*(p3.y-c2.y)}
				return p, d
			}
			for i := range n {
				t0, t1 := float64(i)/float64(n), float64(i+1)/float64(n)
				a, da := bez(t0)
				b, db := bez(t1)
				h := (t1 - t0) / 3
				// The piece's own control points, then the quadratic
				// control point that best matches them.
				q1 := pt{a.x + da.x*h, a.y + da.y*h}
				q2 := pt{b.x - db.x*h, b.y - db.y*h}
				c := pt{(3*(q1.x+q2.x) - a.x - b.x) / 4, (3*(q1.y+q2.y) - a.y - b.y) / 4}
				if i == n-1 {
					b = p3 // exactly where the curve ends
				}
				cur = append(cur, round(c, false), round(b, true))
			}
			last = p3
		}
	}
	end()
	return out
}

// ttTables writes the font's tables.
type ttTables struct {
	upem                       int
	glyphs                     []ttGlyph // .notdef, then one per rune
	runes                      []rune
	ascent, descent, capHeight int // descent is negative
	os2                        []byte
	names                      map[uint16]string
}

func (t *ttTables) font() []byte {
	var glyf, loca []byte
	hmtx := make([]byte, 0, 4*len(t.glyphs))
	xMin, yMin, xMax, yMax := math.MaxInt16, math.MaxInt16, math.MinInt16, math.MinInt16
	maxPoints, maxContours, maxAdvance := 0, 0, 0
	for _, g := range t.glyphs {
		loca = binary.BigEndian.AppendUint32(loca, uint32(len(glyf)))
		data, box, points := encodeGlyph(g.contours)
		glyf = append(glyf, data...)
		for len(glyf)%4 != 0 {
			glyf = append(glyf, 0)
		}
		lsb := 0
		if points > 0 {
			xMin, yMin, xMax, yMax = min(xMin, box[0]), min(yMin, box[1]), max(xMax, box[2]), max(yMax, box[3])
			lsb = box[0]
		}
		maxPoints, maxContours, maxAdvance = max(maxPoints, points), max(maxContours, len(g.contours)), max(maxAdvance, g.advance)
		hmtx = binary.BigEndian.AppendUint16(hmtx, uint16(g.advance))
		hmtx = binary.BigEndian.AppendUint16(hmtx, uint16(int16(lsb)))
	}
	loca = binary.BigEndian.AppendUint32(loca, uint32(len(glyf)))
	if xMin > xMax {
		xMin, yMin, xMax, yMax = 0, 0, 0, 0
	}
	n := len(t.glyphs)
	be16 := func(b []byte, vs ...int) []byte {
		for _, v := range vs {
			b = binary.BigEndian.AppendUint16(b, uint16(int16(v)))
		}
		return b
	}
	head := binary.BigEndian.AppendUint32(nil, 0x00010000)      // version
	head = binary.BigEndian.AppendUint32(head, 0x00010000)      // fontRevision
	head = binary.BigEndian.AppendUint32(head, 0)               // checkSumAdjustment, set below
	head = binary.BigEndian.AppendUint32(head, 0x5F0F3CF5)      // magicNumber
	head = be16(head, 0x0009, t.upem)                           // flags: baseline at 0, integer scaling
	head = append(head, make([]byte, 16)...)                    // created, modified: none, for the same bytes each time
	head = be16(head, xMin, yMin, xMax, yMax, 0, 8, 2, 1, 0)    // macStyle, lowestRecPPEM, fontDirectionHint, long loca, glyphDataFormat
	hhea := binary.BigEndian.AppendUint32(nil, 0x00010000)      // version
	hhea = be16(hhea, t.ascent, t.descent, 0, maxAdvance, 0, 0) // lineGap, advanceWidthMax, min side bearings
	hhea = be16(hhea, xMax, 1, 0, 0, 0, 0, 0, 0, 0, n)          // xMaxExtent, caret, reserved, metricDataFormat, numberOfHMetrics
	maxp := binary.BigEndian.AppendUint32(nil, 0x00010000)
	maxp = be16(maxp, n, maxPoints, maxContours, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0)
	post := binary.BigEndian.AppendUint32(nil, 0x00030000) // no glyph names
	post = append(post, make([]byte, 28)...)
	tables := map[string][]byte{
		"cmap": t.cmap(), "glyf": glyf, "head": head, "hhea": hhea, "hmtx": hmtx,
		"loca": loca, "maxp": maxp, "name": t.name(), "OS/2": t.os2Table(xMin, xMax), "post": post,
	}
	return assembleFont(tables)
}

// encodeGlyph writes a simple glyph (OpenType spec, "glyf"); it returns
// the bytes, the bounding box and the number of points.
func encodeGlyph(contours [][]ttPoint) ([]byte, [4]int, int) {
	var box [4]int
	points := 0
	for _, c := range contours {
		points += len(c)
	}
	if points == 0 {
		return nil, box, 0
	}
	box = [4]int{math.MaxInt, math.MaxInt, math.MinInt, math.MinInt}
	var ends, flags, xs, ys []byte
	k, px, py := 0, 0, 0
	for _, c := range contours {
		for _, p := range c {
			box[0], box[1], box[2], box[3] = min(box[0], p.x), min(box[1], p.y), max(box[2], p.x), max(box[3], p.y)
			var flag byte
			if p.on {
				flag |= 0x01
			}
			coord := func(d int, short, same byte, out []byte) (byte, []byte) {
				switch {
				case d == 0:
					return same, out
				case d > -256 && d < 256:
					if d > 0 {
						return short | same, append(out, byte(d))
					}
					return short, append(out, byte(-d))
				}
				return 0, binary.BigEndian.AppendUint16(out, uint16(int16(d)))
			}
			var f byte
			f, xs = coord(p.x-px, 0x02, 0x10, xs)
			flag |= f
			f, ys = coord(p.y-py, 0x04, 0x20, ys)
			flag |= f
			flags = append(flags, flag)
			px, py = p.x, p.y
			k++
		}
		ends = binary.BigEndian.AppendUint16(ends, uint16(k-1))
	}
	out := binary.BigEndian.AppendUint16(nil, uint16(len(contours)))
	for _, v := range box {
		out = binary.BigEndian.AppendUint16(out, uint16(int16(v)))
	}
	out = append(out, ends...)
	out = append(out, 0, 0) // no instructions
	out = append(append(append(out, flags...), xs...), ys...)
	return out, box, points
}

// cmap maps the runes to glyphs 1, 2, … in one format 4 subtable
// (Windows, Unicode BMP): a segment for each run of consecutive
// characters.
func (t *ttTables) cmap() []byte {
	type seg struct{ start, end, delta int }
	var segs []seg
	for i, r := range t.runes {
		gid := i + 1
		if n := len(segs); n > 0 && segs[n-1].end+1 == int(r) {
			segs[n-1].end++
			continue
		}
		segs = append(segs, seg{int(r), int(r), gid - int(r)})
	}
	segs = append(segs, seg{0xFFFF, 0xFFFF, 1})
	n := len(segs)
	searchRange, selector := 2, 0
	for searchRange*2 <= 2*n {
		searchRange *= 2
		selector++
	}
	var sub []byte
	put := func(vs ...int) {
		for _, v := range vs {
			sub = binary.BigEndian.AppendUint16(sub, uint16(v))
		}
	}
	put(4, 16+8*n, 0, 2*n, searchRange, selector, 2*n-searchRange)
	for _, s := range segs {
		put(s.end)
	}
	put(0)
	for _, s := range segs {
		put(s.start)
	}
	for _, s := range segs {
		put(s.delta & 0xFFFF)
	}
	for range segs {
		put(0)
	}
	out := []byte{0, 0, 0, 1, 0, 3, 0, 1, 0, 0, 0, 12}
	return append(out, sub...)
}

// name carries the source's names (family, copyright, licence) over, as
// Windows Unicode records.
func (t *ttTables) name() []byte {
	ids := make([]int, 0, len(t.names))
	for id, s := range t.names {
		if s != "" {
			ids = append(ids, int(id))
		}
	}
	sort.Ints(ids)
	var strs []byte
	out := binary.BigEndian.AppendUint16(nil, 0) // format 0
	out = binary.BigEndian.AppendUint16(out, uint16(len(ids)))
	out = binary.BigEndian.AppendUint16(out, uint16(6+12*len(ids)))
	for _, id := range ids {
		u := utf16.Encode([]rune(t.names[uint16(id)]))
		if len(u) > 2000 {
			u = u[:2000]
		}
		for _, v := range []int{3, 1, 0x409, id, 2 * len(u), len(strs)} {
			out = binary.BigEndian.AppendUint16(out, uint16(v))
		}
		for _, c := range u {
			strs = binary.BigEndian.AppendUint16(strs, c)
		}
	}
	return append(out, strs...)
}

// os2Table is the source's OS/2 table (weight, embedding permissions,
// vertical metrics) with this font's character range, or a plain one.
func (t *ttTables) os2Table(xMin, xMax int) []byte {
	first, last := 0xFFFF, 0
	if len(t.runes) > 0 {
		first, last = int(t.runes[0]), int(t.runes[len(t.runes)-1])
	}
	if len(t.os2) >= 78 {
		out := append([]byte(nil), t.os2...)
		binary.BigEndian.PutUint16(out[64:], uint16(first))
		binary.BigEndian.PutUint16(out[66:], uint16(last))
		return out
	}
	out := make([]byte, 96)
	put := func(off, v int) { binary.BigEndian.PutUint16(out[off:], uint16(int16(v))) }
	put(0, 4)                // version
	put(2, (xMin+xMax)/2)    // xAvgCharWidth
	put(4, 400)              // usWeightClass
	put(6, 5)                // usWidthClass
	copy(out[58:62], "    ") // achVendID
	put(62, 0x40)            // fsSelection: regular
	put(64, first)           // usFirstCharIndex
	put(66, last)            // usLastCharIndex
	put(68, t.ascent)        // sTypoAscender
	put(70, t.descent)       // sTypoDescender
	put(74, t.ascent)        // usWinAscent
	put(76, -t.descent)      // usWinDescent
	put(88, t.capHeight)     // sCapHeight
	put(92, ' ')             // usBreakChar
	return out
}

// assembleFont writes the table directory and the tables, each 4-byte
// aligned with its checksum, and head's checkSumAdjustment.
func assembleFont(tables map[string][]byte) []byte {
	tags := make([]string, 0, len(tables))
	for tag := range tables {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	n := len(tags)
	searchRange, selector := 1, 0
	for searchRange*2 <= n {
		searchRange *= 2
		selector++
	}
	out := binary.BigEndian.AppendUint32(nil, 0x00010000)
	for _, v := range []int{n, 16 * searchRange, selector, 16*n - 16*searchRange} {
		out = binary.BigEndian.AppendUint16(out, uint16(v))
	}
	off := 12 + 16*n
	headAt := 0
	for _, tag := range tags {
		data := tables[tag]
		if tag == "head" {
			headAt = off
		}
		out = append(out, tag...)
		out = binary.BigEndian.AppendUint32(out, checksum(data))
		out = binary.BigEndian.AppendUint32(out, uint32(off))
		out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
		off += (len(data) + 3) &^ 3
	}
	for _, tag := range tags {
		out = append(out, tables[tag]...)
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
	}
	binary.BigEndian.PutUint32(out[headAt+8:], 0xB1B0AFBA-checksum(out))
	return out
}

func checksum(b []byte) uint32 {
	var sum uint32
	for i := 0; i < len(b); i += 4 {
		var w [4]byte
		copy(w[:], b[i:])
		sum += binary.BigEndian.Uint32(w[:])
	}
	return sum
}
