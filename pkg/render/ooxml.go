package render

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
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

// pkgWriter collects the parts of a package and writes them in order.
type pkgWriter struct {
	parts     []part
	overrides map[string]string // part name → content type
}

type part struct {
	name string
	data []byte
}

func newPkg() *pkgWriter { return &pkgWriter{overrides: map[string]string{}} }

// add stores a part; contentType "" means the default for its extension.
func (w *pkgWriter) add(name, contentType string, data []byte) {
	w.parts = append(w.parts, part{name, data})
	if contentType != "" {
		w.overrides["/"+name] = contentType
	}
}

func (w *pkgWriter) addXML(name, contentType, body string) {
	w.add(name, contentType, []byte(xmlHead+body))
}

// addProps writes the core and app properties, without dates (they would
// make each render differ).
func (w *pkgWriter) addProps(title, app string) {
	w.addXML("docProps/core.xml", "application/vnd.openxmlformats-package.core-properties+xml",
		`<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`+
			`<dc:title>`+esc(title)+`</dc:title><dc:creator>mcode</dc:creator></cp:coreProperties>`)
	w.addXML("docProps/app.xml", "application/vnd.openxmlformats-officedocument.extended-properties+xml",
		`<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>`+esc(app)+`</Application></Properties>`)
}

// rootRels writes _rels/.rels pointing at the main part.
func (w *pkgWriter) rootRels(main string) {
	var r rels
	r.add(relDoc, main)
	r.add(relCore, "docProps/core.xml")
	r.add(relApp, "docProps/app.xml")
	w.addXML("_rels/.rels", "", r.xml())
}

// write emits [Content_Types].xml and every part, deflated.
func (w *pkgWriter) write(out io.Writer) error {
	zw := zip.NewWriter(out)
	var ct strings.Builder
	ct.WriteString(xmlHead + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`)
	for _, d := range [][2]string{{"rels", "application/vnd.openxmlformats-package.relationships+xml"}, {"xml", "application/xml"},
		{"png", "image/png"}, {"jpeg", "image/jpeg"}, {"gif", "image/gif"}, {"bmp", "image/bmp"}} {
		fmt.Fprintf(&ct, `<Default Extension="%s" ContentType="%s"/>`, d[0], d[1])
	}
	names := make([]string, 0, len(w.overrides))
	for n := range w.overrides {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&ct, `<Override PartName="%s" ContentType="%s"/>`, n, w.overrides[n])
	}
	ct.WriteString(`</Types>`)
	all := append([]part{{"[Content_Types].xml", []byte(ct.String())}}, w.parts...)
	for _, p := range all {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: p.name, Method: zip.Deflate, Modified: zipTime})
		if err != nil {
			return err
		}
		if _, err := f.Write(p.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// rels is a relationships part being built; ids are rId1, rId2… in order.
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
