// Package render is the render tool: Markdown to DOCX, XLSX, PPTX and PDF,
// in-process and deterministic (the same input gives the same bytes).
package render

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Name is the tool's name.
const Name = "render"

// Limits, reused in the description and the help text.
const (
	MaxSourceMiB = 16 // Markdown source
	MaxImageMiB  = 32 // one image file
	Timeout      = 5 * time.Minute
)

// minIndentedShare is the share of the text width a nested block keeps
// in every format: quotes and lists indent no further than leaves it.
const minIndentedShare = 0.5

// Formats, in the order help lists them.
var Formats = []string{"docx", "xlsx", "pptx", "pdf"}

// Aspects and papers.
const (
	Aspect169 = "16:9"
	Aspect43  = "4:3"
	PaperA4   = "a4"
	PaperLtr  = "letter"
)

// What render did to the output file.
const (
	Created  = "created"
	Replaced = "replaced"
)

// Params are the tool's parameters.
type Params struct {
	Format   string `json:"format"`
	Source   string `json:"source,omitempty"`
	Markdown string `json:"markdown,omitempty"`
	Out      string `json:"out,omitempty"`
	Aspect   string `json:"aspect,omitempty"`
	Paper    string `json:"paper,omitempty"`
	Cover    bool   `json:"cover,omitempty"`
}

// Counts says how much the file holds.
type Counts struct {
	Pages    int `json:"pages,omitempty"`
	Slides   int `json:"slides,omitempty"`
	Sheets   int `json:"sheets,omitempty"`
	Headings int `json:"headings"`
	Tables   int `json:"tables"`
	Images   int `json:"images"`
}

// Result is what a render did.
type Result struct {
	Path     string   `json:"path"`
	Format   string   `json:"format"`
	Action   string   `json:"action"`
	Bytes    int      `json:"bytes"`
	SHA256   string   `json:"sha256"`
	Counts   Counts   `json:"counts"`
	Warnings []string `json:"warnings"`
}

var (
	//go:embed render.md
	description string
	//go:embed render.schema.json
	schema string
)

type limits struct {
	MaxSourceMiB, MaxImageMiB int
	Formats                   string
}

// Tool is the registry entry.
func Tool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: Name, Mode: tool.Sequential, Timeout: Timeout,
		Positional:  []string{"format", "source"},
		Facts:       tool.Facts{Destructive: true, Idempotent: true}, // replaces out, with the same bytes each time
		Paths:       tool.PathParams(tool.PathParam{Field: "source"}, tool.PathParam{Field: "out", Write: true}),
		Description: description, Schema: schema,
		Data: limits{MaxSourceMiB, MaxImageMiB, strings.Join(Formats, ", ")},
	}, Render)
}

// job is one render in progress: what every writer needs besides the
// document.
type job struct {
	ctx          context.Context
	env          *tool.Env
	p            Params
	baseDir      string // where relative image paths start
	counts       Counts
	warnings     []string
	moreWarnings int // past maxWarnings
	images       map[string]*loadedImage
	cleanups     []func()
}

// maxWarnings bounds the warnings a result lists; the rest are counted.
const maxWarnings = 50

func (j *job) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if slices.Contains(j.warnings, msg) {
		return
	}
	if len(j.warnings) >= maxWarnings {
		j.moreWarnings++
		return
	}
	j.warnings = append(j.warnings, msg)
}

// Render renders one document.
func Render(ctx context.Context, env *tool.Env, p Params) (*tool.Response, error) {
	p.Format = strings.ToLower(p.Format)
	if err := checkParams(&p); err != nil {
		return nil, err
	}
	src, err := openSource(env, p)
	if err != nil {
		return nil, err
	}
	defer src.close()
	st, err := openStream(ctx, src.r, src.size)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, badEncoding):
		return nil, &tool.Error{Code: tool.CodeEncoding, Message: fmt.Sprintf("%s is not UTF-8 text", src.display),
			Hint: "convert it to UTF-8 first (iconv -t UTF-8)"}
	case errors.As(err, new(*frontMatterError)):
		return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: err.Error(),
			Hint: "fix the YAML between the --- lines at the top, or remove them"}
	default:
		return nil, readErr(src.display, err)
	}
	j := &job{ctx: ctx, env: env, p: p, baseDir: src.baseDir, images: map[string]*loadedImage{}}
	var emit func(io.Writer) error
	switch p.Format {
	case "docx":
		emit, err = j.docx(st)
	case "xlsx":
		emit, err = j.xlsx(st)
	case "pptx":
		emit, err = j.pptx(st)
	case "pdf":
		emit, err = j.pdf(st)
	}
	defer j.cleanup()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	abs := env.Abs(p.Out)
	display := displayPath(env.Root, abs)
	action := Created
	if info, err := os.Stat(abs); err == nil {
		if info.IsDir() {
			return nil, &tool.Error{Code: tool.CodeIsDirectory, Message: fmt.Sprintf("%s is a directory", display),
				Hint: fmt.Sprintf("name a file, e.g. %s", filepath.Join(display, "out."+p.Format))}
		}
		action = Replaced
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, writeErr(display, err)
	}
	sum := &hashCount{h: sha256.New()}
	if err := fsutil.WriteAtomic(abs, 0o644, func(w io.Writer) error { return emit(io.MultiWriter(w, sum)) }); err != nil {
		return nil, writeErr(display, err)
	}
	res := &Result{Path: abs, Format: p.Format, Action: action, Bytes: int(sum.n),
		SHA256: hex.EncodeToString(sum.h.Sum(nil)), Counts: j.counts, Warnings: append(st.Warnings(), j.warnings...)}
	if j.moreWarnings > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("and %d more warnings", j.moreWarnings))
	}
	if res.Warnings == nil {
		res.Warnings = []string{}
	}
	return &tool.Response{Output: output(display, res), Result: res}, nil
}

// hashCount hashes and counts what is written through it.
type hashCount struct {
	h hash.Hash
	n int64
}

func (c *hashCount) Write(b []byte) (int, error) {
	c.h.Write(b)
	c.n += int64(len(b))
	return len(b), nil
}

// cleanup lets go of what the render holds (temporary files).
func (j *job) cleanup() {
	for _, f := range j.cleanups {
		f()
	}
	j.cleanups = nil
}

func output(display string, r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s, %s)", r.Action, display, strings.ToUpper(r.Format), fsutil.HumanBytes(int64(r.Bytes)))
	var parts []string
	add := func(n int, one, many string) {
		if n == 1 {
			parts = append(parts, "1 "+one)
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(r.Counts.Pages, "page", "pages")
	add(r.Counts.Slides, "slide", "slides")
	add(r.Counts.Sheets, "sheet", "sheets")
	add(r.Counts.Tables, "table", "tables")
	add(r.Counts.Images, "image", "images")
	if len(parts) > 0 {
		b.WriteString(": " + strings.Join(parts, ", "))
	}
	for _, w := range r.Warnings {
		b.WriteString("\nwarning: " + w)
	}
	return b.String()
}

func checkParams(p *Params) error {
	if !contains(Formats, p.Format) {
		return &tool.Error{Code: tool.CodeInvalidArgs, Message: fmt.Sprintf("unknown format %q", p.Format),
			Hint: "format is one of " + strings.Join(Formats, ", ")}
	}
	if (p.Source == "") == (p.Markdown == "") {
		msg := "give the Markdown either as source (a file) or as markdown (the text), not both"
		if p.Source == "" {
			msg = "no Markdown given"
		}
		return &tool.Error{Code: tool.CodeInvalidArgs, Message: msg,
			Hint: "pass source: a .md file, or markdown: the text itself"}
	}
	if p.Out == "" {
		if p.Source == "" {
			return &tool.Error{Code: tool.CodeInvalidArgs, Message: "out is missing: inline Markdown has no file name to derive one from",
				Hint: fmt.Sprintf("pass out, e.g. report.%s", p.Format)}
		}
		p.Out = strings.TrimSuffix(p.Source, filepath.Ext(p.Source)) + "." + p.Format
	}
	switch p.Aspect {
	case "", Aspect169, Aspect43:
	default:
		return &tool.Error{Code: tool.CodeInvalidArgs, Message: fmt.Sprintf("unknown aspect %q", p.Aspect),
			Hint: "aspect is 16:9 or 4:3"}
	}
	if p.Aspect != "" && p.Format != "pptx" {
		return &tool.Error{Code: tool.CodeInvalidArgs, Message: "aspect applies to pptx only", Hint: "drop aspect, or render pptx"}
	}
	p.Paper = strings.ToLower(p.Paper)
	switch p.Paper {
	case "", PaperA4, PaperLtr:
	default:
		return &tool.Error{Code: tool.CodeInvalidArgs, Message: fmt.Sprintf("unknown paper %q", p.Paper),
			Hint: "paper is a4 or letter"}
	}
	if (p.Paper != "" || p.Cover) && p.Format != "pdf" {
		return &tool.Error{Code: tool.CodeInvalidArgs, Message: "paper and cover apply to pdf only", Hint: "drop them, or render pdf"}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// mdSource is the Markdown to render, read as it is needed.
type mdSource struct {
	r       io.ReaderAt
	size    int64
	display string
	baseDir string // where relative image paths start
	file    *os.File
}

func (s *mdSource) close() {
	if s.file != nil {
		s.file.Close()
	}
}

// openSource opens the Markdown: the text given, or the file.
func openSource(env *tool.Env, p Params) (*mdSource, error) {
	if p.Markdown != "" {
		if len(p.Markdown) > MaxSourceMiB<<20 {
			return nil, tooLarge("markdown", len(p.Markdown))
		}
		return &mdSource{r: strings.NewReader(p.Markdown), size: int64(len(p.Markdown)), display: "markdown", baseDir: env.Root}, nil
	}
	abs := env.Abs(p.Source)
	display := displayPath(env.Root, abs)
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fsutil.NotFound(display, abs)
	case err != nil:
		return nil, readErr(display, err)
	case info.IsDir():
		return nil, &tool.Error{Code: tool.CodeIsDirectory, Message: fmt.Sprintf("%s is a directory", display),
			Hint: "name a Markdown file; glob finds them (**/*.md)"}
	case !info.Mode().IsRegular():
		return nil, &tool.Error{Code: tool.CodeSpecialFile, Message: fmt.Sprintf("%s is not a regular file", display),
			Hint: "save the Markdown to a file, or pass it as markdown"}
	case info.Size() > MaxSourceMiB<<20:
		return nil, tooLarge(display, int(info.Size()))
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, readErr(display, err)
	}
	// The size as opened: a file that grows meanwhile is read as it was.
	if info, err = f.Stat(); err != nil {
		f.Close()
		return nil, readErr(display, err)
	}
	if info.Size() > MaxSourceMiB<<20 {
		f.Close()
		return nil, tooLarge(display, int(info.Size()))
	}
	return &mdSource{r: f, size: info.Size(), display: display, baseDir: filepath.Dir(abs), file: f}, nil
}

func tooLarge(what string, n int) error {
	return &tool.Error{Code: tool.CodeTooLarge,
		Message: fmt.Sprintf("%s is %s, more than the %d MiB render takes", what, fsutil.HumanBytes(int64(n)), MaxSourceMiB),
		Hint:    "split the document and render the parts"}
}

func readErr(display string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return &tool.Error{Code: tool.CodePermission, Message: fmt.Sprintf("cannot read %s: permission denied", display),
			Hint: "check the file's permissions"}
	}
	return fmt.Errorf("reading %s: %w", display, err)
}

func writeErr(display string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return &tool.Error{Code: tool.CodePermission, Message: fmt.Sprintf("cannot write %s: permission denied", display),
			Hint: "choose another out path; nothing was written"}
	}
	if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist) {
		return &tool.Error{Code: tool.CodeNotADirectory, Message: fmt.Sprintf("cannot write %s: %v", display, err),
			Hint: "a part of the out path is a file, not a folder; choose another path"}
	}
	return fmt.Errorf("writing %s: %w", display, err)
}

func displayPath(root, abs string) string {
	if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(rel)
	}
	return abs
}

func (j *job) countBlocks(blocks []Block) {
	for _, b := range blocks {
		switch b.Kind {
		case Heading:
			j.counts.Headings++
		case Table:
			if !b.Cont {
				j.counts.Tables++
			}
		case Quote:
			j.countBlocks(b.Children)
		case List:
			for _, it := range b.Items {
				j.countBlocks(it.Blocks)
			}
		}
	}
}
