package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Schemas that jsonschema-go would follow without end (a stack
// overflow: a fatal error, no recover) are refused when they compile.
func TestHostileSchemaCyclesAreRefused(t *testing.T) {
	for name, schema := range map[string]string{
		"self $ref":          `{"$ref": "#"}`,
		"self in object":     `{"type": "object", "$ref": "#"}`,
		"through $defs":      `{"type": "object", "$ref": "#/$defs/a", "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"$ref": "#/$defs/a"}}}`,
		"through not":        `{"type": "object", "not": {"$ref": "#"}}`,
		"through if":         `{"type": "object", "if": {"$ref": "#"}}`,
		"through anchor":     `{"type": "object", "$defs": {"x": {"$anchor": "x", "anyOf": [{"$ref": "#x"}]}}, "properties": {"p": {"$ref": "#x"}}}`,
		"through $id":        `{"$id": "http://example.com/root.json", "type": "object", "$defs": {"x": {"$id": "x.json", "oneOf": [{"$ref": "x.json"}]}}}`,
		"draft 7 definition": `{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"a": {"$ref": "#/definitions/a"}}, "properties": {"p": {"$ref": "#/definitions/a"}}}`,
		"dependentSchemas":   `{"type": "object", "dependentSchemas": {"k": {"$ref": "#"}}}`,
		"dynamic anchor":     `{"$dynamicAnchor": "node", "type": "object", "allOf": [{"$dynamicRef": "#node"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := CompileSchema("h__t", json.RawMessage(schema))
			if err == nil || !strings.Contains(err.Error(), "would never end") {
				t.Fatalf("CompileSchema(%s) = %v, want a refusal that says validation would never end", schema, err)
			}
		})
	}
}

// A schema that recurses into the value is a normal recursive type: it
// compiles and validates, bounded by the value.
func TestHostileSchemaRecursionIntoTheValue(t *testing.T) {
	tree := `{"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}}}`
	s, err := CompileSchema("h__tree", json.RawMessage(tree))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ValidateArgs(json.RawMessage(`{"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}`)); err != nil {
		t.Fatalf("a valid tree: %v", err)
	}
	err = s.ValidateArgs(json.RawMessage(`{"name": "a", "children": [{"name": "b", "children": [{"name": 3}]}]}`))
	var te *Error
	if !errors.As(err, &te) || te.Code != CodeUsage {
		t.Fatalf("a bad leaf: %v, want a usage error", err)
	}
	// As deep as Go's JSON decoder allows: refused, not followed.
	deep := strings.Repeat(`{"children": [`, 2000) + strings.Repeat(`]}`, 2000)
	err = s.ValidateArgs(json.RawMessage(deep))
	if !errors.As(err, &te) || te.Code != CodeToolError || !strings.Contains(te.Message, "deep") {
		t.Fatalf("2000 levels: %v, want tool_error naming the depth", err)
	}
}

// Work that doubles at each step (allOf: [A, A]) is refused before the
// validator starts, whether it doubles in place or per level of the value.
func TestHostileSchemaExponentialWorkIsRefused(t *testing.T) {
	var defs []string
	for i := range 40 {
		defs = append(defs, fmt.Sprintf(`"a%d": {"allOf": [{"$ref": "#/$defs/a%d"}, {"$ref": "#/$defs/a%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"a40": {"type": "string"}`)
	inPlace := `{"type": "object", "properties": {"x": {"$ref": "#/$defs/a0"}}, "$defs": {` + strings.Join(defs, ",") + `}}`
	perLevel := `{"type": "array", "items": {"allOf": [{"$ref": "#/properties/x"}, {"$ref": "#/properties/x"}]}}`
	for name, c := range map[string]struct{ schema, args string }{
		"in place":  {inPlace, `{"x": "s"}`},
		"per level": {`{"type": "object", "properties": {"x": ` + perLevel + `}}`, `{"x": ` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := CompileSchema("h__t", json.RawMessage(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			err = s.ValidateArgs(json.RawMessage(c.args))
			var te *Error
			if !errors.As(err, &te) || te.Code != CodeToolError || !strings.Contains(te.Message, "steps") {
				t.Fatalf("ValidateArgs: %v, want tool_error naming the step bound", err)
			}
			if err := s.ValidateValue(map[string]any{"x": "s"}); err == nil && name == "in place" {
				t.Fatal("ValidateValue took the same value")
			}
			// A value with no work in it still passes.
			if err := s.ValidateArgs(json.RawMessage(`{}`)); err != nil {
				t.Fatalf("{}: %v", err)
			}
		})
	}
}

func TestHostileSchemaThatCannotBeFollowed(t *testing.T) {
	for name, schema := range map[string]string{
		"deep":    strings.Repeat(`{"items": `, MaxSchemaNesting+5) + `{}` + strings.Repeat(`}`, MaxSchemaNesting+5),
		"missing": `{"type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := CompileSchema("h__t", json.RawMessage(schema)); err == nil {
				t.Fatal("compiled")
			}
		})
	}
}

// An external tool whose schema cannot be used fails as the tool's fault
// (tool_error), never as mcode's (internal).
func TestExternalToolBadSchemaIsToolError(t *testing.T) {
	ext, err := NewExternal(External{Name: "h__self", InputSchema: json.RawMessage(`{"type": "object", "$ref": "#"}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ext.Definition()
	var te *Error
	if !errors.As(err, &te) || te.Code != CodeToolError {
		t.Fatalf("Definition: %v, want tool_error", err)
	}
	if err := ext.Validate(json.RawMessage(`{}`)); !errors.As(err, &te) || te.Code != CodeToolError {
		t.Fatalf("Validate: %v, want tool_error", err)
	}
}

func FuzzMapSchema(f *testing.F) {
	for _, s := range []string{`{"$ref": "#"}`, `{"items": {"$ref": "#"}}`, `{"$defs": {"a": {"$anchor": "a"}}, "allOf": [{"$ref": "#a"}]}`, `true`} {
		f.Add(s, `{"a": [1, {"b": 2}]}`)
	}
	f.Fuzz(func(t *testing.T, schema, value string) {
		s, err := CompileSchema("h__t", json.RawMessage(schema))
		if err != nil {
			return
		}
		_ = s.ValidateArgs(json.RawMessage(value)) // must return, whatever the schema
	})
}
