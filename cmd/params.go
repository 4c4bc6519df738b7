package cmd

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// A tool's command takes its flags from the tool's one declaration of its
// parameters, the schema (TOOL.schema.json): every property is a flag,
// spelled with _ or - alike (--file_path, --file-path), and every alias
// (the names models know: --output-mode, --head-limit, -i) is one too.
// The schema was chosen over struct tags because it already holds all a
// flag needs (name, type, enum, description with the code's limits
// rendered in) and is what tools list, mcp serve and the validator read;
// the Params struct only decodes it, and Tool.Check keeps the two in step.
// A command adds only what is no parameter (--old-file, bash's -), or a
// parameter whose flag reads differently (durations in seconds).

// annotationField names the argument a flag fills: a parameter of the
// tool's schema, or one of its aliases. Flags without it are read by the
// command itself (--old-file, --args).
const annotationField = "mcode.field"

// annotationValues maps an alias flag's values onto its parameter's
// (a JSON object: output_mode's files_with_matches is mode's files).
const annotationValues = "mcode.values"

// fieldFlag marks a flag the command defined itself as the one that
// fills key, so no flag is derived for it.
func fieldFlag(c *cobra.Command, flag, key string) {
	_ = c.Flags().SetAnnotation(flag, annotationField, []string{key})
}

// flagSpelling makes --file_path and --file-path one flag.
func flagSpelling(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
}

// builtin is the built-in tool of that name, from the one list the
// process's dispatcher registers too (so a schema is rendered once).
func (f *Factory) builtin(name string) *tool.Tool {
	for _, t := range f.builtins() {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// builtins is f.Tools(), built once.
func (f *Factory) builtins() []*tool.Tool {
	f.builtinsOnce.Do(func() { f.builtinList = f.Tools() })
	return f.builtinList
}

// toolCommand makes c the command of the tool name: its flags derived
// from the tool's parameters after the ones c defined itself, --args,
// the positionals checked against the tool's, and a flag error that
// names the closest flag and the one-line usage.
func (f *Factory) toolCommand(c *cobra.Command, opts *CallOptions) *cobra.Command {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[annotationTool] = opts.Tool
	if t := f.builtin(opts.Tool); t != nil {
		paramFlags(c, t)
		c.Annotations[annotationPositional] = strings.Join(t.Positional(), ",")
		if c.Args == nil {
			c.Args = positionalArgs(t)
		}
	}
	addArgsFlag(c, opts)
	own := c.FlagErrorFunc()
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if te := flagError(c, err); te != nil {
			return te
		}
		return own(c, err)
	})
	return c
}

// paramFlags adds a flag for every parameter and alias of t that no flag
// of c fills yet.
func paramFlags(c *cobra.Command, t *tool.Tool) {
	fl := c.Flags()
	fl.SetNormalizeFunc(flagSpelling)
	params, err := t.Params()
	if err != nil {
		return // the call itself reports the broken schema
	}
	filled := map[string]bool{}
	fl.VisitAll(func(x *pflag.Flag) {
		if k := x.Annotations[annotationField]; len(k) > 0 {
			filled[k[0]] = true
		}
	})
	aliases := t.Aliases()
	names := make([]string, 0, len(aliases))
	for a := range aliases {
		names = append(names, a)
	}
	slices.Sort(names)
	also := map[string][]string{} // parameter: its aliases, as flags
	for _, a := range names {
		also[aliases[a].Param] = append(also[aliases[a].Param], flagForm(a))
	}
	byName := map[string]tool.Param{}
	for _, p := range params {
		byName[p.Name] = p
		if filled[p.Name] || fl.Lookup(p.Name) != nil {
			continue
		}
		short := shortFor(p.Name, names, aliases, fl)
		if short != "" {
			filled["-"+short] = true
		}
		others := slices.DeleteFunc(slices.Clone(also[p.Name]), func(a string) bool { return a == "-"+short })
		addParamFlag(c, p.Name, short, p, nil, p.Description, others)
		fieldFlag(c, p.Name, p.Name)
	}
	for _, a := range names {
		al := aliases[a]
		p, ok := byName[al.Param]
		if !ok || filled[a] {
			continue
		}
		name, short := a, ""
		if isShortAlias(a) {
			if fl.ShorthandLookup(a[1:]) != nil {
				continue // the command's own short flag
			}
			// A second short form of one parameter (rm's -R beside -r)
			// needs a flag of its own.
			name, short = "short-"+a[1:], a[1:]
		} else if fl.Lookup(a) != nil {
			continue
		}
		var extra []string
		for v := range al.Values {
			extra = append(extra, v)
		}
		slices.Sort(extra)
		addParamFlag(c, name, short, p, extra, fmt.Sprintf("another name for --%s", flagForm(al.Param)[2:]), nil)
		// The flag fills the parameter itself, its value mapped as the
		// alias says, so that it overrides --args as any flag does.
		fieldFlag(c, name, al.Param)
		if len(al.Values) > 0 {
			values, _ := json.Marshal(al.Values)
			_ = fl.SetAnnotation(name, annotationValues, []string{string(values)})
		}
		_ = fl.MarkHidden(name)
	}
}

// shortFor picks the short form of a parameter's flag among its
// aliases: the one of the parameter's own initial (rm's -r before -R for
// recursive), else the first free one.
func shortFor(param string, names []string, aliases map[string]tool.Alias, fl *pflag.FlagSet) string {
	pick := ""
	for _, a := range names {
		if aliases[a].Param != param || !isShortAlias(a) || fl.ShorthandLookup(a[1:]) != nil {
			continue
		}
		if a[1] == param[0] {
			return a[1:]
		}
		if pick == "" {
			pick = a[1:]
		}
	}
	return pick
}

// isShortAlias says whether an alias is a short flag: a dash and one
// letter ("-i", "-C"), as Claude Code's Grep names its parameters.
func isShortAlias(a string) bool { return len(a) == 2 && a[0] == '-' && a[1] != '-' }

// flagForm writes an argument's name as the flag that fills it.
func flagForm(name string) string {
	if isShortAlias(name) {
		return name
	}
	return "--" + strings.ReplaceAll(name, "_", "-")
}

// addParamFlag adds the flag of a parameter, typed after its schema:
// true/false for a boolean, a number for an integer or number, a
// repeatable string for a list of strings (or a string or list), a
// JSON value (@FILE, - for stdin) for objects and lists of objects, an
// enum for a string with allowed values (extra ones for an alias whose
// values differ), else a string.
func addParamFlag(c *cobra.Command, name, short string, p tool.Param, extra []string, usage string, also []string) {
	fl := c.Flags()
	var value pflag.Value
	switch {
	case len(p.Enum) > 0:
		allowed := append(slices.Clone(p.Enum), extra...)
		value = &enumValue{target: new(string), allowed: allowed}
		usage += ": " + strings.Join(allowed, "|")
	case p.Allows("boolean") && len(p.Types) == 1:
		fl.BoolP(name, short, false, usage)
	case p.Allows("array") && (len(p.ItemTypes) == 0 || slices.Equal(p.ItemTypes, []string{"string"})) && (p.Allows("string") || len(p.ItemTypes) == 1):
		usage += " (repeatable)"
		fl.StringArrayP(name, short, nil, usage)
	case p.Allows("string"):
		fl.StringP(name, short, "", usage)
	case p.Allows("integer") && !p.Allows("number"):
		fl.Int64P(name, short, 0, usage)
	case p.Allows("number"):
		fl.Float64P(name, short, 0, usage)
	default:
		value = &jsonValue{types: p.Types}
		usage += " (JSON, @FILE, or - for stdin)"
	}
	if value != nil {
		fl.VarP(value, name, short, usage)
	}
	x := fl.Lookup(name)
	if len(also) > 0 {
		x.Usage += " (also " + strings.Join(also, ", ") + ")"
	}
	if p.Default != nil {
		if def := fmt.Sprint(p.Default); def != x.Value.String() && x.Value.Set(def) == nil {
			x.DefValue = def
		}
	}
}

// jsonValue is a flag whose value is JSON (an object, a list of objects),
// @FILE, or - for stdin; collectArgs reads and decodes it and checks
// its JSON type against the parameter's.
type jsonValue struct {
	raw   string
	types []string
}

func (j *jsonValue) String() string     { return j.raw }
func (j *jsonValue) Type() string       { return "json" }
func (j *jsonValue) Set(v string) error { j.raw = v; return nil }

// positionalArgs checks the number of positionals against the tool's:
// at most one each, any number for a last one that is a list.
func positionalArgs(t *tool.Tool) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		pos := t.Positional()
		if len(args) <= len(pos) || (len(pos) > 0 && listParam(t, pos[len(pos)-1])) {
			return nil
		}
		what := "no arguments"
		if len(pos) > 0 {
			what = fmt.Sprintf("at most %d argument(s) (%s)", len(pos), strings.Join(upper(pos), " "))
		}
		return &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("%s takes %s, got %d: %s", c.CommandPath(), what, len(args), strings.Join(args, " ")),
			Hint:    "usage: " + usageLine(c, true)}
	}
}

func upper(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.ToUpper(n)
	}
	return out
}

// listParam says whether the parameter takes a list.
func listParam(t *tool.Tool, name string) bool { return paramAllows(t, name, "array") }

// paramAllows says whether the parameter takes the JSON type.
func paramAllows(t *tool.Tool, name, typ string) bool {
	params, _ := t.Params()
	for _, p := range params {
		if p.Name == name {
			return p.Allows(typ)
		}
	}
	return false
}

// flagError answers a flag the command does not know with the closest
// one it has, and any other flag error with the one-line usage; nil for
// an error that is not about a flag.
func flagError(c *cobra.Command, err error) *tool.Error {
	msg := err.Error()
	usage := "usage: " + usageLine(c, true)
	switch {
	case strings.HasPrefix(msg, "unknown flag: "):
		name := strings.TrimPrefix(msg, "unknown flag: ")
		name, _, _ = strings.Cut(name, "=")
		msg = "unknown flag " + name
		if near := tool.Nearest(name, flagNames(c)); near != "" {
			msg += ": did you mean " + near + "?"
		}
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		// unknown shorthand flag: 'r' in -rn
		rest := strings.TrimPrefix(msg, "unknown shorthand flag: ")
		letter, in, _ := strings.Cut(rest, " in ")
		msg = fmt.Sprintf("unknown flag -%s", strings.Trim(letter, "'"))
		if in != "-"+strings.Trim(letter, "'") {
			msg += " (in " + in + ")"
		}
	case strings.HasPrefix(msg, "invalid argument"), strings.HasPrefix(msg, "flag needs an argument"),
		strings.HasPrefix(msg, "bad flag syntax"), strings.HasPrefix(msg, "if any flags in the group"):
	default:
		return nil
	}
	return &tool.Error{Code: tool.CodeUsage, Message: msg, Hint: usage}
}

// flagNames are the flags of c as a caller writes them, hidden ones
// (the aliases) included.
func flagNames(c *cobra.Command) []string {
	var out []string
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Name != "help" && !strings.HasPrefix(fl.Name, "short-") {
			out = append(out, "--"+fl.Name)
		}
	})
	return out
}

// usageLine is a command's usage on one line: its Use words, then each
// flag that is no positional. With values, a flag shows what it takes
// (--limit int, --mode files|content|count).
func usageLine(c *cobra.Command, values bool) string {
	use := strings.TrimSuffix(c.UseLine(), " [flags]")
	positional := map[string]bool{}
	if p := c.Annotations[annotationPositional]; p != "" {
		for _, n := range strings.Split(p, ",") {
			positional[n] = true
		}
	}
	var b strings.Builder
	b.WriteString(use)
	c.LocalNonPersistentFlags().VisitAll(func(fl *pflag.Flag) {
		if fl.Name == "args" || fl.Name == "help" || fl.Hidden {
			return
		}
		if k := fl.Annotations[annotationField]; len(k) > 0 && positional[k[0]] {
			return
		}
		b.WriteString(" [")
		if fl.Shorthand != "" && values {
			b.WriteString("-" + fl.Shorthand + "|")
		}
		b.WriteString("--" + fl.Name)
		if values && fl.Value.Type() != "bool" {
			name, _ := pflag.UnquoteUsage(fl)
			if ev, ok := fl.Value.(*enumValue); ok {
				name = strings.Join(ev.allowed, "|")
			}
			b.WriteString(" " + name)
		}
		b.WriteString("]")
	})
	if values && c.Flags().Lookup("args") != nil {
		b.WriteString(" [--args JSON|@FILE|-]")
	}
	return b.String()
}

// annotationPositional lists the parameters a command takes as
// positionals, comma-separated (set by toolCommand).
const annotationPositional = "mcode.positional"

// runTool is the RunE of a tool's command: the arguments from --args,
// positionals and flags, then the call.
func (f *Factory) runTool(opts *CallOptions, runF func(*CallOptions) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		if err := f.toolArgs(c, opts, args); err != nil {
			return err
		}
		return callTool(c, f, opts, runF)
	}
}
