package read

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"
	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// pdfDoc builds a PDF in memory: one page per entry of pages, each page's
// text written as lines. protect sets a user password ("" with owner
// set means encrypted with an empty user password).
type pdfDoc struct {
	pages          []string
	compress       bool
	user, owner    string
	protect        bool
	blankPageAfter int
}

func (d pdfDoc) bytes(t testing.TB) []byte {
	t.Helper()
	p := fpdf.New("P", "mm", "A4", "")
	p.SetCompression(d.compress)
	if d.protect {
		p.SetProtection(0, d.user, d.owner)
	}
	p.SetFont("Helvetica", "", 11)
	tr := p.UnicodeTranslatorFromDescriptor("") // UTF-8 to cp1252 for the core fonts
	for i, text := range d.pages {
		p.AddPage()
		for _, line := range strings.Split(text, "\n") {
			p.Cell(0, 6, tr(line))
			p.Ln(6)
		}
		if d.blankPageAfter == i+1 {
			p.AddPage()
		}
	}
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pagesOf(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("Page %d heading\nbody text of page %d", i, i))
	}
	return out
}

func TestReadPDF(t *testing.T) {
	env := testEnv(t)
	data := pdfDoc{pages: []string{"Hello PDF\nSecond line, café €5", "Page two"}, compress: true}.bytes(t)
	write(t, env, "doc.pdf", data)
	resp, res := mustRead(t, env, Params{Path: "doc.pdf"})
	want := "doc.pdf: PDF, 2 pages, " + humanBytes(int64(len(data))) + "; text of pages 1-2 below.\n" +
		"\n── page 1 of 2 ──\nHello PDF\nSecond line, café €5\n" +
		"\n── page 2 of 2 ──\nPage two\n"
	if diff := cmp.Diff(want, resp.Output); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if res.Kind != KindPDF || res.Pages.Total != 2 || !cmp.Equal(res.Pages.Shown, []int{1, 2}) || *res.SHA256 != sha256Hex(data) {
		t.Errorf("result %+v %+v", res, res.Pages)
	}
	if resp.Truncated || resp.Continuation != nil {
		t.Error("whole PDF marked truncated")
	}
}

func TestReadPDFPages(t *testing.T) {
	env := testEnv(t)
	write(t, env, "long.pdf", pdfDoc{pages: pagesOf(25)}.bytes(t))
	cases := []struct {
		pages     string
		shown     []int
		nextPages string
	}{
		{"", seq(1, 20), "21-25"},
		{"2-3,24", []int{2, 3, 24}, ""},
		{"24-", []int{24, 25}, ""},
		{"1-30", seq(1, 20), "21-25"},
		{"5, 3 ,5-6", []int{3, 5, 6}, ""},
	}
	for _, c := range cases {
		resp, res := mustRead(t, env, Params{Path: "long.pdf", Pages: c.pages})
		if !cmp.Equal(res.Pages.Shown, c.shown) || res.Pages.Total != 25 {
			t.Errorf("pages %q: shown %v of %d, want %v", c.pages, res.Pages.Shown, res.Pages.Total, c.shown)
		}
		for _, p := range c.shown {
			if !strings.Contains(resp.Output, fmt.Sprintf("── page %d of 25 ──\nPage %d heading\nbody text of page %d\n", p, p, p)) {
				t.Errorf("pages %q: page %d text missing", c.pages, p)
			}
		}
		if c.nextPages == "" {
			if resp.Continuation != nil || resp.Truncated {
				t.Errorf("pages %q: unexpected continuation %+v", c.pages, resp.Continuation)
			}
		} else if resp.Continuation == nil || !resp.Truncated || !strings.Contains(resp.Continuation.Hint, "--pages "+c.nextPages) {
			t.Errorf("pages %q: continuation %+v, want --pages %s", c.pages, resp.Continuation, c.nextPages)
		}
	}
	if !strings.HasPrefix(mustOutput(t, env, Params{Path: "long.pdf", Pages: "7"}), "long.pdf: PDF, 25 pages") {
		t.Error("the page count does not come first")
	}
	for _, bad := range []string{"26", "0", "x", "3-1", "1,,2", "-4", " "} {
		te := readErr(t, env, Params{Path: "long.pdf", Pages: bad}, tool.CodeInvalidArgs)
		if !strings.Contains(te.Message, "page") {
			t.Errorf("pages %q: %q", bad, te.Message)
		}
	}
	_, res := mustRead(t, env, Params{Path: "long.pdf", Offset: 3, Limit: 4})
	if !hasNote(res, "offset and limit apply to text files") {
		t.Errorf("offset on a PDF not noted: %v", res.Notes)
	}
}

func mustOutput(t *testing.T, env *tool.Env, p Params) string {
	t.Helper()
	resp, _ := mustRead(t, env, p)
	return resp.Output
}

func seq(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

func TestReadPDFOutputCap(t *testing.T) {
	env := testEnv(t)
	var pages []string
	line := strings.Repeat("lorem ipsum dolor ", 5)
	for i := 0; i < 12; i++ {
		pages = append(pages, strings.TrimSpace(strings.Repeat(line+"\n", 40)))
	}
	write(t, env, "dense.pdf", pdfDoc{pages: pages, compress: true}.bytes(t))
	resp, res := mustRead(t, env, Params{Path: "dense.pdf"})
	n := len(res.Pages.Shown)
	if len(resp.Output) > MaxOutputBytes || n == 0 || n >= 12 || !resp.Truncated {
		t.Fatalf("%d bytes, %d pages shown, truncated %v", len(resp.Output), n, resp.Truncated)
	}
	if !strings.Contains(resp.Continuation.Hint, fmt.Sprintf("--pages %d-12", n+1)) || !strings.Contains(resp.Continuation.Hint, "cap") {
		t.Errorf("hint %q", resp.Continuation.Hint)
	}
}

func TestReadPDFBlankPage(t *testing.T) {
	env := testEnv(t)
	write(t, env, "b.pdf", pdfDoc{pages: []string{"text"}, blankPageAfter: 1}.bytes(t))
	out := mustOutput(t, env, Params{Path: "b.pdf"})
	if !strings.Contains(out, "── page 2 of 2 ──\n[no text on this page") {
		t.Errorf("blank page: %q", out)
	}
}

func TestReadPDFVersion2Header(t *testing.T) {
	env := testEnv(t)
	data := pdfDoc{pages: []string{"two point oh"}}.bytes(t)
	data = bytes.Replace(data, []byte("%PDF-1.3"), []byte("%PDF-2.0"), 1)
	write(t, env, "v2.pdf", data)
	if out := mustOutput(t, env, Params{Path: "v2.pdf"}); !strings.Contains(out, "two point oh") {
		t.Errorf("PDF 2.0: %q", out)
	}
}

// Encrypted and damaged PDFs are told apart.
func TestReadPDFEncryptedOrCorrupt(t *testing.T) {
	env := testEnv(t)
	good := pdfDoc{pages: pagesOf(3), compress: true}.bytes(t)
	write(t, env, "locked.pdf", pdfDoc{pages: []string{"secret"}, protect: true, user: "pw", owner: "owner"}.bytes(t))
	write(t, env, "rc4.pdf", pdfDoc{pages: []string{"secret"}, compress: true, protect: true, owner: "owner"}.bytes(t))
	write(t, env, "truncated.pdf", good[:len(good)/2])
	write(t, env, "garbage.pdf", []byte("this is not a PDF at all\n"))
	write(t, env, "badxref.pdf", bytes.Replace(good, []byte("startxref\n"), []byte("startxref\n9"), 1))

	te := readErr(t, env, Params{Path: "locked.pdf"}, tool.CodeEncrypted)
	if !strings.Contains(te.Message, "encrypted") || !strings.Contains(te.Hint, "unencrypted copy") {
		t.Errorf("locked: %+v", te)
	}
	// fpdf encrypts with 40-bit RC4; with an empty user password the
	// parser accepts the file but decodes no stream: still "encrypted".
	readErr(t, env, Params{Path: "rc4.pdf"}, tool.CodeEncrypted)
	for _, name := range []string{"truncated.pdf", "garbage.pdf", "badxref.pdf"} {
		te := readErr(t, env, Params{Path: name}, tool.CodeCorruptFile)
		if !strings.Contains(te.Message, "not a readable PDF") {
			t.Errorf("%s: %q", name, te.Message)
		}
	}
}

func TestParsePages(t *testing.T) {
	cases := []struct {
		in   string
		want []pageRange
	}{
		{"3", []pageRange{{3, 3}}},
		{"1-5", []pageRange{{1, 5}}},
		{"10-", []pageRange{{10, 0}}},
		{" 1 - 3 , 7 ", []pageRange{{1, 3}, {7, 7}}},
	}
	for _, c := range cases {
		got, err := parsePages(c.in)
		if err != nil || !cmp.Equal(got, c.want, cmp.AllowUnexported(pageRange{})) {
			t.Errorf("parsePages(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "0", "-3", "a", "3-2", "1,", "1-2-3", "9999999999999999999999"} {
		if got, err := parsePages(bad); err == nil {
			t.Errorf("parsePages(%q) = %v, want an error", bad, got)
		}
	}
}

func TestSelectPages(t *testing.T) {
	cases := []struct {
		spec  string
		total int
		shown []int
		rest  string
	}{
		{"1-", 3, []int{1, 2, 3}, ""},
		{"1-", 25, seq(1, 20), "21-25"},
		{"1-", 1 << 30, seq(1, 20), "21-1073741824"},
		{"5,1-3,2-6", 100, seq(1, 6), ""},
		{"1-19,30,40-45", 100, append(seq(1, 19), 30), "40-45"},
		{"3-100", 10, seq(3, 10), ""},
	}
	for _, c := range cases {
		rs, _ := parsePages(c.spec)
		shown, rest, err := selectPages(rs, c.total, MaxPDFPages)
		if err != nil || !cmp.Equal(shown, c.shown) || rest != c.rest {
			t.Errorf("selectPages(%q, %d) = %v, %q, %v; want %v, %q", c.spec, c.total, shown, rest, err, c.shown, c.rest)
		}
	}
	rs, _ := parsePages("4")
	if _, _, err := selectPages(rs, 3, MaxPDFPages); err == nil || !strings.Contains(err.Error(), "3 pages") {
		t.Errorf("page past the end: %v", err)
	}
	if got := formatPages([]int{1, 2, 3, 7, 9, 10}); got != "1-3,7,9-10" {
		t.Errorf("formatPages = %q", got)
	}
}

func FuzzParsePages(f *testing.F) {
	for _, s := range []string{"1", "1-5", "3-", "1-3,7,9-", " 2 , 4-4", "0", "5-1"} {
		f.Add(s, 30)
	}
	f.Fuzz(func(t *testing.T, spec string, total int) {
		total = 1 + abs(total)%1000
		rs, err := parsePages(spec)
		if err != nil {
			return
		}
		shown, rest, err := selectPages(rs, total, MaxPDFPages)
		if err != nil {
			return
		}
		if len(shown) == 0 || len(shown) > MaxPDFPages {
			t.Fatalf("%q of %d: %d pages shown", spec, total, len(shown))
		}
		for i, p := range shown {
			if p < 1 || p > total || i > 0 && p <= shown[i-1] {
				t.Fatalf("%q of %d: shown %v not sorted, distinct, in range", spec, total, shown)
			}
		}
		if rest != "" {
			if len(shown) != MaxPDFPages {
				t.Fatalf("%q: rest %q with only %d shown", spec, rest, len(shown))
			}
			more, err := parsePages(rest)
			if err != nil || more[0].first <= shown[len(shown)-1] {
				t.Fatalf("%q: rest %q does not parse or overlaps %v", spec, rest, shown)
			}
		}
	})
}
