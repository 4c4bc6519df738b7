package read

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/textenc"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// text reads a page of a text file in encoding enc.
func (r *reading) text(ctx context.Context, enc textenc.Encoding) (*tool.Response, error) {
	r.ignorePaging("text", true, false)
	offset, limit := max(r.params.Offset, 1), r.params.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	fullScan := r.size <= FullScanMaxBytes
	raw := &countingReader{r: r.file}
	var src io.Reader = raw
	var h hash.Hash
	if fullScan {
		h = sha256.New()
		src = io.TeeReader(raw, h)
	}
	column := max(r.params.Column, 1)
	req := pageRequest{offset: offset, limit: limit, size: r.size, fullScan: fullScan, skip: column - 1}
	switch enc {
	case textenc.UTF16LE, textenc.UTF16BE:
		decoded, err := textenc.NewReader(src, enc)
		if err != nil {
			return nil, err
		}
		src = decoded
		req.rawScanned = func() int64 { return raw.n }
	case textenc.UTF8BOM:
		// The BOM (EF BB BF) is hashed and counted, not shown; the lines
		// after it are UTF-8 like any others.
		if _, err := io.CopyN(io.Discard, src, 3); err != nil {
			return nil, readError(r.display, err)
		}
	case textenc.Latin1, textenc.Windows1252:
		req.singleByte = enc
	}
	page, err := scanPage(ctx, src, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, readError(r.display, err)
	}

	res := &r.result
	res.Kind = KindText
	res.Encoding = string(enc)
	res.LineEnding = string(page.lineEnding())
	res.Lines = &Lines{Start: page.start, End: page.end, Total: page.total, TotalExact: page.totalExact}
	if fullScan {
		// A file under /proc says size 0 and has bytes all the same.
		r.size = raw.n
		res.Bytes = raw.n
		res.SHA256 = hexSum(h.Sum(nil))
	} else {
		r.noteNoHash()
	}

	if page.end < page.start && (page.total > 0 || offset > 1) {
		return nil, pastEnd(r.display, offset, page.total)
	}
	if column > 1 {
		if page.skipped < column-1 || (page.firstLineChars < column && page.firstLineChars > 0) {
			return nil, &tool.Error{Code: tool.CodeInvalidArgs,
				Message: fmt.Sprintf("column %d is past the end of line %d of %s, which has %d %s", column, offset, r.display, page.firstLineChars, plural(page.firstLineChars, "character")),
				Hint:    fmt.Sprintf("use a column from 1 to %d; continuation.next_column of the read that cut the line says where its rest starts", max(1, page.firstLineChars))}
		}
		res.Column = column
	}
	if page.total == 0 {
		r.note("the file is empty")
	}
	if !page.totalExact {
		r.note("the file is %s: the scan stopped after this page, so lines.total (%d) is a lower bound; the exact count would need a full pass",
			fsutil.HumanBytes(r.size), page.total)
	}
	if n := len(page.cutLines); n > 0 {
		r.note("%d %s longer than %d characters %s cut (%s); each cut line ends with %q",
			n, plural(n, "line"), MaxLineChars, plural(n, "was", "were"), lineList(page.cutLines), cutMarkPrefix+"N"+cutMarkSuffix)
		res.CutLines = page.cutLines[:min(n, MaxCutLinesListed)]
	}
	if n := len(page.oddLines); n > 0 && req.singleByte == "" {
		r.note("%d %s not valid UTF-8; shown decoded as Windows-1252 (%s)",
			n, plural(n, "line is", "lines are"), lineList(page.oddLines))
	} else if n > 0 {
		r.note("%d %s UTF-8, not %s; shown as UTF-8 (%s)",
			n, plural(n, "line is", "lines are"), enc, lineList(page.oddLines))
	}

	resp := &tool.Response{Output: string(page.output), Result: r.result}
	more := page.end < page.total || !page.totalExact
	var restOfLine string // how to read the rest of the first cut line
	if len(page.cutLines) > 0 {
		resp.Truncated = true
		cut := page.cutLines[0]
		next := 1 + MaxLineChars
		if cut == offset {
			next = column + MaxLineChars
		}
		restOfLine = fmt.Sprintf("mcode read %s --offset %d --column %d", pathArg(r.display), cut, next)
		// Reading on along a line (column given) goes on along it.
		if !more || page.end < page.start || (cut == offset && column > 1) {
			resp.Continuation = &tool.Continuation{NextOffset: cut, NextColumn: next,
				Hint: fmt.Sprintf("line %d was cut at %d characters; read the rest of it with: %s", cut, MaxLineChars, restOfLine)}
		}
	}
	if more && page.end >= page.start && resp.Continuation == nil {
		next := page.end + 1
		hint := fmt.Sprintf("read on with: mcode read %s --offset %d", pathArg(r.display), next)
		if r.params.Limit != 0 {
			hint += " --limit " + strconv.Itoa(r.params.Limit)
		}
		if page.outputCapped {
			hint = fmt.Sprintf("the output reached its %d KiB cap after line %d; %s", MaxOutputBytes/1024, page.end, hint)
		}
		if restOfLine != "" {
			hint += fmt.Sprintf("; line %d was cut: read its rest with %s", page.cutLines[0], restOfLine)
		}
		hint = fmt.Sprintf("%s of %s; %s", span("line", page.start, page.end), totalText(page.total, page.totalExact), hint)
		resp.Continuation = &tool.Continuation{NextOffset: next, Hint: hint}
		resp.Truncated = resp.Truncated || page.outputCapped || r.params.Limit == 0
	}
	return resp, nil
}

// span names a range of numbered things: lines 770-879, or line 5.
func span(unit string, start, end int) string {
	if start == end {
		return fmt.Sprintf("%s %d", unit, start)
	}
	return fmt.Sprintf("%ss %d-%d", unit, start, end)
}

// totalText is a count, or "at least N" when it is a lower bound.
func totalText(n int, exact bool) string {
	if exact {
		return strconv.Itoa(n)
	}
	return fmt.Sprintf("at least %d", n)
}

func pastEnd(display string, offset, total int) error {
	if total == 0 {
		return &tool.Error{Code: tool.CodeInvalidArgs,
			Message: fmt.Sprintf("offset %d is past the end: %s is empty", offset, display),
			Hint:    "the file has no lines; read it without offset"}
	}
	return &tool.Error{Code: tool.CodeInvalidArgs,
		Message: fmt.Sprintf("offset %d is past the end: %s has %d %s", offset, display, total, plural(total, "line")),
		Hint:    fmt.Sprintf("use an offset from 1 to %d, e.g. --offset %d for the last lines", total, max(1, total-49))}
}

// plural picks the singular or plural word: plural(n, "line") adds an s;
// plural(n, "is", "are") picks one of two.
func plural(n int, one string, many ...string) string {
	if n == 1 {
		return one
	}
	if len(many) > 0 {
		return many[0]
	}
	return one + "s"
}

// lineList renders up to ten line numbers: "3, 7, 12 and 4 more".
func lineList(lines []int) string {
	const shown = 10
	var b strings.Builder
	for i, n := range lines {
		if i == shown {
			fmt.Fprintf(&b, " and %d more", len(lines)-shown)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}
