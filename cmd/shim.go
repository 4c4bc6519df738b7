package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

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
shim elsewhere: put D first on your PATH. An rm already in D that is not a
link to this mcode (a real rm, a script) is refused, never replaced.`,
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
			// MCODE_HOME/shims is mcode's own: whatever is in the way
			// goes. A folder given with --dir is the user's.
			var target string
			if dir == "" {
				target, err = trash.EnsureShim(f.HomeDir(), exe)
			} else {
				target = (&tool.Env{Root: mustGetwd(f), UserHome: f.userHome()}).Abs(dir)
				err = trash.InstallShim(target, exe)
			}
			if err != nil {
				var te *tool.Error
				if !errors.As(err, &te) {
					te = &tool.Error{Code: tool.CodePermission, Message: err.Error(), Hint: "pick a writable folder with --dir"}
				}
				return finish(f, tool.NewEnvelope(name, nil, te))
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
	parsed, err := trash.ParseRmArgs(args, utf8Locale)
	var ue *trash.RmUsageError
	if errors.As(err, &ue) {
		errf("%s", ue.Lines[0])
		for _, l := range ue.Lines[1:] {
			fmt.Fprintln(f.IO.ErrOut, l)
		}
		fmt.Fprintln(f.IO.ErrOut, "Try 'rm --help' for more information.")
		return 1
	}
	switch {
	case parsed.Help:
		fmt.Fprint(f.IO.Out, rmHelp)
		return 0
	case parsed.Version:
		fmt.Fprintf(f.IO.Out, "rm (mcode) %s\n", version)
		return 0
	case len(parsed.Operands) == 0:
		if parsed.Opts.Force {
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
	opts := parsed.Opts
	opts.Quote = quote
	opts.Protected = []trash.Protected{{Path: env.UserHome, What: "the home directory"}}
	for _, v := range []string{trash.ShimRootVar, "MCODE_ROOT"} {
		if root := f.Getenv(v); root != "" {
			opts.Protected = append(opts.Protected, trash.Protected{Path: env.Abs(root), What: "the workspace root"})
		}
	}
	opts.Ask = f.rmAsker("rm: ")
	results, err := trash.New(env).Rm(ctx, opts, cwd, parsed.Operands)
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
