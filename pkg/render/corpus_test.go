package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the corpus goldens")

// The corpus test: what render's document model makes of a corpus of
// CommonMark and GFM corner cases, pinned in goldens (go test
// ./pkg/render -run Corpus -update rewrites them after a deliberate
// change). The corpus was first pinned by a differential test between a
// parser of our own and goldmark; render reads with goldmark now.

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
	return fmt.Sprintf("at line %d\ngot:\n%s\nwant:\n%s", i, show(a), show(b))
}

// corpusLines is a corpus file read whole, then each of its
// blank-line-separated chunks, as docLines.
func corpusLines(src string) []string {
	var out []string
	cases := append([]string{src}, strings.Split(src, "\n\n")...)
	for i, c := range cases {
		out = append(out, fmt.Sprintf("=== #%d %q", i, c))
		d, err := Parse([]byte(c))
		if err != nil {
			out = append(out, "error "+err.Error())
			continue
		}
		out = append(out, docLines(d)...)
	}
	return out
}

func TestCorpus(t *testing.T) {
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
		got := corpusLines(string(src))
		golden := strings.TrimSuffix(f, ".md") + ".golden"
		if *update {
			if err := os.WriteFile(golden, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test ./pkg/render -run Corpus -update writes it)", err)
		}
		if d := firstDiff(got, strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")); d != "" {
			t.Errorf("%s: %s", f, d)
		}
	}
}

// TestCommonMarkCases: the places where render's first parser and
// goldmark, read naively, parted, each as CommonMark and GFM say.
func TestCommonMarkCases(t *testing.T) {
	for _, c := range []struct {
		md, why string
		want    func(runs []Run) bool
	}{
		{"`a\nb`", "a line ending in a code span is a space",
			func(r []Run) bool { return len(r) == 1 && r[0].Text == "a b" && r[0].Mono }},
		{"[x](foo\\)bar)", "backslash escapes work in a link destination",
			func(r []Run) bool { return len(r) == 1 && r[0].Link == "foo)bar" }},
		{"[x](a&amp;b)", "entity references work in a link destination",
			func(r []Run) bool { return len(r) == 1 && r[0].Link == "a&b" }},
		{"\\&amp;", "an escaped & starts no entity",
			func(r []Run) bool { return len(r) == 1 && r[0].Text == "&amp;" }},
		{"&#x26;amp;", "an entity's text is not read again as an entity",
			func(r []Run) bool { return len(r) == 1 && r[0].Text == "&amp;" }},
		{"see https://example.com/a_b now", "GFM: the whole URL is the link, _ and all",
			func(r []Run) bool {
				return len(r) == 3 && r[1].Link == "https://example.com/a_b" && r[1].Text == "https://example.com/a_b" && r[2].Text == " now"
			}},
		{"foo[https://x.com bar", "GFM: a bare URL is a link after white space or one of *_~( only",
			func(r []Run) bool { return len(r) == 1 && r[0].Link == "" && r[0].Text == "foo[https://x.com bar" }},
	} {
		d, err := Parse([]byte(c.md))
		if err != nil || len(d.Blocks) != 1 || !c.want(d.Blocks[0].Runs) {
			t.Errorf("%q (%s): %v %+v", c.md, c.why, err, d.Blocks)
		}
	}
	// \r\n ends a line (no \r is left in code), and NUL is U+FFFD.
	for md, want := range map[string]string{"```\r\na\r\nb\r\n```\r\n": "a\nb", "```\na\x00b\n```": "a\uFFFDb", "```\ra\rb\r```": "a\nb"} {
		d, _ := Parse([]byte(md))
		if len(d.Blocks) != 1 || d.Blocks[0].Code != want {
			t.Errorf("%q: %+v", md, d.Blocks)
		}
	}
	// GFM: an escaped pipe in a table cell is a pipe, in a code span too.
	md := "| a |\n|---|\n| `c \\| d` |\n"
	d, _ := Parse([]byte(md))
	if tb := d.Blocks[0].Table; tb == nil || PlainText(tb.Rows[0][0]) != "c | d" || !tb.Rows[0][0][0].Mono {
		t.Errorf("%q: %+v", md, d.Blocks)
	}
}

// TestGoldmarkDepartures pins where goldmark's GFM extensions read
// differently from GitHub's spec, so that an upgrade that changes them
// shows here (render takes goldmark's reading; the corpus goldens hold
// the same three).
func TestGoldmarkDepartures(t *testing.T) {
	d, _ := Parse([]byte("~~mis~ match\n"))
	if r := d.Blocks[0].Runs; len(r) != 3 || r[1].Text != "mis" || !r[1].Strike {
		t.Errorf("tildes of unequal runs: GitHub strikes nothing, goldmark 'mis'; got %+v", r)
	}
	d, _ = Parse([]byte("- [x]no space\n"))
	if it := d.Blocks[0].Items[0]; it.Task == nil || PlainText(it.Blocks[0].Runs) != "no space" {
		t.Errorf("a box without a space after it: GitHub reads text, goldmark a task; got %+v", it)
	}
	d, _ = Parse([]byte("| a | b |\n|---|---|\n| x | end\\|\n"))
	if c := d.Blocks[0].Table.Rows[0][1]; PlainText(c) != "end\\" {
		t.Errorf("an escaped pipe ending a row: GitHub reads 'end|', goldmark 'end\\'; got %q", PlainText(c))
	}
}

// TestParseEndsAtTheLimit: a parse that outlives its caller's limit is
// abandoned (goldmark takes no context).
func TestParseEndsAtTheLimit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := bytes.Repeat([]byte("[a "), 1<<16)
	d, err := parseWithin(ctx, src)
	if d != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("parseWithin after the limit: %v, %v", d, err)
	}
	d, err = parseWithin(context.Background(), []byte("# T\n"))
	if err != nil || len(d.Blocks) != 1 {
		t.Errorf("parseWithin: %+v, %v", d, err)
	}
}
