package read

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// ManyResult is the answer of a read of several files, one entry each
// in the order asked.
type ManyResult struct {
	Files []ManyFile `json:"files"`
}

// ManyFile is one file of a read of several: its result or its error,
// and where to read on when its text was cut or not shown.
type ManyFile struct {
	Path         string             `json:"path"`
	Result       any                `json:"result"`
	Error        *tool.Error        `json:"error"`
	Shown        bool               `json:"shown"`
	Continuation *tool.Continuation `json:"continuation"`
}

// runMany reads several files as cat does: each under a header of its
// own, in the order given, within the one output cap of a call. A file
// that cannot be read says why under its header, and the others are
// still read; the call then fails with the first such error.
func runMany(ctx context.Context, env *tool.Env, paths []string, params func(string) Params) (*tool.Response, error) {
	var out strings.Builder
	res := &ManyResult{}
	resp := &tool.Response{Result: res}
	var failed []string
	var first *tool.Error
	full := false
	for _, path := range paths {
		f := ManyFile{Path: path}
		if full || ctx.Err() != nil {
			f.Continuation = &tool.Continuation{Hint: "not shown: the output cap was reached; read it with: mcode read " + pathArg(path)}
			res.Files = append(res.Files, f)
			continue
		}
		p := params(path)
		one, err := Run(ctx, env, p)
		header := fmt.Sprintf("==> %s <==\n", path)
		if out.Len() > 0 {
			header = "\n" + header
		}
		var body string
		if err != nil {
			te := tool.AsError(err)
			f.Error = te
			if first == nil {
				first = te
			}
			failed = append(failed, fmt.Sprintf("%s (%s)", path, te.Code))
			body = fmt.Sprintf("%s: %s\n", te.Code, te.Message)
			if one != nil {
				f.Result = one.Result
			}
		} else {
			f.Result = one.Result
			f.Continuation = one.Continuation
			resp.Truncated = resp.Truncated || one.Truncated
			resp.Media = append(resp.Media, one.Media...)
			body = one.Output
			if body != "" && !strings.HasSuffix(body, "\n") {
				body += "\n"
			}
		}
		room := MaxOutputBytes - out.Len() - len(header)
		if len(body) > room {
			full = true
			resp.Truncated = true
			cut := strings.LastIndexByte(body[:max(room, 0)], '\n') + 1
			if cut == 0 {
				f.Continuation = &tool.Continuation{Hint: "not shown: the output cap was reached; read it with: mcode read " + pathArg(path)}
				res.Files = append(res.Files, f)
				continue
			}
			body = body[:cut]
			f.Continuation = cutContinuation(path, body, p)
		}
		f.Shown = true
		out.WriteString(header)
		out.WriteString(body)
		res.Files = append(res.Files, f)
	}
	resp.Output = out.String()
	for _, f := range res.Files {
		if c := f.Continuation; c != nil && (resp.Truncated || c.NextOffset > 0) {
			resp.Continuation = &tool.Continuation{NextOffset: c.NextOffset, NextColumn: c.NextColumn,
				Hint: fmt.Sprintf("%s: %s", f.Path, c.Hint)}
			break
		}
	}
	if first != nil {
		return resp, &tool.Error{Code: first.Code,
			Message: fmt.Sprintf("%d of %d files could not be read: %s", len(failed), len(paths), strings.Join(failed, ", ")),
			Hint:    "each file's error is under its header and in result.files; the others were read"}
	}
	return resp, nil
}

// cutContinuation says where to read on in a file whose text the cap cut:
// the line after the last numbered line shown, when the text is numbered.
func cutContinuation(path, shown string, p Params) *tool.Continuation {
	lines := strings.Split(strings.TrimSuffix(shown, "\n"), "\n")
	last := strings.TrimLeft(lines[len(lines)-1], " ")
	if num, _, ok := strings.Cut(last, LineArrow); ok {
		if n, err := strconv.Atoi(num); err == nil {
			hint := fmt.Sprintf("the output cap of %d KiB was reached after line %d; read on with: mcode read %s --offset %d", MaxOutputBytes/1024, n, pathArg(path), n+1)
			if p.Limit != 0 {
				hint += " --limit " + strconv.Itoa(p.Limit)
			}
			return &tool.Continuation{NextOffset: n + 1, Hint: hint}
		}
	}
	return &tool.Continuation{Hint: fmt.Sprintf("the output cap of %d KiB was reached; read the rest with: mcode read %s", MaxOutputBytes/1024, pathArg(path))}
}
