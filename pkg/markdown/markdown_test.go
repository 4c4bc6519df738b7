package markdown

import (
	"fmt"
	"strings"
	"testing"
)

var kindNames = [...]string{Document: "doc", Paragraph: "p", Heading: "h", ThematicBreak: "hr", CodeBlock: "code",
	BlockQuote: "quote", List: "list", ListItem: "item", HTMLBlock: "html", Table: "table", TableRow: "row",
	TableCell: "cell", Text: "", SoftBreak: "soft", HardBreak: "br", Emph: "em", Strong: "strong", Strike: "del",
	CodeSpan: "code", Link: "a", Image: "img", RawHTML: "raw", Task: "task"}

// dump writes the tree compactly: text quoted, other nodes as
// name[attributes](children).
func dump(n *Node) string {
	var b strings.Builder
	var walk func(n *Node)
	walk = func(n *Node) {
		if n.Kind == Text {
			fmt.Fprintf(&b, "%q", n.Literal)
			return
		}
		b.WriteString(kindNames[n.Kind])
		var attrs []string
		switch n.Kind {
		case Heading:
			attrs = append(attrs, fmt.Sprint(n.Level))
		case CodeBlock, CodeSpan, RawHTML, HTMLBlock:
			if n.Info != "" {
				attrs = append(attrs, n.Info)
			}
			attrs = append(attrs, fmt.Sprintf("%q", n.Literal))
		case List:
			if n.Ordered {
				attrs = append(attrs, fmt.Sprintf("ordered %d", n.Start))
			}
			if !n.Tight {
				attrs = append(attrs, "loose")
			}
		case Link, Image:
			attrs = append(attrs, n.Dest)
			if n.Title != "" {
				attrs = append(attrs, fmt.Sprintf("%q", n.Title))
			}
		case Task:
			attrs = append(attrs, fmt.Sprint(n.Checked))
		case Table:
			attrs = append(attrs, fmt.Sprint(n.Align))
		}
		if len(attrs) > 0 {
			b.WriteString("[" + strings.Join(attrs, " ") + "]")
		}
		if n.FirstChild != nil {
			b.WriteString("(")
			for c := n.FirstChild; c != nil; c = c.Next {
				if c != n.FirstChild {
					b.WriteString(" ")
				}
				walk(c)
			}
			b.WriteString(")")
		}
	}
	walk(n)
	return b.String()
}

func TestParse(t *testing.T) {
	for _, c := range []struct{ md, want string }{
		// Blocks.
		{"# a #\n## b\n####### c\n#d", `doc(h[1]("a") h[2]("b") p("####### c" soft "#d"))`},
		{"a\n===\nb\n---\n\n---", `doc(h[1]("a") h[2]("b") hr)`},
		{"a\n***\n- - -\n_ _ _", `doc(p("a") hr hr hr)`},
		{"> a\nb\n> > c", `doc(quote(p("a" soft "b") quote(p("c"))))`},
		{"    x\n\n    y\n\n\nz", `doc(code["x\n\ny\n"] p("z"))`},
		{"```go run\nx\n  ```\n", `doc(code[go run "x\n"])`},
		{" ```\n  a\n b\n```", `doc(code[" a\nb\n"])`},
		{"~~~\n```\n~~~", "doc(code[\"```\\n\"])"},
		{"\tcode\n-\ttab", `doc(code["code\n"] list(item(p("tab"))))`},
		{"<div>\n*x*\n\n*y*", `doc(html["<div>\n*x*"] p(em("y")))`},
		{"<!-- a\nb -->\nc", `doc(html["<!-- a\nb -->"] p("c"))`},
		{"a\n<span>\nb", `doc(p("a" soft raw["<span>"] soft "b"))`},
		// Lists.
		{"- a\n- b\n\n- c", `doc(list[loose](item(p("a")) item(p("b")) item(p("c"))))`},
		{"3. a\n4. b\n1) c", `doc(list[ordered 3](item(p("a")) item(p("b"))) list[ordered 1](item(p("c"))))`},
		{"- a\n  - b\nlazy\n- c", `doc(list(item(p("a") list(item(p("b" soft "lazy")))) item(p("c"))))`},
		{"- a\n\n  ```\n  x\n  ```\n- b", `doc(list[loose](item(p("a") code["x\n"]) item(p("b"))))`},
		{"a\n2. no\n1. yes", `doc(p("a" soft "2. no") list[ordered 1](item(p("yes"))))`},
		{"- [x] done\n- [ ] open\n- [y] no", `doc(list(item(p(task[true] " done")) item(p(task[false] " open")) item(p("[y] no"))))`},
		// Inlines.
		{"*a* **b** ***c*** _d_ __e__", `doc(p(em("a") " " strong("b") " " em(strong("c")) " " em("d") " " strong("e")))`},
		{"*foo**bar**baz*", `doc(p(em("foo" strong("bar") "baz")))`},
		{"foo*bar* snake_case_x", `doc(p("foo" em("bar") " snake_case_x"))`},
		{"~~a~~ ~b~ ~~~c~~~", `doc(p(del("a") " " del("b") " ~~~c~~~"))`},
		{"`` a ` b `` `x", "doc(p(code[\"a ` b\"] \" `x\"))"},
		{"\\*a\\* \\q &amp; &#65; &#x42; &nope; &#0;", "doc(p(\"*a* \\\\q & A B &nope; \uFFFD\"))"},
		{"a  \nb\\\nc", `doc(p("a" br "b" br "c"))`},
		{"[a](/u \"t\") ![i](p.png) <http://x.y> <a@b.co>", `doc(p(a[/u "t"]("a") " " img[p.png]("i") " " a[http://x.y]("http://x.y") " " a[mailto:a@b.co]("a@b.co")))`},
		{"[a][r] [r] [R][]\n\n[r]: /ref 'T'", `doc(p(a[/ref "T"]("a") " " a[/ref "T"]("r") " " a[/ref "T"]("R")))`},
		{"[a [b](c)](d)", `doc(p("[a " a[c]("b") "](d)"))`},
		{"[x](<a b> (t))", `doc(p(a[a b "t"]("x")))`},
		{"*[a*](b)", `doc(p("*" a[b]("a*")))`},
		// Tables.
		{"| a | b |\n|:-|-:|\n| `x\\|y` | 2 | 3 |\n| 4 |", "doc(table[[1 3]](row(cell(\"a\") cell(\"b\")) row(cell(code[\"x|y\"]) cell(\"2\")) row(cell(\"4\") cell)))"},
		{"p\n| a |\n| - |", `doc(p("p") table[[0]](row(cell("a"))))`},
	} {
		if got := dump(Parse([]byte(c.md))); got != c.want {
			t.Errorf("%q\n got %s\nwant %s", c.md, got, c.want)
		}
	}
}

// TestMaxDepth: a marker past MaxDepth is text, not another level.
func TestMaxDepth(t *testing.T) {
	doc := Parse([]byte(strings.Repeat(">", MaxDepth+5) + " x\n"))
	if d := depth(doc); d != MaxDepth {
		t.Fatalf("nests %d deep, want %d", d, MaxDepth)
	}
	n := doc
	for n.FirstChild != nil && n.FirstChild.Kind == BlockQuote {
		n = n.FirstChild
	}
	if got := dump(n.FirstChild); got != `p(">>>>> x")` {
		t.Errorf("innermost: %s", got)
	}
}
