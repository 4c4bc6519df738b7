package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Param is one parameter of a tool as its schema declares it: what a
// command line needs to offer it as a flag, in the schema's order.
type Param struct {
	Name        string
	Description string
	// Types are the JSON types the schema allows ("string", "integer",
	// "number", "boolean", "array", "object"); empty when it says none.
	Types []string
	// ItemTypes are the types an array's items may have.
	ItemTypes []string
	// Enum lists the allowed values, as text, when the schema gives them.
	Enum     []string
	Default  any
	Required bool
}

// Allows says whether the parameter's schema allows the JSON type.
func (p Param) Allows(typ string) bool { return slices.Contains(p.Types, typ) }

// Params lists the tool's parameters in the order its schema declares
// them. It reads the rendered schema, which a call renders anyway.
func (t *Tool) Params() ([]Param, error) {
	if err := t.initSchema(); err != nil {
		return nil, err
	}
	t.paramsOnce.Do(func() { t.paramList, t.paramsErr = parseParams(t.schema) })
	return t.paramList, t.paramsErr
}

// Aliases are the other names the tool takes for its parameters
// (Spec.Aliases), keyed by the alias.
func (t *Tool) Aliases() map[string]Alias { return t.spec.Aliases }

// Positional names the parameters a command line gives without a flag,
// in order (Spec.Positional).
func (t *Tool) Positional() []string { return t.spec.Positional }

// parseParams reads the top-level properties of a schema in the order
// they are written (a map would lose it, and help, usage lines and the
// skill list them in that order).
func parseParams(schema json.RawMessage) ([]Param, error) {
	var top struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(schema, &top); err != nil {
		return nil, err
	}
	if len(top.Properties) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("properties is not an object")
	}
	var out []Param
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var p struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
			Enum        []any  `json:"enum"`
			Default     any    `json:"default"`
			Items       *struct {
				Type any `json:"type"`
			} `json:"items"`
		}
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("property %q: %w", name, err)
		}
		param := Param{Name: name, Description: p.Description, Types: typeList(p.Type), Default: p.Default,
			Required: slices.Contains(top.Required, name)}
		if p.Items != nil {
			param.ItemTypes = typeList(p.Items.Type)
		}
		for _, e := range p.Enum {
			param.Enum = append(param.Enum, fmt.Sprint(e))
		}
		out = append(out, param)
	}
	if _, err := dec.Token(); err != nil && err != io.EOF {
		return nil, err
	}
	return out, nil
}

func typeList(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// ParamNames lists what a caller may name in the arguments: the
// parameters, then the aliases, each group in order.
func (t *Tool) ParamNames() []string {
	params, _ := t.Params()
	names := make([]string, 0, len(params)+len(t.spec.Aliases))
	for _, p := range params {
		names = append(names, p.Name)
	}
	aliases := make([]string, 0, len(t.spec.Aliases))
	for a := range t.spec.Aliases {
		aliases = append(aliases, a)
	}
	slices.Sort(aliases)
	return append(names, aliases...)
}

// ParamsLine is the one-line summary of a tool's parameters for an error
// hint: "edit takes file_path (required), old_string, new_string, …".
func (t *Tool) ParamsLine() string {
	params, err := t.Params()
	if err != nil || len(params) == 0 {
		return fmt.Sprintf("%s takes no parameters", t.Name)
	}
	parts := make([]string, 0, len(params))
	for _, p := range params {
		s := p.Name
		if p.Required {
			s += " (required)"
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("%s takes %s", t.Name, strings.Join(parts, ", "))
}

// ValidateGiven checks the arguments a caller gave against the schema
// without asking for the required ones that are missing: what guard
// check needs to judge `write ~/.ssh/config` on its path alone.
func (t *Tool) ValidateGiven(args json.RawMessage) error {
	if err := t.initSchema(); err != nil {
		return err
	}
	t.givenOnce.Do(func() {
		var obj map[string]json.RawMessage
		if t.givenErr = json.Unmarshal(t.schema, &obj); t.givenErr != nil {
			return
		}
		delete(obj, "required")
		raw, _ := json.Marshal(obj)
		t.given, t.givenErr = compileSchema(t.Name, raw, t.external)
	})
	if t.givenErr != nil {
		return t.givenErr
	}
	err := t.given.validate(args)
	var u *unknownFieldError
	if errors.As(err, &u) {
		return t.unknownField(u.field, u.known)
	}
	return err
}
