package htmltext

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func convert(t *testing.T, src string, base *url.URL, format string) *Page {
	t.Helper()
	p, err := Convert(context.Background(), src, base, format)
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	return p
}

// Markdown of small pages: parsed as a browser parses them (entities,
// unclosed and misnested tags), scripts dropped, links as written when
// there is no base.
func TestMarkdown(t *testing.T) {
	cases := []struct{ in, want string }{
		// HTML5: a reference to NUL is U+FFFD; an unknown name stays.
		{`<p>a &amp; b &#233; &eacute; &bogus; &#0;</p>`, "a & b é é &bogus; \uFFFD\n"},
		{`<h2>T</h2><p>x<br>y</p>`, "## T\n\nx  \ny\n"},
		{`<ol><li>one</li><li>two</li></ol><p>after</p>`, "1. one\n2. two\n\nafter\n"},
		{`<blockquote><p>quoted</p></blockquote>`, "> quoted\n"},
		{`<script>if (a < b) { x("</p>") }</script><p>kept</p>`, "kept\n"},
		{`<p>un<b>closed`, "un**closed**\n"},
		{`<ul><li>a<li>b</ul>`, "- a\n- b\n"},
		{`<p>one<p>two`, "one\n\ntwo\n"},
		{`<p><b>bold <i>both</b></i> after</p>`, "**bold *both*** after\n"},
		// A table without a header row takes its first row as one.
		{`<table><tr><td>a<td>b<tr><td>1<td>2</table>`, "| a | b |\n|---|---|\n| 1 | 2 |\n"},
		// A cell's pipe is escaped, its line break kept.
		{`<table><tr><th>a|b<th>c<tr><td>1<td>2<br>3</table>`, "| a\\|b | c |\n|---|---|\n| 1 | 2  <br />3 |\n"},
		{`<a href="javascript:x()">js</a> <a href=/p>rel</a>`, "js [rel](/p)\n"},
		// Markdown's own characters in text are escaped, not in code.
		{`<p>2*3*4 a_b</p><pre><code>2*3*4 a_b</code></pre>`, "2\\*3\\*4 a\\_b\n\n```\n2*3*4 a_b\n```\n"},
		// A nested list has no line of spaces before it; a code block
		// keeps its own.
		{`<ul><li>a<ul><li>b</ul></ul>`, "- a\n\n  - b\n"},
		{"<pre><code>a\n  \nb</code></pre>", "```\na\n  \nb\n```\n"},
	}
	for _, c := range cases {
		if got := convert(t, c.in, nil, FormatMarkdown).Body; got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// The page's markup narrows the text: <main>, else the only <article>;
// <nav> is never text. Readability alone keeps a small page's menu.
func TestMainText(t *testing.T) {
	cases := []struct{ in, want string }{
		{`<nav><a href="/">Home</a></nav><main><p>body text</p></main><footer>foot</footer>`, "body text\n"},
		{`<header>Site</header><article><p>in</p></article><p>out</p>`, "in\n"},
		{`<nav><a href="/">Home</a> <a href="/b">Blog</a></nav><p>text</p>`, "text\n"},
		// Two articles: neither is the main text alone.
		{`<article><p>one</p></article><article><p>two</p></article>`, "one\n\ntwo\n"},
	}
	for _, c := range cases {
		if got := convert(t, c.in, nil, FormatMarkdown).Body; got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// A heading whose id or class, or its text's, reads as boilerplate
// ("Comments", "sidebar", "Community") stays: readability would remove the heading alone and keep
// its section's text.
func TestHeadingsNamedLikeBoilerplate(t *testing.T) {
	para := "<p>" + strings.Repeat("Words that make this section long enough to score. ", 6) + "</p>"
	src := `<h2 id="Lexical">Lexical elements</h2><h3 id="Comments">Comments</h3>` + para +
		`<h3 class="sidebar-note">Related work</h3>` + para +
		`<h2><span class="headline" id="Community">Community</span></h2>` + para
	got := convert(t, src, nil, FormatMarkdown).Body
	for _, h := range []string{"## Lexical elements\n", "### Comments\n", "### Related work\n", "## Community\n"} {
		if !strings.Contains(got, h) {
			t.Errorf("heading %q lost:\n%s", h, got)
		}
	}
}

// An image whose data is in the page is shown by its description, never
// its bytes; other images by their address.
func TestImages(t *testing.T) {
	data := "data:image/png;base64," + strings.Repeat("QUFB", 2000)
	src := `<p>A <img alt="a [small] cat" src="` + data + `"> and <img src="` + data + `"> and <img alt="dog" src="dog.png"></p>`
	got := convert(t, src, nil, FormatMarkdown).Body
	if strings.Contains(got, "QUFB") || strings.Contains(got, "data:") {
		t.Errorf("the image's data was written:\n%.300s", got)
	}
	for _, w := range []string{`![a \[small\] cat]()`, "![dog](dog.png)"} {
		if !strings.Contains(got, w) {
			t.Errorf("no %q in %q", w, got)
		}
	}
}

// Links are made absolute against the page's address when there is one.
func TestBase(t *testing.T) {
	base, _ := url.Parse("https://example.com/a/b")
	got := convert(t, `<p><a href="c">rel</a> <a href="/d">root</a> <img alt="i" src="e.png"></p>`, base, FormatMarkdown).Body
	want := "[rel](https://example.com/a/c) [root](https://example.com/d) ![i](https://example.com/a/e.png)\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// The title: the page's own heading when <title> is it plus the site's
// name; it leads the text when the text does not start with it.
func TestTitle(t *testing.T) {
	p := convert(t, `<title>The &amp; title | Site</title><h1>The &amp; title</h1><p>text</p>`, nil, FormatMarkdown)
	if p.Title != "The & title" || p.Body != "# The & title\n\ntext\n" {
		t.Errorf("title %q body %q", p.Title, p.Body)
	}
	p = convert(t, `<title>Doc</title><p>text</p>`, nil, FormatText)
	if p.Title != "Doc" || p.Body != "Doc\n\ntext\n" {
		t.Errorf("text: title %q body %q", p.Title, p.Body)
	}
}

// Plain text is the browser's innerText with list items marked: no
// Markdown marks, table cells tab-separated.
func TestText(t *testing.T) {
	src := `<h2>Head</h2><p>Some <b>bold</b> and <a href="x">link</a>.</p>` +
		`<ul><li>one<li>two</ul><ol start="3"><li>three<li>four</ol>` +
		`<table><tr><th>Name<th>Qty<tr><td>apple<td>3</table>`
	want := "Head\n\nSome bold and link.\n\n- one\n- two\n\n3. three\n4. four\n\nName\tQty\napple\t3\n"
	if got := convert(t, src, nil, FormatText).Body; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// A page with no text is shown whole, and says so.
func TestWholePage(t *testing.T) {
	p := convert(t, `<img alt="only" src="a.png">`, nil, FormatMarkdown)
	if p.Body != "![only](a.png)\n" || len(p.Notes) != 1 || p.Notes[0] != NoteWholePage {
		t.Errorf("body %q notes %q", p.Body, p.Notes)
	}
}

// Nesting deeper than the HTML parser allows gives the text without
// structure, with a note; nothing is lost.
func TestDeep(t *testing.T) {
	src := strings.Repeat("<div>", 2000) + "deep <script>x()</script>text" + strings.Repeat("</div>", 2000)
	p := convert(t, src, nil, FormatMarkdown)
	if p.Body != "deep text\n" || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "refused") {
		t.Errorf("body %q notes %q", p.Body, p.Notes)
	}
}

// A cancelled call ends with its context's error.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Convert(ctx, "<p>"+strings.Repeat("word ", 1000)+"</p>", nil, FormatMarkdown); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
}

// FuzzConvert: whatever a page holds, making its text ends (no panic)
// with valid UTF-8 in every format.
func FuzzConvert(f *testing.F) {
	for _, s := range []string{
		"<html><head><title>T | Site</title></head><body><article><h1>T</h1><p>text</p></article></body></html>",
		"<p>a<b>b<i>c</b>d</i>e",
		"<table><tr><td>1<td>2</table><pre>x\ny</pre>",
		strings.Repeat("<div>", 600) + "deep",
		"<script>alert(1)</script><style>p{}</style><noscript>n</noscript>",
		"\xff\xfe<p>\x00bad bytes</p>",
		`<nav>n</nav><main><h2 id=comments>c</h2><ol start=x><li>a</ol><img alt="]" src="data:,"></main>`,
	} {
		f.Add(s)
	}
	page, _ := url.Parse("https://example.com/a/b")
	f.Fuzz(func(t *testing.T, src string) {
		src = strings.ToValidUTF8(src, "\uFFFD")
		for _, base := range []*url.URL{page, nil} {
			for _, format := range []string{FormatMarkdown, FormatText} {
				p, err := Convert(context.Background(), src, base, format)
				if err != nil {
					t.Fatalf("%s of %q: %v", format, src, err)
				}
				if !utf8.ValidString(p.Body) || !strings.HasSuffix(p.Body, "\n") {
					t.Fatalf("%s of %q is not UTF-8 ending in a newline: %q", format, src, p.Body)
				}
			}
		}
	})
}
