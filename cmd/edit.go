package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/edit"
	"github.com/mcode-dev/mcode/pkg/textedit"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// NewCmdEdit builds `mcode edit PATH --old S --new S [--replace-all]`.
func NewCmdEdit(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Tool: edit.EditName}
	var oldS, newS, oldFile, newFile, edits string
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
		Args:        cobra.MaximumNArgs(1),
		Annotations: map[string]string{annotationTool: edit.EditName},
		RunE: func(c *cobra.Command, args []string) error {
			if err := oneStdin(opts.ArgsSource, oldFile, newFile, edits); err != nil {
				return err
			}
			if err := collectArgs(c, f.IO.In, opts, []string{"file_path"}, args); err != nil {
				return err
			}
			for _, s := range []struct{ flag, value, file, field string }{
				{"old", oldS, oldFile, "old_string"},
				{"new", newS, newFile, "new_string"},
			} {
				switch {
				case c.Flags().Changed(s.flag):
					opts.Args[s.field] = s.value
				case s.file != "":
					text, err := readTextFile(c.Context(), f.IO.In, "--"+s.flag+"-file", s.file)
					if err != nil {
						return err
					}
					opts.Args[s.field] = text
				}
			}
			if edits != "" {
				list, err := readEditsFlag(c.Context(), f.IO.In, edits)
				if err != nil {
					return err
				}
				opts.Args["edits"] = list
			}
			return callTool(c, f, opts, runF)
		},
	}
	fl := c.Flags()
	fl.StringVar(&oldS, "old", "", "the text to replace (old_string), exactly as in the file")
	fl.StringVar(&newS, "new", "", "the text to put in its place (new_string), written as given")
	fl.StringVar(&oldFile, "old-file", "", "read old_string from a file (- for stdin)")
	fl.StringVar(&newFile, "new-file", "", "read new_string from a file (- for stdin)")
	fl.Bool("replace-all", false, "replace every occurrence instead of requiring exactly one")
	fl.Int("expect-count", 0, "refuse unless old_string occurs exactly N times")
	fl.StringVar(&edits, "edits", "", `several edits as a JSON array [{"old_string","new_string","replace_all"}], @FILE, or - for stdin`)
	fl.String("if-match", "", "sha256 of the file as read returned it; refuse (stale) if its bytes changed since")
	fl.Bool("dry-run", false, "show the diff, write nothing")
	noField(c, "old", "new", "old-file", "new-file", "edits")
	c.MarkFlagsMutuallyExclusive("old", "old-file")
	c.MarkFlagsMutuallyExclusive("new", "new-file")
	addArgsFlag(c, opts)
	return c
}

// oneStdin refuses a command line where two sources both read stdin.
func oneStdin(sources ...string) error {
	n := 0
	for _, s := range sources {
		if s == "-" {
			n++
		}
	}
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

// readEditsFlag parses --edits: a JSON array, @FILE or - for stdin.
func readEditsFlag(ctx context.Context, in io.Reader, src string) (any, error) {
	raw := []byte(src)
	switch {
	case src == "-":
		text, err := readTextFile(ctx, in, "--edits", "-")
		if err != nil {
			return nil, err
		}
		raw = []byte(text)
	case len(src) > 0 && src[0] == '@':
		text, err := readTextFile(ctx, in, "--edits", src[1:])
		if err != nil {
			return nil, err
		}
		raw = []byte(text)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var list []any
	if err := dec.Decode(&list); err != nil {
		return nil, &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("--edits is not a JSON array: %v", err),
			Hint:    `pass --edits '[{"old_string":"a","new_string":"b"}]', or @FILE, or - for stdin`}
	}
	return list, nil
}
