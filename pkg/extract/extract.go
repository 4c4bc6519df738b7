// Package extract is the extract tool: the text of a whole document, as
// Markdown or plain text, for PDFs, office documents, notebooks, HTML
// pages and plain text files; returned as output or written atomically to
// a file.
package extract

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/htmltext"
	"github.com/mcode-dev/mcode/pkg/office"
	"github.com/mcode-dev/mcode/pkg/pdftext"
	"github.com/mcode-dev/mcode/pkg/textenc"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Name is the tool's name.
const Name = "extract"

// Limits of one call.
const (
	// MaxSourceBytes bounds the text, HTML and notebook files loaded.
	MaxSourceBytes = 64 << 20
	// MaxOutputBytes bounds the text extracted.
	MaxOutputBytes = 64 << 20
	// DefaultTimeout is the call's time limit when the caller sets none.
	DefaultTimeout = 2 * time.Minute
)

// Output formats.
const (
	FormatMarkdown = "markdown"
	FormatText     = "text"
)

// Kinds of source.
const (
	KindPDF      = "pdf"
	KindDocument = "document"
	KindNotebook = "notebook"
	KindHTML     = "html"
	KindText     = "text"
)

// Params are the tool's parameters.
type Params struct {
	Path   string `json:"path"`
	Out    string `json:"out,omitempty"`
	Format string `json:"format,omitempty"`
}

// Result is the structured answer.
type Result struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Format string `json:"format,omitempty"` // docx, xlsx…: an office document's format
	Bytes  int64  `json:"bytes"`
	// OutputFormat is markdown or text.
	OutputFormat string   `json:"output_format"`
	Pages        *int     `json:"pages,omitempty"`
	Slides       *int     `json:"slides,omitempty"`
	Sheets       *int     `json:"sheets,omitempty"`
	Cells        *int     `json:"cells,omitempty"`
	Title        string   `json:"title,omitempty"`
	Chars        int      `json:"chars"`
	Lines        int      `json:"lines"`
	Out          *Out     `json:"out"`
	Notes        []string `json:"notes,omitempty"`
}

// Out is the file written with --out.
type Out struct {
	Path   string `json:"path"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
	Action string `json:"action"` // created or replaced
}

var (
	//go:embed extract.md
	description string
	//go:embed extract.schema.json
	schema string
)

// Tool is the registry entry.
func Tool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: Name, Mode: tool.Parallel, Timeout: DefaultTimeout,
		Positional:  []string{"path"},
		Facts:       tool.Facts{Destructive: true, Idempotent: true}, // --out may replace a file
		Paths:       tool.PathParams(tool.PathParam{Field: "path"}, tool.PathParam{Field: "out", Write: true}),
		Description: description, Schema: schema,
		Data: map[string]any{
			"MaxSourceMiB": MaxSourceBytes >> 20,
			"MaxOutputMiB": MaxOutputBytes >> 20,
		},
	}, Run)
}

// Run extracts the text of p.Path.
func Run(ctx context.Context, env *tool.Env, p Params) (*tool.Response, error) {
	if strings.TrimSpace(p.Path) == "" || strings.ContainsRune(p.Path, 0) {
		return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: fmt.Sprintf("path %q is empty or holds a NUL byte", p.Path),
			Hint: "pass the document, e.g. mcode extract report.pdf"}
	}
	switch p.Format {
	case "":
		p.Format = FormatMarkdown
	case FormatMarkdown, FormatText:
	default:
		return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: fmt.Sprintf("format %q is neither markdown nor text", p.Format),
			Hint: "use --format markdown (the default) or --format text"}
	}
	abs := env.Abs(p.Path)
	f, info, err := openSource(p.Path, abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	x := &extraction{ctx: ctx, display: p.Path, file: f, size: info.Size(), format: p.Format}
	x.result = Result{Path: abs, Bytes: info.Size(), OutputFormat: p.Format}
	if err := x.run(abs); err != nil {
		return nil, err
	}
	text := x.text
	if !strings.HasSuffix(text, "\n") && text != "" {
		text += "\n"
	}
	if len(text) > MaxOutputBytes {
		return nil, &tool.Error{Code: tool.CodeTooLarge,
			Message: fmt.Sprintf("the text of %s is %s, over the %d MiB extract returns", p.Path, fsutil.HumanBytes(int64(len(text))), MaxOutputBytes>>20),
			Hint:    "read it in pages with mcode read instead"}
	}
	x.result.Chars = len([]rune(text))
	x.result.Lines = strings.Count(text, "\n")
	if p.Out == "" {
		return &tool.Response{Output: text, Result: x.result}, nil
	}
	out, err := writeOut(env, p.Out, text)
	if err != nil {
		return nil, err
	}
	x.result.Out = out
	return &tool.Response{
		Output: fmt.Sprintf("%s the text of %s (%s, %d lines) in %s\n", out.Action, p.Path, fsutil.HumanBytes(int64(out.Bytes)), x.result.Lines, p.Out),
		Result: x.result,
	}, nil
}

func openSource(display, abs string) (*os.File, fs.FileInfo, error) {
	info, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fsutil.NotFound(display, abs)
		}
		return nil, nil, sourceError(display, err)
	}
	if info.IsDir() {
		return nil, nil, &tool.Error{Code: tool.CodeIsDirectory, Message: fmt.Sprintf("%s is a directory", display),
			Hint: "extract takes one document; list a folder with glob"}
	}
	if kind := fsutil.SpecialKind(info.Mode()); kind != "" {
		return nil, nil, &tool.Error{Code: tool.CodeSpecialFile, Message: fmt.Sprintf("%s is %s, not a document", display, kind),
			Hint: "extract reads regular files only"}
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, nil, sourceError(display, err)
	}
	return f, info, nil
}

func sourceError(display string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return &tool.Error{Code: tool.CodePermission, Message: fmt.Sprintf("no permission to read %s", display),
			Hint: "the file is not readable by this user; check its mode and owner (ls -l)"}
	}
	return fmt.Errorf("reading %s: %w", display, err)
}

// writeOut writes the text atomically to out.
func writeOut(env *tool.Env, out, text string) (*Out, error) {
	abs := env.Abs(out)
	action := "created"
	if info, err := os.Stat(abs); err == nil {
		if info.IsDir() {
			return nil, &tool.Error{Code: tool.CodeIsDirectory, Message: fmt.Sprintf("--out %s is a directory", out),
				Hint: "name a file, e.g. --out " + filepath.Join(out, "text.md")}
		}
		action = "replaced"
	}
	// Its folders are made as write makes them.
	err := os.MkdirAll(filepath.Dir(abs), 0o755)
	if err == nil {
		err = fsutil.WriteFileAtomic(abs, []byte(text), 0o644)
	}
	if err != nil {
		switch {
		case errors.Is(err, syscall.ENOTDIR):
			return nil, &tool.Error{Code: tool.CodeNotADirectory, Message: fmt.Sprintf("--out %s: a folder on its path is a file", out),
				Hint: "choose a path whose folders are folders"}
		case errors.Is(err, fs.ErrPermission):
			return nil, &tool.Error{Code: tool.CodePermission, Message: fmt.Sprintf("no permission to write %s", out),
				Hint: "choose a folder this user may write"}
		}
		return nil, fmt.Errorf("writing %s: %w", out, err)
	}
	sum := sha256.Sum256([]byte(text))
	return &Out{Path: abs, Bytes: len(text), SHA256: hex.EncodeToString(sum[:]), Action: action}, nil
}

// extraction is one call in progress.
type extraction struct {
	ctx     context.Context
	display string
	file    *os.File
	size    int64
	format  string
	result  Result
	text    string
}

func (x *extraction) note(format string, args ...any) {
	x.result.Notes = append(x.result.Notes, fmt.Sprintf(format, args...))
}

func (x *extraction) run(abs string) error {
	head := make([]byte, textenc.SniffLen)
	n, err := x.file.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return sourceError(x.display, err)
	}
	head = head[:n]
	ext := strings.ToLower(filepath.Ext(abs))
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return x.pdf()
	case ext == ".ipynb":
		return x.notebook()
	}
	if format, ok := office.Detect(abs, head); ok {
		return x.document(format)
	}
	if ft, known := textenc.SniffType(head); known && !ft.Weak {
		return binaryError(x.display, ft.Name)
	}
	enc, err := textenc.Detect(head)
	if err != nil {
		return binaryError(x.display, "binary data")
	}
	data, err := x.load()
	if err != nil {
		return err
	}
	text, err := textenc.Decode(data, enc)
	if err != nil {
		return &tool.Error{Code: tool.CodeEncoding, Message: fmt.Sprintf("%s does not decode as %s: %v", x.display, enc, err),
			Hint: "check the file's encoding with mcode filetype"}
	}
	if ext == ".html" || ext == ".htm" || ext == ".xhtml" || looksHTML(text) {
		return x.html(text)
	}
	x.result.Kind = KindText
	x.text = text
	return nil
}

func looksHTML(s string) bool {
	head := strings.ToLower(strings.TrimSpace(s[:min(len(s), 512)]))
	head = strings.TrimPrefix(head, "\ufeff")
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html")
}

func binaryError(display, what string) error {
	return &tool.Error{Code: tool.CodeBinaryFile,
		Message: fmt.Sprintf("%s is %s, not a document extract knows", display, what),
		Hint:    "extract reads PDF, docx, xlsx, pptx, odt, ods, odp, ipynb, HTML and text; see what it is with mcode filetype"}
}

// load reads the whole source, bounded.
func (x *extraction) load() ([]byte, error) {
	if x.size > MaxSourceBytes {
		return nil, &tool.Error{Code: tool.CodeTooLarge,
			Message: fmt.Sprintf("%s is %s, over the %d MiB extract loads", x.display, fsutil.HumanBytes(x.size), MaxSourceBytes>>20),
			Hint:    "read it in pages with mcode read instead"}
	}
	data, err := io.ReadAll(io.LimitReader(x.file, MaxSourceBytes+1))
	if err != nil {
		return nil, sourceError(x.display, err)
	}
	if len(data) > MaxSourceBytes {
		return nil, &tool.Error{Code: tool.CodeTooLarge, Message: fmt.Sprintf("%s grew past %d MiB while being read", x.display, MaxSourceBytes>>20),
			Hint: "read it in pages with mcode read instead"}
	}
	return data, nil
}

// shape gives Markdown in the format asked for.
func (x *extraction) shape(md string) string {
	if x.format == FormatText {
		return plainText(md)
	}
	return md
}

func (x *extraction) document(format string) error {
	x.result.Kind = KindDocument
	x.result.Format = format
	doc, err := office.ConvertSafe(x.ctx, x.file, x.size, format)
	if err != nil {
		return office.ToolError(x.display, format, err)
	}
	n := len(doc.Parts)
	switch doc.Unit {
	case "slide":
		x.result.Slides = &n
	case "sheet":
		x.result.Sheets = &n
	}
	x.result.Notes = append(x.result.Notes, doc.Notes...)
	x.text = x.shape(doc.Markdown(nil))
	return nil
}

// html makes the main text of a page as fetch makes it (htmltext), with
// links as the page wrote them: a local file has no address to resolve
// them against. Plain text is the page's text as a browser renders it,
// not the Markdown stripped of its marks.
func (x *extraction) html(src string) error {
	x.result.Kind = KindHTML
	var page *htmltext.Page
	err := x.beside(func() (text string, err error) {
		if page, err = htmltext.Convert(x.ctx, src, nil, x.format); err != nil {
			return "", err
		}
		return page.Body, nil
	})
	if err != nil {
		return err
	}
	x.result.Title = page.Title
	x.result.Notes = append(x.result.Notes, page.Notes...)
	return nil
}

// pdf extracts every page.
func (x *extraction) pdf() error {
	x.result.Kind = KindPDF
	return x.beside(x.pdfText)
}

// beside runs a library's conversion in its own goroutine, so that the
// call's time limit holds whatever the input, and sets x.text from it.
// A panic in the library fails the call instead of the process.
func (x *extraction) beside(convert func() (string, error)) error {
	type outcome struct {
		text string
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- outcome{"", fmt.Errorf("the %s converter failed on %s: %v", x.result.Kind, x.display, v)}
			}
		}()
		text, err := convert()
		done <- outcome{text, err}
	}()
	select {
	case <-x.ctx.Done():
		return x.ctx.Err()
	case o := <-done:
		if o.err != nil {
			return o.err
		}
		x.text = o.text
		return nil
	}
}

func (x *extraction) pdfText() (text string, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = pdfError(x.display, &pdftext.CorruptError{Err: fmt.Errorf("%v", v)})
		}
	}()
	doc, err := pdftext.Open(x.file, x.size)
	if err != nil {
		return "", pdfError(x.display, err)
	}
	total := doc.NumPages()
	x.result.Pages = &total
	if doc.Encrypted {
		x.note("the PDF is encrypted with an empty user password; it was decrypted")
	}
	var b strings.Builder
	var failed []int
	if x.format == FormatMarkdown {
		// The structure (headings, lists, tables, running headers) is
		// judged over all the pages at once.
		pages := make([]*pdftext.Page, 0, total)
		for p := 1; p <= total; p++ {
			if err := x.ctx.Err(); err != nil {
				return "", err
			}
			page, err := doc.PageSpans(p)
			var ce *pdftext.CorruptError
			if errors.As(err, &ce) {
				return "", pdfError(x.display, fmt.Errorf("page %d: %w", p, err))
			}
			if errors.Is(err, pdftext.ErrTextCut) {
				x.note("the text of page %d passes %d MiB: the rest of the page is left out", p, pdftext.MaxPageText>>20)
				err = nil
			}
			if err != nil {
				failed = append(failed, p)
				page = &pdftext.Page{Number: p}
			}
			pages = append(pages, page)
		}
		for i, md := range pdftext.Markdown(pages) {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "<!-- page %d -->\n", i+1)
			if md != "" {
				b.WriteString("\n" + md)
			}
			if b.Len() > MaxOutputBytes {
				return "", &tool.Error{Code: tool.CodeTooLarge,
					Message: fmt.Sprintf("the text of %s passed %d MiB at page %d of %d", x.display, MaxOutputBytes>>20, i+1, total),
					Hint:    "read it in pages with mcode read --pages instead"}
			}
		}
	}
	for p := 1; p <= total && x.format != FormatMarkdown; p++ {
		if err := x.ctx.Err(); err != nil {
			return "", err
		}
		t, err := doc.PageText(p)
		var ce *pdftext.CorruptError
		if errors.As(err, &ce) {
			return "", pdfError(x.display, fmt.Errorf("page %d: %w", p, err))
		}
		switch {
		case errors.Is(err, pdftext.ErrTextCut):
			x.note("the text of page %d passes %d MiB: the rest of the page is left out", p, pdftext.MaxPageText>>20)
		case err != nil:
			failed = append(failed, p)
		}
		t = strings.TrimSpace(t)
		if p > 1 {
			b.WriteString("\f")
		}
		if t != "" {
			b.WriteString(t + "\n")
		}
		if b.Len() > MaxOutputBytes {
			return "", &tool.Error{Code: tool.CodeTooLarge,
				Message: fmt.Sprintf("the text of %s passed %d MiB at page %d of %d", x.display, MaxOutputBytes>>20, p, total),
				Hint:    "read it in pages with mcode read --pages instead"}
		}
	}
	if doc.Encrypted && len(failed) == total {
		return "", &tool.Error{Code: tool.CodeEncrypted,
			Message: fmt.Sprintf("%s is an encrypted PDF whose cipher extract cannot decrypt (no page decoded)", x.display),
			Hint:    "ask for an unencrypted copy (e.g. qpdf --decrypt in.pdf out.pdf)"}
	}
	if len(failed) > 0 {
		x.note("the text of %d of %d pages could not be extracted (first: page %d)", len(failed), total, failed[0])
	}
	return b.String(), nil
}

func pdfError(display string, err error) error {
	var enc *pdftext.ErrEncrypted
	var te *tool.Error
	switch {
	case errors.As(err, &te):
		return te
	case errors.As(err, &enc):
		return &tool.Error{Code: tool.CodeEncrypted,
			Message: fmt.Sprintf("%s is an encrypted PDF (%v)", display, enc.Err),
			Hint:    "extract cannot take passwords; ask for an unencrypted copy (e.g. qpdf --decrypt --password=PW in.pdf out.pdf)"}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return &tool.Error{Code: tool.CodeCorruptFile,
		Message: fmt.Sprintf("%s is not a readable PDF: %v", display, err),
		Hint:    "the file may be damaged or truncated; ask for a fresh copy, or check it with bash (file, pdfinfo)"}
}
