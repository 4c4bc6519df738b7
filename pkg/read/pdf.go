package read

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/pdftext"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// isPDF reports whether head starts with a PDF header. (Some readers
// allow junk before it; the parser does not, and a text file that merely
// mentions "%PDF-" must stay text.)
func isPDF(head []byte) bool {
	return bytes.HasPrefix(head, []byte("%PDF-"))
}

// pdf shows the page count, then the text of the requested pages.
func (r *reading) pdf(ctx context.Context) (*tool.Response, error) {
	r.ignorePaging("PDF", false, true)
	r.result.Kind = KindPDF
	r.result.MIME = "application/pdf"
	if err := r.hashSmall(); err != nil {
		return nil, err
	}
	// The parser is third-party code fed with untrusted bytes: it runs
	// in its own goroutine so that the call's time limit holds even if
	// it loops, and its panics become corrupt_file.
	type outcome struct {
		doc *pdfText
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		doc, err := extractPDF(ctx, r.file, r.size, r.params.Pages)
		done <- outcome{doc, err}
	}()
	var doc *pdfText
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case o := <-done:
		if o.err != nil {
			return nil, r.pdfError(o.err)
		}
		doc = o.doc
	}

	if doc.encrypted && len(doc.failed) == len(doc.shown) {
		// The parser accepted the (empty) password but no stream decodes:
		// a cipher it does not get right, not damage.
		return nil, &tool.Error{Code: tool.CodeEncrypted,
			Message: fmt.Sprintf("%s is an encrypted PDF whose cipher read cannot decrypt (no page text could be decoded: %v)", r.display, doc.failed[0].err),
			Hint:    "ask for an unencrypted copy (e.g. qpdf --decrypt in.pdf out.pdf)"}
	}
	r.result.Pages = &Pages{Total: doc.total, Shown: doc.shown}
	if doc.encrypted {
		r.note("the PDF is encrypted with an empty user password; it was decrypted")
	}
	for _, p := range doc.failed {
		r.note("the text of page %d could not be extracted: %v", p.page, p.err)
	}
	for _, p := range doc.cut {
		r.note("the text of page %d passes %d MiB: the rest of the page is left out", p, pdftext.MaxPageText>>20)
	}

	header := func(shown []int) string {
		return fmt.Sprintf("%s: PDF, %d %s, %s; text of %s %s below.\n", r.display, doc.total, plural(doc.total, "page"),
			fsutil.HumanBytes(r.size), plural(len(shown), "page"), formatPages(shown))
	}
	// The header for all the pages is the longest one: the budget of the
	// page blocks is what it leaves.
	const cutMark = "\n[… page cut at the output cap]\n"
	budget := MaxOutputBytes - len(header(doc.shown))
	var body strings.Builder
	var shown []int
	capped := false
	for i, p := range doc.shown {
		block := pageBlock(p, doc.total, doc.texts[i])
		if body.Len()+len(block) > budget {
			if len(shown) == 0 {
				body.WriteString(cutToBytes(block, budget-len(cutMark)) + cutMark)
				shown = append(shown, p)
			}
			capped = true
			break
		}
		body.WriteString(block)
		shown = append(shown, p)
	}
	r.result.Pages.Shown = shown
	out := header(shown) + body.String()

	resp := &tool.Response{Output: out, Result: r.result}
	rest := doc.rest
	if capped {
		rest = append(toRanges(doc.shown[len(shown):]), rest...)
	}
	if len(rest) > 0 {
		next, _, _ := selectPages(rest, math.MaxInt32, MaxPDFPages)
		hint := fmt.Sprintf("more pages follow: mcode read %s --pages %s (at most %d pages a call)", pathArg(r.display), formatPages(next), MaxPDFPages)
		if capped {
			hint = fmt.Sprintf("the output reached its %d KiB cap; %s", MaxOutputBytes/1024, hint)
		}
		if len(shown) > 0 {
			hint = fmt.Sprintf("pages %s of %d; %s", formatPages(shown), r.result.Pages.Total, hint)
		}
		resp.Continuation = &tool.Continuation{Hint: hint}
		resp.Truncated = true
	}
	if len(doc.cut) > 0 {
		resp.Truncated = true
	}
	return resp, nil
}

func pageBlock(page, total int, text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		text = "[no text on this page: it may be a scanned image or a drawing]"
	}
	return fmt.Sprintf("\n── page %d of %d ──\n%s\n", page, total, text)
}

// cutToBytes cuts s to at most n bytes at a line or character boundary.
func cutToBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:max(n, 0)]
	if i := strings.LastIndexByte(s, '\n'); i > len(s)/2 {
		return s[:i]
	}
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

func toRanges(pages []int) []pageRange {
	var out []pageRange
	for _, p := range pages {
		if n := len(out); n > 0 && out[n-1].last == p-1 {
			out[n-1].last = p
		} else {
			out = append(out, pageRange{p, p})
		}
	}
	return out
}

// formatPages writes pages back as a spec, runs folded: 1-3,7,9-12.
func formatPages(pages []int) string {
	return formatRanges(toRanges(pages))
}

// pdfText is what extractPDF found.
type pdfText struct {
	total     int
	shown     []int
	texts     []string
	rest      []pageRange // pages asked for beyond MaxPDFPages
	encrypted bool
	failed    []pageFailure
	// cut are the pages whose text passed pdftext.MaxPageText.
	cut []int
}

type pageFailure struct {
	page int
	err  error
}

// pagesError is a bad pages parameter.
type pagesError struct{ err error }

func (e *pagesError) Error() string { return e.err.Error() }

// extractPDF opens the PDF, counts its pages and extracts the text of the
// pages spec asks for (the first MaxPDFPages when spec is empty).
func extractPDF(ctx context.Context, f io.ReaderAt, size int64, spec string) (doc *pdfText, err error) {
	pd, err := pdftext.Open(f, size)
	if err != nil {
		return nil, err
	}
	doc = &pdfText{total: pd.NumPages(), encrypted: pd.Encrypted}
	ranges := []pageRange{{1, 0}}
	if spec != "" {
		if ranges, err = parsePages(spec); err != nil {
			return nil, &pagesError{err}
		}
	}
	if doc.shown, doc.rest, err = selectPages(ranges, doc.total, MaxPDFPages); err != nil {
		return nil, &pagesError{err}
	}
	pages := make([]*pdftext.Page, 0, len(doc.shown))
	for _, p := range doc.shown {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		page, err := pd.PageSpans(p)
		var ce *pdftext.CorruptError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("page %d: %w", p, err)
		}
		if errors.Is(err, pdftext.ErrTextCut) {
			doc.cut, err = append(doc.cut, p), nil
		}
		if err != nil {
			doc.failed = append(doc.failed, pageFailure{p, err})
			page = &pdftext.Page{Number: p}
		}
		pages = append(pages, page)
	}
	// The pages shown are laid out as Markdown together: their headings
	// are sized against one another, and what repeats at the top or
	// bottom of them is a running header or footer.
	doc.texts = pdftext.Markdown(pages)
	return doc, nil
}

func (r *reading) pdfError(err error) error {
	var enc *pdftext.ErrEncrypted
	var pe *pagesError
	switch {
	case errors.As(err, &pe):
		return &tool.Error{Code: tool.CodeInvalidArgs, Message: pe.Error(),
			Hint: fmt.Sprintf("e.g. --pages 1-%d (at most %d pages a call)", MaxPDFPages, MaxPDFPages)}
	case errors.As(err, &enc):
		return &tool.Error{Code: tool.CodeEncrypted,
			Message: fmt.Sprintf("%s is an encrypted PDF (%v)", r.display, enc.Err),
			Hint:    "read cannot take passwords; ask for an unencrypted copy (e.g. qpdf --decrypt --password=PW in.pdf out.pdf)"}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return &tool.Error{Code: tool.CodeCorruptFile,
		Message: fmt.Sprintf("%s is not a readable PDF: %v", r.display, err),
		Hint:    "the file may be damaged or truncated; ask for a fresh copy, or check it with bash (file, pdfinfo)"}
}
