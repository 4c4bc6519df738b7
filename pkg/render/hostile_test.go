package render

import (
	"strings"
	"testing"
)

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

// TestHostileInput: each hostile input parses, and block quotes and
// lists nest no deeper than MaxDepth in the document model. Sizes are
// modest: goldmark's time grows faster than the source on some of these
// (BenchmarkHostile shows how), which is why render abandons a parse at
// its time limit.
func TestHostileInput(t *testing.T) {
	size := 1 << 16
	if testing.Short() {
		size = 1 << 13
	}
	for name, gen := range hostile {
		doc, err := Parse([]byte(gen(size)))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if d := blockDepth(doc.Blocks); d > MaxDepth+1 {
			t.Errorf("%s: nests %d deep, past %d", name, d, MaxDepth+1)
		}
	}
}

// The nesting cap keeps what a line opens past MaxDepth as text.
func TestCapNesting(t *testing.T) {
	deep := strings.Repeat("> ", MaxDepth+2) + "x\n"
	doc, _ := Parse([]byte(deep))
	if d := blockDepth(doc.Blocks); d != MaxDepth {
		t.Errorf("%d quotes: depth %d, want %d", MaxDepth+2, d, MaxDepth)
	}
	for in, want := range map[string]string{
		strings.Repeat("- ", MaxDepth) + "x":           strings.Repeat("- ", MaxDepth) + "x",
		strings.Repeat("- ", MaxDepth+1) + "x":         strings.Repeat("- ", MaxDepth) + "\\- x",
		strings.Repeat("1. ", MaxDepth+1) + "x":        strings.Repeat("1. ", MaxDepth) + "1\\. x",
		strings.Repeat(">", MaxDepth+3):                strings.Repeat(">", MaxDepth) + "\\>>>",
		strings.Repeat("- ", MaxDepth+9) + "-":         strings.Repeat("- ", MaxDepth+9) + "-", // a thematic break
		"a\n" + strings.Repeat("* ", MaxDepth+1) + "b": "a\n" + strings.Repeat("* ", MaxDepth) + "\\* b",
	} {
		if got := string(capNesting([]byte(in))); got != want {
			t.Errorf("capNesting(%q) = %q, want %q", in, got, want)
		}
	}
}

func blockDepth(bs []Block) int {
	d := 0
	for _, b := range bs {
		if b.Kind == Quote {
			d = max(d, blockDepth(b.Children)+1)
		}
		for _, it := range b.Items {
			d = max(d, blockDepth(it.Blocks)+1)
		}
	}
	return d
}

func BenchmarkHostile(b *testing.B) {
	for name, gen := range hostile {
		src := []byte(gen(1 << 18))
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				_, _ = Parse(src)
			}
		})
	}
}
