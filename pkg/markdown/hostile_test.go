package markdown

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// hostile is input built to make a naive parser quadratic or its
// recursion deep; each is parsed at 256 KiB by the test below.
var hostile = map[string]func(n int) string{
	"quotes":      func(n int) string { return strings.Repeat(">", n) + " x\n" },
	"quote lines": func(n int) string { return strings.Repeat(strings.Repeat(">", 200)+" x\n", n/200) },
	"lists":       func(n int) string { return strings.Repeat("- ", n/2) + "x\n" },
	"list lines":  func(n int) string { return strings.Repeat(strings.Repeat("  ", 0)+"- a\n  - b\n    - c\n", n/20) },
	"indented lists": func(n int) string {
		var b strings.Builder
		for i := 0; i < n/200 && b.Len() < n; i++ {
			b.WriteString(strings.Repeat(" ", (i%100)*2) + "- x\n")
		}
		return b.String()
	},
	"brackets open":   func(n int) string { return strings.Repeat("[", n) },
	"brackets nested": func(n int) string { return strings.Repeat("[", n/2) + strings.Repeat("]", n/2) },
	"brackets pairs":  func(n int) string { return strings.Repeat("[a]", n/3) },
	"link openers":    func(n int) string { return strings.Repeat("[a](b ", n/6) },
	"image openers":   func(n int) string { return strings.Repeat("![", n/2) },
	"stars":           func(n int) string { return strings.Repeat("*", n) },
	"stars words":     func(n int) string { return strings.Repeat("*a ", n/3) },
	"stars nested":    func(n int) string { return strings.Repeat("*a **", n/5) + strings.Repeat("b** c*", n/6) },
	"underscores":     func(n int) string { return strings.Repeat("_a _", n/4) },
	"tildes":          func(n int) string { return strings.Repeat("~a ", n/3) },
	"backticks": func(n int) string {
		var b strings.Builder
		for i := 1; b.Len() < n; i++ {
			b.WriteString(strings.Repeat("`", i%500+1) + " ")
		}
		return b.String()
	},
	"comments":  func(n int) string { return strings.Repeat("a <!-- ", n/7) },
	"pis":       func(n int) string { return strings.Repeat("a <? ", n/5) },
	"tags":      func(n int) string { return strings.Repeat("<a b=\"", n/6) },
	"autolinks": func(n int) string { return strings.Repeat("<http://a", n/9) },
	"entities":  func(n int) string { return strings.Repeat("&#123456789", n/11) },
	"refs":      func(n int) string { return strings.Repeat("[a]: <", n/6) },
	"ref defs": func(n int) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			b.WriteString("[r" + strings.Repeat("x", i%50) + "]: /u\n")
		}
		return b.String() + "[rx]"
	},
	"table rows":    func(n int) string { return "|a|b|\n|-|-|\n" + strings.Repeat("|1|2|\n", n/6) },
	"wide table":    func(n int) string { return strings.Repeat("|a", n/4) + "\n" + strings.Repeat("|-", n/4) + "\n" },
	"fences":        func(n int) string { return strings.Repeat("```\n", n/4) },
	"html blocks":   func(n int) string { return strings.Repeat("<div>\n\n", n/7) },
	"setext":        func(n int) string { return strings.Repeat("a\n=\n", n/4) },
	"lazy":          func(n int) string { return "> a\n" + strings.Repeat("b\n", n/2) },
	"strong nested": func(n int) string { return strings.Repeat("**a ", n/8) + strings.Repeat("b** ", n/8) },
	"images nested": func(n int) string { return strings.Repeat("![", n/6) + strings.Repeat("](u)", n/6) },
	"links in em":   func(n int) string { return strings.Repeat("*[a ", n/8) + strings.Repeat("](u)* ", n/8) },
	"escapes":       func(n int) string { return strings.Repeat("\\", n) },
}

// TestHostileInput: each hostile input of 256 KiB parses (a quadratic
// parser would take hours here and time the test out) and nests no
// deeper than MaxDepth, in blocks and in spans.
func TestHostileInput(t *testing.T) {
	const size = 1 << 18
	for name, gen := range hostile {
		doc := Parse([]byte(gen(size)))
		if d := depth(doc); d > MaxDepth {
			t.Errorf("%s: nests %d deep, past %d", name, d, MaxDepth)
		}
		// Blocks, and spans in the deepest of them.
		if d := inlineDepth(doc); d > 2*MaxDepth+3 {
			t.Errorf("%s: the tree is %d deep, past %d", name, d, 2*MaxDepth+3)
		}
	}
}

func inlineDepth(n *Node) int {
	d := 0
	for c := n.FirstChild; c != nil; c = c.Next {
		d = max(d, inlineDepth(c))
	}
	return d + 1
}

var benchSize = 1 << 18

func BenchmarkHostile(b *testing.B) {
	for name, gen := range hostile {
		src := []byte(gen(benchSize))
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				Parse(src)
			}
		})
	}
}

func TestMain(m *testing.M) {
	if s := os.Getenv("MD_BENCH_SIZE"); s != "" {
		benchSize, _ = strconv.Atoi(s)
	}
	os.Exit(m.Run())
}
