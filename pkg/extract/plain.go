package extract

import (
	"regexp"
	"strings"
	"sync"
)

// plainText turns the Markdown the converters produce into plain text:
// heading marks, emphasis, link targets and fences go; a table becomes
// tab-separated rows.
func plainText(md string) string {
	syn := plainSyntax()
	var b strings.Builder
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			continue
		case syn.tableRule.MatchString(trimmed):
			continue
		case strings.HasPrefix(trimmed, "|") && strings.HasSuffix(trimmed, "|"):
			cells := strings.Split(strings.Trim(trimmed, "|"), " |")
			for i := range cells {
				cells[i] = strings.ReplaceAll(strings.TrimSpace(cells[i]), `\|`, "|")
			}
			line = strings.Join(cells, "\t")
		default:
			line = syn.heading.ReplaceAllString(line, "")
		}
		line = syn.image.ReplaceAllString(line, "$1")
		line = syn.link.ReplaceAllString(line, "$1")
		line = syn.emphasis.ReplaceAllString(line, "$2")
		line = strings.ReplaceAll(line, "<br>", " ")
		line = strings.ReplaceAll(line, `\*`, "*")
		line = strings.ReplaceAll(line, "\\`", "`")
		b.WriteString(line + "\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// plainSyntax is compiled on first use, not at every start.
var plainSyntax = sync.OnceValue(func() (s struct{ heading, tableRule, image, link, emphasis *regexp.Regexp }) {
	s.heading = regexp.MustCompile(`^#{1,6} `)
	s.tableRule = regexp.MustCompile(`^\|( *:?-+:? *\|)+$`)
	s.image = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	s.link = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	s.emphasis = regexp.MustCompile("(\\*\\*|~~|\\*|`)([^*`~]+?)(\\*\\*|~~|\\*|`)")
	return s
})
