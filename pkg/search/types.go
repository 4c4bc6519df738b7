package search

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// fileTypes are ripgrep's file types (rg --type-list, ripgrep 13) with the
// file-name globs it gives each: grep's --type takes the same names.
var fileTypes = map[string][]string{
	"c":        {"*.[chH]", "*.[chH].in", "*.cats"},
	"cpp":      {"*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in", "*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl"},
	"cs":       {"*.cs"},
	"css":      {"*.css", "*.scss"},
	"csv":      {"*.csv"},
	"dart":     {"*.dart"},
	"docker":   {"*Dockerfile*"},
	"elixir":   {"*.eex", "*.ex", "*.exs"},
	"go":       {"*.go"},
	"haskell":  {"*.c2hs", "*.cpphs", "*.hs", "*.hsc", "*.lhs"},
	"html":     {"*.ejs", "*.htm", "*.html"},
	"java":     {"*.java", "*.jsp", "*.jspx", "*.properties"},
	"js":       {"*.js", "*.jsx", "*.vue"},
	"json":     {"*.json", "composer.lock"},
	"kotlin":   {"*.kt", "*.kts"},
	"lua":      {"*.lua"},
	"make":     {"*.mak", "*.mk", "[Gg][Nn][Uu]makefile", "[Gg][Nn][Uu]makefile.am", "[Gg][Nn][Uu]makefile.in", "[Mm]akefile", "[Mm]akefile.am", "[Mm]akefile.in"},
	"markdown": {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
	"md":       {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
	"perl":     {"*.PL", "*.perl", "*.pl", "*.plh", "*.plx", "*.pm", "*.t"},
	"php":      {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
	"py":       {"*.py"},
	"r":        {"*.R", "*.Rmd", "*.Rnw", "*.r"},
	"rb":       {"*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"}, // ruby, by the name models often use
	"ruby":     {"*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"},
	"rust":     {"*.rs"},
	"scala":    {"*.sbt", "*.scala"},
	"sh":       {"*.bash", "*.bashrc", "*.csh", "*.cshrc", "*.ksh", "*.kshrc", "*.sh", "*.tcsh", "*.zsh", ".bash_login", ".bash_logout", ".bash_profile", ".bashrc", ".cshrc", ".kshrc", ".login", ".logout", ".profile", ".tcshrc", ".zlogin", ".zlogout", ".zprofile", ".zshenv", ".zshrc", "bash_login", "bash_logout", "bash_profile", "bashrc", "profile", "zlogin", "zlogout", "zprofile", "zshenv", "zshrc"},
	"sql":      {"*.psql", "*.sql"},
	"swift":    {"*.swift"},
	"tf":       {"*.tf"},
	"toml":     {"*.toml", "Cargo.lock"},
	"ts":       {"*.ts", "*.tsx"},
	"txt":      {"*.txt"},
	"xml":      {"*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xjb", "*.xml", "*.xml.dist", "*.xsd", "*.xsl", "*.xslt"},
	"yaml":     {"*.yaml", "*.yml"},
	"zig":      {"*.zig"},
}

// FileTypeNames lists the type names --type takes.
func FileTypeNames() []string {
	names := make([]string, 0, len(fileTypes))
	for n := range fileTypes {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// typeFilter is grep's --type: a file passes when its name matches a
// glob of any of the types.
type typeFilter struct{ globs []string }

func newTypeFilter(types []string) (*typeFilter, error) {
	if len(types) == 0 {
		return nil, nil
	}
	f := &typeFilter{}
	for _, t := range types {
		globs, ok := fileTypes[t]
		if !ok {
			return nil, &tool.Error{Code: tool.CodeUsage,
				Message: fmt.Sprintf("unknown file type %q", t),
				Hint:    "use one of ripgrep's type names: " + strings.Join(FileTypeNames(), ", ") + "; or pass --glob"}
		}
		f.globs = append(f.globs, globs...)
	}
	return f, nil
}

func (f *typeFilter) file(name string) bool {
	if f == nil {
		return true
	}
	for _, g := range f.globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}
