package render

import (
	"bytes"
	"context"
	"testing"
	"unicode/utf8"

	"github.com/go-pdf/fpdf"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// FuzzRender: any Markdown renders to every office format without a
// panic, or fails with an error.
func FuzzRender(f *testing.F) {
	for _, s := range []string{"# T\n\n- a\n  - b\n\n| a | b |\n|---|---|\n| 1 | =A1 |\n", "---\ntitle: x\n---\n> q\n\n```\ncode\n```\n", "<!-- n -->\n---\n# s\n![i](x.png)", "1. a\n   1. b\n- [x] c\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		if !utf8.ValidString(md) || md == "" {
			return
		}
		dir := t.TempDir()
		cfg := config.Defaults()
		env := &tool.Env{Root: dir, UserHome: dir, Config: &cfg}
		for _, format := range []string{"docx", "xlsx", "pptx"} {
			_, _ = Render(context.Background(), env, Params{Format: format, Markdown: md, Out: "out." + format})
		}
	})
}

// FuzzParse: any input reads into the document model without a panic,
// and block quotes and lists nest no deeper than MaxDepth.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"# T\n\n- a\n  - b\n\n> q\n\n```\ncode\n```\n",
		"- a\nlazy\n  - b\n    lazy\n\n  para\n",
		"1. a\n\n   ```go\n   x\n   ```\n2. b\n",
		"text\n---\n\n---\n\n***\n",
		"<div>\nx\n</div>\n\n<!-- c -->\n",
		"    code\n\n  - x\n\n        code in item\n",
		"> > a\n> b\nc\n",
		"[a]: /u\n[b]: /v 't'\n\n[a] [b]\n",
		"- [x] t\n- [ ] u\n",
		"| a | b |\n|:-|-:|\n| `x \\| y` | ~~z~~ www.example.com |\n",
		"[0]:0(", "*0\n<!a00>000000", "*\n  +", "0000\n  ```\n \n0", "[0]:\x0f", "0\n-:", " ```\n ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc, err := Parse([]byte(s))
		if err != nil {
			return // bad front matter
		}
		if d := blockDepth(doc.Blocks); d > MaxDepth+1 {
			t.Fatalf("nests %d deep, past %d", d, MaxDepth+1)
		}
	})
}

// FuzzParseCell: typing a cell never panics, and a number it finds
// prints back as a finite value.
func FuzzParseCell(f *testing.F) {
	for _, s := range []string{"1,234.5", "12%", "$-3", "2024-02-29 23:59:59", "007", "=SUM(A1:A3)", "12 €"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := parseCell(s)
		if c.kind == cellNumber && (c.num != c.num) {
			t.Fatalf("parseCell(%q) is NaN", s)
		}
	})
}

// FuzzFontFile: a damaged font file is an error, never a panic; a face
// it has becomes a TrueType subset that sfnt and the PDF writer both read.
func FuzzFontFile(f *testing.F) {
	f.Add(goregular.TTF)
	f.Add(append([]byte("ttcf\x00\x01\x00\x00\x00\x00\x00\x01\x00\x00\x00\x10"), goregular.TTF[:64]...))
	f.Fuzz(func(t *testing.T, data []byte) {
		faces, err := parseFaces(bytes.NewReader(data), "fuzz.ttf")
		if err != nil {
			return
		}
		for _, face := range faces {
			var runes []rune
			for _, r := range "AzÉ中あ한" {
				if face.has(r) {
					runes = append(runes, r)
				}
			}
			ttf, err := trueTypeSubset(face.font, runes, face.os2)
			if err != nil {
				continue
			}
			if _, err := sfnt.Parse(ttf); err != nil {
				t.Fatalf("the subset does not parse: %v", err)
			}
			pdf := fpdf.New("P", "pt", "A4", "")
			pdf.AddUTF8FontFromBytes("f", "", ttf)
			if err := pdf.Error(); err != nil {
				t.Fatalf("the PDF writer refuses the subset: %v", err)
			}
		}
	})
}
