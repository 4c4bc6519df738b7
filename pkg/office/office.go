// Package office converts office documents to Markdown: Word, Excel and
// PowerPoint files (OOXML: DOCX, XLSX, PPTX) and their OpenDocument
// counterparts (ODT, ODS, ODP).
//
// It is a reader over archive/zip and encoding/xml rather than a library
// per format: xuri/excelize, the well-kept XLSX library, costs about 10 ms
// of package init (measured with GODEBUG=inittrace=1) on every start of
// every mcode command, where mcode's whole start-up is about 1 ms, and no
// Go library reads DOCX, PPTX and ODF as text at all. Only the parts that
// carry text are read, each streamed through a token decoder, so memory
// follows the Markdown produced, not the document's XML.
//
// The input is untrusted: every part is inflated through a counting
// limit (a zip bomb is refused while inflating, whatever its headers
// claim), XML nesting is bounded, relationships are followed one fixed
// step (document → part), never as a graph, and repeat counts of ODF
// rows and columns are bounded by what the output may hold.
package office

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/mcode-dev/mcode/pkg/fsutil"
)

// Formats.
const (
	DOCX = "docx"
	XLSX = "xlsx"
	PPTX = "pptx"
	ODT  = "odt"
	ODS  = "ods"
	ODP  = "odp"
)

// Limits on one document.
const (
	// MaxInflatedBytes bounds the bytes inflated from all parts together.
	MaxInflatedBytes = 256 << 20
	// MaxMarkdownBytes bounds the Markdown produced.
	MaxMarkdownBytes = 64 << 20
	// MaxEntries bounds the files in the archive.
	MaxEntries = 50_000
	// MaxXMLDepth bounds element nesting in any part.
	MaxXMLDepth = 256
)

// Document is a converted document: one part for a text document, one per
// slide or sheet for presentations and spreadsheets.
type Document struct {
	Format string
	// Unit names what Parts are: "slide", "sheet", or "" for a text
	// document (one part).
	Unit  string
	Parts []Part
	// Truncated says part of the content was left out to stay within
	// the limits; Notes say what.
	Truncated bool
	Notes     []string
}

// Part is one slide, one sheet, or a whole text document.
type Part struct {
	Title    string
	Markdown string
}

// Markdown joins the parts picked (1-based; nil: all).
func (d *Document) Markdown(picked []int) string {
	var b strings.Builder
	add := func(p Part) {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n\n") {
			b.WriteString("\n")
		}
		b.WriteString(p.Markdown)
	}
	if picked == nil {
		for _, p := range d.Parts {
			add(p)
		}
	} else {
		for _, n := range picked {
			if n >= 1 && n <= len(d.Parts) {
				add(d.Parts[n-1])
			}
		}
	}
	return b.String()
}

// ErrEncrypted is returned for password-protected documents.
var ErrEncrypted = errors.New("the document is password-protected (encrypted)")

// PartError is damage in one part of the archive.
type PartError struct {
	Part string
	Err  error
}

func (e *PartError) Error() string {
	if e.Part == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("part %s: %v", e.Part, e.Err)
}

func (e *PartError) Unwrap() error { return e.Err }

// TooLargeError says a limit was reached.
type TooLargeError struct {
	What  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s exceeds the limit of %d MiB (a zip bomb, or a document too large to convert)", e.What, e.Limit>>20)
}

var (
	cfbMagic  = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
	zipMagic  = []byte("PK\x03\x04")
	encInfo16 = utf16le("EncryptionInfo")
)

func utf16le(s string) []byte {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r), 0)
	}
	return b
}

// Detect names the format of a document from its name and first bytes
// (a few KiB): a zip whose content says which, or an OOXML extension on
// an OLE container (how Office stores an encrypted OOXML file). ok is
// false for anything else.
func Detect(name string, head []byte) (format string, ok bool) {
	ext := strings.TrimPrefix(strings.ToLower(path.Ext(name)), ".")
	if bytes.HasPrefix(head, cfbMagic) {
		switch ext {
		case DOCX, XLSX, PPTX, "docm", "xlsm", "pptm":
			return ooxmlExt(ext), true
		}
		return "", false
	}
	if !bytes.HasPrefix(head, zipMagic) {
		return "", false
	}
	// ODF stores an uncompressed "mimetype" entry first.
	if i := bytes.Index(head, []byte("mimetypeapplication/vnd.oasis.opendocument.")); i >= 0 && i < 64 {
		rest := head[i+len("mimetypeapplication/vnd.oasis.opendocument."):]
		switch {
		case bytes.HasPrefix(rest, []byte("text")):
			return ODT, true
		case bytes.HasPrefix(rest, []byte("spreadsheet")):
			return ODS, true
		case bytes.HasPrefix(rest, []byte("presentation")):
			return ODP, true
		}
		return "", false
	}
	switch ext {
	case DOCX, XLSX, PPTX, "docm", "xlsm", "pptm", ODT, ODS, ODP:
		return ooxmlExt(ext), true
	}
	// Without a telling name the entry names in the head decide.
	for _, c := range []struct{ marker, format string }{
		{"word/", DOCX}, {"xl/", XLSX}, {"ppt/", PPTX},
	} {
		if bytes.Contains(head, []byte(c.marker)) && bytes.Contains(head, []byte("[Content_Types].xml")) {
			return c.format, true
		}
	}
	return "", false
}

func ooxmlExt(ext string) string {
	switch ext {
	case "docm":
		return DOCX
	case "xlsm":
		return XLSX
	case "pptm":
		return PPTX
	}
	return ext
}

// Convert reads the document in r (size bytes, format from Detect).
func Convert(ctx context.Context, r io.ReaderAt, size int64, format string) (*Document, error) {
	head := make([]byte, len(cfbMagic))
	if n, _ := r.ReadAt(head, 0); n == len(head) && bytes.Equal(head, cfbMagic) {
		if isEncryptedCFB(r, size) {
			return nil, ErrEncrypted
		}
		return nil, &PartError{Err: errors.New("an OLE container without EncryptionInfo: a legacy binary Office file (.doc/.xls/.ppt) renamed, not OOXML")}
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, &PartError{Err: fmt.Errorf("not a valid zip archive: %v", err)}
	}
	if len(zr.File) > MaxEntries {
		return nil, &TooLargeError{What: fmt.Sprintf("the archive's %d entries", len(zr.File)), Limit: MaxEntries << 20}
	}
	p := &pkg{ctx: ctx, zr: zr, files: map[string]*zip.File{}, budget: MaxInflatedBytes}
	for _, f := range zr.File {
		p.files[strings.TrimPrefix(f.Name, "/")] = f
	}
	doc := &Document{Format: format}
	switch format {
	case DOCX:
		err = p.docx(doc)
	case XLSX:
		err = p.xlsx(doc)
	case PPTX:
		err = p.pptx(doc)
	case ODT, ODS, ODP:
		err = p.odf(doc)
	default:
		err = fmt.Errorf("unknown office format %q", format)
	}
	if err != nil {
		return nil, err
	}
	total := 0
	for _, part := range doc.Parts {
		total += len(part.Markdown)
	}
	if total > MaxMarkdownBytes {
		return nil, &TooLargeError{What: "the Markdown of the document", Limit: MaxMarkdownBytes}
	}
	return doc, nil
}

// isEncryptedCFB looks for the EncryptionInfo stream's name in the OLE
// container's directory (it is in the first MiB of any such file Office
// writes; a search is enough to tell it from a legacy .doc/.xls).
func isEncryptedCFB(r io.ReaderAt, size int64) bool {
	buf := make([]byte, min(size, 1<<20))
	n, _ := r.ReadAt(buf, 0)
	return bytes.Contains(buf[:n], encInfo16)
}

// pkg is an open archive being converted.
type pkg struct {
	ctx    context.Context
	zr     *zip.Reader
	files  map[string]*zip.File
	budget int64 // bytes still allowed to inflate
	// cellText is the text of the sheets' cells so far; cellsCut says
	// cells were left out past MaxCellText.
	cellText int64
	cellsCut bool
}

func (p *pkg) has(name string) bool { _, ok := p.files[name]; return ok }

// open inflates a part through the shared budget.
func (p *pkg) open(name string) (io.ReadCloser, error) {
	f, ok := p.files[name]
	if !ok {
		return nil, &PartError{Part: name, Err: errors.New("missing from the archive")}
	}
	if f.UncompressedSize64 > uint64(p.budget) {
		// The limit is shared by every part: say how much went before.
		what := fmt.Sprintf("part %s (%s inflated)", name, fsutil.HumanBytes(int64(min(f.UncompressedSize64, 1<<62))))
		if used := MaxInflatedBytes - p.budget; used > 0 {
			what += fmt.Sprintf(" on top of the %s the parts before it inflated to", fsutil.HumanBytes(used))
		}
		return nil, &TooLargeError{What: what, Limit: MaxInflatedBytes}
	}
	rc, err := f.Open()
	if err != nil {
		return nil, &PartError{Part: name, Err: err}
	}
	return &limited{rc: rc, p: p, name: name}, nil
}

// limited counts inflated bytes against the budget and checks ctx.
type limited struct {
	rc   io.ReadCloser
	p    *pkg
	name string
}

func (l *limited) Read(b []byte) (int, error) {
	if err := l.p.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := l.rc.Read(b)
	l.p.budget -= int64(n)
	if l.p.budget < 0 {
		return n, &TooLargeError{What: fmt.Sprintf("the inflated parts (reached in %s)", l.name), Limit: MaxInflatedBytes}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		err = &PartError{Part: l.name, Err: err}
	}
	return n, err
}

func (l *limited) Close() error { return l.rc.Close() }

// rels reads a part's relationships: id → target part (resolved against
// the part's folder; external targets are kept as they are).
func (p *pkg) rels(part string) (map[string]string, error) {
	dir, file := path.Split(part)
	name := dir + "_rels/" + file + ".rels"
	out := map[string]string{}
	if !p.has(name) {
		return out, nil
	}
	err := p.walk(name, func(d *decoder, t startTag) error {
		if t.local == "Relationship" {
			target := t.attr("Target")
			if t.attr("TargetMode") != "External" {
				target = resolvePart(dir, target)
			}
			out[t.attr("Id")] = target
		}
		return nil
	}, nil, nil)
	return out, err
}

func resolvePart(dir, target string) string {
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(path.Clean(target), "/")
	}
	return strings.TrimPrefix(path.Clean("/"+dir+target), "/")
}
