package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// validator checks arguments against a tool's schema. It uses
// google/jsonschema-go, the MCP SDK's own validator, which costs nothing at
// start-up (santhosh-tekuri/jsonschema compiles its meta-schemas in init,
// 3.5 ms on every call of every command).
type validator struct {
	tool     string
	resolved *jsonschema.Resolved
	// props are the schema's top-level properties, when it allows no
	// others (additionalProperties: false); nil otherwise.
	props map[string]bool
	// graph bounds the work of a validation against a schema from
	// outside mcode (schema_bounds.go); nil for mcode's own.
	graph *schemaGraph
}

// compileSchema compiles a tool's schema. A hostile one (from outside
// mcode) is mapped first, and refused when it could not be validated in
// bounded time and stack.
func compileSchema(name string, raw json.RawMessage, hostile bool) (*validator, error) {
	var graph *schemaGraph
	if hostile {
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("schema of %s is not JSON: %w", name, err)
		}
		var err error
		if graph, err = mapSchema(doc); err != nil {
			return nil, fmt.Errorf("schema of %s cannot be used: %w", name, err)
		}
	}
	s, err := decodeSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("schema of %s is not JSON Schema: %w", name, err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	v := &validator{tool: name, resolved: r, graph: graph}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Not != nil {
		v.props = map[string]bool{}
		for p := range s.Properties {
			v.props[p] = true
		}
	}
	return v, nil
}

// unknownFieldError is a validation failure on an argument the schema
// does not allow; the tool names the closest one it has.
type unknownFieldError struct {
	field string
	known []string
}

func (e *unknownFieldError) Error() string { return fmt.Sprintf("unknown field %q", e.field) }

// unknownField is the first argument (in name order) that the schema
// does not allow, with the names it does; nil when there is none.
func (v *validator) unknownField(obj map[string]any) *unknownFieldError {
	if v.props == nil {
		return nil
	}
	var unknown []string
	for k := range obj {
		if !v.props[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	known := make([]string, 0, len(v.props))
	for p := range v.props {
		known = append(known, p)
	}
	return &unknownFieldError{field: unknown[0], known: known}
}

func (v *validator) validate(args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	var inst any
	dec := json.NewDecoder(bytes.NewReader(args))
	if err := dec.Decode(&inst); err != nil {
		return &Error{
			Code:    CodeUsage,
			Message: fmt.Sprintf("arguments for %s are not valid JSON: %v", v.tool, err),
			Hint:    `pass one JSON object, e.g. --args '{"key": "value"}'`,
		}
	}
	if _, ok := inst.(map[string]any); !ok {
		return &Error{
			Code:    CodeUsage,
			Message: fmt.Sprintf("invalid arguments for %s: got %s, want an object", v.tool, JSONKind(inst)),
			Hint:    `pass one JSON object, e.g. --args '{"key": "value"}'`,
		}
	}
	// Models often send null for a parameter they mean to leave out.
	for k, val := range inst.(map[string]any) {
		if val == nil {
			delete(inst.(map[string]any), k)
		}
	}
	if u := v.unknownField(inst.(map[string]any)); u != nil {
		return u
	}
	if err := v.bounded(inst); err != nil {
		return err
	}
	if err := v.resolved.Validate(inst); err != nil {
		return &Error{
			Code:    CodeUsage,
			Message: fmt.Sprintf("invalid arguments for %s: %s", v.tool, readableValidation(err.Error())),
			Hint:    fmt.Sprintf("`mcode tools list %s` shows its parameters", v.tool),
		}
	}
	return nil
}

// bounded refuses a value whose validation against a hostile schema
// would pass the bounds of schema_bounds.go.
func (v *validator) bounded(inst any) error {
	if v.graph == nil {
		return nil
	}
	if err := v.graph.checkCost(inst); err != nil {
		return &Error{Code: CodeToolError,
			Message: fmt.Sprintf("the arguments for %s cannot be checked against its schema: %v", v.tool, err),
			Hint:    "the tool's schema is too intricate to check safely; pass smaller or flatter arguments, or have the tool's author simplify its schema"}
	}
	return nil
}

type rewrite struct {
	re   *regexp.Regexp
	with string
}

// rewrites turn the validator's wording into the reader's; compiled on
// first use, since every mcode call pays for package-level regexps.
var rewrites = sync.OnceValue(func() []rewrite {
	r := func(pattern, with string) rewrite { return rewrite{regexp.MustCompile(pattern), with} }
	return []rewrite{
		r(`validating root: `, ""),
		r(`validating /properties/([^:]+): `, ""),
		r(`(-?\d+)/1\b`, "$1"),
		r(`(\d)\.0+\b`, "$1"),
		r(`type: <invalid reflect\.Value> has type "null", want one of "([^"]+)"$`, "got null, want one of $1"),
		r(`type: <invalid reflect\.Value> has type "null", want "?([^"]+)"?$`, "got null, want $1"),
		r(`type: (.*) has type "(\w+)", want one of "([^"]+)"$`, "got $2 $1, want one of $3"),
		r(`type: (.*) has type "(\w+)", want "?([^"]+)"?$`, "got $2 $1, want $3"),
		r(`required: missing properties: \[("[^"]*")\]`, "missing required field $1"),
		r(`required: missing properties: \[(.*)\]`, "missing required fields $1"),
		r(`minimum: (\S+) is less than (\S+)`, "got $1, must be at least $2"),
		r(`maximum: (\S+) is greater than (\S+)`, "got $1, must be at most $2"),
		r(`exclusiveMinimum: (\S+) is less than or equal to (\S+)`, "got $1, must be more than $2"),
		r(`unexpected additional properties`, "unknown fields"),
	}
})

var validatingProp = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`validating /properties/([^:]+): `)
})

// readableValidation rewrites the validator's message so that it names
// the field first: `field "offset": got 0, must be at least 1`, and a
// nested one as the path a caller writes: `field "edits[].expect_count"`.
func readableValidation(msg string) string {
	field := ""
	if m := validatingProp().FindAllStringSubmatch(msg, -1); len(m) > 0 {
		field = fieldPath(m[len(m)-1][1]) // the deepest schema location
	}
	for _, rw := range rewrites() {
		msg = rw.re.ReplaceAllString(msg, rw.with)
	}
	if field != "" {
		msg = fmt.Sprintf("field %q: %s", field, msg)
	}
	return msg
}

// fieldPath turns a schema location below /properties/ into the path of
// the value: "edits/items/properties/expect_count" is "edits[].expect_count".
func fieldPath(loc string) string {
	parts := strings.Split(loc, "/")
	var b strings.Builder
	b.WriteString(parts[0])
	for i := 1; i < len(parts); i++ {
		switch parts[i] {
		case "items":
			b.WriteString("[]")
		case "properties":
			if i+1 < len(parts) {
				i++
				b.WriteString("." + parts[i])
			}
		}
	}
	return b.String()
}

// JSONKind names the kind of a decoded JSON value for a message: "an
// array", "a number" (float64 or json.Number), "null"….
func JSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
