package office

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// sharedBlowup is a workbook whose 10,000 cells all show one shared
// string of 1 MB: 10 GB of cells from a file of kilobytes.
func sharedBlowup(t testing.TB) []byte {
	var rows strings.Builder
	for r := 1; r <= 1000; r++ {
		rows.WriteString(`<row r="` + itoa(r) + `">`)
		for c := 0; c < 10; c++ {
			rows.WriteString(`<c r="` + string(rune('A'+c)) + itoa(r) + `" t="s"><v>0</v></c>`)
		}
		rows.WriteString(`</row>`)
	}
	return zipOf(t, map[string]string{
		"[Content_Types].xml":        `<Types><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`,
		"xl/workbook.xml":            `<workbook xmlns:r="r"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Target="sharedStrings.xml"/></Relationships>`,
		"xl/sharedStrings.xml":       `<sst><si><t>` + strings.Repeat("x", 1<<20) + `</t></si></sst>`,
		"xl/worksheets/sheet1.xml":   `<worksheet><sheetData>` + rows.String() + `</sheetData></worksheet>`,
	}, "[Content_Types].xml", "xl/workbook.xml", "xl/_rels/workbook.xml.rels", "xl/sharedStrings.xml", "xl/worksheets/sheet1.xml")
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestSharedStringBlowup: the cells' text is bounded as it is read, not
// after a table of gigabytes was built; the document says it was cut.
func TestSharedStringBlowup(t *testing.T) {
	data := sharedBlowup(t)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	doc, err := convertBytes(data, XLSX)
	runtime.ReadMemStats(&m1)
	if n := m1.TotalAlloc - m0.TotalAlloc; n > 1<<30 {
		t.Errorf("allocated %d MiB", n>>20)
	}
	if err != nil {
		t.Fatalf("%d bytes of xlsx: %v", len(data), err)
	}
	md := doc.Markdown(nil)
	if len(md) > MaxMarkdownBytes || !doc.Truncated || len(doc.Notes) == 0 || !strings.Contains(md, strings.Repeat("x", 1000)) {
		t.Errorf("%d bytes of Markdown, truncated %v, notes %v", len(md), doc.Truncated, doc.Notes)
	}
}
