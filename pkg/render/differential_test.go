package render

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The differential test: our parser (pkg/markdown) and goldmark, the
// parser render used before and keeps as a test-only reference, read
// the same Markdown into the same document model.

// docLines is a document as one line per run or block, for diffs.
func docLines(d *Doc) []string {
	var out []string
	var walk func(prefix string, bs []Block)
	runs := func(prefix string, rs []Run) {
		for _, r := range rs {
			b, _ := json.Marshal(r)
			out = append(out, prefix+"  "+string(b))
		}
	}
	walk = func(prefix string, bs []Block) {
		for _, b := range bs {
			out = append(out, fmt.Sprintf("%skind=%d level=%d ordered=%v start=%d lang=%q code=%q image=%v", prefix, b.Kind, b.Level, b.Ordered, b.Start, b.Lang, b.Code, b.Image))
			runs(prefix, b.Runs)
			for i, it := range b.Items {
				task := "-"
				if it.Task != nil {
					task = fmt.Sprint(*it.Task)
				}
				out = append(out, fmt.Sprintf("%s item %d task=%s", prefix, i, task))
				walk(prefix+"    ", it.Blocks)
			}
			if t := b.Table; t != nil {
				out = append(out, fmt.Sprintf("%s align=%q", prefix, t.Align))
				for i, c := range t.Header {
					out = append(out, fmt.Sprintf("%s header %d", prefix, i))
					runs(prefix+"  ", c)
				}
				for i, row := range t.Rows {
					for k, c := range row {
						out = append(out, fmt.Sprintf("%s cell %d,%d", prefix, i, k))
						runs(prefix+"  ", c)
					}
				}
			}
			walk(prefix+"  > ", b.Children)
		}
	}
	walk("", d.Blocks)
	meta, _ := json.Marshal(d.Meta)
	warn, _ := json.Marshal(d.Warnings)
	return append(out, "meta "+string(meta), "warnings "+string(warn))
}

// firstDiff shows where two documents part, with a little context.
func firstDiff(a, b []string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return ""
	}
	from := max(0, i-3)
	show := func(l []string) string { return strings.Join(l[min(from, len(l)):min(i+4, len(l))], "\n") }
	return fmt.Sprintf("at line %d\nours:\n%s\ngoldmark:\n%s", i, show(a), show(b))
}

func TestDifferentialCorpus(t *testing.T) {
	files, _ := filepath.Glob("testdata/corpus/*.md")
	files = append(files, "testdata/rich.md")
	if len(files) < 8 {
		t.Fatalf("corpus is missing: %v", files)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Each file whole, then each of its blank-line-separated chunks.
		cases := append([]string{string(src)}, strings.Split(string(src), "\n\n")...)
		for i, c := range cases {
			ours, err1 := Parse([]byte(c))
			ref, err2 := parseGoldmark([]byte(c))
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("%s #%d: errors differ: %v vs %v", f, i, err1, err2)
			}
			if err1 != nil {
				continue
			}
			if d := firstDiff(docLines(ours), docLines(ref)); d != "" {
				t.Errorf("%s #%d: %q\n%s", f, i, c, d)
			}
		}
	}
}

// TestDifferentialDeliberate: where we part from goldmark on purpose,
// what we produce, and that goldmark does produce something else (an
// entry goldmark agrees with is stale).
func TestDifferentialDeliberate(t *testing.T) {
	for _, c := range []struct {
		md, why string
		want    func(runs []Run) bool
	}{
		{"`a\nb`", "CommonMark: a line ending in a code span is a space",
			func(r []Run) bool { return len(r) == 1 && r[0].Text == "a b" && r[0].Mono }},
		{"[x](foo\\)bar)", "CommonMark: backslash escapes work in a link destination",
			func(r []Run) bool { return len(r) == 1 && r[0].Link == "foo)bar" }},
		{"[x](a&amp;b)", "CommonMark: entity references work in a link destination",
			func(r []Run) bool { return len(r) == 1 && r[0].Link == "a&b" }},
		{"\\&amp;", "CommonMark: an escaped & starts no entity",
			func(r []Run) bool { return len(r) == 1 && r[0].Text == "&amp;" }},
		{"&#x26;amp;", "CommonMark: an entity's text is not read again as an entity",
			func(r []Run) bool { return len(r) == 1 && r[0].Text == "&amp;" }},
		{"see https://example.com/a_b now", "the whole URL is the link (goldmark cut its text at the _ and linked half)",
			func(r []Run) bool {
				return len(r) == 3 && r[1].Link == "https://example.com/a_b" && r[2].Text == " now"
			}},
		{"foo[https://x.com bar", "GFM: a bare URL is a link after white space or one of *_~( only (goldmark cut its text at the [)",
			func(r []Run) bool { return len(r) == 1 && r[0].Link == "" }},
	} {
		ours, _ := Parse([]byte(c.md))
		ref, _ := parseGoldmark([]byte(c.md))
		if len(ours.Blocks) != 1 || !c.want(ours.Blocks[0].Runs) {
			t.Errorf("%q (%s): ours %+v", c.md, c.why, ours.Blocks)
		}
		if firstDiff(docLines(ours), docLines(ref)) == "" {
			t.Errorf("%q: goldmark agrees now, the entry is stale", c.md)
		}
	}
	// CommonMark: \r\n ends a line (goldmark kept the \r in code), and
	// NUL is U+FFFD.
	for md, want := range map[string]string{"```\r\na\r\nb\r\n```\r\n": "a\nb", "```\na\x00b\n```": "a\uFFFDb"} {
		ours, _ := Parse([]byte(md))
		ref, _ := parseGoldmark([]byte(md))
		if len(ours.Blocks) != 1 || ours.Blocks[0].Code != want {
			t.Errorf("%q: ours %+v", md, ours.Blocks)
		}
		if firstDiff(docLines(ours), docLines(ref)) == "" {
			t.Errorf("%q: goldmark agrees now, the entry is stale", md)
		}
	}
	// GFM: an escaped pipe in a table cell is a pipe, in a code span too.
	md := "| a |\n|---|\n| `c \\| d` |\n"
	ours, _ := Parse([]byte(md))
	ref, _ := parseGoldmark([]byte(md))
	if tb := ours.Blocks[0].Table; tb == nil || PlainText(tb.Rows[0][0]) != "c | d" || !tb.Rows[0][0][0].Mono {
		t.Errorf("%q: ours %+v", md, ours.Blocks)
	}
	if firstDiff(docLines(ours), docLines(ref)) == "" {
		t.Errorf("%q: goldmark agrees now, the entry is stale", md)
	}
}

// withDeliberate applies to goldmark's document the differences
// TestDifferentialDeliberate pins (line endings in code spans, escaped
// pipes in a cell's code, escapes and entities in destinations), so that
// real documents can be compared whole.
func withDeliberate(bs []Block) {
	fix := func(rs []Run, cell bool) {
		for i := range rs {
			if rs[i].Mono {
				rs[i].Text = strings.ReplaceAll(rs[i].Text, "\n", " ")
				if cell {
					rs[i].Text = strings.ReplaceAll(rs[i].Text, "\\|", "|")
				}
			}
			rs[i].Link = html.UnescapeString(strings.ReplaceAll(rs[i].Link, "\\", ""))
		}
	}
	for i := range bs {
		b := &bs[i]
		if b.Image != nil {
			b.Image.Src = html.UnescapeString(b.Image.Src)
		}
		fix(b.Runs, false)
		for _, it := range b.Items {
			withDeliberate(it.Blocks)
		}
		withDeliberate(b.Children)
		if t := b.Table; t != nil {
			for _, c := range t.Header {
				fix(c, true)
			}
			for _, r := range t.Rows {
				for _, c := range r {
					fix(c, true)
				}
			}
		}
	}
}

// TestDifferentialRealDocs: the project's own Markdown (README, tool
// descriptions, fixtures) reads the same but for the pinned differences.
func TestDifferentialRealDocs(t *testing.T) {
	files, _ := filepath.Glob("../../*.md")
	docs, _ := filepath.Glob("../../docs/*.md")
	more, _ := filepath.Glob("../*/*.md")
	files = append(append(files, docs...), more...)
	if len(files) < 10 {
		t.Fatalf("only %d documents: %v", len(files), files)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ours, err1 := Parse(src)
		ref, err2 := parseGoldmark(src)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%s: errors differ: %v vs %v", f, err1, err2)
		}
		if err1 != nil {
			continue // a template's front matter
		}
		withDeliberate(ref.Blocks)
		if d := firstDiff(docLines(ours), docLines(ref)); d != "" {
			t.Errorf("%s: %s", f, d)
		}
	}
}
