package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcode-dev/mcode/pkg/edit"
	"github.com/mcode-dev/mcode/pkg/textedit"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// NewCmdEdit builds `mcode edit PATH --old S --new S [--replace-all]`.
func NewCmdEdit(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: edit.EditName}
	var oldFile, newFile string
	c := &cobra.Command{
		Use:   "edit PATH [flags]",
		Short: "Replace text in a file, changing only the bytes of the matched span",
		Long: `Replace old_string with new_string in a file. Exact match first, then a fuzzy
match (Unicode forms, curly quotes, dashes, special spaces, trailing
whitespace; never tabs vs spaces) that only locates: the original bytes
around the span are kept. Encoding, BOM, line breaks, final newline and mode
survive. Multi-line strings come from --old-file/--new-file (- for stdin) or
--args. Nothing is written on failure.`,
		Example: `  mcode edit main.go --old 'return 1' --new 'return 2'
  mcode edit main.go --old TODO --new DONE --replace-all --expect-count 3
  mcode edit main.go --old-file old.txt --new-file new.txt --dry-run
  mcode edit main.go --edits '[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]'
  mcode edit --args '{"file_path":"main.go","old_string":"a","new_string":"b"}'`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := oneStdin(c, opts.ArgsSource, oldFile, newFile); err != nil {
				return err
			}
			if err := f.toolArgs(c, opts, args); err != nil {
				return err
			}
			fromFile := map[string]string{} // field: the flag whose file gave it
			for _, s := range []struct{ flag, file, field string }{
				{"--old-file", oldFile, "old_string"},
				{"--new-file", newFile, "new_string"},
			} {
				if s.file == "" {
					continue
				}
				text, err := readTextFile(c.Context(), f.IO.In, s.flag, s.file)
				if err != nil {
					return err
				}
				opts.readFrom(s.file)
				opts.Args[s.field] = text
				fromFile[s.field] = s.flag
			}
			notes := dropFileNewline(opts.Args, fromFile)
			return callToolThen(c, f, opts, runF, func(env *tool.Envelope) { noteEdit(env, notes) })
		},
	}
	fl := c.Flags()
	fl.StringVar(&oldFile, "old-file", "", "read old_string from a file (- for stdin)")
	fl.StringVar(&newFile, "new-file", "", "read new_string from a file (- for stdin)")
	f.toolCommand(c, opts)
	c.MarkFlagsMutuallyExclusive("old-string", "old", "old-file")
	c.MarkFlagsMutuallyExclusive("new-string", "new", "new-file")
	return c
}

// dropFileNewline drops the final newline a file (a heredoc, an editor)
// puts after the text of --old-file or --new-file, when the other string
// has none: old "a" with new "b\n" from a heredoc would add a line.
func dropFileNewline(args map[string]any, fromFile map[string]string) []string {
	var notes []string
	for field, other := range map[string]string{"old_string": "new_string", "new_string": "old_string"} {
		flag, ok := fromFile[field]
		text, _ := args[field].(string)
		counterpart, isText := args[other].(string)
		if !ok || !isText || !strings.HasSuffix(text, "\n") || strings.HasSuffix(counterpart, "\n") {
			continue
		}
		trimmed := strings.TrimSuffix(text, "\n")
		trimmed = strings.TrimSuffix(trimmed, "\r")
		args[field] = trimmed
		notes = append(notes, fmt.Sprintf("the final newline of %s was dropped, since %s has none", flag, other))
	}
	slices.Sort(notes)
	return notes
}

// noteEdit says in the result what the command changed in its input.
func noteEdit(env *tool.Envelope, notes []string) {
	if len(notes) == 0 {
		return
	}
	text := strings.Join(notes, "; ")
	if env.Error != nil {
		env.Error.Hint = strings.TrimPrefix(env.Error.Hint+" ("+text+")", " ")
		return
	}
	if res, ok := env.Result.(*edit.Result); ok {
		res.Notes = append(res.Notes, notes...)
	}
	if env.Output != nil {
		first, rest, _ := strings.Cut(*env.Output, "\n")
		out := first + " (" + text + ")\n" + rest
		env.Output = &out
	}
}

// oneStdin refuses a command line where two sources both read stdin:
// the given ones (--args, --old-file…) and every JSON flag set to -.
func oneStdin(c *cobra.Command, sources ...string) error {
	n := 0
	for _, s := range sources {
		if s == "-" {
			n++
		}
	}
	c.Flags().Visit(func(fl *pflag.Flag) {
		if jv, ok := fl.Value.(*jsonValue); ok && jv.raw == "-" {
			n++
		}
	})
	if n > 1 {
		return &tool.Error{Code: tool.CodeUsage,
			Message: "more than one input reads stdin (-)",
			Hint:    "read at most one of them from stdin; give the others as files or flags"}
	}
	return nil
}

// readTextFile reads a flag's text from a file or stdin (-). The text
// must be UTF-8: bytes that are not would reach the tool as U+FFFD. It
// reads no more than the largest file write and edit handle, so a huge
// input costs no more memory than that.
// readTextFile reads the text of a --*-file flag (or stdin for -), giving
// up when the call is interrupted: opening a FIFO without a writer, or
// reading a terminal, would otherwise block for ever.
func readTextFile(ctx context.Context, in io.Reader, flag, name string) (string, error) {
	what := flag + " " + name
	if name == "-" {
		what = flag + " from stdin"
	}
	return readInput(ctx, what, func() (string, error) { return readTextFileNow(in, flag, name) })
}

func readTextFileNow(in io.Reader, flag, name string) (string, error) {
	const limit = textedit.MaxFileMiB << 20
	tooLarge := &tool.Error{Code: tool.CodeTooLarge,
		Message: fmt.Sprintf("%s %s holds more than the %d MiB write and edit handle", flag, name, textedit.MaxFileMiB),
		Hint:    "change a file this large with a command (cp, sed) through bash"}
	r := in
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("%s: %v", flag, err),
				Hint: flag + " FILE reads the text from FILE, or from stdin with -"}
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
			return "", tooLarge
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return "", &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("%s: %v", flag, err),
			Hint: flag + " FILE reads the text from FILE, or from stdin with -"}
	}
	if len(data) > limit {
		return "", tooLarge
	}
	if !utf8.Valid(data) {
		return "", &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("%s %s is not valid UTF-8 text", flag, name),
			Hint:    "give the text as UTF-8; mcode decodes and re-encodes the file itself"}
	}
	return string(data), nil
}
