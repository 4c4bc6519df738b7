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
	"path/filepath"
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

// CallOptions is one tool call: the tool's name and its arguments as a
// JSON object, whether they came from flags and positionals or --args.
type CallOptions struct {
	Tool string
	// ArgsSource is --args: a JSON object, @FILE, or - for stdin.
	ArgsSource string
	// Args is the merged arguments object: --args first, then flags and
	// positionals over it.
	Args map[string]any
	// Inputs are the files read into Args (--args @FILE, a flag's @FILE,
	// --content-file, the patch's FILE), absolute: the guard judges them
	// as reads.
	Inputs []string
}

// readFrom notes that the arguments hold the text of the file name
// (- is stdin, no file).
func (o *CallOptions) readFrom(name string) {
	if name == "" || name == "-" {
		return
	}
	if abs, err := filepath.Abs(name); err == nil {
		name = abs
	}
	o.Inputs = append(o.Inputs, name)
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
}

// toolArgs builds opts.Args for a call of the command's tool: --args,
// then the positionals in the tool's order (the last taking every
// further one when it is a list), then the flags the caller set.
func (f *Factory) toolArgs(c *cobra.Command, opts *CallOptions, positionals []string) error {
	var fields []string
	list := false
	t := f.builtin(opts.Tool)
	if t != nil {
		fields = t.Positional()
		list = len(fields) > 0 && listParam(t, fields[len(fields)-1])
	}
	if err := collectArgs(c, f.IO.In, opts, fields, list, positionals); err != nil {
		return err
	}
	// One value of a parameter that takes one or a list stays one value,
	// as it always was (hooks and audit see "path": "a.py").
	if list {
		last := fields[len(fields)-1]
		if v, ok := opts.Args[last].([]string); ok && len(v) == 1 && paramAllows(t, last, "string") {
			opts.Args[last] = v[0]
		}
	}
	return nil
}

// pathFields are the parameters whose values name files: a name that is
// not UTF-8 travels as \xHH, which the tools take back
// (fsutil.InputPath).
var pathFields = []string{"path", "file_path", "paths", "targets"}

// collectArgs builds opts.Args from --args, then the positionals (named by
// fields, in order; with list, the last field takes the rest as a list)
// and every flag the user set that fills an argument, converted to JSON
// types.
func collectArgs(c *cobra.Command, in io.Reader, opts *CallOptions, fields []string, list bool, positionals []string) error {
	args := map[string]any{}
	if c.Flags().Changed("args") {
		raw, err := readArgsSource(c.Context(), opts.ArgsSource, in)
		if err != nil {
			return err
		}
		if src, ok := strings.CutPrefix(opts.ArgsSource, "@"); ok {
			opts.readFrom(src)
		}
		m, err := decodeArgs(raw)
		if err != nil {
			return err
		}
		args = m
	}
	for i, v := range positionals {
		if i >= len(fields) {
			break
		}
		field := fields[i]
		if slices.Contains(pathFields, field) {
			v = fsutil.DisplayPath(v)
		}
		if err := checkUTF8(field, v); err != nil {
			return err
		}
		if list && i == len(fields)-1 {
			rest := make([]string, 0, len(positionals)-i)
			for _, r := range positionals[i:] {
				if slices.Contains(pathFields, field) {
					r = fsutil.DisplayPath(r)
				}
				if err := checkUTF8(field, r); err != nil {
					return err
				}
				rest = append(rest, r)
			}
			args[field] = rest
			break
		}
		args[field] = v
	}
	var convErr error
	given := map[string]*pflag.Flag{} // argument: the flag that gave it
	c.Flags().Visit(func(fl *pflag.Flag) {
		key := fl.Annotations[annotationField]
		if convErr != nil || len(key) == 0 {
			return
		}
		v, err := flagValue(c, in, fl)
		if err == nil {
			err = checkUTF8("--"+fl.Name, v)
		}
		if jv, ok := fl.Value.(*jsonValue); ok && strings.HasPrefix(jv.raw, "@") {
			opts.readFrom(jv.raw[1:])
		}
		if err != nil {
			convErr = err
			return
		}
		if values := fl.Annotations[annotationValues]; len(values) > 0 {
			var m map[string]any
			if s, ok := v.(string); ok && json.Unmarshal([]byte(values[0]), &m) == nil {
				if mapped, ok := m[s]; ok {
					v = mapped
				}
			}
		}
		if other, ok := given[key[0]]; ok && fmt.Sprint(args[key[0]]) != fmt.Sprint(v) {
			convErr = &tool.Error{Code: tool.CodeUsage,
				Message: fmt.Sprintf("--%s and --%s both give %s, with different values", other.Name, fl.Name, key[0]),
				Hint:    "pass one of them"}
			return
		}
		given[key[0]] = fl
		args[key[0]] = v
	})
	if convErr != nil {
		return convErr
	}
	opts.Args = args
	return nil
}

// decodeArgs decodes --args: one JSON object, numbers kept exact.
func decodeArgs(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(raw, utf8BOM)))
	dec.UseNumber()
	var obj any
	err := dec.Decode(&obj)
	if end := dec.InputOffset(); err == nil {
		if _, after := dec.Token(); after != io.EOF {
			err = fmt.Errorf("more follows the JSON value at byte %d", end)
		}
	} else if errors.Is(err, io.EOF) {
		err = errors.New("it is empty")
	}
	if err != nil {
		return nil, &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("--args is not valid JSON: %v", err),
			Hint:    `pass one JSON object, e.g. --args '{"path": "main.go"}', or --args @file.json, or --args - with the JSON on stdin`}
	}
	m, ok := obj.(map[string]any)
	if !ok {
		return nil, &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("--args must be a JSON object, got %s", tool.JSONKind(obj)),
			Hint:    `wrap the parameters in an object, e.g. --args '{"path": "main.go"}'`}
	}
	return m, nil
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

func flagValue(c *cobra.Command, in io.Reader, fl *pflag.Flag) (any, error) {
	if jv, ok := fl.Value.(*jsonValue); ok {
		v, err := readJSONFlag(c.Context(), in, "--"+fl.Name, jv.raw)
		if err == nil && len(jv.types) > 0 && !slices.Contains(jv.types, jsonType(v)) {
			err = &tool.Error{Code: tool.CodeUsage,
				Message: fmt.Sprintf("--%s takes JSON of type %s, got %s", fl.Name, strings.Join(jv.types, " or "), tool.JSONKind(v)),
				Hint:    fmt.Sprintf("pass --%s the JSON value itself, @FILE, or - for stdin", fl.Name)}
		}
		return v, err
	}
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

// jsonType is the JSON Schema type of a decoded value.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

// readJSONFlag reads the value of a JSON flag: the JSON itself, @FILE,
// or - for stdin.
func readJSONFlag(ctx context.Context, in io.Reader, flag, src string) (any, error) {
	raw := []byte(src)
	switch {
	case src == "-":
		text, err := readTextFile(ctx, in, flag, "-")
		if err != nil {
			return nil, err
		}
		raw = []byte(text)
	case strings.HasPrefix(src, "@"):
		text, err := readTextFile(ctx, in, flag, src[1:])
		if err != nil {
			return nil, err
		}
		raw = []byte(text)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("%s is not JSON: %v", flag, err),
			Hint:    fmt.Sprintf(`pass %s the JSON value itself (e.g. '[{"old_string":"a","new_string":"b"}]'), @FILE, or - for stdin`, flag)}
	}
	return v, nil
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
			if err := collectArgs(c, f.IO.In, opts, nil, false, nil); err != nil {
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
	return callToolThen(c, f, opts, runF, nil)
}

// callToolThen is callTool with a last look at the envelope before it
// is printed (edit says what it changed in its input).
func callToolThen(c *cobra.Command, f *Factory, opts *CallOptions, runF func(*CallOptions) error, then func(*tool.Envelope)) error {
	if runF != nil {
		return runF(opts)
	}
	env := f.call(callContext(c.Context()), dispatch.Request{Tool: opts.Tool, Args: opts.JSON(), Inputs: opts.Inputs})
	withUsage(c, env)
	if then != nil {
		then(env)
	}
	return finish(f, env)
}

// withUsage answers arguments that do not fit a tool's schema, given to
// the tool's own command, with the command's one-line usage.
func withUsage(c *cobra.Command, env *tool.Envelope) {
	if e := env.Error; e != nil && e.BadArgs && c.Annotations[annotationTool] != "" {
		e.Hint = "usage: " + usageLine(c, true)
	}
}

// Call runs one tool call through the dispatcher. It never fails: every
// outcome is an envelope.
func (f *Factory) Call(ctx context.Context, name string, args json.RawMessage) *tool.Envelope {
	return f.call(ctx, dispatch.Request{Tool: name, Args: args})
}

// call runs a request through the dispatcher, with the approval the
// command line names.
func (f *Factory) call(ctx context.Context, r dispatch.Request) *tool.Envelope {
	start := time.Now()
	d, err := f.Dispatcher()
	if err != nil {
		env := tool.NewEnvelope(r.Tool, nil, err)
		env.DurationMS = time.Since(start).Milliseconds()
		return env
	}
	r.Approval = f.approval()
	return d.Do(ctx, r)
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
