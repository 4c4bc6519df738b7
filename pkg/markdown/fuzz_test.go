package markdown

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// blockShape writes the block structure of our tree: kinds, heading
// levels, list kind and start, code text (but for the blank lines an
// unclosed fence ends with, which goldmark drops at the end of input).
func blockShape(b *strings.Builder, n *Node) {
	switch n.Kind {
	case Document:
		b.WriteString("doc")
	case Paragraph:
		b.WriteString("p")
	case Heading:
		fmt.Fprintf(b, "h%d", n.Level)
	case ThematicBreak:
		b.WriteString("hr")
	case CodeBlock:
		fmt.Fprintf(b, "code%q", codeShape(n.Literal))
	case BlockQuote:
		b.WriteString("quote")
	case List:
		fmt.Fprintf(b, "list[%v,%d]", n.Ordered, n.Start)
	case ListItem:
		b.WriteString("item")
	case HTMLBlock:
		b.WriteString("html")
	case Table:
		b.WriteString("table")
	default:
		return
	}
	if n.Kind == CodeBlock || n.Kind == Heading || n.Kind == Paragraph {
		b.WriteString(";")
		return
	}
	b.WriteString("(")
	for c := n.FirstChild; c != nil; c = c.Next {
		blockShape(b, c)
	}
	b.WriteString(")")
}

// codeShape is code text with its blank lines emptied: goldmark keeps a
// blank line's spaces past a fence's indentation, CommonMark does not.
func codeShape(s string) string {
	lines := strings.Split(strings.TrimRight(s, " \n"), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// goldmarkShape writes the same for goldmark's tree.
func goldmarkShape(b *strings.Builder, n gast.Node, src []byte) {
	switch n := n.(type) {
	case *gast.Document:
		b.WriteString("doc")
	case *gast.Paragraph, *gast.TextBlock:
		b.WriteString("p;")
		return
	case *gast.Heading:
		fmt.Fprintf(b, "h%d;", n.Level)
		return
	case *gast.ThematicBreak:
		b.WriteString("hr")
	case *gast.CodeBlock, *gast.FencedCodeBlock:
		var code strings.Builder
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			code.Write(seg.Value(src))
		}
		fmt.Fprintf(b, "code%q;", codeShape(code.String()))
		return
	case *gast.Blockquote:
		b.WriteString("quote")
	case *gast.List:
		fmt.Fprintf(b, "list[%v,%d]", n.IsOrdered(), n.Start)
	case *gast.ListItem:
		b.WriteString("item")
	case *gast.HTMLBlock:
		b.WriteString("html")
	default:
		return
	}
	b.WriteString("(")
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		goldmarkShape(b, c, src)
	}
	b.WriteString(")")
}

func shapes(src []byte) (ours, ref string) {
	var a, b strings.Builder
	blockShape(&a, Parse(src))
	goldmarkShape(&b, goldmark.DefaultParser().Parse(text.NewReader(src)), src)
	return a.String(), b.String()
}

func depth(n *Node) int {
	d := 0
	for c := n.FirstChild; c != nil; c = c.Next {
		d = max(d, depth(c))
	}
	if n.Kind == BlockQuote || n.Kind == ListItem {
		d++
	}
	return d
}

// FuzzParse: any input parses without a panic, nests no deeper than
// MaxDepth, and has goldmark's block structure where goldmark is
// CommonMark (no tables, which plain goldmark lacks; no tabs; shallow
// nesting).
func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc := Parse([]byte(s))
		if d := depth(doc); d > MaxDepth {
			t.Fatalf("nests %d deep, past %d", d, MaxDepth)
		}
		if !utf8.ValidString(s) || strings.ContainsAny(s, "|\t\r\x00") || strings.Count(s, ">")+strings.Count(s, "-")+strings.Count(s, "*") > MaxDepth/2 {
			return
		}
		if goldmarkDeviates(s) {
			return
		}
		if ours, ref := shapes([]byte(s)); ours != ref && !strings.Contains(ours, "table(") {
			t.Fatalf("block structure differs for %q\nours:     %s\ngoldmark: %s", s, ours, ref)
		}
	})
}

var seeds = []string{
	"# T\n\n- a\n  - b\n\n> q\n\n```\ncode\n```\n",
	"- a\nlazy\n  - b\n    lazy\n\n  para\n",
	"1. a\n\n   ```go\n   x\n   ```\n2. b\n",
	"text\n---\n\n---\n\n***\n",
	"<div>\nx\n</div>\n\n<!-- c -->\n",
	"    code\n\n  - x\n\n        code in item\n",
	"> > a\n> b\nc\n",
	"[a]: /u\n[b]: /v 't'\n\n[a] [b]\n",
	"- [x] t\n- [ ] u\n",
	"Setext\n===\n\nnot ---\n",
	// What the fuzzer found goldmark doing against CommonMark (kept as
	// seeds: each must stay caught by goldmarkDeviates or the table rule).
	"[0]:0(", "*0\n<!a00>000000", "*\n  +", "0000\n  ```\n \n0", "[0]:\x0f", "0\n-:", " ```\n ",
}

// goldmarkDeviates spots input where goldmark departs from CommonMark,
// and the differential says nothing:
//   - a link reference definition whose destination has an unbalanced
//     parenthesis (CommonMark: not a definition, a paragraph);
//   - an HTML block of type 4 that starts <! and a lower-case letter
//     (CommonMark 0.31 allows any letter, goldmark upper case only);
//   - a list item that starts with a blank line, and a list marker on
//     its next line (CommonMark: a list inside the item, goldmark: a
//     second list);
//   - ASCII control characters, which goldmark lets into a link
//     destination;
var blankItemThenMarker = regexp.MustCompile(`(?m)^[ >]*([*+-]|\d+[.)])[ ]*\n[ >]*[ ]+([*+-]|\d+[.)])([ ]|$)`)

func goldmarkDeviates(s string) bool {
	if blankItemThenMarker.MatchString(s) {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' && s[i] != '\n' || s[i] == 0x7f {
			return true
		}
	}
	for i := strings.Index(s, "<!"); i >= 0 && i+2 < len(s); i = strings.Index(s[i+2:], "<!") + i + 2 {
		if c := s[i+2]; c >= 'a' && c <= 'z' {
			return true
		}
		if strings.Index(s[i+2:], "<!") < 0 {
			break
		}
	}
	return strings.Contains(s, "]:") && strings.Count(s, "(") != strings.Count(s, ")")
}
