package render

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/flate"
)

// Office Open XML packages are written by hand over archive/zip and
// text/XML: the parts a reader needs are few and fixed, and a library
// (excelize for spreadsheets) would cost every mcode command its package
// initialisation (2.7 ms and 1.3 MB at start, measured) for one command.

// zipTime stamps every part, so the same input gives the same bytes.
var zipTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Namespaces and relationship types of the parts written here.
const (
	nsRel       = "http://schemas.openxmlformats.org/package/2006/relationships"
	relOffice   = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	relDoc      = relOffice + "/officeDocument"
	relCore     = "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties"
	relApp      = relOffice + "/extended-properties"
	relStyles   = relOffice + "/styles"
	relNumber   = relOffice + "/numbering"
	relSettings = relOffice + "/settings"
	relImage    = relOffice + "/image"
	relLink     = relOffice + "/hyperlink"
	relTheme    = relOffice + "/theme"
	xmlHead     = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"
)

// pkgWriter writes an Open Packaging Conventions package (the zip of an
// office file) part by part, so that a part of any size costs little
// memory: each part is deflated as it is written, into memory while small
// and into a temporary file beyond (a spill), and several may be written
// at once (a document and its relationships). When the package is
// written, [Content_Types].xml comes first (readers and file-type
// detectors look for it there), then the parts in the order they were
// begun, their deflated bytes copied as they are.
type pkgWriter struct {
	store  spill // the deflated bytes of finished parts, one after another
	parts  []*pkgPart
	types  *partWriter // [Content_Types].xml, an Override for each part that needs one
	flates []*flate.Writer
	open   []*partWriter
	err    error
}

// pkgPart is a finished part: where its deflated bytes are in the store.
type pkgPart struct {
	name     string
	off, n   int64
	crc      uint32
	size     int64
	finished bool
}

// partDeflateLevel is the compression of every part (archive/zip's own is
// 5 as well).
const partDeflateLevel = 5

func newPkg() *pkgWriter {
	p := &pkgWriter{}
	p.types = p.create("[Content_Types].xml", "")
	p.types.WriteString(xmlHead + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`)
	for _, d := range [][2]string{{"rels", "application/vnd.openxmlformats-package.relationships+xml"}, {"xml", "application/xml"},
		{"png", "image/png"}, {"jpeg", "image/jpeg"}, {"gif", "image/gif"}, {"bmp", "image/bmp"}} {
		fmt.Fprintf(p.types, `<Default Extension="%s" ContentType="%s"/>`, d[0], d[1])
	}
	return p
}

// partWriter is a part being written: what is written to it is counted,
// checksummed and deflated into its spill.
type partWriter struct {
	*bufio.Writer
	pkg  *pkgWriter
	part *pkgPart
	out  spill
	fw   *flate.Writer
	crc  hash.Hash32
	size int64
}

// create begins a part; contentType "" means the default for its
// extension.
func (p *pkgWriter) create(name, contentType string) *partWriter {
	part := &pkgPart{name: name}
	p.parts = append(p.parts, part)
	if contentType != "" {
		fmt.Fprintf(p.types, `<Override PartName="/%s" ContentType="%s"/>`, name, contentType)
	}
	w := &partWriter{pkg: p, part: part, crc: crc32.NewIEEE()}
	if n := len(p.flates); n > 0 {
		w.fw = p.flates[n-1]
		p.flates = p.flates[:n-1]
		w.fw.Reset(&w.out)
	} else {
		w.fw, _ = flate.NewWriter(&w.out, partDeflateLevel)
	}
	w.Writer = bufio.NewWriterSize(partSink{w}, 32<<10)
	p.open = append(p.open, w)
	return w
}

// partSink feeds a part's bytes to its checksum and its compressor.
type partSink struct{ w *partWriter }

func (s partSink) Write(b []byte) (int, error) {
	s.w.crc.Write(b)
	s.w.size += int64(len(b))
	return s.w.fw.Write(b)
}

// Close finishes the part: its deflated bytes move to the package's store.
func (w *partWriter) Close() error {
	if w.part.finished {
		return nil
	}
	w.part.finished = true
	p := w.pkg
	p.open = slices.DeleteFunc(p.open, func(o *partWriter) bool { return o == w })
	err := w.Flush()
	if e := w.fw.Close(); err == nil {
		err = e
	}
	p.flates = append(p.flates, w.fw)
	w.part.crc, w.part.size = w.crc.Sum32(), w.size
	w.part.off = p.store.size
	if err == nil {
		err = w.out.copyTo(&p.store)
	}
	w.part.n = p.store.size - w.part.off
	w.out.close()
	if err != nil && p.err == nil {
		p.err = err
	}
	return err
}

// add stores a part whole; contentType "" means the default for its
// extension.
func (p *pkgWriter) add(name, contentType string, data []byte) {
	w := p.create(name, contentType)
	w.Write(data)
	w.Close()
}

func (p *pkgWriter) addXML(name, contentType, body string) {
	w := p.create(name, contentType)
	w.WriteString(xmlHead)
	w.WriteString(body)
	w.Close()
}

// addProps writes the core and app properties, without dates (they would
// make each render differ).
func (p *pkgWriter) addProps(title, app string) {
	p.addXML("docProps/core.xml", "application/vnd.openxmlformats-package.core-properties+xml",
		`<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`+
			`<dc:title>`+esc(title)+`</dc:title><dc:creator>mcode</dc:creator></cp:coreProperties>`)
	p.addXML("docProps/app.xml", "application/vnd.openxmlformats-officedocument.extended-properties+xml",
		`<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>`+esc(app)+`</Application></Properties>`)
}

// rootRels writes _rels/.rels pointing at the main part.
func (p *pkgWriter) rootRels(main string) {
	var r rels
	r.add(relDoc, main)
	r.add(relCore, "docProps/core.xml")
	r.add(relApp, "docProps/app.xml")
	p.addXML("_rels/.rels", "", r.xml())
}

// write emits the package: [Content_Types].xml, then every part.
func (p *pkgWriter) write(out io.Writer) error {
	p.types.WriteString(`</Types>`)
	p.types.Close()
	for _, w := range p.open {
		if p.err == nil {
			p.err = fmt.Errorf("part %s was not finished", w.part.name)
		}
	}
	if p.err != nil {
		return p.err
	}
	zw := zip.NewWriter(out)
	order := append([]*pkgPart{p.parts[0]}, p.parts[1:]...) // the content types were begun first
	for _, part := range order {
		fh := &zip.FileHeader{Name: part.name, Method: zip.Deflate, CRC32: part.crc,
			CompressedSize64: uint64(part.n), UncompressedSize64: uint64(part.size)}
		fh.SetModTime(zipTime) //nolint:staticcheck // CreateRaw takes the MS-DOS time, not Modified
		w, err := zw.CreateRaw(fh)
		if err != nil {
			return err
		}
		if err := p.store.copyRange(w, part.off, part.n); err != nil {
			return err
		}
	}
	return zw.Close()
}

// close lets go of the temporary files.
func (p *pkgWriter) close() {
	for _, w := range p.open {
		w.out.close()
	}
	p.open = nil
	p.store.close()
}

// spillAt is how much a spill keeps in memory before it moves to a
// temporary file.
const spillAt = 1 << 20

// spill is bytes written one after another, in memory while they are
// few, then in a temporary file (unlinked at once where the system
// allows, so that nothing is left behind whatever happens).
type spill struct {
	mem  []byte
	file *os.File
	name string // the file's name while it cannot be unlinked yet
	size int64
	err  error
}

func (s *spill) Write(b []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.file == nil && len(s.mem)+len(b) > spillAt {
		f, err := os.CreateTemp("", "mcode-render-*")
		if err != nil {
			s.err = err
			return 0, err
		}
		s.file = f
		if os.Remove(f.Name()) != nil {
			s.name = f.Name()
		}
		if _, err := f.Write(s.mem); err != nil {
			s.err = err
			return 0, err
		}
		s.mem = nil
	}
	if s.file != nil {
		n, err := s.file.Write(b)
		s.size += int64(n)
		if err != nil {
			s.err = err
		}
		return n, err
	}
	s.mem = append(s.mem, b...)
	s.size += int64(len(b))
	return len(b), nil
}

// copyTo appends everything written to dst.
func (s *spill) copyTo(dst *spill) error {
	return s.copyRange(dst, 0, s.size)
}

// copyRange writes n bytes from off to dst.
func (s *spill) copyRange(dst io.Writer, off, n int64) error {
	if s.err != nil {
		return s.err
	}
	if s.file == nil {
		_, err := dst.Write(s.mem[off : off+n])
		return err
	}
	_, err := io.Copy(dst, io.NewSectionReader(s.file, off, n))
	return err
}

func (s *spill) close() {
	if s.file != nil {
		s.file.Close()
		if s.name != "" {
			os.Remove(s.name)
		}
		s.file = nil
	}
	s.mem = nil
}

// relAdder adds relationships and says their ids.
type relAdder interface {
	add(typ, target string) string
	addExternal(typ, target string) string
}

// relsPart is a relationships part written as relationships are added;
// ids are rId1, rId2… in order.
type relsPart struct {
	w *partWriter
	n int
}

func (p *pkgWriter) relsPart(name string) *relsPart {
	r := &relsPart{w: p.create(name, "")}
	r.w.WriteString(xmlHead + `<Relationships xmlns="` + nsRel + `">`)
	return r
}

func (r *relsPart) add(typ, target string) string {
	r.n++
	fmt.Fprintf(r.w, `<Relationship Id="rId%d" Type="%s" Target="%s"/>`, r.n, typ, esc(target))
	return fmt.Sprintf("rId%d", r.n)
}

func (r *relsPart) addExternal(typ, target string) string {
	r.n++
	fmt.Fprintf(r.w, `<Relationship Id="rId%d" Type="%s" Target="%s" TargetMode="External"/>`, r.n, typ, esc(target))
	return fmt.Sprintf("rId%d", r.n)
}

func (r *relsPart) close() error {
	r.w.WriteString(`</Relationships>`)
	return r.w.Close()
}

// rels is a small relationships part built in memory; ids are rId1,
// rId2… in order.
type rels struct {
	list []string
}

func (r *rels) add(typ, target string) string {
	id := fmt.Sprintf("rId%d", len(r.list)+1)
	r.list = append(r.list, fmt.Sprintf(`<Relationship Id="%s" Type="%s" Target="%s"/>`, id, typ, esc(target)))
	return id
}

func (r *rels) addExternal(typ, target string) string {
	id := fmt.Sprintf("rId%d", len(r.list)+1)
	r.list = append(r.list, fmt.Sprintf(`<Relationship Id="%s" Type="%s" Target="%s" TargetMode="External"/>`, id, typ, esc(target)))
	return id
}

func (r *rels) xml() string {
	return `<Relationships xmlns="` + nsRel + `">` + strings.Join(r.list, "") + `</Relationships>`
}

// esc escapes text for XML; characters XML cannot carry become U+FFFD.
func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// emu converts inches to English Metric Units, the unit of DrawingML.
func emu(in float64) int64 { return int64(in * 914400) }
