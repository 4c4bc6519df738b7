package htmlmd

import (
	"strings"
	"testing"
)

func TestConvert(t *testing.T) {
	cases := []struct{ in, want string }{
		// HTML5: a reference to NUL is U+FFFD; an unknown name stays.
		{`<p>a &amp; b &#233; &eacute; &bogus; &#0;</p>`, "a & b é é &bogus; \uFFFD\n"},
		{`<h2>T</h2><p>x<br>y</p>`, "## T\n\nx  \ny\n"},
		{`<ol><li>one</li><li>two</li></ol><p>after</p>`, "1. one\n2. two\n\nafter\n"},
		{`<blockquote><p>quoted</p></blockquote>`, "> quoted\n"},
		{`<script>if (a < b) { x("</p>") }</script><p>kept</p>`, "kept\n"},
		{`<article><p>in</p></article><p>out</p>`, "in\n"},
		// Read as a browser reads it: an unclosed element ends with its
		// parent, a new <li> or <p> closes the one before, misnested
		// tags are repaired.
		{`<p>un<b>closed`, "un**closed**\n"},
		{`<ul><li>a<li>b</ul>`, "- a\n- b\n"},
		{`<p>one<p>two`, "one\n\ntwo\n"},
		{`<p><b>bold <i>both</b></i> after</p>`, "**bold *both*** after\n"},
		{`<table><tr><td>a<td>b<tr><td>1<td>2</table>`, "| a | b |\n| --- | --- |\n| 1 | 2 |\n"},
		{`<a href="javascript:x()">js</a> <a href=/p>rel</a>`, "js [rel](/p)\n"},
		{`<img alt="a cat" src="cat.png"><img src="data:x">`, "![a cat](cat.png)\n"},
	}
	for _, c := range cases {
		if _, got := Convert(c.in); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	if title, _ := Convert("<title> The &amp; title </title><p>x</p>"); title != "The & title" {
		t.Errorf("title %q", title)
	}
}

// Deep nesting stops at MaxDepth instead of growing without bound.
func TestDepth(t *testing.T) {
	in := strings.Repeat("<div>", MaxDepth*4) + "deep" + strings.Repeat("</div>", MaxDepth*4)
	if _, got := Convert(in); strings.Contains(got, "deep") {
		t.Errorf("text past the depth limit was kept: %q", got)
	}
}

// FuzzConvert: any input converts without panicking, and the
// result is valid UTF-8 when the input is.
func FuzzConvert(f *testing.F) {
	f.Add(`<html><body><main><h1>x</h1><table><tr><td>a</td></tr></table></main></body></html>`)
	f.Add(`<p a="1" b='2' c=3 d>&#x1F600;&amp</p><!-- c --><!x><?y?>`)
	f.Fuzz(func(t *testing.T, in string) {
		Convert(in)
	})
}
