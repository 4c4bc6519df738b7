package pdftext

import (
	"strings"
	"unicode/utf16"

	"github.com/ledongthuc/pdf"
	"golang.org/x/text/encoding/charmap"
)

// fontDecoder turns a font's character codes into text: by its ToUnicode
// CMap when it has one, else by its encoding (PDF 32000-1 §9.10.2).
type fontDecoder struct {
	cmap   *cmap
	simple *[256]rune
	utf16  bool // a CID font with a UCS-2 / UTF-16 CMap
	// opaque: a CID font without ToUnicode (Identity-H and the like):
	// its codes are glyph ids, which say nothing about the text.
	opaque bool
}

func newFontDecoder(font pdf.Value) *fontDecoder {
	if tu := font.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		if m := readCMap(tu, font); m != nil {
			return &fontDecoder{cmap: m}
		}
	}
	enc := font.Key("Encoding")
	if font.Key("Subtype").Name() == "Type0" {
		name := enc.Name()
		if strings.Contains(name, "UCS2") || strings.Contains(name, "UTF16") {
			return &fontDecoder{utf16: true}
		}
		return &fontDecoder{opaque: true}
	}
	table := baseTable(enc.Name())
	if enc.Kind() == pdf.Dict {
		table = baseTable(enc.Key("BaseEncoding").Name())
		diff := enc.Key("Differences")
		code := -1
		for i := 0; i < diff.Len(); i++ {
			switch x := diff.Index(i); x.Kind() {
			case pdf.Integer:
				code = int(x.Int64())
			case pdf.Name:
				if code >= 0 && code < 256 {
					if r := glyphRune(x.Name()); r != 0 {
						table[code] = r
					}
				}
				code++
			}
		}
	}
	return &fontDecoder{simple: &table}
}

// baseTable is one of the standard single-byte encodings.
func baseTable(name string) [256]rune {
	var t [256]rune
	cm := charmap.Windows1252
	if name == "MacRomanEncoding" {
		cm = charmap.Macintosh
	}
	for i := range t {
		t[i] = cm.DecodeByte(byte(i))
	}
	if name != "WinAnsiEncoding" && name != "MacRomanEncoding" {
		// StandardEncoding, a font's built-in one: ASCII but for its
		// typographic quotes.
		t['\''] = '\u2019'
		t['`'] = '\u2018'
	}
	return t
}

func (f *fontDecoder) decode(raw string) []rune {
	switch {
	case f == nil:
		return []rune(strings.ToValidUTF8(raw, ""))
	case f.cmap != nil:
		return f.cmap.decode(raw)
	case f.utf16:
		return utf16Runes(raw)
	case f.opaque:
		return nil
	}
	out := make([]rune, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		out = append(out, f.simple[raw[i]])
	}
	return out
}

func utf16Runes(s string) []rune {
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	return utf16.Decode(u)
}

// cmap is a ToUnicode CMap: code space ranges, single codes and ranges.
type cmap struct {
	space  [4][][2]string // by code length - 1: lo, hi
	chars  map[string][]rune
	ranges []cmapRange
}

type cmapRange struct {
	lo, hi string
	dst    string   // first destination, its last byte counted up
	array  []string // or one destination per code
}

func (m *cmap) decode(raw string) []rune { return m.decodeTo(nil, raw) }

// decodeTo appends the text of raw's codes to out.
func (m *cmap) decodeTo(out []rune, raw string) []rune {
	for len(raw) > 0 {
		n := m.codeLen(raw)
		code := raw[:n]
		raw = raw[n:]
		if r, ok := m.chars[code]; ok {
			out = append(out, r...)
			continue
		}
		for _, rg := range m.ranges {
			if len(rg.lo) != n || code < rg.lo || code > rg.hi {
				continue
			}
			// The offset counts over every byte of the code: the spec keeps
			// a range within its last byte, but writers (fpdf's
			// <0000> <FFFF> <0000>) span whole code spaces, and the
			// destination then counts up the same way.
			off := bigEndian(code) - bigEndian(rg.lo)
			if rg.array != nil {
				if off < len(rg.array) {
					out = append(out, utf16Runes(rg.array[off])...)
				}
			} else if rg.dst != "" {
				b := []byte(rg.dst)
				carry := off
				for i := len(b) - 1; i >= 0 && carry > 0; i-- {
					sum := int(b[i]) + carry
					b[i] = byte(sum)
					carry = sum >> 8
				}
				out = append(out, utf16Runes(string(b))...)
			}
			break
		}
	}
	return out
}

// bigEndian reads a code of up to 4 bytes as a number.
func bigEndian(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n<<8 | int(s[i])
	}
	return n
}

// codeLen is the length of the code at the start of raw: the code space
// range that holds it, else the shortest length the CMap maps.
func (m *cmap) codeLen(raw string) int {
	for n := 1; n <= 4 && n <= len(raw); n++ {
		for _, sp := range m.space[n-1] {
			if sp[0] <= raw[:n] && raw[:n] <= sp[1] {
				return n
			}
		}
	}
	for n := 1; n <= 4 && n <= len(raw); n++ {
		if _, ok := m.chars[raw[:n]]; ok {
			return n
		}
		for _, rg := range m.ranges {
			if len(rg.lo) == n && rg.lo <= raw[:n] && raw[:n] <= rg.hi {
				return n
			}
		}
	}
	return 1
}

// readCMap parses a ToUnicode stream; nil when it is not one. scratch
// is a dictionary for the stream's "findresource begin" to open (the
// interpreter refuses to begin anything else, and the library offers no
// way to make an empty one); the definitions that follow go into the
// stream's own "dict begin".
func readCMap(v, scratch pdf.Value) (m *cmap) {
	defer func() {
		if recover() != nil {
			m = nil
		}
	}()
	m = &cmap{chars: map[string][]rune{}}
	n := -1
	pdf.Interpret(v, func(stk *pdf.Stack, op string) {
		switch op {
		case "begincodespacerange", "beginbfchar", "beginbfrange":
			n = int(stk.Pop().Int64())
		case "endcodespacerange":
			for ; n > 0 && stk.Len() >= 2; n-- {
				hi, lo := stk.Pop().RawString(), stk.Pop().RawString()
				if len(lo) >= 1 && len(lo) <= 4 && len(lo) == len(hi) {
					m.space[len(lo)-1] = append(m.space[len(lo)-1], [2]string{lo, hi})
				}
			}
		case "endbfchar":
			for ; n > 0 && stk.Len() >= 2; n-- {
				dst, src := stk.Pop().RawString(), stk.Pop().RawString()
				m.chars[src] = utf16Runes(dst)
			}
		case "endbfrange":
			for ; n > 0 && stk.Len() >= 3; n-- {
				dst, hi, lo := stk.Pop(), stk.Pop().RawString(), stk.Pop().RawString()
				if len(lo) == 0 || len(lo) != len(hi) {
					continue
				}
				rg := cmapRange{lo: lo, hi: hi}
				if dst.Kind() == pdf.Array {
					for i := 0; i < dst.Len(); i++ {
						rg.array = append(rg.array, dst.Index(i).RawString())
					}
				} else {
					rg.dst = dst.RawString()
				}
				m.ranges = append(m.ranges, rg)
			}
		case "findresource":
			stk.Pop()
			stk.Pop()
			stk.Push(scratch)
		case "defineresource":
			stk.Pop()
			v := stk.Pop()
			stk.Pop()
			stk.Push(v)
		}
	})
	if len(m.chars) == 0 && len(m.ranges) == 0 {
		return nil
	}
	return m
}

// glyph is one character code of a string shown: how many characters
// of the string's text it gives, its advance width in thousandths of the
// font size, and whether it is the single-byte space that word spacing
// (Tw) widens.
type glyph struct {
	runes int
	width float64
	space bool
}

// fontMetrics are what laying text out needs of a font: the widths of
// its codes, and whether it is bold or italic.
type fontMetrics struct {
	// widths by code; dw for the codes it does not list.
	first  int
	widths []float64
	cid    map[int]float64
	dw     float64
	bold   bool
	italic bool
	// codeBytes is the length of a code when no CMap says otherwise: 1
	// for simple fonts, 2 for composite (Type0) ones.
	codeBytes int
}

// ForceBold is bit 19 of a font descriptor's /Flags; Italic is bit 7.
const (
	flagItalic    = 1 << 6
	flagForceBold = 1 << 18
)

func newFontMetrics(font pdf.Value) *fontMetrics {
	m := &fontMetrics{dw: 500, codeBytes: 1}
	desc := font.Key("FontDescriptor")
	if font.Key("Subtype").Name() == "Type0" {
		m.codeBytes = 2
		m.dw = 1000
		cidFont := font.Key("DescendantFonts").Index(0)
		desc = cidFont.Key("FontDescriptor")
		if dw := cidFont.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
			m.dw = dw.Float64()
		}
		m.cid = cidWidths(cidFont.Key("W"))
	} else {
		m.first = int(font.Key("FirstChar").Int64())
		ws := font.Key("Widths")
		for i := 0; i < ws.Len() && i < 65536; i++ {
			m.widths = append(m.widths, ws.Index(i).Float64())
		}
		if mw := desc.Key("MissingWidth"); mw.Kind() == pdf.Integer || mw.Kind() == pdf.Real {
			m.dw = mw.Float64()
		}
	}
	name := strings.ToLower(font.Key("BaseFont").Name())
	if _, after, ok := strings.Cut(name, "+"); ok {
		name = after
	}
	flags := desc.Key("Flags").Int64()
	m.bold = flags&flagForceBold != 0 || desc.Key("FontWeight").Float64() >= 600 ||
		strings.Contains(name, "bold") || strings.Contains(name, "black") || strings.Contains(name, "heavy") || strings.Contains(name, "demi")
	m.italic = flags&flagItalic != 0 || desc.Key("ItalicAngle").Float64() != 0 ||
		strings.Contains(name, "italic") || strings.Contains(name, "oblique")
	return m
}

// cidWidths reads a CID font's /W array: c [w1 w2 …] or c1 c2 w runs.
func cidWidths(w pdf.Value) map[int]float64 {
	out := map[int]float64{}
	for i := 0; i < w.Len() && len(out) < 1<<16; {
		c := int(w.Index(i).Int64())
		if next := w.Index(i + 1); next.Kind() == pdf.Array {
			for j := 0; j < next.Len() && len(out) < 1<<16; j++ {
				out[c+j] = next.Index(j).Float64()
			}
			i += 2
			continue
		}
		last := int(w.Index(i + 1).Int64())
		width := w.Index(i + 2).Float64()
		for c2 := c; c2 <= last && c2-c < 1<<16 && len(out) < 1<<16; c2++ {
			out[c2] = width
		}
		i += 3
	}
	return out
}

func (m *fontMetrics) width(code int) float64 {
	if m.cid != nil {
		if w, ok := m.cid[code]; ok {
			return w
		}
		return m.dw
	}
	if i := code - m.first; i >= 0 && i < len(m.widths) && m.widths[i] > 0 {
		return m.widths[i]
	}
	return m.dw
}

// glyphs splits a shown string into its codes, appended to out, and
// their text, appended to text.
func (f *fontDecoder) glyphs(out []glyph, text []rune, raw string, m *fontMetrics) ([]glyph, []rune) {
	n := 1
	if m != nil {
		n = m.codeBytes
	}
	for len(raw) > 0 {
		l := n
		if f != nil && f.cmap != nil {
			l = f.cmap.codeLen(raw)
		}
		l = min(l, len(raw))
		code := raw[:l]
		raw = raw[l:]
		g := glyph{space: l == 1 && code[0] == ' '}
		if m != nil {
			g.width = m.width(bigEndian(code))
		} else {
			g.width = 500
		}
		before := len(text)
		switch {
		case f == nil:
			text = append(text, []rune(strings.ToValidUTF8(code, ""))...)
		case f.cmap != nil:
			text = f.cmap.decodeTo(text, code)
		case f.utf16:
			text = append(text, utf16Runes(code)...)
		case f.opaque:
		default:
			text = append(text, f.simple[code[0]])
		}
		g.runes = len(text) - before
		out = append(out, g)
	}
	return out, text
}
