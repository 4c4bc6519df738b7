package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// validator checks arguments against a tool's schema. It uses
// google/jsonschema-go, the MCP SDK's own validator, which costs nothing at
// start-up (santhosh-tekuri/jsonschema compiles its meta-schemas in init,
// 3.5 ms on every call of every command).
type validator struct {
	tool     string
	resolved *jsonschema.Resolved
}

func compileSchema(name string, raw json.RawMessage) (*validator, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("schema of %s is not JSON Schema: %w", name, err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	return &validator{tool: name, resolved: r}, nil
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
			Message: fmt.Sprintf("invalid arguments for %s: got %s, want an object", v.tool, jsonTypeName(inst)),
			Hint:    `pass one JSON object, e.g. --args '{"key": "value"}'`,
		}
	}
	if err := v.resolved.Validate(inst); err != nil {
		return &Error{
			Code:    CodeUsage,
			Message: fmt.Sprintf("invalid arguments for %s: %s", v.tool, readableValidation(err.Error())),
			Hint:    fmt.Sprintf("`mcode tools list` shows the parameters of %s", v.tool),
		}
	}
	return nil
}

var (
	validatingProp = regexp.MustCompile(`validating /properties/([^:]+): `)
	fraction       = regexp.MustCompile(`(-?\d+)/1\b`)
	trailingZeros  = regexp.MustCompile(`(\d)\.0+\b`)
	typeMismatch   = regexp.MustCompile(`type: (.*) has type "(\w+)", want "?([^"]+)"?$`)
	missingProps   = regexp.MustCompile(`required: missing properties: \[(.*)\]`)
)

// readableValidation rewrites the validator's message so that it names
// the field first: `field "tz": type: 5 has type "integer", want "string"`.
func readableValidation(msg string) string {
	msg = strings.ReplaceAll(msg, "validating root: ", "")
	var fields []string
	for _, m := range validatingProp.FindAllStringSubmatch(msg, -1) {
		fields = append(fields, m[1])
	}
	msg = validatingProp.ReplaceAllString(msg, "")
	msg = fraction.ReplaceAllString(msg, "$1")
	msg = trailingZeros.ReplaceAllString(msg, "$1")
	msg = typeMismatch.ReplaceAllString(msg, "got $2 $1, want $3")
	msg = missingProps.ReplaceAllString(msg, "missing required field $1")
	msg = strings.ReplaceAll(msg, "unexpected additional properties", "unknown fields")
	if len(fields) > 0 {
		msg = fmt.Sprintf("field %q: %s", strings.Join(fields, "."), msg)
	}
	return msg
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
