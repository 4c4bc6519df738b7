// Package filetype is the filetype tool: what each of a list of paths
// is — its MIME type from its content (github.com/gabriel-vasile/mimetype),
// and for text its encoding and line endings in read's words. Directories,
// FIFOs, sockets and devices are named from stat without being opened.
package filetype

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gabriel-vasile/mimetype"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/office"
	"github.com/mcode-dev/mcode/pkg/textenc"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Name is the tool's name.
const Name = "filetype"

// Limits of one call.
const (
	// MaxPaths is the most paths one call looks at.
	MaxPaths = 1000
	// HeadBytes is how much of a file the detection reads; text files up
	// to this size have their line endings counted whole.
	HeadBytes = 64 << 10
	// Timeout is the call's default time limit: MaxPaths heads of
	// HeadBytes each (a slow network mount must not hold a call for ever).
	Timeout = time.Minute
)

// Kinds of path.
const (
	KindFile        = "file"
	KindDirectory   = "directory"
	KindFIFO        = "fifo"
	KindSocket      = "socket"
	KindCharDevice  = "char_device"
	KindBlockDevice = "block_device"
	KindIrregular   = "irregular"
	KindMissing     = "missing"
	KindBrokenLink  = "broken_symlink"
)

// Params are the tool's parameters.
type Params struct {
	Paths []string `json:"paths"`
}

// Result is the structured answer.
type Result struct {
	Files []File `json:"files"`
}

// File is what one path is.
type File struct {
	Path        string `json:"path"`
	Kind        string `json:"kind"`
	MIME        string `json:"mime,omitempty"`
	Extension   string `json:"extension,omitempty"`
	Description string `json:"description,omitempty"`
	IsText      bool   `json:"is_text"`
	Encoding    string `json:"encoding,omitempty"`
	LineEnding  string `json:"line_ending,omitempty"`
	Bytes       *int64 `json:"bytes"`
	Error       string `json:"error,omitempty"`
}

var (
	//go:embed filetype.md
	description string
	//go:embed filetype.schema.json
	schema string
)

// Tool is the registry entry.
func Tool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: Name, Mode: tool.Parallel, Timeout: Timeout,
		Positional:  []string{"paths"},
		Facts:       tool.Facts{ReadOnly: true, Idempotent: true},
		Paths:       tool.PathParams(tool.PathParam{Field: "paths"}),
		Description: description, Schema: schema,
		Data: map[string]any{"MaxPaths": MaxPaths, "HeadKiB": HeadBytes >> 10},
	}, Run)
}

// Run looks at each path.
func Run(ctx context.Context, env *tool.Env, p Params) (*tool.Response, error) {
	if len(p.Paths) == 0 || len(p.Paths) > MaxPaths {
		return nil, &tool.Error{Code: tool.CodeInvalidArgs,
			Message: fmt.Sprintf("%d paths: pass 1 to %d", len(p.Paths), MaxPaths),
			Hint:    "e.g. mcode filetype report.pdf data.bin"}
	}
	res := Result{Files: make([]File, 0, len(p.Paths))}
	var out strings.Builder
	missing := 0
	for _, path := range p.Paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f := Detect(env.Abs(path))
		f.Path = path
		if f.Kind == KindMissing {
			missing++
		}
		res.Files = append(res.Files, f)
		out.WriteString(line(f))
	}
	resp := &tool.Response{Output: out.String(), Result: res}
	if missing == len(p.Paths) {
		return resp, fsutil.NotFound(p.Paths[0], env.Abs(p.Paths[0]))
	}
	return resp, nil
}

func line(f File) string {
	var parts []string
	switch {
	case f.Error != "":
		parts = append(parts, f.Error)
	case f.Kind != KindFile:
		parts = append(parts, f.Description)
	default:
		parts = append(parts, f.MIME, f.Description)
		if f.IsText {
			parts = append(parts, f.Encoding, f.LineEnding)
		}
		if f.Bytes != nil {
			parts = append(parts, fsutil.HumanBytes(*f.Bytes))
		}
	}
	return f.Path + ": " + strings.Join(parts, ", ") + "\n"
}

// Detect looks at one absolute path.
func Detect(abs string) File {
	f := File{Path: abs}
	info, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, lerr := os.Lstat(abs); lerr == nil {
				f.Kind, f.Description = KindBrokenLink, "a symbolic link to a missing file"
				f.Error = f.Description
				return f
			}
			f.Kind, f.Error = KindMissing, "no such file"
			return f
		}
		f.Kind, f.Error = KindFile, err.Error()
		return f
	}
	mode := info.Mode()
	switch {
	case info.IsDir():
		f.Kind, f.Description, f.MIME = KindDirectory, "a directory", "inode/directory"
		return f
	case mode&fs.ModeNamedPipe != 0:
		f.Kind, f.MIME = KindFIFO, "inode/fifo"
	case mode&fs.ModeSocket != 0:
		f.Kind, f.MIME = KindSocket, "inode/socket"
	case mode&fs.ModeCharDevice != 0:
		f.Kind, f.MIME = KindCharDevice, "inode/chardevice"
	case mode&fs.ModeDevice != 0:
		f.Kind, f.MIME = KindBlockDevice, "inode/blockdevice"
	case !mode.IsRegular():
		f.Kind = KindIrregular
	}
	if f.Kind != "" {
		f.Description = fsutil.SpecialKind(mode) + " (not opened)"
		return f
	}
	f.Kind = KindFile
	size := info.Size()
	f.Bytes = &size
	head, err := readHead(abs)
	if err != nil {
		f.Error = err.Error()
		if errors.Is(err, fs.ErrPermission) {
			f.Error = "no permission to read it"
		}
		return f
	}
	describe(&f, abs, head, size)
	return f
}

func readHead(abs string) ([]byte, error) {
	fh, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	buf := make([]byte, HeadBytes)
	n, err := io.ReadFull(fh, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return buf[:n], nil
}

var setLimit sync.Once

func describe(f *File, abs string, head []byte, size int64) {
	setLimit.Do(func() { mimetype.SetLimit(HeadBytes) })
	m := mimetype.Detect(head)
	mime, _, _ := strings.Cut(m.String(), ";")
	f.MIME = strings.TrimSpace(mime)
	f.Extension = m.Extension()
	if size == 0 {
		f.MIME, f.Extension = "inode/x-empty", ""
	}
	if format, ok := office.Detect(abs, head); ok && strings.HasPrefix(f.MIME, "application/") && format != "" {
		if mt := office.MIME(format); f.MIME == "application/zip" || f.MIME == "application/x-ole-storage" || f.MIME == mt {
			if f.MIME == "application/x-ole-storage" {
				f.Description = strings.ToUpper(format) + " document, encrypted (an OLE container)"
			} else {
				f.MIME, f.Extension = mt, "."+format
			}
		}
	}
	enc, err := textenc.Detect(head)
	isText := err == nil && (strings.HasPrefix(f.MIME, "text/") || textual[f.MIME] || f.MIME == "application/octet-stream" || f.MIME == "inode/x-empty")
	if isText && size > 0 {
		f.IsText = true
		f.Encoding = string(enc)
		f.LineEnding = string(textenc.LineEndings(head))
		if f.MIME == "application/octet-stream" {
			f.MIME = "text/plain"
		}
	}
	if f.Description == "" {
		f.Description = describeMIME(f.MIME, head, f.IsText, filepath.Ext(abs))
	}
	if f.IsText && size > int64(len(head)) {
		f.Description += fmt.Sprintf(" (encoding and line endings from the first %d KiB)", HeadBytes>>10)
	}
}

// textual are MIME types outside text/ whose content is text.
var textual = map[string]bool{
	"application/json": true, "application/xml": true, "application/javascript": true,
	"application/x-ndjson": true, "application/geo+json": true, "application/ld+json": true,
	"application/x-sh": true, "application/x-php": true, "application/x-perl": true, "application/x-python": true,
	"application/x-ruby": true, "application/x-tcl": true, "application/x-lua": true, "application/rtf": true,
	"application/x-subrip": true, "application/vnd.ms-outlook": false, "image/svg+xml": true,
	"application/x-ipynb+json": true,
}

func describeMIME(mime string, head []byte, isText bool, ext string) string {
	if d, ok := descriptions[mime]; ok {
		return d
	}
	if ft, known := textenc.SniffType(head); known && ft.MIME == mime {
		return ft.Name
	}
	if isText {
		if ext != "" {
			return strings.TrimPrefix(ext, ".") + " text"
		}
		return "text"
	}
	major, minor, _ := strings.Cut(mime, "/")
	minor = strings.TrimPrefix(strings.TrimPrefix(minor, "x-"), "vnd.")
	switch major {
	case "image", "audio", "video", "font":
		return strings.ToUpper(minor) + " " + major
	}
	return minor + " data"
}

var descriptions = map[string]string{
	"application/pdf":          "PDF document",
	"application/zip":          "ZIP archive",
	"application/gzip":         "gzip archive",
	"application/x-tar":        "tar archive",
	"application/json":         "JSON text",
	"text/html":                "HTML document",
	"text/xml":                 "XML document",
	"text/plain":               "plain text",
	"text/csv":                 "CSV text",
	"image/svg+xml":            "SVG image",
	"inode/x-empty":            "an empty file",
	"application/x-elf":        "ELF executable",
	"application/x-ipynb+json": "Jupyter notebook",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   "Word document (DOCX)",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         "Excel spreadsheet (XLSX)",
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": "PowerPoint presentation (PPTX)",
	"application/vnd.oasis.opendocument.text":                                   "OpenDocument text (ODT)",
	"application/vnd.oasis.opendocument.spreadsheet":                            "OpenDocument spreadsheet (ODS)",
	"application/vnd.oasis.opendocument.presentation":                           "OpenDocument presentation (ODP)",
}
