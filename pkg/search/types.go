package search

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// fileTypes are ripgrep's file types (rg --type-list, ripgrep 13) with the
// file-name globs it gives each: grep's --type takes the same names. A
// slice, sorted by name, so that it costs no init at start-up.
var fileTypes = []fileType{
	{"c", []string{"*.[chH]", "*.[chH].in", "*.cats"}},
	{"cpp", []string{"*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in", "*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl"}},
	{"cs", []string{"*.cs"}},
	{"css", []string{"*.css", "*.scss"}},
	{"csv", []string{"*.csv"}},
	{"dart", []string{"*.dart"}},
	{"docker", []string{"*Dockerfile*"}},
	{"elixir", []string{"*.eex", "*.ex", "*.exs"}},
	{"go", []string{"*.go"}},
	{"haskell", []string{"*.c2hs", "*.cpphs", "*.hs", "*.hsc", "*.lhs"}},
	{"html", []string{"*.ejs", "*.htm", "*.html"}},
	{"java", []string{"*.java", "*.jsp", "*.jspx", "*.properties"}},
	{"js", []string{"*.js", "*.jsx", "*.vue"}},
	{"json", []string{"*.json", "composer.lock"}},
	{"kotlin", []string{"*.kt", "*.kts"}},
	{"lua", []string{"*.lua"}},
	{"make", []string{"*.mak", "*.mk", "[Gg][Nn][Uu]makefile", "[Gg][Nn][Uu]makefile.am", "[Gg][Nn][Uu]makefile.in", "[Mm]akefile", "[Mm]akefile.am", "[Mm]akefile.in"}},
	{"markdown", []string{"*.markdown", "*.md", "*.mdown", "*.mkdn"}},
	{"md", []string{"*.markdown", "*.md", "*.mdown", "*.mkdn"}},
	{"perl", []string{"*.PL", "*.perl", "*.pl", "*.plh", "*.plx", "*.pm", "*.t"}},
	{"php", []string{"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"}},
	{"py", []string{"*.py"}},
	{"r", []string{"*.R", "*.Rmd", "*.Rnw", "*.r"}},
	{"rb", []string{"*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"}}, // ruby, by the name models often use
	{"ruby", []string{"*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"}},
	{"rust", []string{"*.rs"}},
	{"scala", []string{"*.sbt", "*.scala"}},
	{"sh", []string{"*.bash", "*.bashrc", "*.csh", "*.cshrc", "*.ksh", "*.kshrc", "*.sh", "*.tcsh", "*.zsh", ".bash_login", ".bash_logout", ".bash_profile", ".bashrc", ".cshrc", ".kshrc", ".login", ".logout", ".profile", ".tcshrc", ".zlogin", ".zlogout", ".zprofile", ".zshenv", ".zshrc", "bash_login", "bash_logout", "bash_profile", "bashrc", "profile", "zlogin", "zlogout", "zprofile", "zshenv", "zshrc"}},
	{"sql", []string{"*.psql", "*.sql"}},
	{"swift", []string{"*.swift"}},
	{"tf", []string{"*.tf"}},
	{"toml", []string{"*.toml", "Cargo.lock"}},
	{"ts", []string{"*.ts", "*.tsx"}},
	{"txt", []string{"*.txt"}},
	{"xml", []string{"*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xjb", "*.xml", "*.xml.dist", "*.xsd", "*.xsl", "*.xslt"}},
	{"yaml", []string{"*.yaml", "*.yml"}},
	{"zig", []string{"*.zig"}},
}

type fileType struct {
	name  string
	globs []string
}

// FileTypeNames lists the type names --type takes.
func FileTypeNames() []string {
	names := make([]string, 0, len(fileTypes))
	for _, t := range fileTypes {
		names = append(names, t.name)
	}
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
		i, ok := slices.BinarySearchFunc(fileTypes, t, func(e fileType, t string) int { return strings.Compare(e.name, t) })
		if !ok {
			return nil, &tool.Error{Code: tool.CodeUsage,
				Message: fmt.Sprintf("unknown file type %q", t),
				Hint:    "use one of ripgrep's type names: " + strings.Join(FileTypeNames(), ", ") + "; or pass --glob"}
		}
		f.globs = append(f.globs, fileTypes[i].globs...)
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
