package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Check verifies that the tool's description renders, its schema compiles,
// and the schema's properties are exactly the JSON fields of its Params
// type with matching JSON types. Tests call it for every built-in tool.
func (t *Tool) Check() error {
	if _, err := t.Definition(); err != nil {
		return err
	}
	if t.description == "" {
		return fmt.Errorf("%s: empty description", t.Name)
	}
	var s struct {
		Type                 string                     `json:"type"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(t.schema, &s); err != nil {
		return fmt.Errorf("%s: %w", t.Name, err)
	}
	if s.Type != "object" {
		return fmt.Errorf("%s: schema type is %q, want object", t.Name, s.Type)
	}
	if s.AdditionalProperties == nil || *s.AdditionalProperties {
		return fmt.Errorf("%s: schema must set additionalProperties: false", t.Name)
	}
	fields := jsonFields(reflect.TypeOf(t.params))
	var problems []string
	for name, ft := range fields {
		raw, ok := s.Properties[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("field %q of the Params struct is not in the schema", name))
			continue
		}
		var p struct {
			Type  any    `json:"type"`
			OneOf []any  `json:"oneOf"`
			AnyOf []any  `json:"anyOf"`
			Desc  string `json:"description"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("%s.%s: %w", t.Name, name, err)
		}
		if p.Desc == "" {
			problems = append(problems, fmt.Sprintf("property %q has no description", name))
		}
		if want := jsonKind(ft); want != "" && p.Type != nil && !typeAllows(p.Type, want) {
			problems = append(problems, fmt.Sprintf("property %q has type %v, the Go field is %s", name, p.Type, want))
		}
	}
	for name := range s.Properties {
		if _, ok := fields[name]; !ok {
			problems = append(problems, fmt.Sprintf("schema property %q has no field in the Params struct", name))
		}
	}
	for _, r := range s.Required {
		if _, ok := fields[r]; !ok {
			problems = append(problems, fmt.Sprintf("required %q is not a field", r))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("%s: %s", t.Name, strings.Join(problems, "; "))
	}
	return nil
}

func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	if t == nil {
		return out
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return out
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return "" // interfaces and custom types: not checked
}

func typeAllows(schemaType any, want string) bool {
	allows := func(s string) bool {
		return s == want || (want == "integer" && s == "number") || (want == "number" && s == "integer")
	}
	switch v := schemaType.(type) {
	case string:
		return allows(v)
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok && allows(s) {
				return true
			}
		}
	}
	return false
}

// WriteParameters lists a schema's parameters for a person or a model,
// one a line in name order: "  name (type, required): description",
// under a "Parameters:" line. With short, a description keeps its first
// line only. It reports whether there was any parameter.
func WriteParameters(w *strings.Builder, schema json.RawMessage, short bool) bool {
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return false
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	w.WriteString("Parameters:\n")
	for _, n := range names {
		p := s.Properties[n]
		req := ""
		if slices.Contains(s.Required, n) {
			req = ", required"
		}
		typ := "any"
		if p.Type != nil {
			typ = fmt.Sprint(p.Type)
		}
		desc := p.Description
		if short {
			desc = FirstLine(desc)
		}
		fmt.Fprintf(w, "  %s (%s%s): %s\n", n, typ, req, desc)
	}
	return true
}

// FirstLine is the first line of a text, trimmed: a description's
// summary.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}
