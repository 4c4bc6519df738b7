package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/iostreams"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// ReferenceDir is where the generated reference pages live in the
// repository, and RegenerateCommand is what rewrites them.
const (
	ReferenceDir      = "docs/tools"
	RegenerateCommand = "go run ./cmd/gen-docs"
)

// refPage is the reference of one command, from the one source each part
// has: cobra's usage, help and flags, and for a tool command the text and
// schema the model sees. Both the Markdown pages under docs/tools and the
// man pages are rendered from it.
type refPage struct {
	Name     string // mcode-task-output: the page's name
	Path     string // mcode task output
	Short    string
	Long     string
	Usage    string
	Example  string
	Tool     *tool.Definition // the tool the command runs, or nil
	Params   []refParam
	Flags    []refFlag
	Global   []refFlag
	Parent   *refLink
	Children []refLink
}

type refLink struct{ Name, Path, Short string }

type refParam struct {
	Name, Type, Description string
	Required                bool
}

type refFlag struct{ Names, Usage string }

// referencePages builds the page of every command a person can run, and
// of every built-in tool that no command runs (it is called with mcode
// call), in the order help lists them.
func referencePages(root *cobra.Command, tools []*tool.Tool) ([]refPage, error) {
	root.InitDefaultCompletionCmd()
	byName := map[string]*tool.Tool{}
	for _, t := range tools {
		byName[t.Name] = t
	}
	reached := map[string]bool{}
	var pages []refPage
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if c.HasParent() && !c.IsAvailableCommand() {
			return nil
		}
		p := refPage{
			Name: manName(c), Path: c.CommandPath(), Short: c.Short, Long: c.Long,
			Usage: c.UseLine(), Example: commandExample(c),
			Flags: refFlags(c.NonInheritedFlags()), Global: refFlags(c.InheritedFlags()),
		}
		if c.HasParent() {
			p.Parent = &refLink{Name: manName(c.Parent()), Path: c.Parent().CommandPath(), Short: c.Parent().Short}
		}
		for _, sc := range c.Commands() {
			if sc.IsAvailableCommand() {
				p.Children = append(p.Children, refLink{Name: manName(sc), Path: sc.CommandPath(), Short: sc.Short})
			}
		}
		if name, ok := c.Annotations[annotationTool]; ok {
			if t, ok := byName[name]; ok {
				if err := p.setTool(t); err != nil {
					return err
				}
				reached[name] = true
			}
		}
		pages = append(pages, p)
		for _, sc := range c.Commands() {
			if err := walk(sc); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	for _, t := range tools {
		if reached[t.Name] {
			continue
		}
		p := refPage{
			Name: "mcode-call-" + t.Name, Path: "mcode call " + t.Name,
			Usage:  "mcode call " + t.Name + " --args JSON|@FILE|-",
			Parent: &refLink{Name: "mcode-call", Path: "mcode call"},
		}
		if err := p.setTool(t); err != nil {
			return nil, err
		}
		p.Short = tool.FirstLine(p.Tool.Description)
		p.Example = "  mcode call " + t.Name + " --args @args.json"
		pages = append(pages, p)
	}
	return pages, nil
}

func (p *refPage) setTool(t *tool.Tool) error {
	def, err := t.Definition()
	if err != nil {
		return fmt.Errorf("tool %s: %w", t.Name, err)
	}
	p.Tool = &def
	p.Params, err = refParams(def.InputSchema)
	if err != nil {
		return fmt.Errorf("tool %s: %w", t.Name, err)
	}
	return nil
}

// completionExamples are the examples of cobra's completion commands,
// which come without any.
var completionExamples = map[string]string{
	"completion":            "  source <(mcode completion bash)",
	"completion bash":       "  source <(mcode completion bash)\n  mcode completion bash > /etc/bash_completion.d/mcode",
	"completion zsh":        "  mcode completion zsh > \"${fpath[1]}/_mcode\"",
	"completion fish":       "  mcode completion fish > ~/.config/fish/completions/mcode.fish",
	"completion powershell": "  mcode completion powershell | Out-String | Invoke-Expression",
}

// commandExample is a command's example; a group of commands without one
// of its own shows the first example of each of its commands.
func commandExample(c *cobra.Command) string {
	if c.Example != "" {
		return strings.TrimRight(c.Example, "\n")
	}
	if ex, ok := completionExamples[strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")]; ok {
		return ex
	}
	var lines []string
	for _, sc := range c.Commands() {
		if sc.IsAvailableCommand() {
			lines = append(lines, firstExample(commandExample(sc))...)
		}
	}
	return strings.Join(lines, "\n")
}

// firstExample is the first command of an example, with the lines it
// continues onto.
func firstExample(example string) []string {
	var out []string
	for _, l := range strings.Split(example, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		out = append(out, l)
		if !strings.HasSuffix(l, "\\") {
			break
		}
	}
	return out
}

func refFlags(fs *pflag.FlagSet) []refFlag {
	var out []refFlag
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden {
			return
		}
		names := "--" + fl.Name
		if fl.Shorthand != "" {
			names = "-" + fl.Shorthand + ", " + names
		}
		usage := fl.Usage
		if d := fl.DefValue; d != "" && d != "false" && d != "0" && d != "[]" {
			usage += " (default " + d + ")"
		}
		out = append(out, refFlag{Names: names, Usage: usage})
	})
	return out
}

// refParams lists a schema's parameters in name order: type, whether
// required, the description with the default and allowed values.
func refParams(schema json.RawMessage) ([]refParam, error) {
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
			Default     any    `json:"default"`
			Enum        []any  `json:"enum"`
			Items       *struct {
				Type any `json:"type"`
			} `json:"items"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	var out []refParam
	for name, p := range s.Properties {
		typ := "any"
		switch t := p.Type.(type) {
		case string:
			typ = t
		case []any:
			var ts []string
			for _, x := range t {
				ts = append(ts, fmt.Sprint(x))
			}
			typ = strings.Join(ts, " or ")
		}
		if typ == "array" && p.Items != nil && p.Items.Type != nil {
			typ = fmt.Sprintf("array of %v", p.Items.Type)
		}
		desc := strings.TrimSpace(p.Description)
		if len(p.Enum) > 0 {
			var vs []string
			for _, v := range p.Enum {
				vs = append(vs, fmt.Sprint(v))
			}
			desc = strings.TrimSpace(desc + " (one of: " + strings.Join(vs, ", ") + ")")
		}
		if p.Default != nil {
			d, _ := json.Marshal(p.Default)
			desc = strings.TrimSpace(desc + " (default " + string(d) + ")")
		}
		out = append(out, refParam{Name: name, Type: typ, Description: desc, Required: slices.Contains(s.Required, name)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// factsWords lists the facts a tool declares, in the Facts field order.
func factsWords(f tool.Facts) string {
	var w []string
	for _, x := range []struct {
		on   bool
		name string
	}{
		{f.ReadOnly, "read_only"}, {f.Destructive, "destructive"}, {f.Idempotent, "idempotent"},
		{f.OpenWorld, "open_world"}, {f.Processes, "processes"}, {f.Tasks, "tasks"},
		{f.Delegates, "delegates"}, {f.SessionState, "session_state"},
	} {
		if x.on {
			w = append(w, x.name)
		}
	}
	if len(w) == 0 {
		return "none"
	}
	return strings.Join(w, ", ")
}

// referenceFactory builds the command tree as a fresh process with an
// empty environment sees it, so that the pages depend on the code alone.
func referenceFactory() *Factory {
	ios, _, _, _ := iostreams.Test()
	f := &Factory{
		IO: ios, Now: time.Now, Executable: os.Executable,
		Getwd:    func() (string, error) { return "/", nil },
		Getenv:   func(string) string { return "" },
		EnvNames: func() []string { return nil },
	}
	f.Tools = f.builtinTools
	return f
}

// GenerateReference writes the Markdown reference into dir, removing the
// pages of commands that are gone, and with man set the man pages there.
func GenerateReference(dir, man string) error {
	files, err := ReferenceFiles()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return err
	}
	for _, path := range old {
		if _, ok := files[filepath.Base(path)]; !ok {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	for name, data := range files {
		if err := fsutil.WriteFileAtomic(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	if man == "" {
		return nil
	}
	if err := os.MkdirAll(man, 0o755); err != nil {
		return err
	}
	f := referenceFactory()
	_, err = WriteManPages(NewCmdRoot(f), f.Tools(), man)
	return err
}

// ReferenceFiles renders the reference of the whole command tree: one
// Markdown page per command, named after its man page, and README.md, the
// index; keyed by file name.
func ReferenceFiles() (map[string][]byte, error) {
	f := referenceFactory()
	pages, err := referencePages(NewCmdRoot(f), f.Tools())
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{"README.md": referenceIndex(pages)}
	for _, p := range pages {
		files[p.Name+".md"] = p.markdown()
	}
	return files, nil
}

func referenceIndex(pages []refPage) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Command reference\n\n")
	fmt.Fprintf(&b, "Generated from the commands' help and the text and schema each tool gives\n")
	fmt.Fprintf(&b, "the model (`pkg/*/*.md`, `pkg/*/*.schema.json`): do not edit; run `%s`.\n", RegenerateCommand)
	fmt.Fprintf(&b, "`mcode man --dir DIR` writes the same pages as man pages.\n\n")
	b.WriteString("| command | tool | what it does |\n| --- | --- | --- |\n")
	for _, p := range pages {
		name := ""
		if p.Tool != nil {
			name = "`" + p.Tool.Name + "`"
		}
		fmt.Fprintf(&b, "| [%s](%s.md) | %s | %s |\n", p.Path, p.Name, name, mdCell(p.Short))
	}
	return b.Bytes()
}

func (p refPage) markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", p.Path)
	fmt.Fprintf(&b, "<!-- Generated by %s from the command's help and its tool's description and schema: do not edit. -->\n\n", RegenerateCommand)
	if p.Short != "" {
		fmt.Fprintf(&b, "%s\n\n", mdText(p.Short))
	}
	fmt.Fprintf(&b, "```\n%s\n```\n\n", p.Usage)
	if p.Long != "" {
		fmt.Fprintf(&b, "%s\n\n", mdText(strings.TrimSpace(p.Long)))
	}
	if t := p.Tool; t != nil {
		b.WriteString("## Tool\n\n")
		fmt.Fprintf(&b, "Runs the tool `%s` (also `mcode call %s --args JSON`, `mcode batch`, and over `mcode mcp serve`): %s, %s tier; facts: %s.\n",
			t.Name, t.Name, t.Mode, t.Tier, factsWords(t.Facts))
		b.WriteString("\nWhat the model reads:\n\n")
		fmt.Fprintf(&b, "%s\n\n", mdText(t.Description))
		if len(p.Params) > 0 {
			b.WriteString("## Parameters\n\n| name | type | required | description |\n| --- | --- | --- | --- |\n")
			for _, pa := range p.Params {
				req := ""
				if pa.Required {
					req = "yes"
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", pa.Name, pa.Type, req, mdCell(pa.Description))
			}
			b.WriteString("\n")
		}
		var schema bytes.Buffer
		if err := json.Indent(&schema, t.InputSchema, "", "  "); err == nil {
			fmt.Fprintf(&b, "<details><summary>Input schema</summary>\n\n```json\n%s\n```\n\n</details>\n\n", schema.String())
		}
	}
	writeMDFlags(&b, "Flags", p.Flags)
	if p.Parent == nil {
		writeMDFlags(&b, "Global flags", p.Global)
	} else if len(p.Global) > 0 {
		b.WriteString("Global flags: see [mcode](mcode.md).\n\n")
	}
	if p.Example != "" {
		fmt.Fprintf(&b, "## Examples\n\n```sh\n%s\n```\n\n", dedent(p.Example))
	}
	var see []string
	if p.Parent != nil {
		see = append(see, fmt.Sprintf("[%s](%s.md)", p.Parent.Path, p.Parent.Name))
	}
	for _, c := range p.Children {
		see = append(see, fmt.Sprintf("[%s](%s.md)", c.Path, c.Name))
	}
	if len(see) > 0 {
		fmt.Fprintf(&b, "## See also\n\n%s\n", strings.Join(see, ", "))
	}
	return append(bytes.TrimRight(b.Bytes(), "\n"), '\n')
}

func writeMDFlags(b *bytes.Buffer, title string, flags []refFlag) {
	if len(flags) == 0 {
		return
	}
	fmt.Fprintf(b, "## %s\n\n| flag | meaning |\n| --- | --- |\n", title)
	for _, fl := range flags {
		fmt.Fprintf(b, "| `%s` | %s |\n", fl.Names, mdCell(fl.Usage))
	}
	b.WriteString("\n")
}

// dedent removes the two spaces cobra's examples are indented by.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "  ")
	}
	return strings.Join(lines, "\n")
}

// mdText escapes plain text for Markdown, so that what a person reads on
// the page is the text itself: only list markers and indented blocks keep
// their meaning.
func mdText(s string) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		trimmed := strings.TrimLeft(line, " ")
		indent := line[:len(line)-len(trimmed)]
		b.WriteString(indent)
		if strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "=") || strings.HasPrefix(trimmed, "---") ||
			(strings.HasPrefix(trimmed, "+") && !strings.HasPrefix(trimmed, "+ ")) {
			b.WriteByte('\\')
		}
		for _, r := range trimmed {
			if strings.ContainsRune("\\`*_[]<>|~&!", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCell is text for one cell of a Markdown table: on one line.
func mdCell(s string) string {
	return strings.Join(strings.Fields(mdText(s)), " ")
}
