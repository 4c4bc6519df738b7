package render

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/internal/peer"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// TestLibreOfficeOpensEveryRender converts each rendered DOCX, XLSX and
// PPTX to PDF (and the PPTX to ODP, for its speaker notes) in one
// LibreOffice run, and checks the text LibreOffice saw.
func TestLibreOfficeOpensEveryRender(t *testing.T) {
	for _, lib := range []string{"libswlo.so", "libsclo.so", "libsdlo.so"} {
		pkg := map[string]string{"libswlo.so": "libreoffice-writer-nogui", "libsclo.so": "libreoffice-calc-nogui", "libsdlo.so": "libreoffice-impress-nogui"}[lib]
		peer.RequireFile(t, "/usr/lib/libreoffice/program/"+lib, pkg)
	}
	soffice := peer.Require(t, "soffice", "libreoffice-writer-nogui")
	pdftotext := peer.Require(t, "pdftotext", "poppler-utils")
	env := testEnv(t)
	for _, f := range []string{"docx", "xlsx", "pptx"} {
		mustRender(t, env, Params{Format: f, Source: "rich.md", Out: "rich-" + f + "." + f})
	}
	mustRender(t, env, Params{Format: "pptx", Source: "rich.md", Out: "talk43.pptx", Aspect: Aspect43})
	out := filepath.Join(env.Root, "lo")
	profile := "file://" + filepath.Join(env.Root, "lo-profile")
	convert := func(to string, files ...string) {
		t.Helper()
		args := append([]string{"-env:UserInstallation=" + profile, "--headless", "--norestore", "--convert-to", to, "--outdir", out}, files...)
		cmd := exec.Command(soffice, args...)
		cmd.Dir = env.Root
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("soffice: %v\n%s", err, b)
		}
	}
	convert("pdf", "rich-docx.docx", "rich-xlsx.xlsx", "rich-pptx.pptx", "talk43.pptx")
	convert("odp", "rich-pptx.pptx")
	text := func(name string) string {
		b, err := exec.Command(pdftotext, "-layout", filepath.Join(out, name), "-").Output()
		if err != nil {
			t.Fatalf("%s did not convert: %v", name, err)
		}
		return string(b)
	}
	for name, wants := range map[string][]string{
		"rich-docx.pdf": {"Quarterly Report", "Budget Q1/Q2", "中文混排", "nested bullet", "deep numbered", "A quote with style", `fmt.Println("hello")`, "Apples"},
		"rich-xlsx.pdf": {"Apples", "1,200", "$3.50", "12%", "2026-01-05", "TRUE", "4200", "15.75", "North"},
		"rich-pptx.pdf": {"Quarterly Report", "中文混排", "nested bullet", "Region", "Closing slide", "Thanks"},
		"talk43.pdf":    {"Closing slide"},
	} {
		got := text(name)
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q; LibreOffice saw:\n%s", name, w, got)
			}
		}
	}
	// Page shapes: 16:9 and 4:3 slides.
	info := func(name string) string {
		b, _ := exec.Command("pdfinfo", filepath.Join(out, name)).Output()
		return string(b)
	}
	if s := info("rich-pptx.pdf"); !strings.Contains(s, "Pages:           3") || !strings.Contains(s, "Page size:       960") || !strings.Contains(s, " x 540 pts") {
		t.Errorf("16:9 deck:\n%s", s)
	}
	if s := info("talk43.pdf"); !strings.Contains(s, "720 x 540") {
		t.Errorf("4:3 deck:\n%s", s)
	}
	// Speaker notes: in the ODP LibreOffice wrote, inside presentation:notes.
	zr, err := zip.OpenReader(filepath.Join(out, "rich-pptx.odp"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != "content.xml" {
			continue
		}
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		content := string(b)
		i := strings.Index(content, "Speaker note for the second slide")
		if i < 0 || strings.LastIndex(content[:i], "<presentation:notes") < strings.LastIndex(content[:i], "</presentation:notes>") {
			t.Errorf("the speaker note is not a note in LibreOffice's reading")
		}
		if strings.Count(content, "<draw:page ") != 3 {
			t.Errorf("ODP has %d slides, want 3", strings.Count(content, "<draw:page "))
		}
	}
}

// python runs a script with Debian's python3, which has the python3-*
// packages, and decodes the JSON it prints.
func python(t *testing.T, script string, v any, args ...string) {
	t.Helper()
	cmd := exec.Command("/usr/bin/python3", append([]string{"-c", script}, args...)...)
	b, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("python: %v\n%s", err, msg)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("python printed %s: %v", b, err)
	}
}

func TestPythonDocxReadsStructure(t *testing.T) {
	peer.RequireFile(t, "/usr/lib/python3/dist-packages/docx/__init__.py", "python3-docx")
	env := testEnv(t)
	mustRender(t, env, Params{Format: "docx", Source: "rich.md", Out: "r.docx"})
	var got struct {
		Paras  [][3]string `json:"paras"`
		Tables [][]string  `json:"tables"`
		Header bool        `json:"header"`
		Images int         `json:"images"`
	}
	python(t, `
import docx, json, sys
d = docx.Document(sys.argv[1])
ns = '{http://schemas.openxmlformats.org/wordprocessingml/2006/main}'
paras = []
for p in d.paragraphs:
    num = p._p.find('.//' + ns + 'numPr')
    lvl = num.find(ns + 'ilvl').get(ns + 'val') if num is not None else ''
    paras.append([p.style.name, p.text, lvl])
t = d.tables[0]
header = t.rows[0]._tr.find('.//' + ns + 'tblHeader') is not None
print(json.dumps({"paras": paras, "tables": [[c.text for c in r.cells] for r in t.rows], "header": header, "images": len(d.inline_shapes)}))
`, &got, filepath.Join(env.Root, "r.docx"))
	find := func(style, text, lvl string) {
		t.Helper()
		for _, p := range got.Paras {
			if p[0] == style && strings.Contains(p[1], text) && p[2] == lvl {
				return
			}
		}
		t.Errorf("no %q paragraph with %q at list level %q in %v", style, text, lvl, got.Paras)
	}
	find("Heading 1", "Quarterly Report", "")
	find("Heading 2", "Budget Q1/Q2", "")
	find("Heading 1", "Closing slide", "")
	find("List Paragraph", "first bullet", "0")
	find("List Paragraph", "nested bullet", "1")
	find("List Paragraph", "deep numbered", "2")
	find("List Paragraph", "☒ done task", "") // the box is the mark: no bullet
	find("Quote", "A quote with style.", "")
	find("Source Code", `fmt.Println("hello")`, "")
	if len(got.Tables) != 3 || got.Tables[0][0] != "Item" || got.Tables[1][1] != "1,200" || !got.Header {
		t.Errorf("table %v, header row marked %v", got.Tables, got.Header)
	}
	if got.Images != 4 {
		t.Errorf("%d pictures, want 4", got.Images)
	}
}

func TestOpenpyxlReadsTypedCells(t *testing.T) {
	peer.RequireFile(t, "/usr/lib/python3/dist-packages/openpyxl/__init__.py", "python3-openpyxl")
	env := testEnv(t)
	mustRender(t, env, Params{Format: "xlsx", Source: "rich.md", Out: "r.xlsx"})
	var got []struct {
		Title  string     `json:"title"`
		Freeze string     `json:"freeze"`
		Bold   bool       `json:"bold"`
		Rows   [][][3]any `json:"rows"`
		Widths []float64  `json:"widths"`
	}
	python(t, `
import openpyxl, json, sys
wb = openpyxl.load_workbook(sys.argv[1])
out = []
for ws in wb:
    rows = [[[str(c.value), c.data_type, c.number_format] for c in r] for r in ws.iter_rows()]
    out.append({"title": ws.title, "freeze": ws.freeze_panes, "bold": all(c.font.b for c in ws[1]),
                "rows": rows, "widths": [d.width for d in ws.column_dimensions.values()]})
print(json.dumps(out))
`, &got, filepath.Join(env.Root, "r.xlsx"))
	if len(got) != 2 || got[0].Title != "Budget Q1 Q2" || got[1].Title != "Budget Q1 Q2 (2)" {
		t.Fatalf("sheets: %+v", got)
	}
	s := got[0]
	if s.Freeze != "A2" || !s.Bold {
		t.Errorf("header: frozen at %q, bold %v", s.Freeze, s.Bold)
	}
	want := [][3]any{
		{"Apples", "s", "General"}, {"1200", "n", "#,##0"}, {"3.5", "n", `"$"#,##0.00`}, {"0.12", "n", "0%"},
		{"2026-01-05 00:00:00", "d", "yyyy-mm-dd"}, {"True", "b", boolFormat}, {"=B2*C2", "f", "General"},
	}
	if fmt.Sprint(s.Rows[1]) != fmt.Sprint(want) {
		t.Errorf("row 2:\n got %v\nwant %v", s.Rows[1], want)
	}
	if s.Rows[2][1][0] != "007" || s.Rows[2][1][1] != "s" {
		t.Errorf("007 is %v, want the text 007", s.Rows[2][1])
	}
	if len(s.Widths) != 7 || s.Widths[0] < 8 || s.Widths[4] < 12 {
		t.Errorf("column widths %v", s.Widths)
	}
}

func TestPopplerReadsPDF(t *testing.T) {
	pdftotext := peer.Require(t, "pdftotext", "poppler-utils")
	peer.RequireFile(t, "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", CJKPackage)
	env := testEnv(t)
	// A table long enough to cross pages, after the rich document.
	src, _ := os.ReadFile(filepath.Join(env.Root, "rich.md"))
	var b strings.Builder
	b.Write(src)
	b.WriteString("\n\n## Long table\n\n| Number | Name |\n|---:|---|\n")
	for i := range 120 {
		fmt.Fprintf(&b, "| %d | 名前 row %d |\n", i, i)
	}
	write(t, filepath.Join(env.Root, "long.md"), []byte(b.String()))
	res := mustRender(t, env, Params{Format: "pdf", Source: "long.md", Out: "long.pdf", Cover: true, Paper: PaperLtr})
	path := filepath.Join(env.Root, "long.pdf")
	info, _ := exec.Command("pdfinfo", path).Output()
	if !strings.Contains(string(info), "612 x 792 pts (letter)") || !strings.Contains(string(info), fmt.Sprintf("Pages:           %d", res.Counts.Pages)) {
		t.Errorf("pdfinfo:\n%s", info)
	}
	fonts, _ := exec.Command("pdffonts", path).Output()
	lines := strings.Split(strings.TrimSpace(string(fonts)), "\n")[2:]
	for _, l := range lines {
		f := strings.Fields(l)
		// name type... emb sub uni: the three before the object id.
		if n := len(f); n < 6 || f[n-5] != "yes" || f[n-4] != "yes" || f[n-3] != "yes" {
			t.Errorf("font not embedded, subset and mapped to Unicode: %s", l)
		}
	}
	if !strings.Contains(string(fonts), "+fallback") {
		t.Errorf("no CJK fallback font embedded:\n%s", fonts)
	}
	page := func(n int) string {
		out, err := exec.Command(pdftotext, "-f", fmt.Sprint(n), "-l", fmt.Sprint(n), "-layout", path, "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	cover := page(1)
	if !strings.Contains(cover, "Quarterly Report") || !strings.Contains(cover, "Ada Lovelace") || !strings.Contains(cover, "2026-01-31") {
		t.Errorf("cover page:\n%s", cover)
	}
	if !strings.Contains(page(2), "中文混排的段落：季度报告 mixed with") {
		t.Errorf("CJK and Latin text on one line do not extract:\n%s", page(2))
	}
	// Every page the long table runs onto starts it with its header, and
	// carries its number (the cover has none).
	rowPages := 0
	for n := 2; n <= res.Counts.Pages; n++ {
		text := page(n)
		if !strings.Contains(text, "名前 row") {
			continue
		}
		rowPages++
		if !strings.Contains(text, "Number") {
			t.Errorf("page %d continues the table without its header", n)
		}
		if last := strings.Fields(text); last[len(last)-1] != fmt.Sprint(n-1) {
			t.Errorf("page %d ends with %q, want its number %d", n, last[len(last)-1], n-1)
		}
	}
	if rowPages < 2 {
		t.Errorf("the long table is on %d pages, want it to cross pages", rowPages)
	}
	if !strings.Contains(page(res.Counts.Pages), "名前 row 119") {
		t.Errorf("the last row is not on the last page")
	}
}

// TestCJKNeedsAFont: without a CJK font anywhere, CJK text is not_found
// naming a package, and nothing is written; a font named in render.fonts
// is used, whatever its outlines (Noto CJK's are CFF); one that is not a
// font is a warning.
func TestCJKNeedsAFont(t *testing.T) {
	noto := peer.RequireFile(t, notoCJK, "fonts-noto-cjk")
	pdftotext := peer.Require(t, "pdftotext", "poppler-utils")
	hideSystemFonts(t)
	env := testEnv(t)
	_, err := render(t, env, Params{Format: "pdf", Markdown: "# 报告\n\n中文", Out: "c.pdf"})
	e := tool.AsError(err)
	if e == nil || e.Code != tool.CodeNotFound || !strings.Contains(e.Hint, CJKPackage) || !strings.Contains(e.Message, "'报'") {
		t.Fatalf("error %+v, want not_found naming %s", e, CJKPackage)
	}
	if _, err := os.Stat(filepath.Join(env.Root, "c.pdf")); err == nil {
		t.Error("c.pdf was written")
	}
	write(t, filepath.Join(env.Root, "broken.ttf"), []byte("not a font"))
	env.Config.Render.Fonts = []string{"broken.ttf", noto}
	res := mustRender(t, env, Params{Format: "pdf", Markdown: "# 报告\n\n中文", Out: "c.pdf"})
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "render.fonts") || !strings.Contains(w, "broken.ttf") || strings.Contains(w, "NotoSans") {
		t.Errorf("warnings %v, want one for broken.ttf alone", res.Warnings)
	}
	out, _ := exec.Command(pdftotext, filepath.Join(env.Root, "c.pdf"), "-").Output()
	if !strings.Contains(string(out), "报告") || !strings.Contains(string(out), "中文") {
		t.Errorf("pdftotext: %q", out)
	}
	// The heading's outline entry is UTF-16 (BOM, then 报告), not raw UTF-8.
	raw, _ := os.ReadFile(filepath.Join(env.Root, "c.pdf"))
	if !strings.Contains(string(raw), "/Title (\xfe\xff\x62\xa5\x54\x4a)") {
		t.Errorf("the bookmark of 报告 is not UTF-16")
	}
}

// TestPDFRowTallerThanAPage: a row too tall for any page is cut between
// its lines, the rest under the header on the next page, nothing lost.
func TestPDFRowTallerThanAPage(t *testing.T) {
	pdftotext := peer.Require(t, "pdftotext", "poppler-utils")
	env := testEnv(t)
	words := make([]string, 700)
	for i := range words {
		words[i] = fmt.Sprintf("word%d", i)
	}
	md := "# Tall\n\n| N | Text |\n|---|---|\n| 1 | short |\n| 2 | " + strings.Join(words, " ") + " |\n| 3 | after |\n"
	res := mustRender(t, env, Params{Format: "pdf", Markdown: md, Out: "tall.pdf"})
	if res.Counts.Pages != 2 {
		t.Fatalf("%d pages, want 2", res.Counts.Pages)
	}
	page := func(n int) string {
		out, err := exec.Command(pdftotext, "-f", fmt.Sprint(n), "-l", fmt.Sprint(n), filepath.Join(env.Root, "tall.pdf"), "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	one, two := page(1), page(2)
	if !strings.Contains(one, "word0 ") || strings.Contains(one, "word699") {
		t.Errorf("page 1 does not start the tall row:\n%s", one)
	}
	if !strings.Contains(two, "Text") || !strings.Contains(two, "word699") || !strings.Contains(two, "after") {
		t.Errorf("page 2 does not go on with the header, the row's end and the next row:\n%s", two)
	}
	all := one + two
	for _, w := range words {
		if !strings.Contains(all, w+" ") && !strings.Contains(all, w+"\n") {
			t.Fatalf("%s is lost", w)
		}
	}
}
