package read

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mcode-dev/mcode/pkg/office"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// document reads an office document as Markdown, numbered and paged like
// a text file; pages picks slides or sheets.
func (r *reading) document(ctx context.Context, format string) (*tool.Response, error) {
	res := &r.result
	res.Kind = KindDocument
	res.Format = format
	res.MIME = office.MIME(format)
	if err := r.hashSmall(); err != nil {
		return nil, err
	}
	doc, err := office.ConvertSafe(ctx, r.file, r.size, format)
	if err != nil {
		return nil, office.ToolError(r.display, format, err)
	}
	var picked []int
	switch doc.Unit {
	case "slide":
		n := len(doc.Parts)
		res.Slides = &n
	case "sheet":
		n := len(doc.Parts)
		res.Sheets = &n
	}
	if doc.Unit != "" {
		picked = make([]int, len(doc.Parts))
		for i := range picked {
			picked[i] = i + 1
		}
		if r.params.Pages != "" {
			ranges, err := parsePages(r.params.Pages)
			if err == nil {
				picked, _, err = selectPages(ranges, len(doc.Parts), math.MaxInt32)
			}
			if err != nil {
				return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: err.Error(),
					Hint: fmt.Sprintf("pages counts %ss here: 1 to %d", doc.Unit, len(doc.Parts))}
			}
		}
		res.Pages = &Pages{Total: len(doc.Parts), Shown: picked}
	} else if r.params.Pages != "" {
		r.note("pages selects slides and sheets; a %s document has neither, so it was ignored (use offset and limit)", strings.ToUpper(format))
	}
	md := doc.Markdown(picked)
	for _, n := range doc.Notes {
		r.note("%s", n)
	}

	offset, limit := max(r.params.Offset, 1), r.params.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	page, err := scanPage(ctx, strings.NewReader(md), pageRequest{offset: offset, limit: limit, size: int64(len(md)), fullScan: true})
	if err != nil {
		return nil, err
	}
	res.Lines = &Lines{Start: page.start, End: page.end, Total: page.total, TotalExact: true}
	if page.end < page.start && (page.total > 0 || offset > 1) {
		return nil, pastEnd(r.display+" (as Markdown)", offset, page.total)
	}
	if page.total == 0 {
		r.note("the document has no text")
	}
	if n := len(page.cutLines); n > 0 {
		r.note("%d %s longer than %d characters %s cut (%s)", n, plural(n, "line"), MaxLineChars, plural(n, "was", "were"), lineList(page.cutLines))
	}
	resp := &tool.Response{Output: string(page.output), Result: r.result, Truncated: doc.Truncated}
	if page.end < page.total && page.end >= page.start {
		next := page.end + 1
		hint := fmt.Sprintf("read on with: mcode read %s --offset %d", pathArg(r.display), next)
		if r.params.Limit != 0 {
			hint += " --limit " + strconv.Itoa(r.params.Limit)
		}
		if r.params.Pages != "" {
			hint += " --pages " + r.params.Pages
		}
		if page.outputCapped {
			hint = fmt.Sprintf("the output reached its %d KiB cap after line %d; %s", MaxOutputBytes/1024, page.end, hint)
		}
		hint = fmt.Sprintf("%s of %d; %s", span("line", page.start, page.end), page.total, hint)
		resp.Continuation = &tool.Continuation{NextOffset: next, Hint: hint}
		resp.Truncated = resp.Truncated || page.outputCapped || r.params.Limit == 0
	}
	return resp, nil
}
