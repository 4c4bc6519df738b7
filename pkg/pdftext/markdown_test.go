package pdftext

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A page of a synthetic PDF is written as text runs: font, size, x, y
// and the string. Helvetica and Helvetica-Bold carry no widths here, so
// runs are laid out with the default width, as a reader must when a font
// does not say.
type run struct {
	font       string // F1 regular, F2 bold, F3 italic
	size, x, y float64
	text       string
}

// synthetic builds an A4 PDF of the pages, each page a list of runs; a
// run's text may be a TJ array ("[(Qu) 20 (arterly)]") as LibreOffice
// writes kerned text.
func synthetic(pages ...[]run) []byte {
	n := len(pages)
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
	var kids []string
	for i := range pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", 3+2*i))
	}
	objs = append(objs, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d /MediaBox [0 0 595 842] "+
		"/Resources << /Font << /F1 %d 0 R /F2 %d 0 R /F3 %d 0 R >> >> >>", strings.Join(kids, " "), n, 3+2*n, 4+2*n, 5+2*n))
	for i, runs := range pages {
		var b strings.Builder
		for _, r := range runs {
			show := "(" + r.text + ") Tj"
			if strings.HasPrefix(r.text, "[") {
				show = r.text + " TJ"
			}
			fmt.Fprintf(&b, "q BT /%s %g Tf %g %g Td %s ET Q\n", r.font, r.size, r.x, r.y, show)
		}
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /Contents %d 0 R >>", 4+2*i), stream(b.String()))
	}
	objs = append(objs, helvetica,
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Oblique /Encoding /WinAnsiEncoding >>")
	return buildPDF(objs...)
}

func markdownOf(t *testing.T, data []byte) []string {
	t.Helper()
	doc, err := open(t, data)
	if err != nil {
		t.Fatal(err)
	}
	var pages []*Page
	for p := 1; p <= doc.NumPages(); p++ {
		page, err := doc.PageSpans(p)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, page)
	}
	return Markdown(pages)
}

// body writes a line of 11-point text at y.
func body(x, y float64, text string) run { return run{"F1", 11, x, y, text} }

func TestMarkdownStructure(t *testing.T) {
	header := func(page int) []run {
		return []run{
			{"F1", 9, 72, 810, "ACME Corp - Annual Report"},
			{"F1", 9, 280, 30, fmt.Sprintf("Page %d of 3", page)},
		}
	}
	page1 := append(header(1),
		run{"F2", 20, 72, 760, "Annual Report"},
		// A paragraph whose first line is full (it wraps), kerned the way
		// LibreOffice writes it (-20 and 20 cancel out), with a bold word
		// in its second line, which ends short: the next line is a line
		// of its own.
		run{"F1", 11, 72, 730, "[(The year went well: revenue rose in every region and) -20 ( the figures beat) 20 ( the plan,)]"},
		body(72, 716, "and the "), run{"F2", 11, 72 + 8*5.5, 716, "board"}, body(72+13*5.5, 716, " approved it."),
		body(72, 702, "It was a good year."),
		run{"F1", 15, 72, 680, "Results"},
		// A bulleted list, marker and text apart; one item nested.
		body(90, 655, "\x95"), body(108, 655, "Revenue up"),
		body(108, 641, "\x95"), body(126, 641, "in the north"),
		body(90, 627, "\x95"), body(108, 627, "Costs down"),
		// A numbered list whose first item wraps onto a second line.
		body(90, 605, "1."), body(108, 605, "Keep the plan"),
		body(90, 591, "2."), body(108, 591, "Hire two engineers"),
		// A table: a bold header row, numbers right-aligned in the last
		// column.
		run{"F2", 11, 77, 560, "Region"}, run{"F2", 11, 250, 560, "Sales"}, run{"F2", 11, 400, 560, "Share"},
		body(77, 542, "North"), body(260, 542, "120"), body(400, 542, "60%"),
		body(77, 524, "South"), body(265, 524, "80"), body(400, 524, "40%"),
		run{"F2", 11, 72, 490, "Outlook"},
		body(72, 470, "Steady."),
	)
	page2 := append(header(2), run{"F1", 15, 72, 760, "Appendix"}, body(72, 730, "Methods are described here."))
	page3 := append(header(3), body(72, 760, "The end."))
	got := markdownOf(t, synthetic(page1, page2, page3))
	want := []string{
		`# Annual Report

The year went well: revenue rose in every region and the figures beat the plan, and the **board** approved it.
It was a good year.

## Results

- Revenue up
  - in the north
- Costs down

1. Keep the plan
2. Hire two engineers

| Region | Sales | Share |
| --- | --- | --- |
| North | 120 | 60% |
| South | 80 | 40% |

### Outlook

Steady.
`,
		"## Appendix\n\nMethods are described here.\n",
		"The end.\n",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("markdown (-want +got):\n%s", diff)
	}
}

// A running header is left out only when it repeats; a page of one
// keeps its top line, and body text that merely starts high is kept.
func TestMarkdownRunningHeaders(t *testing.T) {
	text := "The body of the page, long enough to be its text."
	one := markdownOf(t, synthetic([]run{{"F1", 9, 72, 810, "Draft notes"}, body(72, 760, text)}))
	if one[0] != "Draft notes\n\n"+text+"\n" {
		t.Errorf("one page: %q", one[0])
	}
	// A lone number at the bottom is a page number even on one page.
	num := markdownOf(t, synthetic([]run{body(72, 760, text), {"F1", 9, 290, 30, "7"}}))
	if num[0] != text+"\n" {
		t.Errorf("page number kept: %q", num[0])
	}
	// Lines near the top that differ from page to page stay.
	var pages [][]run
	for i := 1; i <= 3; i++ {
		pages = append(pages, []run{body(72, 815, fmt.Sprintf("Entry %d of the log, %s", i, []string{"calm", "windy", "rain"}[i-1]))})
	}
	for i, md := range markdownOf(t, synthetic(pages...)) {
		if !strings.Contains(md, "Entry") {
			t.Errorf("page %d lost its text: %q", i+1, md)
		}
	}
}

// The layout follows the text matrix: a string shown after another on
// the same line starts where the first ended (by the fonts' widths), and
// TJ's numbers move it.
func TestPageSpansAdvance(t *testing.T) {
	data := synthetic([]run{{"F1", 10, 100, 500, "[(ab) -1000 (cd)]"}})
	doc, err := open(t, data)
	if err != nil {
		t.Fatal(err)
	}
	p, err := doc.PageSpans(1)
	if err != nil {
		t.Fatal(err)
	}
	// Two glyphs of the default 500 units at 10 points is 10 points; the
	// -1000 moves 10 more.
	want := []Span{{Text: "ab", X: 100, Y: 500, End: 110, Size: 10}, {Text: "cd", X: 120, Y: 500, End: 130, Size: 10}}
	if diff := cmp.Diff(want, p.Spans); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	if p.Width != 595 || p.Height != 842 {
		t.Errorf("page size %gx%g", p.Width, p.Height)
	}
}

// FuzzMarkdown: spans of any text, place and size (NaN, infinities,
// zero, huge) make Markdown without a panic.
func FuzzMarkdown(f *testing.F) {
	f.Add([]byte("\x01\x02Title\x00\x03\x04- item\x00"), 10.0, 700.0)
	f.Add([]byte("1) a\x00b | c\x00"), math.NaN(), math.Inf(1))
	f.Fuzz(func(t *testing.T, data []byte, size, y float64) {
		var spans []Span
		for i, text := range strings.Split(string(data), "\x00") {
			if i > 64 {
				break
			}
			f := float64(i)
			spans = append(spans, Span{Text: text, X: f * size, Y: y - f*size, End: f*size + float64(len(text)), Size: size, Bold: i%2 == 0, Italic: i%3 == 0})
		}
		Markdown([]*Page{{Number: 1, Width: 595, Height: 842, Spans: spans}, {Number: 2, Width: 595, Height: 842, Spans: spans}})
	})
}
