package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
			return finish(f, writeManPages(c.Root(), opts))
		},
	}
	c.Flags().StringVar(&opts.Dir, "dir", "", "folder to write the pages into (created if missing)")
	_ = c.MarkFlagRequired("dir")
	return c
}

func writeManPages(root *cobra.Command, opts *ManOptions) *tool.Envelope {
	const name = "man"
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return tool.NewEnvelope(name, nil, &tool.Error{Code: tool.CodePermission,
			Message: fmt.Sprintf("cannot create %s: %v", opts.Dir, err),
			Hint:    "give --dir a folder you may write, e.g. ~/.local/share/man/man1"})
	}
	var pages []string
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !c.IsAvailableCommand() && c.HasParent() {
			return nil
		}
		path := filepath.Join(opts.Dir, manName(c)+".1")
		if err := fsutil.WriteFileAtomic(path, []byte(manPage(c)), 0o644); err != nil {
			return err
		}
		pages = append(pages, path)
		for _, sc := range c.Commands() {
			if err := walk(sc); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return tool.NewEnvelope(name, nil, fmt.Errorf("writing the man pages: %w", err))
	}
	sort.Strings(pages)
	dir, _ := filepath.Abs(opts.Dir)
	return tool.NewEnvelope(name, &tool.Response{
		Output: fmt.Sprintf("Wrote %d man pages to %s; read one with man -l %s\n", len(pages), dir, filepath.Join(dir, "mcode-grep.1")),
		Result: map[string]any{"dir": dir, "count": len(pages), "pages": pages},
	}, nil)
}

// manName is a command's page name: mcode-task-output.
func manName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "-")
}

// manPage renders one command's help as a roff man page (man(7)).
func manPage(c *cobra.Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH %q 1 \"\" %q \"mcode manual\"\n", strings.ToUpper(manName(c)), "mcode "+version)
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", roff(manName(c)), roff(c.Short))
	fmt.Fprintf(&b, ".SH SYNOPSIS\n.B %s\n", roff(c.UseLine()))
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	b.WriteString(".SH DESCRIPTION\n")
	for _, para := range strings.Split(strings.TrimSpace(desc), "\n\n") {
		fmt.Fprintf(&b, ".PP\n%s\n", roff(para))
	}
	writeManFlags(&b, "OPTIONS", c.NonInheritedFlags())
	writeManFlags(&b, "GLOBAL OPTIONS", c.InheritedFlags())
	if c.Example != "" {
		fmt.Fprintf(&b, ".SH EXAMPLES\n.PP\n.nf\n.RS\n%s\n.RE\n.fi\n", roff(strings.TrimRight(c.Example, "\n")))
	}
	var see []string
	if c.HasParent() {
		see = append(see, `\fB`+roff(manName(c.Parent()))+`\fP(1)`)
	}
	for _, sc := range c.Commands() {
		if sc.IsAvailableCommand() {
			see = append(see, `\fB`+roff(manName(sc))+`\fP(1)`)
		}
	}
	if len(see) > 0 {
		fmt.Fprintf(&b, ".SH SEE ALSO\n%s\n", strings.Join(see, ", "))
	}
	return b.String()
}

func writeManFlags(b *strings.Builder, title string, fs *pflag.FlagSet) {
	if !fs.HasAvailableFlags() {
		return
	}
	fmt.Fprintf(b, ".SH %s\n", title)
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden {
			return
		}
		names := `\fB\-\-` + roff(fl.Name) + `\fP`
		if fl.Shorthand != "" {
			names = `\fB\-` + roff(fl.Shorthand) + `\fP, ` + names
		}
		usage := fl.Usage
		if d := fl.DefValue; d != "" && d != "false" && d != "0" && d != "[]" {
			usage += " (default " + d + ")"
		}
		fmt.Fprintf(b, ".TP\n%s\n%s\n", names, roff(usage))
	})
}

// roff escapes text for a man page: backslashes, hyphens (so they copy
// as ASCII), and a line that starts with a control character.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}
