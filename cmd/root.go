package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// annotationTool names the registry tool a command runs.
const annotationTool = "mcode.tool"

// NewCmdRoot builds the whole command tree.
func NewCmdRoot(f *Factory) *cobra.Command { return newCmdRoot(f, "") }

// NewCmdRootFor builds the tree a command line needs: the root and the one
// subcommand it names, when that command does not read the others (a
// third of a small call's time went into building thirty commands and
// their flags); else the whole tree (help, completion, an unknown name,
// man, skill).
func NewCmdRootFor(f *Factory, args []string) *cobra.Command {
	name := commandName(args)
	for _, sc := range subcommands {
		if sc.name == name && !sc.wholeTree {
			return newCmdRoot(f, name)
		}
	}
	return newCmdRoot(f, "")
}

// subcommand is a command below the root, and how to build it.
type subcommand struct {
	name  string
	build func(f *Factory) *cobra.Command
	// wholeTree: the command reads the other commands (man pages, the
	// skill guide's usage lines).
	wholeTree bool
}

// subcommands are the root's, in the order help lists them.
var subcommands = []subcommand{
	{name: "datetime", build: func(f *Factory) *cobra.Command { return NewCmdDatetime(f, nil) }},
	{name: "read", build: func(f *Factory) *cobra.Command { return NewCmdRead(f, nil) }},
	{name: "extract", build: func(f *Factory) *cobra.Command { return NewCmdExtract(f, nil) }},
	{name: "filetype", build: func(f *Factory) *cobra.Command { return NewCmdFiletype(f, nil) }},
	{name: "fetch", build: func(f *Factory) *cobra.Command { return NewCmdFetch(f, nil) }},
	{name: "rm", build: func(f *Factory) *cobra.Command { return NewCmdRm(f, nil) }},
	{name: "trash", build: func(f *Factory) *cobra.Command { return NewCmdTrash(f, nil) }},
	{name: "shim", build: NewCmdShim},
	{name: "grep", build: func(f *Factory) *cobra.Command { return NewCmdGrep(f, nil) }},
	{name: "glob", build: func(f *Factory) *cobra.Command { return NewCmdGlob(f, nil) }},
	{name: "write", build: func(f *Factory) *cobra.Command { return NewCmdWrite(f, nil) }},
	{name: "render", build: func(f *Factory) *cobra.Command { return NewCmdRender(f, nil) }},
	{name: "edit", build: func(f *Factory) *cobra.Command { return NewCmdEdit(f, nil) }},
	{name: "patch", build: func(f *Factory) *cobra.Command { return NewCmdPatch(f, nil) }},
	{name: "bash", build: func(f *Factory) *cobra.Command { return NewCmdBash(f, nil) }},
	{name: "task", build: func(f *Factory) *cobra.Command { return NewCmdTask(f, nil) }},
	{name: "artifact", build: func(f *Factory) *cobra.Command { return NewCmdArtifact(f, nil) }},
	{name: "todo", build: func(f *Factory) *cobra.Command { return NewCmdTodo(f, nil) }},
	{name: "skills", build: func(f *Factory) *cobra.Command { return NewCmdSkills(f, nil) }},
	{name: "call", build: func(f *Factory) *cobra.Command { return NewCmdCall(f, nil) }},
	{name: "tools", build: func(f *Factory) *cobra.Command { return NewCmdTools(f, nil) }},
	{name: "mcp", build: func(f *Factory) *cobra.Command { return NewCmdMCP(f, nil) }},
	{name: "batch", build: func(f *Factory) *cobra.Command { return NewCmdBatch(f, nil) }},
	{name: "skill", build: func(f *Factory) *cobra.Command { return NewCmdSkill(f, nil) }, wholeTree: true},
	{name: "connector", build: NewCmdConnector},
	{name: "archive", build: NewCmdArchive},
	{name: "guard", build: NewCmdGuard},
	{name: "approve", build: NewCmdApprove},
	{name: "deny", build: NewCmdDeny},
	{name: "audit", build: NewCmdAudit},
	{name: "sandbox", build: NewCmdSandbox},
	{name: "version", build: NewCmdVersion},
	{name: "man", build: NewCmdMan, wholeTree: true},
}

// commandName is the first word of a command line that is not a global
// flag or its value: the subcommand it names, if any. After "--" there
// is none.
func commandName(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ""
		case strings.HasPrefix(a, "--"):
			if name, _, hasValue := strings.Cut(a[2:], "="); !hasValue && slices.Contains(globalValueFlags, name) {
				i++
			}
		case strings.HasPrefix(a, "-") && a != "-":
			if a == "-o" {
				i++
			}
		default:
			return a
		}
	}
	return ""
}

// globalValueFlags are the root's persistent flags that take a value.
var globalValueFlags = []string{"root", "config", "agent", "role", "output", "approval", "timeout"}

func newCmdRoot(f *Factory, only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "mcode <command> [flags]",
		Short: "The tool layer for coding agents: each command prints one JSON result",
		Long: `mcode is one binary of tools a coding agent needs. Piped (to a program, a
script, a model's bash tool) every command prints exactly one JSON object on
stdout ({"ok", "tool", "output", "result", "truncated", "continuation",
"archived", "error", "duration_ms"}); on a terminal it prints the text, and
-o json|text chooses. It exits with a code a script can branch on:
` + tool.ExitCodesLine() + `; mcode bash exits with the command's own status.

Call a tool with flags, or with one JSON object: --args JSON|@FILE|-.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(c *cobra.Command, args []string) error {
			if err := validateGlobal(f); err != nil {
				return err
			}
			f.applyDeadline(c)
			return nil
		},
	}
	// cobra's completion command: mcode completion bash|zsh|fish|powershell
	// prints the script itself (the one command whose stdout is not JSON).
	root.CompletionOptions.HiddenDefaultCmd = false
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.Flags().BoolP("version", "v", false, "print the version (as mcode version)")
	pf := root.PersistentFlags()
	pf.StringVar(&f.Global.Root, "root", "", "workspace root; relative paths resolve here (env MCODE_ROOT; default: current directory)")
	pf.StringVar(&f.Global.Config, "config", "", "config file in place of the workspace's ./.mcode.yaml (env MCODE_CONFIG); it may tighten the policy of the system and user files, never loosen it")
	pf.StringVar(&f.Global.Agent, "agent", "", "agent profile whose tool set applies (env MCODE_AGENT; default: default)")
	pf.StringVar(&f.Global.Role, "role", "", "role that narrows the tool set: "+strings.Join(tool.Roles, ", ")+" (env MCODE_ROLE)")
	pf.StringVarP(&f.Global.Output, "output", "o", "", "output form: "+strings.Join(outputForms, " or ")+" (env MCODE_OUTPUT; default: text on a terminal, else json)")
	pf.StringVar(&f.Global.Approval, "approval", "", "run a call the guard held for approval, once a person approved it (env MCODE_APPROVAL)")
	pf.StringVar(&f.Global.Timeout, "timeout", "", "per-call time limit: seconds (90) or a duration (90s, 2m); each tool has its default")

	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError(c, err)
	})
	defaultHelp := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		var buf bytes.Buffer
		c.SetOut(&buf)
		defaultHelp(c, args)
		c.SetOut(nil)
		var subcommands []string
		for _, sc := range c.Commands() {
			if sc.IsAvailableCommand() {
				subcommands = append(subcommands, sc.Name())
			}
		}
		env := tool.NewEnvelope("help", &tool.Response{
			Output: buf.String(),
			Result: map[string]any{"command": c.CommandPath(), "usage": c.UseLine(), "subcommands": subcommands},
		}, nil)
		printEnvelope(f, env)
	})

	for _, sc := range subcommands {
		if only == "" || sc.name == only {
			root.AddCommand(sc.build(f))
		}
	}
	if only != "" {
		root.CompletionOptions.DisableDefaultCmd = true // the command is not completion
	}
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err == nil && len(rest) > 0 {
				err = unknownCommand(target, rest[0])
			}
			if err != nil {
				return usageError(target, err)
			}
			return target.Help()
		},
	})
	requireSubcommand(root)
	groupRun := root.RunE
	root.RunE = func(c *cobra.Command, args []string) error {
		if v, _ := c.Flags().GetBool("version"); v {
			return finish(f, versionEnvelope())
		}
		return groupRun(c, args)
	}
	return root
}

// requireSubcommand makes the root and every command that only groups
// others refuse an unknown subcommand (a usage error) instead of printing
// its help; alone, it prints its help. (Cobra shows help for a group
// command before it looks at the arguments, and for the root when the
// command is "" or follows "--".)
func requireSubcommand(c *cobra.Command) {
	if c.HasSubCommands() && !c.Runnable() {
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError(c, unknownCommand(c, args[0]))
			}
			return c.Help()
		}
	}
	for _, sc := range c.Commands() {
		requireSubcommand(sc)
	}
}

// unknownCommand is cobra's own error for a command name it does not
// know, suggestions included.
func unknownCommand(c *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, c.CommandPath())
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra's default, set where cobra suggests
	}
	if s := c.SuggestionsFor(name); name != "" && len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return errors.New(msg)
}

// validateGlobal checks the global flags, and the environment variables
// that stand for them, once for every command: a bad value is a usage
// error even where the command would not use it.
func validateGlobal(f *Factory) error {
	for _, g := range []struct {
		flag, env, value string
		allowed          []string
	}{
		{"-o/--output", "MCODE_OUTPUT", f.Global.Output, outputForms},
		{"--role", "MCODE_ROLE", f.Global.Role, tool.Roles},
	} {
		v, from := g.value, g.flag
		if v == "" {
			v, from = f.Getenv(g.env), g.env
		}
		if v != "" && !slices.Contains(g.allowed, v) {
			return &tool.Error{Code: tool.CodeUsage,
				Message: fmt.Sprintf("invalid value %q for %s", v, from),
				Hint:    "use one of: " + strings.Join(g.allowed, ", ")}
		}
	}
	_, err := f.timeout()
	return err
}
