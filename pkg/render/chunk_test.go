package render

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseChunked parses src cut wherever the chunker may (chunks of one
// byte gathered), and whole.
func parseChunked(t testing.TB, src string) (cut, whole []string, chunks int) {
	t.Helper()
	saved := chunkBytes
	defer func() { chunkBytes = saved }()
	chunkBytes = 1 << 62
	d, err := Parse([]byte(src))
	if err != nil {
		return nil, nil, 0
	}
	whole = docLines(d)
	chunkBytes = 1
	s, err := openStream(t.Context(), strings.NewReader(src), int64(len(src)))
	if err != nil {
		t.Fatalf("chunked: %v", err)
	}
	d, err = s.collect()
	if err != nil {
		t.Fatalf("chunked: %v", err)
	}
	return docLines(d), whole, len(s.chunks)
}

// chunkCases are documents that put the chunker's rules to the test:
// what may and may not be cut.
var chunkCases = []string{
	"a\n\nb\n\nc\n",
	"- a\n- b\n- c\n\n1. x\n2. y\n3) z\n\n* p\n\n* q\n+ r\n",
	"| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |\n|5|\nsix\n| 7 | 8 |\n\nafter\n",
	"```\na\n\nb\n\n```\n\nc\n\n~~~~\n```\n\nd\n~~~~\n\ne\n",
	"<div>\n\n```\n\n</div>\n\nx\n\n<!--\n\n# not a heading\n\n-->\n\ny\n",
	"<script>\n\n# no\n\n</script>\n\n<pre>\n\nz\n</pre>\n\n<?php\n\nq\n?>\n\n<!DOCTYPE\n\nh\n>\n\n<![CDATA[\n\nc\n]]>\n\nend\n",
	"- a\nlazy\n- b\n\n> q\nlazy\n> r\n\n- x\n```\ncode\n\nmore\n```\n\nz\n",
	"- a\n\n  para in a\n\n      code in a\n\n- b\n\nout\n",
	"text\n2. not a list\n3. nor this\n\n- \ntext\n-\n\nh\n===\n\nh2\n---\n\n- - -\n\n* * *\n\n",
	"   ```\n  indented fence\n\n   ```\n\n    indented code\n\n    more\nx\n\n\tcode\n\ny\n",
	"- a\n<span>lazy html</span>\n```\nfence\n\n```\n\ntail\n",
	"> ```\n> code\n\n```\nreal fence\n\nstill\n```\n\nafter\n",
	"para\n| a | b |\n|---|---|\n| 1 | 2 |\n\n[x]: /url\n\nuse [x] and [y]\n\n[y]: /why \"title\"\n",
	"1. one\n1. two\n1. three\n\n- [ ] task\n- [x] done\n",
	"a\r\n\r\nb\r\rc\r\n\r\n```\r\n\r\ncode\r\n```\r\n\r\nd\n",
	"- a\n\n\n- b\n\n\n\nc\n",
	"<table>\n<tr>\n\n| a |\n|---|\n| 1 |\n\n</table>\n\nx\n",
	"- a\n 2. b\n\n3. c\n4. d\n",
	"* a\n\n  * b\n\n* c\n\n```\n* d\n\n* e\n```\n",
	// A paragraph's first delimiter row that makes no table: goldmark
	// looks for no other.
	"0|00\n|-\n-|\n| x |\n| y |\n",
	// Link reference definitions take a paragraph's first lines (a title
	// may run over several); the rest may be a table, or a heading's
	// underline may be text.
	"[0]:0 \"\n-|\n|\"\n| z |\n",
	"[foo]: /url\n===\n2. x\n3. y\n4. z\n",
	"[a]: /u\n| a |\n|---|\n| 1 |\n| 2 |\n",
	"| a |\n|---|\n| 1 |\n| 2 |\n---\n\n| a |\n|---|\n| 1 |\n| 2 |\n===\n",
	// After an empty item goldmark closes the list at an indented item of
	// another kind (CommonMark would nest it).
	"*\n  0. \n\n0.\n0.\n",
	"-\n  - b\n- c\n\n-\n\n  d\n- e\n",
	"*\n```\n\n0\n\n1\n",
	// A setext underline under a table that follows lines of text.
	"00\n0\n-|\n|\n| 2 |\n=\n",
	// An empty item nested in an item takes items at the margin.
	"* 0)\n\n  0.\n\n0.\n\n0.\n0.\n",
	// An HTML block that ends on its first line.
	"<!A0>\n```00>\n\n0\n\n1\n",
	// An item that opens a list on its first line.
	"- *\n\n  0\n-\n- a\n",
	// A setext underline under a table that starts its paragraph: the
	// rows are read anew, so the cuts between them are taken back.
	"0\n-|\n=\n0\n-|\n|\n=",
	"| a |\n|---|\n| 1 |\n| 2 |\n=\n\n| b |\n|---|\n| 3 |\n| 4 |\n\nc\n",
	// goldmark's table takes all of the paragraph's lines, and the
	// underline is read as if alone: here an empty list item.
	"|\n-|\n-\n    d\n| a |\n\n-\n- a\n2. b\n",
	"-->\n\n\n| a |\n|---|\n|---|\n-->\n=\n1.\n2. b\n    d\n    d\n",
	"  c\n|---|\n[a]: /u\n[a]: /u\n[a]\n[a]: /u\n[a]: /u\n===\n2. b\n2. b\n",
}

// chunkLines are the lines TestChunkingMixedDocs draws documents from:
// block starts of every kind, at the margin and indented, their ends,
// and text (the fuzzer seldom puts enough of them together).
var chunkLines = []string{
	"", "", "", "a", "b c", "- a", "- ", "-", "* b", "+ c", "1. one", "2. two", "1) p", "0.", "10. ten", "2) x",
	"  - n", "   * m", "  b", "   c", "    code", "\tcode", "      deep", "> q", ">", "> - qi", "  > q2", "- # h", "- > q",
	"```", "~~~", "  ```", "   ```", "``` go", "````", "    ```", "> ```", "- ```",
	"<div>", "</div>", "<!--", "-->", "<script>", "</script>", "<a>", "<x-y>", "<?php", "?>", "<pre>", "</pre>",
	"<![CDATA[", "]]>", "<!X", ">", "<table>", "<p>", "<!DOCTYPE x>", "  <div>",
	"# h", "## h2", "===", "---", "=", "***", "- - -", "___", "* * *", "  ---", "   ===",
	"| a | b |", "|---|---|", "| 1 | 2 |", "|", "-|", "|-", "a|b", ":-:|", "| x |", "| 1 | 2 |\r",
	"[a]: /u", "[b]: /v \"t", "t\"", "[a]", "use [a] [b]", "[a\nb]: /w", "  [c]: /c",
	"- [ ] task", "- [x] done", "-\ta", "\t- t", "1.\tx", "a\rb", "c\r", "*em", "em*", "`co", "de`",
}

// chunkLinesDense are fewer lines, so that the few that make a case
// meet more often.
var chunkLinesDense = []string{"", "", "a", "- a", "-", "1.", "2. b", "  c", "    d", "> q", "```", "  ```", "<div>", "<!--", "-->", "<a>", "===", "---", "=", "| a |", "|---|", "|", "-|", "[a]: /u", "[a]", "\"t"}

// TestChunkingMixedDocs: documents of random lines read the same cut as
// whole.
func TestChunkingMixedDocs(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 3000
	}
	r := rand.New(rand.NewSource(1))
	fails := 0
	for i := 0; i < n && fails < 5; i++ {
		pool := chunkLines
		if i%2 == 0 {
			pool = chunkLinesDense
		}
		var b strings.Builder
		for range 2 + r.Intn(14) {
			b.WriteString(pool[r.Intn(len(pool))])
			b.WriteByte('\n')
		}
		src := b.String()
		cut, whole, chunks := parseChunked(t, src)
		if d := firstDiff(cut, whole); d != "" {
			fails++
			t.Errorf("%q cut in %d chunks reads differently: %s", src, chunks, d)
		}
	}
}

// TestChunkedParseMatchesWhole: a document cut wherever the chunker may
// gives the blocks it gives whole.
func TestChunkedParseMatchesWhole(t *testing.T) {
	cases := append([]string(nil), chunkCases...)
	files, _ := filepath.Glob("testdata/corpus/*.md")
	files = append(files, "testdata/rich.md")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, string(b))
	}
	cases = append(cases, deepDoc())
	for name, gen := range hostile {
		if name != "escapes" {
			cases = append(cases, gen(1<<10))
		}
	}
	cutSome := 0
	for i, src := range cases {
		cut, whole, n := parseChunked(t, src)
		if n > 1 {
			cutSome++
		}
		if d := firstDiff(cut, whole); d != "" {
			t.Errorf("case %d (%q…) cut in %d chunks reads differently: %s", i, clip(src, 60), n, d)
		}
	}
	if cutSome < len(chunkCases)/2 {
		t.Errorf("only %d of %d documents were cut at all", cutSome, len(cases))
	}
}

// TestChunkerCuts: where the chunker cuts a document and how each chunk
// begins ("+" going on with the chunk before, [rows] parsed before it).
func TestChunkerCuts(t *testing.T) {
	saved := chunkBytes
	defer func() { chunkBytes = saved }()
	chunkBytes = 1
	for src, want := range map[string]string{
		"a\n\nb\n":                             "a⏎⏎|b⏎",
		"- a\n- b\n":                           "- a⏎|+- b⏎",
		"| a |\n|---|\n| 1 |\n| 2 |\n":         "| a |⏎|---|⏎|+[| a |⏎|---|⏎]| 1 |⏎|+[| a |⏎|---|⏎]| 2 |⏎",
		"```\n\nx\n```\n\ny\n":                 "```⏎⏎x⏎```⏎⏎|y⏎",
		"- a\nlazy\n- b\n\nc\n\nd\n":           "- a⏎lazy⏎- b⏎⏎|c⏎⏎|d⏎",
		"- a\n```\n\nb\n\n```\n\nc\n":          "- a⏎```⏎⏎b⏎⏎```⏎⏎|c⏎",
		"> a\n<x-y>\n```\n\nz\n```\n\nq\n":     "> a⏎<x-y>⏎```⏎⏎z⏎```⏎⏎q⏎",
		"<!--\n\nx\n-->\n\ny\n":                "<!--⏎⏎x⏎-->⏎⏎|y⏎",
		"text\n2. no\n\n3. list\n4. more\n":    "text⏎2. no⏎⏎|3. list⏎|+4. more⏎",
		"| a |\n|---|\n| 1 |\n| 2 |\n=\n\nb\n": "| a |⏎|---|⏎| 1 |⏎| 2 |⏎=⏎⏎b⏎", // an underline under a table: no cuts
	} {
		s, err := openStream(t.Context(), strings.NewReader(src), int64(len(src)))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ch := range s.chunks {
			text := src[ch.start:ch.end]
			if ch.prefix != nil {
				text = "[" + string(ch.prefix) + "]" + text
			}
			if ch.cont {
				text = "+" + text
			}
			got = append(got, strings.ReplaceAll(text, "\n", "⏎"))
		}
		if g := strings.Join(got, "|"); g != want {
			t.Errorf("%q is cut as %q, want %q", src, g, want)
		}
	}
}

// FuzzChunking: any document reads the same cut as whole.
func FuzzChunking(f *testing.F) {
	for _, c := range chunkCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		cut, whole, n := parseChunked(t, src)
		if d := firstDiff(cut, whole); d != "" {
			t.Fatalf("cut in %d chunks reads differently: %s", n, d)
		}
	})
}
