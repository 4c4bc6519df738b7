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

	readability "codeberg.org/readeck/go-readability/v2"
	"codeberg.org/readeck/go-readability/v2/render"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/gabriel-vasile/mimetype"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"

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

// prettyJSON indents a JSON body; one that does not parse is shown as
// it is, with a note.
func prettyJSON(s string) (string, string) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(s), "", "  "); err != nil {
		return s, fmt.Sprintf("the body is not valid JSON (%v): shown as it is", err)
	}
	return buf.String(), ""
}

// htmlText makes the text of a page: its main content (readability) as
// Markdown or plain text; the whole page when no main content is found.
// A page the HTML parser refuses (nesting deeper than it allows) gives
// its text without structure.
func htmlText(ctx context.Context, src string, pageURL *url.URL, format string) (*text, error) {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return &text{Body: tokenText(src), Notes: []string{fmt.Sprintf("the HTML parser refused the page (%v): its text is shown without structure", err)}}, nil
	}
	t := &text{}
	parser := readability.NewParser()
	article, err := parser.ParseDocument(doc, pageURL)
	node := article.Node
	if err != nil || node == nil || strings.TrimSpace(visibleText(node)) == "" {
		t.Notes = append(t.Notes, "no main content was found: the whole page is shown")
		node = bodyOf(doc)
	} else {
		t.Title = strings.TrimSpace(article.Title())
	}
	if t.Title == "" {
		t.Title = titleOf(doc)
	}
	// The page's own heading, when the title is it plus the site's name.
	if h := find(doc, atom.H1); h != nil {
		if h1 := strings.Join(strings.Fields(visibleText(h)), " "); h1 != "" && strings.Contains(t.Title, h1) {
			t.Title = h1
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if format == FormatText {
		t.Body = strings.TrimSpace(render.InnerText(node)) + "\n"
	} else if t.Body, err = markdownOf(ctx, node, pageURL); err != nil {
		return nil, err
	}
	var lead []string
	if t.Title != "" && !strings.Contains(firstLine(t.Body), t.Title) {
		if format == FormatText {
			lead = append(lead, t.Title)
		} else {
			lead = append(lead, "# "+t.Title)
		}
	}
	if by := strings.Join(strings.Fields(article.Byline()), " "); by != "" && !strings.Contains(t.Body, by) {
		lead = append(lead, by)
	}
	if len(lead) > 0 {
		t.Body = strings.Join(lead, "\n\n") + "\n\n" + t.Body
	}
	return t, nil
}

// tokenText is the text of a page read token by token, without a tree:
// for pages the parser refuses.
func tokenText(src string) string {
	z := html.NewTokenizer(strings.NewReader(src))
	var b strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.TrimSpace(b.String()) + "\n"
		case html.StartTagToken, html.EndTagToken:
			name, _ := z.TagName()
			switch a := atom.Lookup(name); a {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg:
				if z.Token().Type == html.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
			case atom.P, atom.Div, atom.Br, atom.Li, atom.Tr, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Pre, atom.Blockquote:
				if !strings.HasSuffix(b.String(), "\n") {
					b.WriteString("\n")
				}
			}
		case html.TextToken:
			if skip == 0 {
				if words := strings.Fields(string(z.Text())); len(words) > 0 {
					if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
						b.WriteString(" ")
					}
					b.WriteString(strings.Join(words, " "))
				}
			}
		}
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// markdownOf converts a node with links made absolute against the page.
func markdownOf(ctx context.Context, node *html.Node, pageURL *url.URL) (string, error) {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	out, err := conv.ConvertNode(node, converter.WithContext(ctx), converter.WithDomain(pageURL.String()))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)) + "\n", nil
}

// skipped are the elements whose content is never text to read.
func skipped(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head, atom.Svg, atom.Iframe:
		return true
	}
	return false
}

// visibleText is the text under n, without a recursion.
func visibleText(n *html.Node) string {
	var b strings.Builder
	stack := []*html.Node{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x.Type == html.TextNode {
			b.WriteString(x.Data)
			continue
		}
		if x.Type == html.ElementNode && skipped(x) {
			continue
		}
		for c := x.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
	return b.String()
}

// bodyOf is the page's body, or the document when it has none.
func bodyOf(doc *html.Node) *html.Node {
	if b := find(doc, atom.Body); b != nil {
		return b
	}
	return doc
}

// titleOf is the page's <title>.
func titleOf(doc *html.Node) string {
	if t := find(doc, atom.Title); t != nil {
		return strings.Join(strings.Fields(visibleText(t)), " ")
	}
	return ""
}

// find is the first element a under n, in document order.
func find(n *html.Node, a atom.Atom) *html.Node {
	stack := []*html.Node{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x.Type == html.ElementNode && x.DataAtom == a {
			return x
		}
		for c := x.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
	return nil
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
		if err != nil {
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
