package extract

import (
	"strings"
	"testing"
)

func TestHTMLToMarkdown(t *testing.T) {
	cases := []struct{ in, want string }{
		{`<p>a &amp; b &#233; &eacute; &bogus; &#0;</p>`, "a & b é é &bogus; &#0;\n"},
		{`<h2>T</h2><p>x<br>y</p>`, "## T\n\nx  \ny\n"},
		{`<ol><li>one</li><li>two</li></ol><p>after</p>`, "1. one\n2. two\n\nafter\n"},
		{`<blockquote><p>quoted</p></blockquote>`, "> quoted\n"},
		{`<script>if (a < b) { x("</p>") }</script><p>kept</p>`, "kept\n"},
		{`<article><p>in</p></article><p>out</p>`, "in\n"},
		{`<p>un<b>closed`, "un**closed\n"},
		{`<a href="javascript:x()">js</a> <a href=/p>rel</a>`, "js [rel](/p)\n"},
		{`<img alt="a cat" src="cat.png"><img src="data:x">`, "![a cat](cat.png)\n"},
	}
	for _, c := range cases {
		if _, got := htmlToMarkdown(c.in); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	if title, _ := htmlToMarkdown("<title> The &amp; title </title><p>x</p>"); title != "The & title" {
		t.Errorf("title %q", title)
	}
}

// Deep nesting stops at MaxHTMLDepth instead of growing without bound.
func TestHTMLDepth(t *testing.T) {
	in := strings.Repeat("<div>", MaxHTMLDepth*4) + "deep" + strings.Repeat("</div>", MaxHTMLDepth*4)
	if _, got := htmlToMarkdown(in); strings.Contains(got, "deep") {
		t.Errorf("text past the depth limit was kept: %q", got)
	}
}

func TestPlainText(t *testing.T) {
	md := "# Title\n\nSome **bold** and *it* and `code` and [a link](http://x).\n\n| a | b \\| c |\n| --- | --- |\n| 1 | 2 |\n\n```go\nx := 1\n```\n"
	want := "Title\n\nSome bold and it and code and a link.\n\na\tb | c\n1\t2\n\nx := 1\n"
	if got := plainText(md); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// FuzzHTMLToMarkdown: any input converts without panicking, and the
// result is valid UTF-8 when the input is.
func FuzzHTMLToMarkdown(f *testing.F) {
	f.Add(`<html><body><main><h1>x</h1><table><tr><td>a</td></tr></table></main></body></html>`)
	f.Add(`<p a="1" b='2' c=3 d>&#x1F600;&amp</p><!-- c --><!x><?y?>`)
	f.Fuzz(func(t *testing.T, in string) {
		htmlToMarkdown(in)
	})
}
