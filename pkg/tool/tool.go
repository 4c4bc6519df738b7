// Package tool is the contract in code: a tool's definition, the result
// envelope, typed errors with stable codes, the registry and the output
// budget. Every tool package builds a *Tool with New; cmd/ runs it.
package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/mcode-dev/mcode/pkg/config"
)

// Mode says whether calls of a tool may run side by side.
type Mode string

const (
	Parallel   Mode = "parallel"
	Sequential Mode = "sequential"
)

// Tier says whether a tool is listed by default or enabled on demand.
type Tier string

const (
	Core      Tier = "core"
	Extension Tier = "extension"
)

// Source says where a tool comes from.
type Source string

const (
	Builtin    Source = "builtin"
	Configured Source = "configured"
)

// Env is what a running tool may know about its caller.
type Env struct {
	Root     string // workspace root, absolute
	DataDir  string // MCODE_HOME
	UserHome string // $HOME, for ~ in paths
	Role     string // the caller's role (RoleWorker, RoleVerifier, RoleExplore) or ""
	Config   *config.Config
	Now      func() time.Time
	// Stderr takes progress bars and warnings; StderrIsTerminal says
	// whether a person is watching it.
	Stderr           io.Writer
	StderrIsTerminal bool
	// Getenv reads the caller's environment (XDG_DATA_HOME, …); nil means
	// the process's own. Use LookupEnv.
	Getenv func(key string) string
	// Session names the caller's conversation (MCODE_SESSION, or an mcp
	// serve connection); "" when there is none. State kept per session
	// (the todo list) falls back to the workspace root.
	Session string
}

// LookupEnv reads one variable of the caller's environment.
func (e *Env) LookupEnv(key string) string {
	if e.Getenv != nil {
		return e.Getenv(key)
	}
	return os.Getenv(key)
}

// Abs resolves a path the caller gave: ~ expands to the user's home, a
// relative path joins the workspace root.
func (e *Env) Abs(p string) string {
	switch {
	case p == "~" && e.UserHome != "":
		return e.UserHome
	case strings.HasPrefix(p, "~/") && e.UserHome != "":
		return filepath.Join(e.UserHome, p[2:])
	case !filepath.IsAbs(p):
		return filepath.Join(e.Root, p)
	}
	return filepath.Clean(p)
}

// Spec declares a built-in tool. Description and Schema are text/template
// sources rendered with Data, so limits written in them come from the
// code's constants and cannot drift.
type Spec struct {
	Name        string
	Mode        Mode
	Tier        Tier
	Timeout     time.Duration // default per-call limit; 0 means none
	Description string
	Schema      string
	Data        any
}

// RunFunc runs a tool on its decoded, schema-checked parameters.
type RunFunc[P any] func(ctx context.Context, env *Env, params P) (*Response, error)

// Tool is one registered tool.
type Tool struct {
	Name    string
	Mode    Mode
	Tier    Tier
	Source  Source
	Timeout time.Duration

	spec   Spec
	params any // a zero value of the Params type, for Check
	run    func(ctx context.Context, env *Env, args json.RawMessage) (*Response, error)

	schemaOnce sync.Once
	schema     json.RawMessage
	validator  *validator
	schemaErr  error

	descOnce    sync.Once
	description string
	descErr     error
}

// New builds a built-in tool whose parameters decode into P.
func New[P any](spec Spec, run RunFunc[P]) *Tool {
	if spec.Tier == "" {
		spec.Tier = Core
	}
	if spec.Mode == "" {
		spec.Mode = Sequential
	}
	var zero P
	return &Tool{
		Name: spec.Name, Mode: spec.Mode, Tier: spec.Tier, Source: Builtin, Timeout: spec.Timeout,
		spec:   spec,
		params: zero,
		run: func(ctx context.Context, env *Env, args json.RawMessage) (*Response, error) {
			var p P
			if err := decodeParams(args, &p); err != nil {
				return nil, &Error{Code: CodeUsage, Message: fmt.Sprintf("arguments for %s: %v", spec.Name, err),
					Hint: fmt.Sprintf("`mcode tools list` shows the parameters of %s", spec.Name)}
			}
			return run(ctx, env, p)
		},
	}
}

// decodeParams decodes schema-checked arguments into p. JSON Schema counts
// 2.0 and 1e3 as integers; encoding/json does not, so a number that fails
// to decode is written as an integer when it is one, and decoded again.
func decodeParams(args json.RawMessage, p any) error {
	decode := func(data []byte) error {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		return dec.Decode(p)
	}
	err := decode(args)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || !strings.HasPrefix(te.Value, "number") {
		return err
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return err
	}
	data, merr := json.Marshal(integralNumbers(v))
	if merr != nil {
		return err
	}
	if decode(data) != nil {
		return err
	}
	return nil
}

// integralNumbers rewrites every number with no fractional part (2.0,
// 1e3) as an integer (2, 1000).
func integralNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = integralNumbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = integralNumbers(x)
		}
	case json.Number:
		if f, err := v.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return json.Number(strconv.FormatInt(int64(f), 10))
		}
	}
	return v
}

// initSchema renders and compiles the schema once, lazily, so that a call
// pays only for the tool it runs, and never for descriptions it does not
// print.
func (t *Tool) initSchema() error {
	t.schemaOnce.Do(func() {
		var schema string
		schema, t.schemaErr = render(t.Name+" schema", t.spec.Schema, t.spec.Data)
		if t.schemaErr != nil {
			return
		}
		t.schema = json.RawMessage(schema)
		t.validator, t.schemaErr = compileSchema(t.Name, t.schema)
	})
	return t.schemaErr
}

func (t *Tool) initDescription() error {
	t.descOnce.Do(func() {
		t.description, t.descErr = render(t.Name+" description", t.spec.Description, t.spec.Data)
	})
	return t.descErr
}

func render(name, src string, data any) (string, error) {
	tpl, err := template.New(name).Option("missingkey=error").Parse(src)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := tpl.Execute(&b, data); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}

// Definition is what a model or a program sees of a tool.
type Definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Mode        Mode            `json:"mode"`
	Tier        Tier            `json:"tier"`
	Source      Source          `json:"source"`
}

// Definition renders the tool's description and schema.
func (t *Tool) Definition() (Definition, error) {
	if err := t.initSchema(); err != nil {
		return Definition{}, err
	}
	if err := t.initDescription(); err != nil {
		return Definition{}, err
	}
	return Definition{
		Name: t.Name, Description: t.description, InputSchema: t.schema,
		Mode: t.Mode, Tier: t.Tier, Source: t.Source,
	}, nil
}

// Validate checks args against the tool's schema. A violation is a usage
// error that names the field.
func (t *Tool) Validate(args json.RawMessage) error {
	if err := t.initSchema(); err != nil {
		return err
	}
	return t.validator.validate(args)
}

// Run validates args and runs the tool.
func (t *Tool) Run(ctx context.Context, env *Env, args json.RawMessage) (*Response, error) {
	if err := t.Validate(args); err != nil {
		return nil, err
	}
	return t.run(ctx, env, args)
}
