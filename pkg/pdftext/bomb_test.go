package pdftext

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestTextBomb: a content stream that shows one string 20 million times
// (544 KB of PDF, 160 MB of text) is cut at MaxPageText, with ErrTextCut,
// in both extractions.
func TestTextBomb(t *testing.T) {
	data := textBombPDF()
	doc, err := open(t, data)
	if err != nil {
		t.Fatal(err)
	}
	text, err := doc.PageText(1)
	if !errors.Is(err, ErrTextCut) || len(text) > MaxPageText+64 || !strings.HasPrefix(text, "aaaa") {
		t.Errorf("PageText: %d bytes, %v", len(text), err)
	}
	page, err := doc.PageSpans(1)
	n := 0
	for _, s := range page.Spans {
		n += len(s.Text)
	}
	if !errors.Is(err, ErrTextCut) || n > MaxPageText+64 || n == 0 {
		t.Errorf("PageSpans: %d bytes, %v", n, err)
	}
}

// textBombPDF is a page whose content stream shows "aaaaaaaa" 20 million
// times: 544 KB of PDF, 160 MB of text.
func textBombPDF() []byte {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, 9)
	zw.Write([]byte("BT /F1 12 Tf 72 700 Td "))
	chunk := []byte(strings.Repeat("(aaaaaaaa) Tj ", 10000))
	for i := 0; i < 2000; i++ {
		zw.Write(chunk)
	}
	zw.Write([]byte(" ET"))
	zw.Close()
	content := fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.String())
	return buildPDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		content, helvetica)
}
