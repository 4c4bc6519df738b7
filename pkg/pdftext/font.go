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

func (m *cmap) decode(raw string) []rune {
	var out []rune
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
			off := int(code[n-1]) - int(rg.lo[n-1])
			if rg.array != nil {
				if off < len(rg.array) {
					out = append(out, utf16Runes(rg.array[off])...)
				}
			} else if rg.dst != "" {
				b := []byte(rg.dst)
				b[len(b)-1] += byte(off)
				out = append(out, utf16Runes(string(b))...)
			}
			break
		}
	}
	return out
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
