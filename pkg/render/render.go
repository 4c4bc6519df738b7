// Package render is the render tool: Markdown to DOCX, XLSX, PPTX and PDF,
// in-process and deterministic (the same input gives the same bytes).
package render

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

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
		Facts:       tool.Facts{Destructive: true, Idempotent: true}, // replaces out, with the same bytes each time
		Paths:       tool.PathParams(tool.PathParam{Field: "source"}, tool.PathParam{Field: "out", Write: true}),
		Description: description, Schema: schema,
		Data: limits{MaxSourceMiB, MaxImageMiB, strings.Join(Formats, ", ")},
	}, Render)
}

// job is one render in progress: what every writer needs besides the
// document.
type job struct {
	ctx      context.Context
	env      *tool.Env
	p        Params
	baseDir  string // where relative image paths start
	counts   Counts
	warnings []string
	images   map[string]*loadedImage
}

func (j *job) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, w := range j.warnings {
		if w == msg {
			return
		}
	}
	j.warnings = append(j.warnings, msg)
}

// parseWithin parses src, or gives up when ctx ends: goldmark takes no
// context, and some hostile sources (brackets nested thousands deep) take
// it minutes. The abandoned parse runs on to its end in the background.
func parseWithin(ctx context.Context, src []byte) (*Doc, error) {
	type parsed struct {
		doc *Doc
		err error
	}
	done := make(chan parsed, 1)
	go func() {
		doc, err := Parse(src)
		done <- parsed{doc, err}
	}()
	select {
	case p := <-done:
		return p.doc, p.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Render renders one document.
func Render(ctx context.Context, env *tool.Env, p Params) (*tool.Response, error) {
	p.Format = strings.ToLower(p.Format)
	if err := checkParams(&p); err != nil {
		return nil, err
	}
	src, baseDir, err := source(env, p)
	if err != nil {
		return nil, err
	}
	doc, err := parseWithin(ctx, src)
	if ctxErr := ctx.Err(); ctxErr != nil && doc == nil {
		return nil, ctxErr
	}
	if err != nil {
		return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: err.Error(),
			Hint: "fix the YAML between the --- lines at the top, or remove them"}
	}
	j := &job{ctx: ctx, env: env, p: p, baseDir: baseDir, warnings: doc.Warnings, images: map[string]*loadedImage{}}
	j.countBlocks(doc.Blocks)
	var buf bytes.Buffer
	switch p.Format {
	case "docx":
		err = j.docx(&buf, doc)
	case "xlsx":
		err = j.xlsx(&buf, doc)
	case "pptx":
		err = j.pptx(&buf, doc)
	case "pdf":
		err = j.pdf(&buf, doc)
	}
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
	data := buf.Bytes()
	if err := fsutil.WriteFileAtomic(abs, data, 0o644); err != nil {
		return nil, writeErr(display, err)
	}
	sum := sha256.Sum256(data)
	res := &Result{Path: abs, Format: p.Format, Action: action, Bytes: len(data),
		SHA256: hex.EncodeToString(sum[:]), Counts: j.counts, Warnings: j.warnings}
	if res.Warnings == nil {
		res.Warnings = []string{}
	}
	return &tool.Response{Output: output(display, res), Result: res}, nil
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

// source returns the Markdown and the folder its relative image paths
// start from.
func source(env *tool.Env, p Params) ([]byte, string, error) {
	if p.Markdown != "" {
		if len(p.Markdown) > MaxSourceMiB<<20 {
			return nil, "", tooLarge("markdown", len(p.Markdown))
		}
		return []byte(p.Markdown), env.Root, nil
	}
	abs := env.Abs(p.Source)
	display := displayPath(env.Root, abs)
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", fsutil.NotFound(display, abs)
	case err != nil:
		return nil, "", readErr(display, err)
	case info.IsDir():
		return nil, "", &tool.Error{Code: tool.CodeIsDirectory, Message: fmt.Sprintf("%s is a directory", display),
			Hint: "name a Markdown file; glob finds them (**/*.md)"}
	case !info.Mode().IsRegular():
		return nil, "", &tool.Error{Code: tool.CodeSpecialFile, Message: fmt.Sprintf("%s is not a regular file", display),
			Hint: "save the Markdown to a file, or pass it as markdown"}
	case info.Size() > MaxSourceMiB<<20:
		return nil, "", tooLarge(display, int(info.Size()))
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, "", readErr(display, err)
	}
	if !utf8.Valid(data) {
		return nil, "", &tool.Error{Code: tool.CodeEncoding, Message: fmt.Sprintf("%s is not UTF-8 text", display),
			Hint: "convert it to UTF-8 first (iconv -t UTF-8)"}
	}
	return data, filepath.Dir(abs), nil
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
			j.counts.Tables++
		case Quote:
			j.countBlocks(b.Children)
		case List:
			for _, it := range b.Items {
				j.countBlocks(it.Blocks)
			}
		}
	}
}
