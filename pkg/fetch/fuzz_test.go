package fetch

import "testing"

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
