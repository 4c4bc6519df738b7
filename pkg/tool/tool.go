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
	"time"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tmpl"
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

// Facts are what a tool does to the world, declared once on its Spec.
// Roles, the guard's defaults and the MCP annotations all read them.
type Facts struct {
	// ReadOnly: the tool changes nothing (MCP readOnlyHint).
	ReadOnly bool `json:"read_only"`
	// Destructive: it may delete or overwrite (MCP destructiveHint).
	Destructive bool `json:"destructive"`
	// Idempotent: calling it again with the same arguments changes
	// nothing more (MCP idempotentHint).
	Idempotent bool `json:"idempotent"`
	// OpenWorld: it reaches beyond the workspace, such as the network or
	// programs of their own (MCP openWorldHint).
	OpenWorld bool `json:"open_world"`
	// Processes: it starts processes.
	Processes bool `json:"processes"`
	// Tasks: it reads or controls background tasks.
	Tasks bool `json:"tasks"`
	// Delegates: it hands work to another agent.
	Delegates bool `json:"delegates"`
	// SessionState: what it changes is mcode's own state of the session
	// (the todo list), never a file of the workspace.
	SessionState bool `json:"session_state"`
}

// ChangesFiles says whether the tool may change files by itself: it is
// not read-only and is no shell (what a shell command does is for the
// guard to judge) and keeps no mere session state.
func (f Facts) ChangesFiles() bool { return !f.ReadOnly && !f.Processes && !f.SessionState }

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
	// Live, when set, is a terminal where a person watches the call: a
	// tool may show its output there as it comes (bash does), and says so
	// with Response.Shown.
	Live io.Writer
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
	Name string
	// OtherNames are names a caller may call the tool by besides Name
	// (web_fetch is also fetch, its command's name); rules and agent
	// lists that name one of them mean the tool.
	OtherNames []string
	Mode       Mode
	Tier       Tier
	Timeout    time.Duration // default per-call limit; 0 means none
	Facts      Facts
	// Aliases are other names callers use for parameters (see Alias).
	// An alias written as a dash and one letter ("-i") is also the short
	// form of the parameter's flag on the command line.
	Aliases map[string]Alias
	// Positional names the parameters a command line gives in order
	// without a flag (mcode read PATH); the last one takes every further
	// word when it is a list. The first is the call's main parameter
	// (guard check TOOL VALUE fills it).
	Positional []string
	// Paths names the paths a call touches, for the path policy; nil for
	// a tool that touches none (PathParams covers the usual case).
	Paths func(args json.RawMessage) []PathUse
	// Escalation, when set, says why a call needs a person's approval
	// whatever the rules (see EscalationFunc).
	Escalation EscalationFunc
	// URLParam names the parameter that holds the URL a call fetches:
	// the guard's rules match it as written and as it will be fetched.
	URLParam    string
	Description string
	Schema      string
	Data        any
}

// RunFunc runs a tool on its decoded, schema-checked parameters.
type RunFunc[P any] func(ctx context.Context, env *Env, params P) (*Response, error)

// ExecFunc runs a tool on arguments that were already checked against
// its schema.
type ExecFunc func(ctx context.Context, env *Env, args json.RawMessage) (*Response, error)

// Tool is one registered tool.
type Tool struct {
	Name       string
	OtherNames []string
	Mode       Mode
	Tier       Tier
	Source     Source
	Timeout    time.Duration
	Facts      Facts
	// Untrusted is set for a tool whose definition comes from a config
	// layer the caller can write: the guard holds its calls until a person
	// trusted the definition.
	Untrusted *Untrusted

	spec Spec
	// external is set for a tool built by NewExternal: its description
	// and schemas are used as given, never rendered as templates.
	external     bool
	outputSchema json.RawMessage
	params       any // a zero value of the Params type, for Check
	run          ExecFunc
	escalation   EscalationFunc

	schemaOnce sync.Once
	schema     json.RawMessage
	validator  *validator
	schemaErr  error

	descOnce    sync.Once
	description string
	descErr     error

	paramsOnce sync.Once
	paramList  []Param
	paramsErr  error

	givenOnce sync.Once
	given     *validator
	givenErr  error
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
		Name: spec.Name, OtherNames: spec.OtherNames, Mode: spec.Mode, Tier: spec.Tier, Source: Builtin, Timeout: spec.Timeout,
		Facts:      spec.Facts,
		spec:       spec,
		params:     zero,
		escalation: spec.Escalation,
		run: func(ctx context.Context, env *Env, args json.RawMessage) (*Response, error) {
			var p P
			if err := decodeParams(args, &p); err != nil {
				return nil, &Error{Code: CodeUsage, Message: fmt.Sprintf("arguments for %s: %v", spec.Name, err),
					Hint: fmt.Sprintf("`mcode tools list %s` shows its parameters", spec.Name)}
			}
			return run(ctx, env, p)
		},
	}
}

// External declares a tool that comes from outside mcode's code: an MCP
// server's tool, a command tool from config. Its description and schemas
// are used as they are (an MCP server's schema may well contain "{{").
type External struct {
	Name         string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage // optional
	Mode         Mode
	Tier         Tier
	Source       Source
	Facts        Facts
	Timeout      time.Duration
	// Aliases are other names the tool takes for its parameters, as its
	// server publishes them (mcode's own tools over mcp serve).
	Aliases   map[string]Alias
	Untrusted *Untrusted
	// Escalation: see Spec.Escalation.
	Escalation EscalationFunc
}

// NewExternal builds a tool from a plain definition. run gets the
// arguments as the caller sent them, after they passed InputSchema. The
// schema must be a JSON object; it is compiled on first use.
func NewExternal(def External, run ExecFunc) (*Tool, error) {
	if def.Mode == "" {
		def.Mode = Sequential
	}
	if def.Tier == "" {
		def.Tier = Core
	}
	if def.Source == "" {
		def.Source = Configured
	}
	schema := bytes.TrimSpace(def.InputSchema)
	if len(schema) == 0 {
		schema = []byte(`{"type":"object"}`)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(schema, &obj); err != nil {
		return nil, fmt.Errorf("tool %s: the input schema is not a JSON object: %w", def.Name, err)
	}
	if out := bytes.TrimSpace(def.OutputSchema); len(out) > 0 {
		if err := json.Unmarshal(out, &obj); err != nil {
			return nil, fmt.Errorf("tool %s: the output schema is not a JSON object: %w", def.Name, err)
		}
	}
	return &Tool{
		Name: def.Name, Mode: def.Mode, Tier: def.Tier, Source: def.Source, Timeout: def.Timeout, Facts: def.Facts,
		Untrusted: def.Untrusted, spec: Spec{Aliases: def.Aliases},
		external: true, outputSchema: bytes.TrimSpace(def.OutputSchema), escalation: def.Escalation,
		schema: json.RawMessage(schema), description: strings.TrimSpace(def.Description),
		run: run,
	}, nil
}

// Names are the tool's name, then its other names.
func (t *Tool) Names() []string { return append([]string{t.Name}, t.OtherNames...) }

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
		if t.external {
			// The schema came from outside mcode: one that cannot be used
			// is the tool's fault, not mcode's.
			if t.validator, t.schemaErr = compileSchema(t.Name, t.schema, true); t.schemaErr != nil {
				t.schemaErr = &Error{Code: CodeToolError, Message: t.schemaErr.Error(),
					Hint: "the tool's definition must be fixed where it comes from (its MCP server, or the command tool's config)"}
			}
			return
		}
		var schema string
		schema, t.schemaErr = render(t.Name+" schema", t.spec.Schema, t.spec.Data)
		if t.schemaErr != nil {
			return
		}
		t.schema = json.RawMessage(schema)
		t.validator, t.schemaErr = compileSchema(t.Name, t.schema, false)
	})
	return t.schemaErr
}

func (t *Tool) initDescription() error {
	t.descOnce.Do(func() {
		if t.external {
			return
		}
		t.description, t.descErr = render(t.Name+" description", t.spec.Description, t.spec.Data)
	})
	return t.descErr
}

func render(name, src string, data any) (string, error) {
	s, err := tmpl.Render(name, src, data)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(s), nil
}

// Definition is what a model or a program sees of a tool.
type Definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// OutputSchema is the shape of result, where the tool declares one.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Mode         Mode            `json:"mode"`
	Tier         Tier            `json:"tier"`
	Source       Source          `json:"source"`
	Facts        Facts           `json:"facts"`
	// Trust is "untrusted" for a tool whose definition waits for a
	// person's trust (Tool.Untrusted); else empty.
	Trust string `json:"trust,omitempty"`
	// Aliases are the other names the tool takes for its parameters
	// (shown as MCP _meta, not in mcode's own listing).
	Aliases map[string]Alias `json:"-"`
}

// Definition renders the tool's description and schema.
func (t *Tool) Definition() (Definition, error) {
	if err := t.initSchema(); err != nil {
		return Definition{}, err
	}
	if err := t.initDescription(); err != nil {
		return Definition{}, err
	}
	d := Definition{
		Name: t.Name, Description: t.description, InputSchema: t.schema, OutputSchema: t.outputSchema,
		Mode: t.Mode, Tier: t.Tier, Source: t.Source, Facts: t.Facts, Aliases: t.spec.Aliases,
	}
	if t.Untrusted != nil {
		d.Trust = "untrusted"
	}
	return d, nil
}

// Validate checks args against the tool's schema. A violation is a usage
// error that names the field; an unknown field is named with the
// closest one the tool has.
func (t *Tool) Validate(args json.RawMessage) error {
	if err := t.initSchema(); err != nil {
		return err
	}
	err := t.validator.validate(args)
	var u *unknownFieldError
	if errors.As(err, &u) {
		return t.unknownField(u.field, u.known)
	}
	var te *Error
	if errors.As(err, &te) {
		te.BadArgs = true
	}
	return err
}

// Run rewrites aliases, validates args and runs the tool.
func (t *Tool) Run(ctx context.Context, env *Env, args json.RawMessage) (*Response, error) {
	args, err := t.Normalize(args)
	if err != nil {
		return nil, err
	}
	if err := t.Validate(args); err != nil {
		return nil, err
	}
	return t.Execute(ctx, env, args)
}

// Execute runs the tool on arguments that already passed Validate.
func (t *Tool) Execute(ctx context.Context, env *Env, args json.RawMessage) (*Response, error) {
	return t.run(ctx, env, args)
}
