package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// ManOptions are the options of mcode man.
type ManOptions struct {
	Dir string
}

// NewCmdMan builds `mcode man --dir DIR`: a man page for every command,
// from the same help text that --help prints.
func NewCmdMan(f *Factory) *cobra.Command {
	opts := &ManOptions{}
	c := &cobra.Command{
		Use:   "man --dir DIR",
		Short: "Write a man page for every command into a folder (section 1)",
		Example: `  mcode man --dir ~/.local/share/man/man1 && man mcode-grep
  sudo mcode man --dir /usr/local/share/man/man1`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return finish(f, writeManPages(f, c.Root(), opts))
		},
	}
	c.Flags().StringVar(&opts.Dir, "dir", "", "folder to write the pages into (created if missing)")
	_ = c.MarkFlagRequired("dir")
	return c
}

func writeManPages(f *Factory, root *cobra.Command, opts *ManOptions) *tool.Envelope {
	const name = "man"
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return tool.NewEnvelope(name, nil, &tool.Error{Code: tool.CodePermission,
			Message: fmt.Sprintf("cannot create %s: %v", opts.Dir, err),
			Hint:    "give --dir a folder you may write, e.g. ~/.local/share/man/man1"})
	}
	paths, err := WriteManPages(root, f.Tools(), opts.Dir)
	if err != nil {
		return tool.NewEnvelope(name, nil, fmt.Errorf("writing the man pages: %w", err))
	}
	dir, _ := filepath.Abs(opts.Dir)
	return tool.NewEnvelope(name, &tool.Response{
		Output: fmt.Sprintf("Wrote %d man pages to %s; read one with man -l %s\n", len(paths), dir, filepath.Join(dir, "mcode-grep.1")),
		Result: map[string]any{"dir": dir, "count": len(paths), "pages": paths},
	}, nil)
}

// WriteManPages writes the man page of every command of root, and of
// every tool no command runs, into dir; it returns their paths, sorted.
func WriteManPages(root *cobra.Command, tools []*tool.Tool, dir string) ([]string, error) {
	pages, err := referencePages(root, tools)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range pages {
		path := filepath.Join(dir, p.Name+".1")
		if err := fsutil.WriteFileAtomic(path, []byte(p.man()), 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	sort.Strings(paths)
	return paths, nil
}

// manName is a command's page name: mcode-task-output.
func manName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "-")
}

// man renders the page as a roff man page (man(7)).
func (p refPage) man() string {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH %q 1 \"\" %q \"mcode manual\"\n", strings.ToUpper(p.Name), "mcode "+version)
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", roff(p.Name), roff(p.Short))
	fmt.Fprintf(&b, ".SH SYNOPSIS\n.B %s\n", roff(p.Usage))
	desc := p.Long
	if desc == "" {
		desc = p.Short
	}
	b.WriteString(".SH DESCRIPTION\n")
	writeManText(&b, desc)
	if t := p.Tool; t != nil {
		b.WriteString(".SH TOOL\n")
		fmt.Fprintf(&b, ".PP\n%s\n", roff(fmt.Sprintf("Runs the tool %s (also mcode call %s --args JSON, mcode batch, and over mcode mcp serve): %s, %s tier; facts: %s. What the model reads:",
			t.Name, t.Name, t.Mode, t.Tier, factsWords(t.Facts))))
		writeManText(&b, t.Description)
		if len(p.Params) > 0 {
			b.WriteString(".SH PARAMETERS\n")
			for _, pa := range p.Params {
				req := ""
				if pa.Required {
					req = ", required"
				}
				fmt.Fprintf(&b, ".TP\n\\fB%s\\fP (%s%s)\n%s\n", roff(pa.Name), roff(pa.Type), req, roff(pa.Description))
			}
		}
	}
	writeManFlags(&b, "OPTIONS", p.Flags)
	writeManFlags(&b, "GLOBAL OPTIONS", p.Global)
	if p.Example != "" {
		fmt.Fprintf(&b, ".SH EXAMPLES\n.PP\n.nf\n.RS\n%s\n.RE\n.fi\n", roff(p.Example))
	}
	var see []string
	if p.Parent != nil {
		see = append(see, `\fB`+roff(p.Parent.Name)+`\fP(1)`)
	}
	for _, c := range p.Children {
		see = append(see, `\fB`+roff(c.Name)+`\fP(1)`)
	}
	if len(see) > 0 {
		fmt.Fprintf(&b, ".SH SEE ALSO\n%s\n", strings.Join(see, ", "))
	}
	return b.String()
}

// writeManText writes paragraphs, and "- " list items as bullets; the
// indentation of wrapped lines is roff's to make.
func writeManText(b *strings.Builder, text string) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, " \t")
	}
	for _, para := range strings.Split(strings.Join(lines, "\n"), "\n\n") {
		if !strings.HasPrefix(para, "- ") {
			fmt.Fprintf(b, ".PP\n%s\n", roff(para))
			continue
		}
		for _, item := range strings.Split(para, "\n- ") {
			fmt.Fprintf(b, ".IP \\(bu 2\n%s\n", roff(strings.TrimPrefix(item, "- ")))
		}
	}
}

func writeManFlags(b *strings.Builder, title string, flags []refFlag) {
	if len(flags) == 0 {
		return
	}
	fmt.Fprintf(b, ".SH %s\n", title)
	for _, fl := range flags {
		var names []string
		for _, n := range strings.Split(fl.Names, ", ") {
			names = append(names, `\fB`+roff(n)+`\fP`)
		}
		fmt.Fprintf(b, ".TP\n%s\n%s\n", strings.Join(names, ", "), roff(fl.Usage))
	}
}

// roff escapes text for a man page: backslashes, hyphens (so they copy
// as ASCII), characters beyond ASCII (as \[uXXXX], so no input encoding
// need be guessed), and a line that starts with a control character.
func roff(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r > unicode.MaxASCII:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}
