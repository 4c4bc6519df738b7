package render

import (
	"strings"
	"testing"
)

func TestGFMTables(t *testing.T) {
	doc, err := Parse([]byte("Intro line\n| a | b \\| c | `x` |\n|:--|:-:|--:|\n| 1 | 2 |\n| 3 | 4 | 5 | 6 |\n\nafter\n\nnot a table\n---\n\n| one |\n| --- |\n"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []BlockKind
	for _, b := range doc.Blocks {
		kinds = append(kinds, b.Kind)
	}
	want := []BlockKind{Para, Table, Para, Heading, Table}
	if len(kinds) != len(want) {
		t.Fatalf("blocks %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("blocks %v, want %v", kinds, want)
		}
	}
	if got := PlainText(doc.Blocks[0].Runs); got != "Intro line" {
		t.Errorf("paragraph before the table: %q", got)
	}
	tb := doc.Blocks[1].Table
	cell := func(row [][]Run, i int) string { return PlainText(row[i]) }
	if strings.Join(tb.Align, ",") != "left,center,right" || cell(tb.Header, 1) != "b | c" || !tb.Header[2][0].Mono {
		t.Errorf("header %v aligned %v", tb.Header, tb.Align)
	}
	if len(tb.Rows) != 2 || len(tb.Rows[0]) != 3 || cell(tb.Rows[0], 2) != "" || len(tb.Rows[1]) != 3 || cell(tb.Rows[1], 2) != "5" {
		t.Errorf("rows are not padded and cut to the header's width: %v", tb.Rows)
	}
	if doc.Blocks[4].Table == nil || cell(doc.Blocks[4].Table.Header, 0) != "one" {
		t.Errorf("one-column table: %+v", doc.Blocks[4])
	}
}

func TestGFMStrikeAndTasks(t *testing.T) {
	doc, err := Parse([]byte("~~gone~~ and ~one~ but ~~~not~~~ a~b\n\n- [x] done\n- [ ] open\n- not [x] a task\n- [y] neither\n\n[x] outside a list\n"))
	if err != nil {
		t.Fatal(err)
	}
	var struck []string
	for _, r := range doc.Blocks[0].Runs {
		if r.Strike {
			struck = append(struck, r.Text)
		}
	}
	if strings.Join(struck, "|") != "gone|one" {
		t.Errorf("struck %q in %+v", struck, doc.Blocks[0].Runs)
	}
	items := doc.Blocks[1].Items
	if items[0].Task == nil || !*items[0].Task || items[1].Task == nil || *items[1].Task || items[2].Task != nil || items[3].Task != nil {
		t.Errorf("task boxes wrong: %+v", items)
	}
	if PlainText(items[2].Blocks[0].Runs) != "not [x] a task" || PlainText(items[3].Blocks[0].Runs) != "[y] neither" {
		t.Errorf("texts: %q %q", PlainText(items[2].Blocks[0].Runs), PlainText(items[3].Blocks[0].Runs))
	}
	if PlainText(doc.Blocks[2].Runs) != "[x] outside a list" {
		t.Errorf("outside a list: %q", PlainText(doc.Blocks[2].Runs))
	}
}
