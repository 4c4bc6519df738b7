package pdftext

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/ledongthuc/pdf"
)

// buildPDF writes objects 1..n with a correct cross-reference table;
// object 1 is the catalog.
func buildPDF(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

func stream(s string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(s), s)
}

const helvetica = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

func open(t *testing.T, data []byte) (*Doc, error) {
	t.Helper()
	return Open(bytes.NewReader(data), int64(len(data)))
}

// keyOf reads the library's unexported object pointer through a mirror
// of its layout: this pins that layout to the version in go.mod.
func TestValueLayout(t *testing.T) {
	if unsafe.Sizeof(pdf.Value{}) != unsafe.Sizeof(valueLayout{}) {
		t.Fatalf("pdf.Value is %d bytes, the mirror %d", unsafe.Sizeof(pdf.Value{}), unsafe.Sizeof(valueLayout{}))
	}
	data := buildPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R >>", "<< /Type /Page /Parent 2 0 R >>")
	rd, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	kids := rd.Trailer().Key("Root").Key("Pages").Key("Kids")
	for i, want := range []uint32{3, 4} {
		k, ok := keyOf(kids.Index(i))
		if !ok || k.id != want || k.gen != 0 {
			t.Errorf("kid %d: key %+v %v, want object %d 0", i, k, ok, want)
		}
	}
	if k, ok := keyOf(rd.Trailer().Key("Root").Key("Pages")); !ok || k.id != 2 {
		t.Errorf("pages: %+v", k)
	}
}

func TestPageTreeWalk(t *testing.T) {
	page := func(parent int, contents int) string {
		return fmt.Sprintf("<< /Type /Page /Parent %d 0 R /Contents %d 0 R >>", parent, contents)
	}
	cases := []struct {
		name    string
		objs    []string
		pages   int
		corrupt string
	}{
		{"nested tree, resources inherited", []string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 3 /Resources << /Font << /F1 7 0 R >> >> >>",
			"<< /Type /Pages /Kids [5 0 R 6 0 R] /Parent 2 0 R /Count 2 >>",
			page(2, 8), page(3, 8), page(3, 8), helvetica, stream("BT /F1 12 Tf (x) Tj ET"),
		}, 3, ""},
		{"a lying /Count", []string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 999999999 >>", page(2, 4), stream("BT ET"),
		}, 1, ""},
		{"kids list their own node", []string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>", page(2, 4), stream("BT ET"),
		}, 0, "cycle (object 2 0"},
		{"two nodes point at each other", []string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 2 >>",
			"<< /Type /Pages /Kids [2 0 R] /Parent 2 0 R /Count 1 >>",
		}, 0, "cycle"},
		{"a node listed twice (a DAG that doubles at every level)", []string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>",
			"<< /Type /Pages /Kids [4 0 R] /Parent 2 0 R /Count 1 >>", page(3, 5), stream("BT ET"),
		}, 0, "listed twice"},
		{"a /Parent loop is never followed", []string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 /Parent 3 0 R >>", page(3, 4), stream("BT ET"),
		}, 1, ""},
		{"no pages", []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 5 >>"}, 0, "no pages"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := open(t, buildPDF(c.objs...))
			if c.corrupt != "" {
				var ce *CorruptError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.corrupt) {
					t.Fatalf("err %v, want corrupt %q", err, c.corrupt)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if doc.NumPages() != c.pages {
				t.Errorf("pages %d, want %d", doc.NumPages(), c.pages)
			}
		})
	}
}

// A deep chain of Pages nodes stops at MaxTreeDepth.
func TestPageTreeDepth(t *testing.T) {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
	for i := 2; i < MaxTreeDepth+4; i++ {
		objs = append(objs, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", i+1))
	}
	objs = append(objs, "<< /Type /Page >>")
	_, err := open(t, buildPDF(objs...))
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "deeper than") {
		t.Fatalf("got %v", err)
	}
}

func TestText(t *testing.T) {
	res := "/Resources << /Font << /F1 5 0 R /F2 6 0 R /F3 7 0 R >> /XObject << /X1 8 0 R /X2 9 0 R >> >>"
	cmapSrc := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n" +
		"1 begincodespacerange <0000> <FFFF> endcodespacerange\n" +
		"2 beginbfchar <0001> <4E2D> <0002> <6587> endbfchar\n" +
		"1 beginbfrange <0010> <0012> <0041> endbfrange\n" +
		"endcmap CMapName currentdict /CMap defineresource pop end end"
	data := buildPDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R "+res+" /Contents 4 0 R >>",
		stream("BT /F1 12 Tf 72 700 Td (Caf\\351 ) Tj 0 -14 Td [(kern)-300(ed)] TJ ET\n"+
			"BT /F2 12 Tf 72 600 Td (\\001\\002) Tj ET BT /F3 12 Tf 72 500 Td <00010002001000110012> Tj ET /X1 Do /X2 Do"),
		helvetica,
		"<< /Type /Font /Subtype /Type1 /BaseFont /Times /Encoding << /Differences [1 /eacute /uni00FC] >> >>",
		"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /ToUnicode 10 0 R >>",
		"<< /Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources << /Font << /F1 5 0 R >> >> /Length 29 >>\nstream\nBT /F1 9 Tf (from a form) Tj ET\nendstream",
		"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /Length 1 >>\nstream\nx\nendstream",
		stream(cmapSrc),
	)
	doc, err := open(t, data)
	if err != nil {
		t.Fatal(err)
	}
	text, err := doc.PageText(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Café", "kern ed", "éü", "中文ABC", "from a form"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in %q", want, text)
		}
	}
}

// A form that draws itself is corrupt; drawing the same form twice is not.
func TestFormCycle(t *testing.T) {
	page := "<< /Type /Page /Parent 2 0 R /Resources << /XObject << /X1 5 0 R >> >> /Contents 4 0 R >>"
	for _, c := range []struct {
		form, content string
		corrupt       bool
	}{
		{"<< /Type /XObject /Subtype /Form /Resources << /XObject << /X1 5 0 R >> >> /Length 6 >>\nstream\n/X1 Do\nendstream", "/X1 Do", true},
		{"<< /Type /XObject /Subtype /Form /Length 2 >>\nstream\nBT\nendstream", "/X1 Do /X1 Do", false},
	} {
		doc, err := open(t, buildPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, stream(c.content), c.form))
		if err != nil {
			t.Fatal(err)
		}
		_, err = doc.PageText(1)
		var ce *CorruptError
		if errors.As(err, &ce) != c.corrupt {
			t.Errorf("%q: err %v, corrupt want %v", c.content, err, c.corrupt)
		}
	}
}

func TestGlyphRune(t *testing.T) {
	for name, want := range map[string]rune{"a": 'a', "eacute": 'é', "Adieresis": 'Ä', "uni4E2D": '中', "u1F600": '😀',
		"quoteright": '’', "fi": 'ﬁ', "one.oldstyle": '1', "ccedilla": 'ç', "zcaron": 'ž', "nonsense": 0} {
		if got := glyphRune(name); got != want {
			t.Errorf("glyphRune(%q) = %q, want %q", name, got, want)
		}
	}
}

// A cross-reference section whose /Prev names itself is corrupt, not an
// endless loop.
func TestXrefPrevLoop(t *testing.T) {
	data := buildPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "<< /Type /Page /Parent 2 0 R >>")
	xref := bytes.LastIndex(data, []byte("\nxref\n")) + 1
	looped := bytes.Replace(data, []byte("/Root 1 0 R"), []byte(fmt.Sprintf("/Root 1 0 R /Prev %d", xref)), 1)
	_, err := open(t, looped)
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "loop") {
		t.Fatalf("got %v", err)
	}
}

// FuzzOpen: no input makes the reader panic out or loop.
func FuzzOpen(f *testing.F) {
	f.Add(buildPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>", stream("BT (x) Tj ET")))
	f.Add([]byte("%PDF-1.4\n%%EOF\n"))
	f.Add(synthetic([]run{{"F2", 20, 72, 760, "Title"}, body(90, 700, "\x95"), body(108, 700, "item"),
		body(72, 650, "a"), body(300, 650, "b"), body(72, 630, "c"), body(300, 630, "d"), {"F1", 9, 290, 30, "1"}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The library may still loop on some input (an object stream
		// that /Extends itself): callers run it under a time limit, and
		// so does this target, which only looks for panics.
		done := make(chan struct{})
		go func() {
			defer close(done)
			doc, err := Open(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				return
			}
			var pages []*Page
			for p := 1; p <= min(doc.NumPages(), 5); p++ {
				doc.PageText(p)
				if page, err := doc.PageSpans(p); err == nil {
					pages = append(pages, page)
				}
			}
			Markdown(pages)
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
	})
}
