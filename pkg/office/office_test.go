package office

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/internal/peer"
)

// The office fixtures are committed (testdata/fixtures), so the tests
// need no peer; they were made by the real peers — python3-docx and
// python3-openpyxl (testdata/fixtures.py), pandoc for PPTX, LibreOffice
// to convert all three to ODF — and TestFixturesAreThePeersOutput, in the
// full loop, makes them again and checks they still read the same
// (go test ./pkg/office -run Fixtures -update rewrites them).
const fixtureDir = "testdata/fixtures"

var update = flag.Bool("update", false, "rewrite testdata/fixtures with the peers' output")

// fixtureNames are the committed fixtures, in the order they are made.
var fixtureNames = []string{"report.docx", "book.xlsx", "deck.pptx", "report.odt", "book.ods", "deck.odp"}

func fixtures(t *testing.T, want ...string) string {
	t.Helper()
	for _, w := range append([]string{"report.docx", "book.xlsx", "deck.pptx"}, want...) {
		if _, err := os.Stat(filepath.Join(fixtureDir, w)); err != nil {
			t.Fatalf("fixture %s: %v (go test ./pkg/office -run Fixtures -update makes them with the peers)", w, err)
		}
	}
	return fixtureDir
}

// makeFixtures makes every fixture in dir with the peers.
func makeFixtures(t *testing.T, dir string) {
	t.Helper()
	soffice := peer.Require(t, "soffice", "libreoffice-writer-nogui")
	py := peer.RequirePython(t, "docx", "python3-docx")
	peer.RequirePython(t, "openpyxl", "python3-openpyxl")
	pandoc := peer.Require(t, "pandoc", "pandoc")
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", name, err, out)
		}
	}
	run(py, filepath.Join(mustAbs("testdata"), "fixtures.py"), dir)
	if err := os.WriteFile(filepath.Join(dir, "deck.md"), []byte(deckMD), 0o644); err != nil {
		t.Fatal(err)
	}
	run(pandoc, "deck.md", "-o", "deck.pptx")
	profile := "-env:UserInstallation=file://" + filepath.Join(dir, "lo-profile")
	for _, conv := range [][2]string{{"odt", "report.docx"}, {"ods", "book.xlsx"}, {"odp", "deck.pptx"}} {
		run(soffice, profile, "--headless", "--convert-to", conv[0], conv[1])
	}
}

// TestFixturesAreThePeersOutput makes the fixtures again with the peers
// and checks that each reads as the committed one does; with -update it
// commits the new ones.
func TestFixturesAreThePeersOutput(t *testing.T) {
	dir := t.TempDir()
	makeFixtures(t, dir)
	for _, name := range fixtureNames {
		fresh := filepath.Join(dir, name)
		if *update {
			data, err := os.ReadFile(fresh)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(fixtureDir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, want := mustConvert(t, fresh), mustConvert(t, filepath.Join(fixtureDir, name))
		if got.Markdown(nil) != want.Markdown(nil) {
			t.Errorf("%s: the peers' output reads differently from the committed fixture now:\n%s\n--- committed:\n%s", name, got.Markdown(nil), want.Markdown(nil))
		}
	}
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		panic(err)
	}
	return a
}

const deckMD = `---
title: Deck
---

# First slide

- alpha
- beta
    - nested

::: notes
speaker says hi
:::

# Second slide

| a | b |
|---|---|
| 1 | 2 |
`

func convertFile(t *testing.T, path string) (*Document, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	format, ok := Detect(path, data[:min(len(data), 8192)])
	if !ok {
		t.Fatalf("%s: not detected as an office document", path)
	}
	return Convert(context.Background(), bytes.NewReader(data), int64(len(data)), format)
}

func mustConvert(t *testing.T, path string) *Document {
	t.Helper()
	doc, err := convertFile(t, path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

const reportMD = `# Quarterly Report

Revenue grew **strongly** in *all* regions.

## Details

- first point
- second point
  - nested point
1. step one
2. step two

| Region | Sales |
| --- | --- |
| North | 120 |
| South \| East | 80 |

Ünïcödé 中文 text stays.
`

func TestDOCX(t *testing.T) {
	dir := fixtures(t)
	doc := mustConvert(t, filepath.Join(dir, "report.docx"))
	if doc.Format != DOCX || doc.Unit != "" || len(doc.Parts) != 1 {
		t.Fatalf("doc %+v", doc)
	}
	if got := doc.Markdown(nil); got != reportMD {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, reportMD)
	}
}

func TestODT(t *testing.T) {
	dir := fixtures(t, "report.odt")
	got := mustConvert(t, filepath.Join(dir, "report.odt")).Markdown(nil)
	// LibreOffice keeps Word's nested bullet as a list of its own, so
	// its level is lost; the rest is the same as from the DOCX.
	want := strings.Replace(reportMD, "  - nested point", "- nested point", 1)
	if got != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, want)
	}
}

const bookMD = `## Sheet: Sales

| Region | Units | Price | Date | Ok | =B2*C2 |
| --- | --- | --- | --- | --- | --- |
| North | 12 | 3.5 | 2024-03-01 | TRUE |  |
| South | 7 | 2.25 | 2024-03-02T13:30:00 | FALSE |  |

## Sheet: Notes

| only cell |
| --- |

## Sheet: Empty

(no cells)
`

func TestXLSX(t *testing.T) {
	dir := fixtures(t)
	doc := mustConvert(t, filepath.Join(dir, "book.xlsx"))
	if doc.Unit != "sheet" || len(doc.Parts) != 3 || doc.Parts[1].Title != "Notes" {
		t.Fatalf("parts %+v", doc.Parts)
	}
	// openpyxl writes no cached result for the formula: the formula shows.
	want := strings.Replace(bookMD, "| Region | Units | Price | Date | Ok | =B2*C2 |\n| --- | --- | --- | --- | --- | --- |\n| North | 12 | 3.5 | 2024-03-01 | TRUE |  |",
		"| Region | Units | Price | Date | Ok |  |\n| --- | --- | --- | --- | --- | --- |\n| North | 12 | 3.5 | 2024-03-01 | TRUE | =B2*C2 |", 1)
	if got := doc.Markdown(nil); got != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, want)
	}
	if got := doc.Markdown([]int{2}); !strings.HasPrefix(got, "## Sheet: Notes\n") || strings.Contains(got, "Sales") {
		t.Errorf("sheet 2 alone: %q", got)
	}
}

func TestODS(t *testing.T) {
	dir := fixtures(t, "book.ods")
	got := mustConvert(t, filepath.Join(dir, "book.ods")).Markdown(nil)
	// LibreOffice computes the formula on conversion: its value is shown.
	for _, want := range []string{"## Sheet: Sales", "| North | 12 | 3.5 | 2024-03-01 | TRUE | 42 |", "| South | 7 | 2.25 | 2024-03-02T13:30:00 | FALSE |", "## Sheet: Notes\n\n| only cell |", "## Sheet: Empty\n\n(no cells)"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

const deckOut = `## Slide 1: Deck

## Slide 2: First slide

- alpha
- beta
  - nested

Notes:

speaker says hi

## Slide 3: Second slide

| a | b |
| --- | --- |
| 1 | 2 |
`

func TestPPTXAndODP(t *testing.T) {
	dir := fixtures(t, "deck.odp")
	for _, name := range []string{"deck.pptx", "deck.odp"} {
		doc := mustConvert(t, filepath.Join(dir, name))
		if doc.Unit != "slide" || len(doc.Parts) != 3 || doc.Parts[1].Title != "First slide" {
			t.Fatalf("%s: parts %+v", name, doc.Parts)
		}
		if got := doc.Markdown(nil); got != deckOut {
			t.Errorf("%s:\n%s\nwant:\n%s", name, got, deckOut)
		}
	}
}

// zipOf builds an archive from name → content.
func zipOf(t testing.TB, files map[string]string, order ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range order {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const contentTypes = `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`

func minimalDOCX(t testing.TB, body string) []byte {
	return zipOf(t, map[string]string{
		"[Content_Types].xml": contentTypes,
		"word/document.xml":   `<?xml version="1.0"?><w:document xmlns:w="w"><w:body>` + body + `</w:body></w:document>`,
	}, "[Content_Types].xml", "word/document.xml")
}

func convertBytes(data []byte, format string) (*Document, error) {
	return Convert(context.Background(), bytes.NewReader(data), int64(len(data)), format)
}

// Damage is corrupt (naming the part), a bomb too large while inflating,
// a password encrypted.
func TestDamageAndLimits(t *testing.T) {
	good := minimalDOCX(t, `<w:p><w:r><w:t>hello</w:t></w:r></w:p>`)
	if doc, err := convertBytes(good, DOCX); err != nil || doc.Markdown(nil) != "hello\n" {
		t.Fatalf("minimal docx: %v %+v", err, doc)
	}
	var pe *PartError
	if _, err := convertBytes(good[:len(good)/2], DOCX); !errors.As(err, &pe) {
		t.Errorf("truncated: %v", err)
	}
	bad := minimalDOCX(t, `<w:p><w:r><w:t>hello</w:r></w:p>`)
	if _, err := convertBytes(bad, DOCX); !errors.As(err, &pe) || pe.Part != "word/document.xml" {
		t.Errorf("malformed XML: %v", err)
	}
	missing := zipOf(t, map[string]string{"[Content_Types].xml": contentTypes}, "[Content_Types].xml")
	if _, err := convertBytes(missing, DOCX); !errors.As(err, &pe) || pe.Part != "word/document.xml" || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing part: %v", err)
	}
	deep := minimalDOCX(t, strings.Repeat("<w:sdt>", MaxXMLDepth+1)+strings.Repeat("</w:sdt>", MaxXMLDepth+1))
	if _, err := convertBytes(deep, DOCX); !errors.As(err, &pe) || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("deep XML: %v", err)
	}

	// A part that inflates past the budget, its header claiming less:
	// refused while inflating.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("[Content_Types].xml")
	w.Write([]byte(contentTypes))
	w, _ = zw.Create("word/document.xml")
	chunk := bytes.Repeat([]byte("<w:p/>"), 1<<20)
	for written := 0; written <= MaxInflatedBytes; written += len(chunk) {
		w.Write(chunk)
	}
	zw.Close()
	var te *TooLargeError
	if _, err := convertBytes(buf.Bytes(), DOCX); !errors.As(err, &te) {
		t.Errorf("zip bomb: %v", err)
	}

	// An OLE container with an EncryptionInfo stream is an encrypted
	// OOXML file; one without is a legacy binary file.
	ole := append(append([]byte{}, cfbMagic...), make([]byte, 600)...)
	enc := append(append([]byte{}, ole...), encInfo16...)
	if format, ok := Detect("secret.docx", enc); !ok || format != DOCX {
		t.Fatalf("detect: %q %v", format, ok)
	}
	if _, err := convertBytes(enc, DOCX); !errors.Is(err, ErrEncrypted) {
		t.Errorf("encrypted: %v", err)
	}
	if _, err := convertBytes(ole, DOCX); !errors.As(err, &pe) || !strings.Contains(err.Error(), "legacy") {
		t.Errorf("legacy: %v", err)
	}
}

// A paragraph of countless tiny runs or a table of countless empty cells
// is refused before it grows far past the part's own size.
func TestRunAndCellBounds(t *testing.T) {
	var te *TooLargeError
	runs := minimalDOCX(t, "<w:p>"+strings.Repeat("<w:r><w:t>a</w:t></w:r>", MaxRunsPerParagraph+1)+"</w:p>")
	if _, err := convertBytes(runs, DOCX); !errors.As(err, &te) || !strings.Contains(err.Error(), "runs") {
		t.Errorf("runs: %v", err)
	}
	cells := minimalDOCX(t, "<w:tbl><w:tr>"+strings.Repeat("<w:tc/>", MaxTableCells+1)+"</w:tr></w:tbl>")
	if _, err := convertBytes(cells, DOCX); !errors.As(err, &te) || !strings.Contains(err.Error(), "cells") {
		t.Errorf("cells: %v", err)
	}
}

// An ODF file whose manifest lists encryption data is encrypted.
func TestODFEncrypted(t *testing.T) {
	data := zipOf(t, map[string]string{
		"mimetype":              "application/vnd.oasis.opendocument.text",
		"META-INF/manifest.xml": `<manifest:manifest xmlns:manifest="m"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry></manifest:manifest>`,
		"content.xml":           "\x00\x01 ciphertext",
	}, "mimetype", "META-INF/manifest.xml", "content.xml")
	if _, err := convertBytes(data, ODT); !errors.Is(err, ErrEncrypted) {
		t.Errorf("got %v", err)
	}
}

// A sheet whose used range would explode (a cell at A1 and one at the
// last column and row) is refused, not rendered.
func TestSparseSheet(t *testing.T) {
	data := zipOf(t, map[string]string{
		"[Content_Types].xml":        `<Types><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`,
		"xl/workbook.xml":            `<workbook xmlns:r="r"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml":   `<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c></row><row r="1048576"><c r="XFD1048576"><v>1</v></c></row></sheetData></worksheet>`,
	}, "[Content_Types].xml", "xl/workbook.xml", "xl/_rels/workbook.xml.rels", "xl/worksheets/sheet1.xml")
	var te *TooLargeError
	if _, err := convertBytes(data, XLSX); !errors.As(err, &te) {
		t.Errorf("got %v", err)
	}
}

func TestSerialDate(t *testing.T) {
	for in, want := range map[float64]string{45352: "2024-03-01", 45353.5625: "2024-03-02T13:30:00", 0.5: "12:00:00", 1: "1900-01-01", 59: "1900-02-28", 61: "1900-03-01"} {
		if got := serialDate(in, false); got != want {
			t.Errorf("serialDate(%v) = %q, want %q", in, got, want)
		}
	}
	if got := serialDate(0, true); got != "1904-01-01" {
		t.Errorf("1904: %q", got)
	}
}

// FuzzConvert: no input makes the converter panic or run away.
func FuzzConvert(f *testing.F) {
	f.Add(minimalDOCX(f, `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>T</w:t></w:r></w:p><w:tbl><w:tr><w:tc><w:p><w:r><w:t>c</w:t></w:r></w:p></w:tc></w:tr></w:tbl>`), uint8(0))
	f.Add([]byte("PK\x03\x04garbage"), uint8(1))
	formats := []string{DOCX, XLSX, PPTX, ODT, ODS, ODP}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		doc, err := convertBytes(data, formats[int(which)%len(formats)])
		if err == nil && doc == nil {
			t.Fatal("nil document without an error")
		}
	})
}

// A part refused because the parts before it used up the shared limit
// says the sizes that add up past it, never "0 MiB".
func TestTooLargePartSaysTheRealSizes(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("xl/worksheets/sheet2.xml")
	w.Write(bytes.Repeat([]byte("<row/>"), 100<<10)) // 600 KiB
	zw.Close()
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	p := &pkg{ctx: context.Background(), zr: zr, files: map[string]*zip.File{}, budget: 300 << 10}
	for _, f := range zr.File {
		p.files[f.Name] = f
	}
	_, err = p.open("xl/worksheets/sheet2.xml")
	var te *TooLargeError
	if !errors.As(err, &te) {
		t.Fatalf("open: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"600.0 KiB inflated", "255.7 MiB the parts before it inflated", "256 MiB"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "(0 MiB") {
		t.Errorf("message %q says 0 MiB", msg)
	}
}
