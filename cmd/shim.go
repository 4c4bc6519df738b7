package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/tool"
	"github.com/mcode-dev/mcode/pkg/trash"
)

// ShimName is the name under which mcode behaves as rm (busybox style:
// MCODE_HOME/shims/rm is a symlink to the mcode binary).
const ShimName = trash.ShimName

// NewCmdShim builds `mcode shim install [--dir D]`.
func NewCmdShim(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "shim <command>",
		Short: "The rm shim: mcode answering to the name rm, deleting into the trash",
		Args:  cobra.NoArgs,
	}
	var dir string
	install := &cobra.Command{
		Use:   "install [--dir D]",
		Short: "Make D/rm (default MCODE_HOME/" + trash.ShimDirName + "/rm) a link to this mcode",
		Long: `Makes D/rm a symlink to the running mcode binary. Run under the name rm,
mcode behaves as rm (same flags, messages and exit codes, no JSON) but moves
what it deletes to the trash. mcode bash puts MCODE_HOME/shims first on PATH
and rebuilds the link before each command, so this is only needed to use the
shim elsewhere: put D first on your PATH.`,
		Example: "  mcode shim install\n  mcode shim install --dir ~/.local/bin",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			name := "shim install"
			exe, err := f.Executable()
			if err == nil {
				exe, err = filepath.EvalSymlinks(exe)
			}
			if err != nil {
				return finish(f, tool.NewEnvelope(name, nil, fmt.Errorf("finding the mcode binary: %w", err)))
			}
			target := filepath.Join(f.HomeDir(), trash.ShimDirName)
			if dir != "" {
				target = (&tool.Env{Root: mustGetwd(f), UserHome: f.userHome()}).Abs(dir)
			}
			if err := trash.InstallShim(target, exe); err != nil {
				return finish(f, tool.NewEnvelope(name, nil, &tool.Error{Code: tool.CodePermission,
					Message: err.Error(), Hint: "pick a writable folder with --dir"}))
			}
			link := filepath.Join(target, ShimName)
			return finish(f, tool.NewEnvelope(name, &tool.Response{
				Output: fmt.Sprintf("%s -> %s\nput %s first on PATH to delete into the trash\n", link, exe, target),
				Result: map[string]any{"dir": target, "link": link, "target": exe},
			}, nil))
		},
	}
	install.Flags().StringVar(&dir, "dir", "", "folder for the rm link (default MCODE_HOME/"+trash.ShimDirName+")")
	c.AddCommand(install)
	return c
}

func mustGetwd(f *Factory) string {
	wd, _ := f.Getwd()
	return wd
}

// rmArgs is a parsed rm command line.
type rmArgs struct {
	opts     trash.RmOptions
	operands []string
	help     bool
	version  bool
}

// rmUsageError is a command line rm rejects: its message lines, then
// "Try 'rm --help' for more information.", exit 1.
type rmUsageError struct{ lines []string }

func (e *rmUsageError) Error() string { return strings.Join(e.lines, "\n") }

var rmLongOptions = []string{
	"force", "interactive", "one-file-system", "no-preserve-root", "preserve-root",
	"recursive", "dir", "verbose", "help", "version", "-presume-input-tty",
}

// parseRmArgs reads rm's command line as GNU rm's getopt_long does:
// bundled short options, options after operands (permutation), "--",
// unambiguous prefixes of long options, --interactive[=WHEN].
func parseRmArgs(args []string, utf8Locale bool) (*rmArgs, error) {
	a := &rmArgs{}
	lq, rq := "'", "'"
	if utf8Locale {
		lq, rq = "\u2018", "\u2019"
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			a.operands = append(a.operands, args[i+1:]...)
			return a, nil
		case strings.HasPrefix(arg, "--"):
			name, value, hasValue := strings.Cut(arg[2:], "=")
			full, err := matchLong(name)
			if err != nil {
				return nil, err
			}
			if hasValue && full != "interactive" && full != "preserve-root" {
				return nil, &rmUsageError{[]string{fmt.Sprintf("option '--%s' doesn't allow an argument", full)}}
			}
			switch full {
			case "force":
				a.opts.Prompt, a.opts.Force = trash.PromptNever, true
			case "interactive":
				when := "always"
				if hasValue {
					w, ok := matchWhen(value)
					if !ok {
						return nil, &rmUsageError{[]string{
							fmt.Sprintf("invalid argument %s%s%s for %s--interactive%s", lq, value, rq, lq, rq),
							"Valid arguments are:",
							fmt.Sprintf("  - %snever%s, %sno%s, %snone%s", lq, rq, lq, rq, lq, rq),
							fmt.Sprintf("  - %sonce%s", lq, rq),
							fmt.Sprintf("  - %salways%s, %syes%s", lq, rq, lq, rq),
						}}
					}
					when = w
				}
				switch when {
				case "never":
					a.opts.Prompt = trash.PromptNever
				case "once":
					a.opts.Prompt, a.opts.Force = trash.PromptOnce, false
				default:
					a.opts.Prompt, a.opts.Force = trash.PromptAlways, false
				}
			case "recursive":
				a.opts.Recursive = true
			case "dir":
				a.opts.Dir = true
			case "verbose":
				a.opts.Verbose = true
			case "no-preserve-root":
				a.opts.NoPreserveRoot = true
			case "preserve-root":
				a.opts.NoPreserveRoot = false
			case "help":
				a.help = true
			case "version":
				a.version = true
			}
		case len(arg) > 1 && arg[0] == '-':
			for _, ch := range arg[1:] {
				switch ch {
				case 'f':
					a.opts.Prompt, a.opts.Force = trash.PromptNever, true
				case 'i':
					a.opts.Prompt, a.opts.Force = trash.PromptAlways, false
				case 'I':
					a.opts.Prompt, a.opts.Force = trash.PromptOnce, false
				case 'r', 'R':
					a.opts.Recursive = true
				case 'd':
					a.opts.Dir = true
				case 'v':
					a.opts.Verbose = true
				default:
					return nil, &rmUsageError{[]string{fmt.Sprintf("invalid option -- '%c'", ch)}}
				}
			}
		default:
			a.operands = append(a.operands, arg)
		}
	}
	return a, nil
}

func matchLong(name string) (string, error) {
	var found []string
	for _, o := range rmLongOptions {
		if o == name {
			return o, nil
		}
		if strings.HasPrefix(o, name) && name != "" {
			found = append(found, o)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", &rmUsageError{[]string{fmt.Sprintf("unrecognized option '--%s'", name)}}
	}
	quoted := make([]string, len(found))
	for i, o := range found {
		quoted[i] = "'--" + o + "'"
	}
	return "", &rmUsageError{[]string{fmt.Sprintf("option '--%s' is ambiguous; possibilities: %s", name, strings.Join(quoted, " "))}}
}

// matchWhen reads --interactive's argument, abbreviations allowed as
// argmatch allows them.
func matchWhen(v string) (string, bool) {
	words := map[string]string{"never": "never", "no": "never", "none": "never", "once": "once", "always": "always", "yes": "always"}
	if w, ok := words[v]; ok {
		return w, true
	}
	match := ""
	for k, w := range words {
		if v != "" && strings.HasPrefix(k, v) {
			if match != "" && match != w {
				return "", false
			}
			match = w
		}
	}
	return match, match != ""
}

const rmHelp = `Usage: rm [OPTION]... [FILE]...
Remove (unlink) the FILE(s) -- into the trash: this rm is mcode's shim.

  -f, --force           ignore nonexistent files and arguments, never prompt
  -i                    prompt before every removal (needs a terminal)
  -I                    prompt once before removing more than three files, or
                          when removing recursively (needs a terminal)
      --interactive[=WHEN]  prompt according to WHEN: never, once (-I), or
                          always (-i); without WHEN, prompt always
      --one-file-system  accepted; a directory goes to the trash whole
      --no-preserve-root  accepted, but / is refused anyway
      --preserve-root   do not remove '/' (always on)
  -r, -R, --recursive   remove directories and their contents recursively
  -d, --dir             remove empty directories
  -v, --verbose         explain what is being done
      --help     display this help and exit
      --version  output version information and exit

Everything removed goes to the FreeDesktop.org trash ($XDG_DATA_HOME/Trash);
list it with 'mcode trash list', bring it back with 'mcode trash restore ID'.
'/', $HOME, the workspace root ($MCODE_ROOT) and their parents are refused.
`

// RunRm is mcode invoked as rm: rm's command line, rm's messages on
// stderr, rm's exit status (0, or 1 when anything failed), no JSON.
func RunRm(ctx context.Context, f *Factory, args []string) int {
	utf8Locale := trash.UTF8Locale(f.Getenv)
	quote := func(s string) string { return trash.QuoteRm(s, utf8Locale) }
	errf := func(format string, a ...any) { fmt.Fprintf(f.IO.ErrOut, "rm: "+format+"\n", a...) }
	parsed, err := parseRmArgs(args, utf8Locale)
	var ue *rmUsageError
	if errors.As(err, &ue) {
		errf("%s", ue.lines[0])
		for _, l := range ue.lines[1:] {
			fmt.Fprintln(f.IO.ErrOut, l)
		}
		fmt.Fprintln(f.IO.ErrOut, "Try 'rm --help' for more information.")
		return 1
	}
	switch {
	case parsed.help:
		fmt.Fprint(f.IO.Out, rmHelp)
		return 0
	case parsed.version:
		fmt.Fprintf(f.IO.Out, "rm (mcode) %s\n", version)
		return 0
	case len(parsed.operands) == 0:
		if parsed.opts.Force {
			return 0
		}
		errf("missing operand")
		fmt.Fprintln(f.IO.ErrOut, "Try 'rm --help' for more information.")
		return 1
	}
	cfg, err := f.Config()
	if err != nil {
		errf("%s", tool.AsError(err).Message)
		return 1
	}
	cwd, err := f.Getwd()
	if err != nil {
		errf("cannot find the current directory: %v", err)
		return 1
	}
	env := &tool.Env{Root: cwd, UserHome: f.userHome(), Config: cfg, Now: f.Now, Getenv: f.Getenv}
	opts := parsed.opts
	opts.Quote = quote
	opts.Protected = []trash.Protected{{Path: env.UserHome, What: "the home directory"}}
	for _, v := range []string{trash.ShimRootVar, "MCODE_ROOT"} {
		if root := f.Getenv(v); root != "" {
			opts.Protected = append(opts.Protected, trash.Protected{Path: env.Abs(root), What: "the workspace root"})
		}
	}
	opts.Ask = f.rmAsker("rm: ")
	results, err := trash.New(env).Rm(ctx, opts, cwd, parsed.operands)
	if errors.Is(err, trash.ErrCannotAsk) {
		errf("cannot ask for confirmation: standard input is not a terminal; nothing removed")
		return 1
	}
	status := 0
	for _, r := range results {
		for _, l := range r.Verbose {
			if r.Err == nil || len(r.Entries) > 0 {
				fmt.Fprintln(f.IO.Out, l)
			}
		}
		if r.Err != nil {
			status = 1
			for _, l := range r.Err.Lines {
				errf("%s", l)
			}
		}
	}
	if err != nil {
		errf("%v", err)
		status = 1
	}
	return status
}
