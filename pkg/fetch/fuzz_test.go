package fetch

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzHTMLText: whatever a page holds, making its text ends (no panic)
// with valid UTF-8 in every format.
func FuzzHTMLText(f *testing.F) {
	for _, s := range []string{
		"<html><head><title>T | Site</title></head><body><article><h1>T</h1><p>text</p></article></body></html>",
		"<p>a<b>b<i>c</b>d</i>e",
		"<table><tr><td>1<td>2</table><pre>x\ny</pre>",
		strings.Repeat("<div>", 600) + "deep",
		"<script>alert(1)</script><style>p{}</style><noscript>n</noscript>",
		"\xff\xfe<p>\x00bad bytes</p>",
	} {
		f.Add(s)
	}
	page, _ := url.Parse("https://example.com/a/b")
	f.Fuzz(func(t *testing.T, src string) {
		for _, format := range []string{FormatMarkdown, FormatText} {
			txt, err := htmlText(context.Background(), strings.ToValidUTF8(src, "\uFFFD"), page, format)
			if err != nil {
				continue
			}
			if !utf8.ValidString(txt.Body) {
				t.Fatalf("%s of %q is not UTF-8: %q", format, src, txt.Body)
			}
		}
	})
}

// FuzzClassify: any Content-Type and first bytes give one of the kinds.
func FuzzClassify(f *testing.F) {
	f.Add("text/html; charset=utf-8", []byte("<p>"))
	f.Add("", []byte("%PDF-1.7"))
	f.Add("image/png", []byte("\x89PNG\r\n\x1a\n"))
	f.Add("application/octet-stream", []byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, ct string, head []byte) {
		kind, _ := classify(ct, head)
		switch kind {
		case KindHTML, KindJSON, KindText, KindPDF, KindImage, KindBinary:
		default:
			t.Fatalf("classify(%q, %q) = %q", ct, head, kind)
		}
	})
}
