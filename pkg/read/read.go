// Package read is the read tool: guarded, paged, byte-honest reading of
// text files, PDFs, Jupyter notebooks and images.
//
// A call resolves the path (with the fallback spellings of path.go),
// refuses device paths and special files before anything opens them, then
// dispatches on the file's content: numbered text pages streamed from any
// depth of a huge file, PDF text by page, notebook cells, or an image
// downscaled to the configured limits.
package read

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/imagefit"
	"github.com/mcode-dev/mcode/pkg/office"
	"github.com/mcode-dev/mcode/pkg/textenc"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Name is the tool's name.
const Name = "read"

// Limits of one call. They are quoted in the description and the schema.
const (
	// DefaultLimit is the number of lines (notebook: cells) a call
	// returns when limit is not given; it is also the most it may ask.
	DefaultLimit = 2000
	MaxLimit     = 2000
	// MaxCutLinesListed caps result.cut_lines (the note counts them all).
	MaxCutLinesListed = 100
	// MaxLineChars is the longest line shown whole; longer lines are cut
	// and say how many characters were cut.
	MaxLineChars = 2000
	// MaxOutputBytes caps the text of one call; the head is kept and the
	// continuation names the next call.
	MaxOutputBytes = 24 * 1024
	// MaxPDFPages is the most PDF pages one call extracts.
	MaxPDFPages = 20
	// FullScanMaxBytes: files up to this size are read whole on every
	// call, which gives the exact line total, the line endings of the
	// whole file and its sha256. Larger files are streamed only as far as
	// the page needs (and to the end when that is cheap); they get no
	// sha256.
	FullScanMaxBytes = 64 << 20
	// MaxNotebookBytes and MaxImageBytes bound what is loaded in memory.
	MaxNotebookBytes = 64 << 20
	MaxImageBytes    = 64 << 20
	// MaxImagePixels bounds the pixels decoded from one image.
	MaxImagePixels = 64_000_000
	// DefaultTimeout is the call's time limit when the caller sets none:
	// no input (a PDF whose objects loop, a document that inflates for
	// ever) holds a call longer.
	DefaultTimeout = time.Minute
)

// Params are the tool's parameters.
type Params struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
	Pages  string `json:"pages,omitempty"`
	// Column is the 1-based character of the first line (offset) to show
	// from: the rest of a line cut at MaxLineChars.
	Column int `json:"column,omitempty"`
	// IncludeData puts an image's base64 in result.media.data. Without
	// it the JSON stays small (63 KB of base64 helps no model in a shell);
	// mcp serve sends the image as image content either way.
	IncludeData bool `json:"include_data,omitempty"`
}

// Kinds of file read tells apart.
const (
	KindText     = "text"
	KindPDF      = "pdf"
	KindNotebook = "notebook"
	KindImage    = "image"
	KindBinary   = "binary"
	KindDocument = "document"
)

// Result is the structured answer. Path, variant, kind, bytes and sha256
// are always there; the other blocks belong to one kind each.
type Result struct {
	Path string `json:"path"`
	// Variant names the spelling that matched when the literal path did
	// not exist (at_prefix, file_url, narrow_nbsp, nfd, curly_quotes, or
	// several joined by "+"); null when the literal path was read.
	Variant *string `json:"variant"`
	Kind    string  `json:"kind"`
	Bytes   int64   `json:"bytes"`
	// SHA256 is the hex digest of the file's bytes, the stamp that
	// edit and write --if-match compare; null for files over
	// FullScanMaxBytes.
	SHA256 *string `json:"sha256"`

	Lines *Lines `json:"lines,omitempty"`
	// Column is the character the first line was shown from (omitted
	// for 1); CutLines are the lines cut at MaxLineChars.
	Column     int    `json:"column,omitempty"`
	CutLines   []int  `json:"cut_lines,omitempty"`
	Encoding   string `json:"encoding,omitempty"`
	LineEnding string `json:"line_ending,omitempty"`

	Pages *Pages `json:"pages,omitempty"`

	// Format is an office document's format (docx, xlsx, pptx, odt, ods,
	// odp); Slides and Sheets count a presentation's slides and a
	// spreadsheet's sheets.
	Format string `json:"format,omitempty"`
	Slides *int   `json:"slides,omitempty"`
	Sheets *int   `json:"sheets,omitempty"`

	Cells    *Range `json:"cells,omitempty"`
	Language string `json:"language,omitempty"`

	Media *Media `json:"media,omitempty"`

	Type string `json:"type,omitempty"` // binary: the detected format
	MIME string `json:"mime,omitempty"`

	Notes []string `json:"notes,omitempty"`
}

// Lines is the page of a text file. TotalExact is false when the scan of
// a huge file stopped after the page: Total is then a lower bound.
type Lines struct {
	Start      int  `json:"start"`
	End        int  `json:"end"`
	Total      int  `json:"total"`
	TotalExact bool `json:"total_exact"`
}

// Range is a span of numbered items (notebook cells).
type Range struct {
	Start int `json:"start"`
	End   int `json:"end"`
	Total int `json:"total"`
}

// Pages are the PDF pages shown and the document's page count.
type Pages struct {
	Total int   `json:"total"`
	Shown []int `json:"shown"`
}

// Media is an image as sent to the model, and the original it came from.
type Media struct {
	MIME   string `json:"mime"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Bytes  int    `json:"bytes"`
	// Data is the base64 of the image sent, with include_data; else null
	// (and always when models.capabilities.images is false). mcp serve
	// sends the image itself as image content.
	Data     *string `json:"data"`
	Original Image   `json:"original"`
	Resized  bool    `json:"resized"`
}

// Image is an image's format and size.
type Image struct {
	MIME   string `json:"mime"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Bytes  int64  `json:"bytes"`
}

var (
	//go:embed read.md
	description string
	//go:embed read.schema.json
	schema string
)

// Tool is the registry entry.
func Tool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: Name, Mode: tool.Parallel, Timeout: DefaultTimeout,
		Positional:  []string{"path"},
		Facts:       tool.Facts{ReadOnly: true, Idempotent: true},
		Aliases:     map[string]tool.Alias{"file_path": {Param: "path"}},
		Paths:       tool.PathParams(tool.PathParam{Field: "path"}),
		Description: description, Schema: schema,
		Data: map[string]any{
			"DefaultLimit":     DefaultLimit,
			"MaxLimit":         MaxLimit,
			"MaxLineChars":     MaxLineChars,
			"MaxOutputKiB":     MaxOutputBytes / 1024,
			"MaxPDFPages":      MaxPDFPages,
			"MaxInflatedMiB":   office.MaxInflatedBytes >> 20,
			"FullScanMaxMiB":   FullScanMaxBytes >> 20,
			"LineArrow":        LineArrow,
			"NotebookMaxChars": NotebookOutputMaxChars,
			"NotebookMaxLines": NotebookOutputMaxLines,
			"Variants":         strings.Join([]string{VariantAtPrefix, VariantFileURL, VariantNarrowSpace, VariantNFD, VariantCurlyQuotes}, ", "),
		},
	}, runCall)
}

// CallParams are the parameters as a caller gives them: Params, with
// path one file or several.
type CallParams struct {
	Path   Paths  `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
	Pages  string `json:"pages,omitempty"`
	Column int    `json:"column,omitempty"`
	// IncludeData as in Params.
	IncludeData bool `json:"include_data,omitempty"`
}

// Paths is one path, or a list of them.
type Paths []string

// UnmarshalJSON accepts a string or an array of strings.
func (p *Paths) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*p = Paths{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	*p = list
	return nil
}

func runCall(ctx context.Context, env *tool.Env, cp CallParams) (*tool.Response, error) {
	one := func(path string) Params {
		return Params{Path: path, Offset: cp.Offset, Limit: cp.Limit, Pages: cp.Pages, Column: cp.Column, IncludeData: cp.IncludeData}
	}
	if len(cp.Path) > 1 {
		return runMany(ctx, env, cp.Path, one)
	}
	path := ""
	if len(cp.Path) == 1 {
		path = cp.Path[0]
	}
	return Run(ctx, env, one(path))
}

// Run reads the file p.Path names.
func Run(ctx context.Context, env *tool.Env, p Params) (*tool.Response, error) {
	if strings.TrimSpace(p.Path) == "" {
		return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: "path is empty",
			Hint: "pass the file to read, e.g. mcode read main.go"}
	}
	if strings.ContainsRune(p.Path, 0) {
		return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: "path contains a NUL byte",
			Hint: "pass the file name as it is, without control characters"}
	}
	if p.Offset < 0 || p.Limit < 0 || p.Limit > MaxLimit {
		return nil, &tool.Error{Code: tool.CodeInvalidArgs,
			Message: fmt.Sprintf("offset %d, limit %d: offset is a line number from 1, limit a count from 1 to %d", p.Offset, p.Limit, MaxLimit),
			Hint:    "e.g. --offset 1 --limit 200"}
	}
	p.Path = fsutil.InputPath(env.Abs, p.Path) // a name as grep and glob show it, \xHH for its stray bytes
	res, err := resolvePath(env, p.Path)
	if err != nil {
		return nil, err
	}
	if err := fsutil.CheckFolderSuffix(p.Path, res.info, false); err != nil {
		return nil, err
	}
	display := fsutil.DisplayPath(p.Path)
	if res.variant != "" {
		display = fsutil.DisplayPath(res.abs)
	}
	if err := checkFileType(display, res.abs, res.info); err != nil {
		return nil, err
	}
	f, err := openRegular(display, res.abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()

	r := &reading{env: env, params: p, display: display, file: f, size: res.info.Size()}
	r.result = Result{Path: fsutil.DisplayPath(res.abs), Bytes: r.size}
	if res.variant != "" {
		v := res.variant
		r.result.Variant = &v
		r.note("the path %q does not exist; read %s instead (spelling: %s)", p.Path, res.abs, res.variant)
	}
	head := make([]byte, textenc.SniffLen)
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, readError(display, err)
	}
	head = head[:n]

	switch kind, ft, enc := classify(res.abs, head); kind {
	case KindDocument:
		return r.document(ctx, ft.Name)
	case KindPDF:
		return r.pdf(ctx)
	case KindNotebook:
		return r.notebook(ctx)
	case KindImage:
		return r.image(ctx, ft)
	case KindBinary:
		return r.binary(ft)
	default:
		return r.text(ctx, enc)
	}
}

// reading is one call in progress.
type reading struct {
	env    *tool.Env
	params Params
	// display is the path as the caller wrote it when it worked, else the
	// file actually read: what messages name and hints repeat.
	display string
	file    *os.File
	size    int64
	result  Result
}

func (r *reading) note(format string, args ...any) {
	r.result.Notes = append(r.result.Notes, fmt.Sprintf(format, args...))
}

// ignorePaging notes the parameters that do not apply to this kind.
func (r *reading) ignorePaging(kind string, pages, offsetLimit bool) {
	if pages && r.params.Pages != "" {
		r.note("pages applies to PDF files only (and to the slides and sheets of office documents); ignored for this %s file", kind)
	}
	if offsetLimit && (r.params.Offset != 0 || r.params.Limit != 0) {
		r.note("offset and limit apply to text files and notebooks; ignored for this %s file", kind)
	}
	if kind != KindText && r.params.Column > 1 {
		r.note("column applies to text files only; ignored for this %s file", kind)
	}
}

// classify names the kind of a file from its name and first bytes, with
// the format of a binary file or an image and the encoding of a text.
func classify(abs string, head []byte) (string, textenc.FileType, textenc.Encoding) {
	ext := strings.ToLower(filepath.Ext(abs))
	if ext == ".ipynb" {
		return KindNotebook, textenc.FileType{}, ""
	}
	if isPDF(head) || ext == ".pdf" {
		return KindPDF, textenc.FileType{Name: "PDF document", MIME: "application/pdf"}, ""
	}
	if format, ok := office.Detect(abs, head); ok {
		return KindDocument, textenc.FileType{Name: format, MIME: office.MIME(format)}, ""
	}
	ft, known := textenc.SniffType(head)
	if known && imagefit.Supported(ft.MIME) {
		return KindImage, ft, ""
	}
	enc, err := textenc.Detect(head)
	binary := err != nil // ErrBinary, its only error
	if known && (!ft.Weak || binary) {
		return KindBinary, ft, ""
	}
	if binary {
		return KindBinary, textenc.FileType{Name: "binary data", MIME: "application/octet-stream"}, ""
	}
	return KindText, textenc.FileType{}, enc
}

// binary refuses a file that is not text in any encoding read decodes.
func (r *reading) binary(ft textenc.FileType) (*tool.Response, error) {
	r.result.Kind = KindBinary
	r.result.Type = ft.Name
	r.result.MIME = ft.MIME
	return &tool.Response{Result: r.result}, &tool.Error{Code: tool.CodeBinaryFile,
		Message: fmt.Sprintf("%s is a binary file (%s, %s); it is not shown as text", r.display, ft.Name, fsutil.HumanBytes(r.size)),
		Hint:    "read handles text, PDF, notebooks and images (png, jpeg, gif, webp); inspect other files with bash, e.g. file, or xxd | head"}
}

// readError turns a failed read into the contract's error.
func readError(display string, err error) error {
	if errors.Is(err, fs.ErrNotExist) { // removed since the stat
		return &tool.Error{Code: tool.CodeNotFound, Message: fmt.Sprintf("%s was removed while it was being read", display),
			Hint: "check the path; use glob to find the file"}
	}
	if errors.Is(err, fs.ErrPermission) {
		return &tool.Error{Code: tool.CodePermission,
			Message: fmt.Sprintf("no permission to read %s", display),
			Hint:    "the file is not readable by this user; check its mode and owner (ls -l)"}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("reading %s: %w", display, err)
}
