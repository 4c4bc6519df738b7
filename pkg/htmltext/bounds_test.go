package htmltext

import (
	"runtime"
	"strings"
	"testing"
)

func nested(open, close, text string, n int) string {
	return strings.Repeat(open+text, n) + strings.Repeat(close, n)
}

func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// TestManyElements: a page of 300,000 elements is read token by token,
// not built into a tree of hundreds of MiB (790 MiB and 4.5 s before).
func TestManyElements(t *testing.T) {
	src := "<html><body>" + strings.Repeat("<p><b>x</b></p>", 300_000) + "</body></html>"
	var p *Page
	if n := allocated(func() { p = convert(t, src, nil, FormatMarkdown) }); n > 100<<20 {
		t.Errorf("allocated %d MiB", n>>20)
	}
	if strings.Count(p.Body, "x") != 300_000 || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "more than 250000 elements") {
		t.Errorf("notes %v, %d bytes", p.Notes, len(p.Body))
	}
}

// TestDeepDivs: stacks of 500 nested elements are read token by token
// (the conversion walks each level again: 600 KB took 2.6 s).
func TestDeepDivs(t *testing.T) {
	src := "<html><body>" + strings.Repeat(nested("<div>", "</div>", "t", 500), 100) + "</body></html>"
	var p *Page
	if n := allocated(func() { p = convert(t, src, nil, FormatMarkdown) }); n > 60<<20 {
		t.Errorf("allocated %d MiB", n>>20)
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "nest too deeply") {
		t.Errorf("notes %v", p.Notes)
	}
}

// TestDeepStructureFlattened: lists, quotes and tables nested past
// MaxNesting are plain blocks: no line is indented or quoted past that
// depth (500 nested quotes, 1.3 MB, made 50 MB of Markdown in minutes).
func TestDeepStructureFlattened(t *testing.T) {
	for _, src := range []string{
		nested("<ul><li>", "</li></ul>", "item", 40),
		nested("<ol><li>", "</li></ol>", "item", 40),
		nested("<blockquote><p>", "</p></blockquote>", "quote", 40),
		nested("<ul><li><blockquote>", "</blockquote></li></ul>", "mixed", 30),
		nested("<table><tr><td><ul><li>", "</li></ul></td></tr></table>", "cell", 20),
	} {
		p := convert(t, "<html><body>"+src+"</body></html>", nil, FormatMarkdown)
		for _, line := range strings.Split(p.Body, "\n") {
			lead := len(line) - len(strings.TrimLeft(line, " >-0123456789."))
			if lead > 4*MaxNesting+4 {
				t.Errorf("%.40q: a line led by %d characters: %q", src, lead, line)
				break
			}
		}
		word := strings.Trim(src[strings.LastIndexByte(src[:strings.Index(src, "</")], '>')+1:strings.Index(src, "</")], " ")
		if c := strings.Count(p.Body, word); c < 20 {
			t.Errorf("%.40q: %d of its texts kept: %q", src, c, p.Body)
		}
	}
	big := "<html><body>" + strings.Repeat(nested("<blockquote>", "</blockquote>", "t", 120), 100) + "</body></html>"
	if p := convert(t, big, nil, FormatMarkdown); len(p.Body) > 2*len(big) {
		t.Errorf("%d bytes of Markdown from %d of HTML", len(p.Body), len(big))
	}
}
