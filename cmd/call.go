package cmd

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/fsutil"

	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// annotationNoField marks a flag that is not a schema field (it is read by
// the command itself, like --content-file).
const annotationNoField = "mcode.nofield"

// CallOptions is one tool call: the tool's name and its arguments as a
// JSON object, whether they came from flags and positionals or --args.
type CallOptions struct {
	Tool string
	// ArgsSource is --args: a JSON object, @FILE, or - for stdin.
	ArgsSource string
	// Args is the merged arguments object: --args first, then flags and
	// positionals over it.
	Args map[string]any
}

// JSON encodes the arguments object.
func (o *CallOptions) JSON() json.RawMessage {
	if o.Args == nil {
		return json.RawMessage("{}")
	}
	data, _ := json.Marshal(o.Args)
	return data
}

// addArgsFlag adds --args, the JSON form of a call.
func addArgsFlag(c *cobra.Command, opts *CallOptions) {
	c.Flags().StringVar(&opts.ArgsSource, "args", "", "all parameters as one JSON object, @FILE, or - for stdin (flags given too override its keys)")
	_ = c.Flags().SetAnnotation("args", annotationNoField, []string{"true"})
}

// noField marks flags the command reads itself.
func noField(c *cobra.Command, names ...string) {
	for _, n := range names {
		_ = c.Flags().SetAnnotation(n, annotationNoField, []string{"true"})
	}
}

// collectArgs builds opts.Args from --args, then the positionals (named by
// fields, in order) and every flag the user set, converted to JSON types.
// A flag --foo-bar fills the field foo_bar.
func collectArgs(c *cobra.Command, in io.Reader, opts *CallOptions, fields []string, positionals []string) error {
	args := map[string]any{}
	if c.Flags().Changed("args") {
		raw, err := readArgsSource(c.Context(), opts.ArgsSource, in)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(raw, utf8BOM)))
		dec.UseNumber()
		var obj any
		err = dec.Decode(&obj)
		if end := dec.InputOffset(); err == nil {
			if _, after := dec.Token(); after != io.EOF {
				err = fmt.Errorf("more follows the JSON value at byte %d", end)
			}
		} else if errors.Is(err, io.EOF) {
			err = errors.New("it is empty")
		}
		if err != nil {
			return &tool.Error{Code: tool.CodeUsage,
				Message: fmt.Sprintf("--args is not valid JSON: %v", err),
				Hint:    `pass one JSON object, e.g. --args '{"path": "main.go"}', or --args @file.json, or --args - with the JSON on stdin`}
		}
		m, ok := obj.(map[string]any)
		if !ok {
			return &tool.Error{Code: tool.CodeUsage,
				Message: fmt.Sprintf("--args must be a JSON object, got %s", tool.JSONKind(obj)),
				Hint:    `wrap the parameters in an object, e.g. --args '{"path": "main.go"}'`}
		}
		args = m
	}
	for i, v := range positionals {
		if i < len(fields) && (fields[i] == "path" || fields[i] == "file_path") {
			// A name that is not UTF-8 travels as \xHH, which the tools
			// take back (fsutil.InputPath).
			v = fsutil.DisplayPath(v)
		}
		if i < len(fields) {
			if err := checkUTF8(fields[i], v); err != nil {
				return err
			}
			args[fields[i]] = v
		}
	}
	var convErr error
	c.Flags().Visit(func(fl *pflag.Flag) {
		if convErr != nil || fl.Annotations[annotationNoField] != nil || c.InheritedFlags().Lookup(fl.Name) != nil {
			return
		}
		v, err := flagValue(fl)
		if err == nil {
			err = checkUTF8("--"+fl.Name, v)
		}
		if err != nil {
			convErr = err
			return
		}
		args[strings.ReplaceAll(fl.Name, "-", "_")] = v
	})
	if convErr != nil {
		return convErr
	}
	opts.Args = args
	return nil
}

// checkUTF8 refuses an argument JSON cannot carry: encoding it would turn
// its stray bytes into U+FFFD and name another file, or write other text.
func checkUTF8(name string, v any) error {
	values, _ := v.([]string)
	if s, ok := v.(string); ok {
		values = []string{s}
	}
	for _, s := range values {
		if !utf8.ValidString(s) {
			return &tool.Error{Code: tool.CodeUsage,
				Message: fmt.Sprintf("%s %q is not valid UTF-8: tool arguments travel as JSON text, which cannot carry those bytes", name, s),
				Hint:    "text must be UTF-8 (convert it with iconv); a file whose name has such bytes can be reached through a glob in mcode bash (mcode bash 'cat ./report*.txt'); every tool takes such a name with \\xHH for each stray byte, as grep, glob and trash list show it (caf\\xE9.txt)"}
		}
	}
	return nil
}

// utf8BOM starts the JSON files some editors save; JSON allows a reader
// to skip it.
var utf8BOM = []byte("\ufeff")

func readArgsSource(ctx context.Context, src string, in io.Reader) ([]byte, error) {
	switch {
	case src == "-":
		data, err := readInput(ctx, "--args from stdin", func() ([]byte, error) { return io.ReadAll(in) })
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("reading --args from stdin: %v", err),
				Hint: "pipe the JSON object into mcode, or pass it with --args JSON or --args @FILE"}
		}
		return data, nil
	case strings.HasPrefix(src, "@"):
		// A FIFO or a process substitution blocks until written to.
		data, err := readInput(ctx, "--args "+src, func() ([]byte, error) { return os.ReadFile(src[1:]) })
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, &tool.Error{Code: tool.CodeUsage,
				Message: fmt.Sprintf("reading --args file: %v", err),
				Hint:    "--args @FILE reads the JSON object from FILE"}
		}
		return data, nil
	}
	return []byte(src), nil
}

func flagValue(fl *pflag.Flag) (any, error) {
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		return sv.GetSlice(), nil
	}
	s := fl.Value.String()
	switch fl.Value.Type() {
	case "bool":
		return strconv.ParseBool(s)
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "count":
		return strconv.ParseInt(s, 10, 64)
	case "float32", "float64":
		return strconv.ParseFloat(s, 64)
	}
	return s, nil
}

// NewCmdCall builds `mcode call TOOL --args JSON`: the same call as the
// tool's own command, for programs that only speak JSON.
func NewCmdCall(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{}
	c := &cobra.Command{
		Use:   "call TOOL [--args JSON|@FILE|-]",
		Short: "Call any tool by name with a JSON object of arguments",
		Example: `  mcode call datetime --args '{"tz":"Asia/Tokyo"}'
  echo '{"tz":"UTC"}' | mcode call datetime --args -`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Tool = args[0]
			if err := collectArgs(c, f.IO.In, opts, nil, nil); err != nil {
				return err
			}
			return callTool(c, f, opts, runF)
		},
	}
	addArgsFlag(c, opts)
	return c
}

// callTool hands a parsed call to runF (command tests pass one to see what
// the flags became) or runs it.
func callTool(c *cobra.Command, f *Factory, opts *CallOptions, runF func(*CallOptions) error) error {
	if runF != nil {
		return runF(opts)
	}
	return runCall(callContext(c.Context()), f, opts)
}

// runCall executes a call through the process's dispatcher and prints
// its envelope.
func runCall(ctx context.Context, f *Factory, opts *CallOptions) error {
	return finish(f, f.Call(ctx, opts.Tool, opts.JSON()))
}

// Call runs one tool call through the dispatcher. It never fails: every
// outcome is an envelope.
func (f *Factory) Call(ctx context.Context, name string, args json.RawMessage) *tool.Envelope {
	start := time.Now()
	d, err := f.Dispatcher()
	if err != nil {
		env := tool.NewEnvelope(name, nil, err)
		env.DurationMS = time.Since(start).Milliseconds()
		return env
	}
	return d.Do(ctx, dispatch.Request{Tool: name, Args: args, Approval: f.approval()})
}

// interrupted is the error of a call that SIGINT or SIGTERM stopped.
func interrupted() *tool.Error { return dispatch.Interrupted() }

// approval is --approval, else MCODE_APPROVAL.
func (f *Factory) approval() string {
	return cmp.Or(f.Global.Approval, f.Getenv("MCODE_APPROVAL"))
}

// ignorePolicy records a loosening the caller asked for and did not get.
func (f *Factory) ignorePolicy(key, layer, why string) {
	ig := config.Ignored{Key: key, Layer: layer, Why: why}
	if !slices.Contains(f.policyIgnored, ig) {
		f.policyIgnored = append(f.policyIgnored, ig)
	}
}

// PolicyIgnored are the loosenings of the policy this call asked for and
// did not get, from every layer (result.policy_ignored).
func (f *Factory) PolicyIgnored() []config.Ignored { return f.policyIgnored }
