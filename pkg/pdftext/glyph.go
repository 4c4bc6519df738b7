package pdftext

import (
	"strconv"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// glyphRune maps a glyph name of a font's /Differences to its character,
// by the rules of the Adobe Glyph List specification rather than its
// 4,000-entry table: uniXXXX and uXXXX[XX] names, single letters and
// digits' names, the names of ASCII punctuation and of the common
// typographic glyphs below, and letter + accent names composed by Unicode
// normalization ("eacute" is e + U+0301). 0 when the name says nothing.
func glyphRune(name string) rune {
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i] // "a.sc", "one.oldstyle": variants of the base glyph
	}
	if r, ok := glyphNames()[name]; ok {
		return r
	}
	if len(name) == 1 && (name[0] >= 'A' && name[0] <= 'Z' || name[0] >= 'a' && name[0] <= 'z') {
		return rune(name[0])
	}
	if strings.HasPrefix(name, "uni") && len(name) >= 7 {
		if v, err := strconv.ParseUint(name[3:7], 16, 32); err == nil {
			return rune(v)
		}
	}
	if strings.HasPrefix(name, "u") && len(name) >= 5 && len(name) <= 7 {
		if v, err := strconv.ParseUint(name[1:], 16, 32); err == nil && v <= 0x10FFFF {
			return rune(v)
		}
	}
	// Letter + accent.
	for accent, mark := range accents {
		if base, ok := strings.CutSuffix(name, accent); ok && len(base) == 1 {
			if s := norm.NFC.String(base + string(mark)); len([]rune(s)) == 1 {
				return []rune(s)[0]
			}
		}
	}
	return 0
}

var accents = map[string]rune{
	"acute": '\u0301', "grave": '\u0300', "circumflex": '\u0302', "tilde": '\u0303',
	"dieresis": '\u0308', "ring": '\u030A', "cedilla": '\u0327', "caron": '\u030C',
	"macron": '\u0304', "breve": '\u0306', "ogonek": '\u0328', "dotaccent": '\u0307',
	"hungarumlaut": '\u030B', "commaaccent": '\u0326',
}

// glyphNames are the glyphs of the standard Latin text encodings whose
// names the rules above do not cover; built on first use, so that no
// start-up pays for it.
var glyphNames = sync.OnceValue(func() map[string]rune {
	return map[string]rune{
		"space": ' ', "exclam": '!', "quotedbl": '"', "numbersign": '#', "dollar": '$',
		"percent": '%', "ampersand": '&', "quotesingle": '\'', "parenleft": '(',
		"parenright": ')', "asterisk": '*', "plus": '+', "comma": ',', "hyphen": '-',
		"period": '.', "slash": '/', "zero": '0', "one": '1', "two": '2', "three": '3',
		"four": '4', "five": '5', "six": '6', "seven": '7', "eight": '8', "nine": '9',
		"colon": ':', "semicolon": ';', "less": '<', "equal": '=', "greater": '>',
		"question": '?', "at": '@', "bracketleft": '[', "backslash": '\\',
		"bracketright": ']', "asciicircum": '^', "underscore": '_', "grave": '`',
		"braceleft": '{', "bar": '|', "braceright": '}', "asciitilde": '~',
		"quoteleft": '\u2018', "quoteright": '\u2019', "quotedblleft": '\u201C',
		"quotedblright": '\u201D', "quotesinglbase": '\u201A', "quotedblbase": '\u201E',
		"guillemotleft": '\u00AB', "guillemotright": '\u00BB', "guilsinglleft": '\u2039',
		"guilsinglright": '\u203A', "endash": '\u2013', "emdash": '\u2014',
		"bullet": '\u2022', "ellipsis": '\u2026', "dagger": '\u2020', "daggerdbl": '\u2021',
		"perthousand": '\u2030', "trademark": '\u2122', "copyright": '\u00A9',
		"registered": '\u00AE', "degree": '\u00B0', "section": '\u00A7', "paragraph": '\u00B6',
		"periodcentered": '\u00B7', "exclamdown": '\u00A1', "questiondown": '\u00BF',
		"cent": '\u00A2', "sterling": '\u00A3', "yen": '\u00A5', "Euro": '\u20AC',
		"currency": '\u00A4', "florin": '\u0192', "brokenbar": '\u00A6', "dieresis": '\u00A8',
		"acute": '\u00B4', "cedilla": '\u00B8', "macron": '\u00AF', "ordfeminine": '\u00AA',
		"ordmasculine": '\u00BA', "logicalnot": '\u00AC', "plusminus": '\u00B1',
		"multiply": '\u00D7', "divide": '\u00F7', "minus": '\u2212', "mu": '\u00B5',
		"onehalf": '\u00BD', "onequarter": '\u00BC', "threequarters": '\u00BE',
		"onesuperior": '\u00B9', "twosuperior": '\u00B2', "threesuperior": '\u00B3',
		"fi": '\uFB01', "fl": '\uFB02', "ff": '\uFB00', "ffi": '\uFB03', "ffl": '\uFB04',
		"germandbls": '\u00DF', "AE": '\u00C6', "ae": '\u00E6', "OE": '\u0152', "oe": '\u0153',
		"Oslash": '\u00D8', "oslash": '\u00F8', "Eth": '\u00D0', "eth": '\u00F0',
		"Thorn": '\u00DE', "thorn": '\u00FE', "Lslash": '\u0141', "lslash": '\u0142',
		"dotlessi": '\u0131', "circumflex": '\u02C6', "tilde": '\u02DC', "ring": '\u02DA',
		"caron": '\u02C7', "breve": '\u02D8', "dotaccent": '\u02D9', "ogonek": '\u02DB',
		"hungarumlaut": '\u02DD', "nbspace": '\u00A0', "sfthyphen": '\u00AD',
		"fraction": '\u2044', "lozenge": '\u25CA', "notequal": '\u2260', "lessequal": '\u2264',
		"greaterequal": '\u2265', "infinity": '\u221E', "summation": '\u2211',
		"product": '\u220F', "integral": '\u222B', "radical": '\u221A', "partialdiff": '\u2202',
		"Delta": '\u2206', "Omega": '\u2126', "pi": '\u03C0', "approxequal": '\u2248',
		"arrowleft": '\u2190', "arrowright": '\u2192', "arrowup": '\u2191', "arrowdown": '\u2193',
	}
})
