package read

import (
	"bytes"
	"crypto/md5"
	"crypto/rc4"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"
	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/pkg/fsutil"
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
	fontSize       float64 // points; 11 when 0
}

func (d pdfDoc) bytes(t testing.TB) []byte {
	t.Helper()
	p := fpdf.New("P", "mm", "A4", "")
	p.SetCompression(d.compress)
	if d.protect {
		p.SetProtection(0, d.user, d.owner)
	}
	size := d.fontSize
	if size == 0 {
		size = 11
	}
	p.SetFont("Helvetica", "", size)
	tr := p.UnicodeTranslatorFromDescriptor("") // UTF-8 to cp1252 for the core fonts
	for i, text := range d.pages {
		p.AddPage()
		for _, line := range strings.Split(text, "\n") {
			p.Cell(0, size/2, tr(line))
			p.Ln(size / 2)
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

// pagesOf makes n pages of two lines each. The first line differs from
// page to page by more than its number: text at the top of the page that
// repeats, numbers aside, is a running header, which read leaves out.
func pagesOf(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("Page %d heading %s\nbody text of page %d", i, pageWord(i), i))
	}
	return out
}

// pageWord is a word of its own for page i.
func pageWord(i int) string {
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu")
	return words[(i-1)%len(words)]
}

func TestReadPDF(t *testing.T) {
	env := testEnv(t)
	data := pdfDoc{pages: []string{"Hello PDF\nSecond line, café €5", "Page two"}, compress: true}.bytes(t)
	write(t, env, "doc.pdf", data)
	resp, res := mustRead(t, env, Params{Path: "doc.pdf"})
	want := "doc.pdf: PDF, 2 pages, " + fsutil.HumanBytes(int64(len(data))) + "; text of pages 1-2 below.\n" +
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
			if !strings.Contains(resp.Output, fmt.Sprintf("── page %d of 25 ──\nPage %d heading %s\nbody text of page %d\n", p, p, pageWord(p), p)) {
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
	if want := fmt.Sprintf("; text of pages 1-%d below.\n", n); !strings.Contains(resp.Output, want) {
		t.Errorf("header does not name the pages shown (%s): %q", want, resp.Output[:120])
	}

	// One page with more text than the cap is cut, and says so.
	huge := strings.TrimSpace(strings.Repeat(strings.Repeat("word ", 120)+"\n", 80))
	write(t, env, "onepage.pdf", pdfDoc{pages: []string{huge, "next"}, compress: true, fontSize: 1}.bytes(t))
	resp, res = mustRead(t, env, Params{Path: "onepage.pdf"})
	if len(resp.Output) > MaxOutputBytes || !strings.HasSuffix(resp.Output, "[… page cut at the output cap]\n") ||
		!cmp.Equal(res.Pages.Shown, []int{1}) || !strings.Contains(resp.Continuation.Hint, "--pages 2") {
		t.Errorf("%d bytes, shown %v, ends %q, hint %+v", len(resp.Output), res.Pages.Shown, resp.Output[len(resp.Output)-40:], resp.Continuation)
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
	// fpdf encrypts with 40-bit RC4: with an empty user password it reads.
	resp, res := mustRead(t, env, Params{Path: "rc4.pdf"})
	if !strings.Contains(resp.Output, "── page 1 of 1 ──\nsecret\n") || !hasNote(res, "empty user password") {
		t.Errorf("40-bit RC4: %q %v", resp.Output, res.Notes)
	}
	// When the password is accepted but no stream decodes, the cipher is
	// at fault, not the file: still "encrypted".
	write(t, env, "badkey.pdf", rc4PDF("x", true))
	te = readErr(t, env, Params{Path: "badkey.pdf"}, tool.CodeEncrypted)
	if !strings.Contains(te.Message, "cannot decrypt") {
		t.Errorf("badkey: %q", te.Message)
	}
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
		if err != nil || !cmp.Equal(shown, c.shown) || formatRanges(rest) != c.rest {
			t.Errorf("selectPages(%q, %d) = %v, %q, %v; want %v, %q", c.spec, c.total, shown, formatRanges(rest), err, c.shown, c.rest)
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
		if len(rest) > 0 {
			if len(shown) != MaxPDFPages {
				t.Fatalf("%q: rest %v with only %d shown", spec, rest, len(shown))
			}
			more, err := parsePages(formatRanges(rest))
			if err != nil || !slices.Equal(more, rest) || more[0].first <= shown[len(shown)-1] {
				t.Fatalf("%q: rest %v does not round-trip or overlaps %v", spec, rest, shown)
			}
		}
	})
}

// rc4PDF builds a one-page PDF encrypted with the standard security
// handler, revision 3: 128-bit RC4, an empty user password and owner
// password "owner" (PDF 32000-1 §7.6.3, algorithms 2, 3 and 5). With
// wrongStreamKey the content stream claims Flate compression and is
// encrypted with another key, so no page decodes.
func rc4PDF(text string, wrongStreamKey bool) []byte {
	pad := []byte{0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
		0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A}
	id := []byte("0123456789abcdef")
	perms := int32(-4)
	rc4x := func(key, data []byte) []byte {
		c, _ := rc4.NewCipher(key)
		out := make([]byte, len(data))
		c.XORKeyStream(out, data)
		return out
	}
	md5x := func(parts ...[]byte) []byte {
		h := md5.New()
		for _, p := range parts {
			h.Write(p)
		}
		return h.Sum(nil)
	}
	stretch := func(key []byte) []byte {
		for range 50 {
			key = md5x(key)
		}
		return key
	}
	rounds := func(key, data []byte) []byte {
		data = rc4x(key, data)
		for i := 1; i <= 19; i++ {
			k := bytes.Clone(key)
			for j := range k {
				k[j] ^= byte(i)
			}
			data = rc4x(k, data)
		}
		return data
	}
	ownerPad := append([]byte("owner"), pad[:27]...)
	o := rounds(stretch(md5x(ownerPad)), pad)
	p := binary.LittleEndian.AppendUint32(nil, uint32(perms))
	key := stretch(md5x(pad, o, p, id))
	u := append(rounds(key, md5x(pad, id)), make([]byte, 16)...)
	objKey := func(num int) []byte { return md5x(key, []byte{byte(num), byte(num >> 8), byte(num >> 16), 0, 0}) }

	content := rc4x(objKey(4), []byte("BT /F1 12 Tf 72 700 Td ("+text+") Tj ET"))
	filter := ""
	if wrongStreamKey {
		content = rc4x(objKey(9), content)
		filter = " /Filter /FlateDecode"
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d%s >>\nstream\n%s\nendstream", len(content), filter, content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Filter /Standard /V 2 /R 3 /Length 128 /O <%x> /U <%x> /P %d >>", o, u, perms),
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, obj := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, obj)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Encrypt 6 0 R /ID [<%x> <%x>] >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, id, id, xref)
	return b.Bytes()
}

// A PDF encrypted with an empty user password and a cipher the parser
// knows is read, with a note.
func TestReadPDFEncryptedWithEmptyPassword(t *testing.T) {
	env := testEnv(t)
	write(t, env, "sealed.pdf", rc4PDF("Sealed but readable", false))
	resp, res := mustRead(t, env, Params{Path: "sealed.pdf"})
	if !strings.Contains(resp.Output, "── page 1 of 1 ──\nSealed but readable\n") || !hasNote(res, "empty user password") {
		t.Errorf("output %q notes %v", resp.Output, res.Notes)
	}
}
