package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/internal/peer"
	"github.com/mcode-dev/mcode/pkg/tool"
)

func TestParseCellTypes(t *testing.T) {
	for _, c := range []struct {
		in     string
		kind   cellKind
		num    float64
		format string
	}{
		{"42", cellNumber, 42, ""},
		{"-3.25", cellNumber, -3.25, ""},
		{"1,234,567.5", cellNumber, 1234567.5, "#,##0.0"},
		{"12%", cellNumber, 0.12, "0%"},
		{"8.25%", cellNumber, 0.0825, "0.00%"},
		{"$1,234.50", cellNumber, 1234.5, `"$"#,##0.00`},
		{"-$3", cellNumber, -3, `"$"#,##0`},
		{"€2.25", cellNumber, 2.25, `"€"#,##0.00`},
		{"12 €", cellNumber, 12, `#,##0" €"`},
		{"2024-02-29", cellNumber, 45351, "yyyy-mm-dd"},
		{"2024-01-01 12:00", cellNumber, 45292.5, "yyyy-mm-dd hh:mm"},
		{"TRUE", cellBool, 1, boolFormat},
		{"false", cellBool, 0, boolFormat},
		{"=SUM(A2:A9)", cellFormula, 0, ""},
		{"007", cellString, 0, ""},
		{"1234567890123456", cellString, 0, ""}, // a card number, not a double
		{"2023-02-29", cellString, 0, ""},       // no such day
		{"1.2.3", cellString, 0, ""},
		{"=", cellString, 0, ""},
		{"", cellEmpty, 0, ""},
	} {
		got := parseCell(c.in)
		if got.kind != c.kind || got.format != c.format || (c.kind == cellNumber && got.num != c.num) {
			t.Errorf("parseCell(%q) = kind %d num %v format %q, want kind %d num %v format %q", c.in, got.kind, got.num, got.format, c.kind, c.num, c.format)
		}
	}
	if got := parseCell("=B2*C2"); got.formula != "B2*C2" {
		t.Errorf("formula kept as %q", got.formula)
	}
}

func TestSheetNamesAreValidAndUnique(t *testing.T) {
	long := strings.Repeat("x", 40)
	got := sheetNames([]string{"Budget Q1/Q2", "Budget Q1/Q2", "budget q1 q2", "", "'quoted'", "History", long, long, "a[b]:c*d?e\\f"})
	want := []string{"Budget Q1 Q2", "Budget Q1 Q2 (2)", "budget q1 q2 (3)", "Table 4", "quoted", "History 1",
		strings.Repeat("x", 31), strings.Repeat("x", 27) + " (2)", "a b c d e f"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sheet %d: %q, want %q", i, got[i], want[i])
		}
	}
	if n := len([]rune(cutUTF16(strings.Repeat("表", 40), MaxSheetName))); n != 31 {
		t.Errorf("CJK name cut to %d characters, want 31", n)
	}
}

func TestParseModel(t *testing.T) {
	doc, err := Parse([]byte("---\ntitle: T\nsize: 4:3\n---\n# H\n\n- [x] done\n- plain *it*\n\n| a | b |\n|:-|-:|\n| 1 | 2 |\n\n<!-- note -->\n\n---\n\nA&amp;B \\*x\\*\n"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title() != "T" || doc.MetaString("size") != "4:3" {
		t.Errorf("front matter: title %q size %q", doc.Title(), doc.MetaString("size"))
	}
	kinds := []BlockKind{}
	for _, b := range doc.Blocks {
		kinds = append(kinds, b.Kind)
	}
	want := []BlockKind{Heading, List, Table, Comment, Rule, Para}
	if len(kinds) != len(want) {
		t.Fatalf("blocks %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("blocks %v, want %v", kinds, want)
		}
	}
	list := doc.Blocks[1]
	if list.Items[0].Task == nil || !*list.Items[0].Task || PlainText(list.Items[0].Blocks[0].Runs) != "done" {
		t.Errorf("task item: %+v", list.Items[0])
	}
	if list.Items[1].Task != nil || !list.Items[1].Blocks[0].Runs[1].Italic {
		t.Errorf("plain item: %+v", list.Items[1])
	}
	tbl := doc.Blocks[2].Table
	if tbl.Align[0] != "left" || tbl.Align[1] != "right" || PlainText(tbl.Rows[0][1]) != "2" {
		t.Errorf("table: %+v", tbl)
	}
	if doc.Blocks[3].Code != "note" {
		t.Errorf("comment %q", doc.Blocks[3].Code)
	}
	if got := PlainText(doc.Blocks[5].Runs); got != "A&B *x*" {
		t.Errorf("entities and escapes: %q", got)
	}
	// A --- without a closing line is a rule, not front matter.
	doc, err = Parse([]byte("---\n# Slide\n"))
	if err != nil || len(doc.Blocks) != 2 || doc.Blocks[0].Kind != Rule {
		t.Errorf("unclosed front matter: %v %+v", err, doc)
	}
}

func TestEveryFormatIsDeterministic(t *testing.T) {
	// rich.md holds CJK text: the PDF needs a CJK font with TrueType outlines.
	peer.RequireFile(t, "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", CJKPackage)
	env := testEnv(t)
	for _, f := range Formats {
		a := mustRender(t, env, Params{Format: f, Source: "rich.md", Out: "a." + f})
		b := mustRender(t, env, Params{Format: f, Source: "rich.md", Out: "b." + f})
		x, _ := os.ReadFile(filepath.Join(env.Root, "a."+f))
		y, _ := os.ReadFile(filepath.Join(env.Root, "b."+f))
		if !bytes.Equal(x, y) || a.SHA256 != b.SHA256 || a.Bytes != len(x) {
			t.Errorf("%s: two renders differ (%s, %s)", f, a.SHA256, b.SHA256)
		}
		if a.Action != Created {
			t.Errorf("%s: action %s", f, a.Action)
		}
		if f != "xlsx" && a.Counts.Images != 4 {
			t.Errorf("%s: %d images, want 4 (png, jpeg, gif, bmp)", f, a.Counts.Images)
		}
	}
}

func TestCountsAndWarnings(t *testing.T) {
	env := testEnv(t)
	res := mustRender(t, env, Params{Format: "pptx", Source: "rich.md", Out: "s.pptx"})
	if res.Counts.Slides != 3 || res.Counts.Tables != 2 {
		t.Errorf("pptx counts %+v, want 3 slides, 2 tables", res.Counts)
	}
	res = mustRender(t, env, Params{Format: "xlsx", Source: "rich.md", Out: "s.xlsx"})
	if res.Counts.Sheets != 2 {
		t.Errorf("xlsx counts %+v", res.Counts)
	}
	write(t, filepath.Join(env.Root, "w.md"), []byte("# W\n\n![gone](missing.png)\n\n![far](https://example.com/a.png)\n\n![vec](v.svg)\n\n<b>bold?</b> text\n"))
	write(t, filepath.Join(env.Root, "v.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`))
	res = mustRender(t, env, Params{Format: "docx", Source: "w.md", Out: "w.docx"})
	all := strings.Join(res.Warnings, "\n")
	for _, want := range []string{"missing.png not found", "remote images are never fetched", "is SVG", "raw HTML"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if res.Counts.Images != 0 {
		t.Errorf("images %d, want 0", res.Counts.Images)
	}
}

func TestBadInputWritesNothing(t *testing.T) {
	env := testEnv(t)
	write(t, filepath.Join(env.Root, "latin1.md"), []byte("caf\xe9\n"))
	for _, c := range []struct {
		p    Params
		code tool.Code
	}{
		{Params{Format: "docx", Source: "nope.md", Out: "x.docx"}, tool.CodeNotFound},
		{Params{Format: "docx", Source: "latin1.md", Out: "x.docx"}, tool.CodeEncoding},
		{Params{Format: "docx", Source: ".", Out: "x.docx"}, tool.CodeIsDirectory},
		{Params{Format: "docx", Source: "rich.md", Markdown: "# x", Out: "x.docx"}, tool.CodeInvalidArgs},
		{Params{Format: "xlsx", Markdown: "# no table", Out: "x.xlsx"}, tool.CodeInvalidArgs},
		{Params{Format: "pdf", Markdown: "# x", Out: "x.pdf", Aspect: "4:3"}, tool.CodeInvalidArgs},
		{Params{Format: "pptx", Markdown: "# x", Out: "x.pptx", Cover: true}, tool.CodeInvalidArgs},
		{Params{Format: "docx", Markdown: "# x", Out: "rich.md/x.docx"}, tool.CodeNotADirectory},
	} {
		_, err := render(t, env, c.p)
		if errCode(err) != c.code {
			t.Errorf("%+v: error %v, want %s", c.p, err, c.code)
		}
	}
	for _, name := range []string{"x.docx", "x.xlsx", "x.pdf", "x.pptx"} {
		if _, err := os.Stat(filepath.Join(env.Root, name)); err == nil {
			t.Errorf("%s was written", name)
		}
	}
	if entries, _ := filepath.Glob(filepath.Join(env.Root, ".*")); len(entries) > 0 {
		t.Errorf("temp files left: %v", entries)
	}
}

func TestTagSubsetsKeepsLength(t *testing.T) {
	in := []byte("<< /BaseFont /utf8fntgosansB >> /FontName /utf8fntfallback\n")
	var b bytes.Buffer
	if _, err := (&subsetTagger{w: &b}).Write(in); err != nil {
		t.Fatal(err)
	}
	out := b.Bytes()
	if len(out) != len(in) {
		t.Fatalf("length changed: %q", out)
	}
	s := string(out)
	if strings.Contains(s, "utf8") || !strings.Contains(s, "+gosansB >>") || !strings.Contains(s, "+fallback\n") {
		t.Errorf("tagged: %q", s)
	}
}

// TestPDFLeavesOutCharactersPastTheBMP: a character beyond U+FFFF (an
// emoji) has no place in the PDF writer's font map: it is left out with
// a warning, as a character no font has (fpdf panicked on it).
func TestPDFLeavesOutCharactersPastTheBMP(t *testing.T) {
	env := testEnv(t)
	write(t, filepath.Join(env.Root, "e.md"), []byte("# Smile\n\nA face: \U0001F600 and \U00010348.\n"))
	res := mustRender(t, env, Params{Format: "pdf", Source: "e.md", Out: "e.pdf"})
	if all := strings.Join(res.Warnings, "\n"); !strings.Contains(all, "\U0001F600") || !strings.Contains(all, "left out") {
		t.Errorf("warnings %q do not name the emoji as left out", res.Warnings)
	}
}
