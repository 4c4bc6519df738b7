package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"

	"github.com/mcode-dev/mcode/pkg/htmltext"
	"github.com/mcode-dev/mcode/pkg/imagefit"
	"github.com/mcode-dev/mcode/pkg/pdftext"
)

// classify names the kind of a body from the server's Content-Type and,
// where that is missing or says nothing (application/octet-stream), from
// the body's first bytes.
func classify(contentType string, head []byte) (kind, mimeType string) {
	mt, _, _ := mime.ParseMediaType(contentType)
	mt = strings.ToLower(mt)
	sniffed := func() string {
		m := mimetype.Detect(head)
		return strings.ToLower(strings.Split(m.String(), ";")[0])
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return KindHTML, mt
	case mt == "application/json" || mt == "text/json" || strings.HasSuffix(mt, "+json"):
		return KindJSON, mt
	case mt == "application/pdf":
		if bytes.HasPrefix(head, []byte("%PDF-")) {
			return KindPDF, mt
		}
		return classify("", head)
	case strings.HasPrefix(mt, "image/") && !strings.HasSuffix(mt, "+xml"):
		if s := sniffed(); imagefit.Supported(s) {
			return KindImage, s
		}
		return KindBinary, sniffed()
	case isTextType(mt):
		return KindText, mt
	case mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream":
		switch s := sniffed(); {
		case s == "text/html":
			return KindHTML, s
		case s == "application/json":
			return KindJSON, s
		case s == "application/pdf":
			return KindPDF, s
		case imagefit.Supported(s):
			return KindImage, s
		case strings.HasPrefix(s, "text/") || isTextType(s):
			return KindText, s
		default:
			return KindBinary, s
		}
	}
	return KindBinary, mt
}

// isTextType: types whose bodies are text to read as they are.
func isTextType(mt string) bool {
	switch {
	case strings.HasPrefix(mt, "text/"), strings.HasSuffix(mt, "+xml"), strings.HasSuffix(mt, "+yaml"):
		return true
	}
	switch mt {
	case "application/xml", "application/javascript", "application/ecmascript", "application/x-javascript",
		"application/x-ndjson", "application/jsonl", "application/yaml", "application/x-yaml", "application/toml",
		"application/x-sh", "application/sql", "application/graphql", "image/svg+xml":
		return true
	}
	return false
}

// decodeText is the body as UTF-8: the charset the server or the page
// declares, else UTF-8 when it is valid, else windows-1252 (what
// browsers assume).
func decodeText(body []byte, contentType string) (string, string) {
	text, name := decodeBody(body, contentType)
	// A byte order mark is not text (and JSON does not parse after one).
	return strings.TrimPrefix(text, "\uFEFF"), name
}

func decodeBody(body []byte, contentType string) (string, string) {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if !certain && utf8.Valid(body) {
		return string(body), "utf-8"
	}
	if enc == encoding.Nop || name == "utf-8" {
		return strings.ToValidUTF8(string(body), "\uFFFD"), "utf-8"
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD"), "utf-8"
	}
	return string(out), name
}

// MaxJSONIndent is the deepest level of a JSON body indented further:
// deeper values are indented as that level is, so that 9,000 nested
// arrays (18 KB) do not become 162 MB of spaces.
const MaxJSONIndent = 32

// prettyJSON indents a JSON body, two spaces a level up to
// MaxJSONIndent levels; one that does not parse is shown as it is, with
// a note.
func prettyJSON(s string) (string, string) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(s)); err != nil {
		return s, fmt.Sprintf("the body is not valid JSON (%v): shown as it is", err)
	}
	src := compact.Bytes()
	var b strings.Builder
	b.Grow(len(src) + len(src)/2)
	depth, deepest := 0, 0
	newline := func() {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat("  ", min(depth, MaxJSONIndent)))
	}
	inString, escaped := false, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inString {
			b.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			b.WriteByte(c)
		case '{', '[':
			b.WriteByte(c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				b.WriteByte(src[i+1])
				i++
				continue
			}
			depth++
			deepest = max(deepest, depth)
			newline()
		case '}', ']':
			depth--
			newline()
			b.WriteByte(c)
		case ',':
			b.WriteByte(c)
			newline()
		case ':':
			b.WriteString(": ")
		default:
			b.WriteByte(c)
		}
	}
	if deepest > MaxJSONIndent {
		return b.String(), fmt.Sprintf("values nested deeper than %d levels (here %d) are indented as level %d", MaxJSONIndent, deepest, MaxJSONIndent)
	}
	return b.String(), ""
}

// htmlText makes the text of a page in the format asked (see htmltext).
func htmlText(ctx context.Context, src string, pageURL *url.URL, format string) (*text, error) {
	p, err := htmltext.Convert(ctx, src, pageURL, format)
	if err != nil {
		return nil, err
	}
	return &text{Title: p.Title, Body: p.Body, Notes: p.Notes}, nil
}

// pdfText is the text of every page of a PDF, page by page.
func pdfText(ctx context.Context, body []byte) (*text, error) {
	doc, err := pdftext.Open(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return nil, err
	}
	t := &text{Pages: doc.NumPages()}
	var b strings.Builder
	for p := 1; p <= t.Pages; p++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := doc.PageText(p)
		var ce *pdftext.CorruptError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("page %d: %w", p, err)
		}
		switch {
		case errors.Is(err, pdftext.ErrTextCut):
			t.Notes = append(t.Notes, fmt.Sprintf("the text of page %d passes %d MiB: the rest of the page is left out", p, pdftext.MaxPageText>>20))
		case err != nil:
			t.Notes = append(t.Notes, fmt.Sprintf("the text of page %d could not be extracted: %v", p, err))
		}
		s = strings.TrimSpace(s)
		if s == "" {
			s = "[no text on this page: it may be a scanned image or a drawing]"
		}
		fmt.Fprintf(&b, "── page %d of %d ──\n%s\n\n", p, t.Pages, s)
	}
	if doc.Encrypted {
		t.Notes = append(t.Notes, "the PDF is encrypted with an empty user password; it was decrypted")
	}
	t.Body = b.String()
	return t, nil
}
