package tool

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Schema is a compiled JSON Schema that came from outside mcode (an MCP
// tool's inputSchema or outputSchema), checked with the same validator
// and the same field-naming messages as a built-in tool's.
type Schema struct{ v *validator }

// CompileSchema compiles raw, naming the tool in errors.
func CompileSchema(toolName string, raw json.RawMessage) (*Schema, error) {
	v, err := compileSchema(toolName, raw, true)
	if err != nil {
		return nil, err
	}
	return &Schema{v: v}, nil
}

// ValidateArgs checks a call's arguments object: a violation is a usage
// error that names the field.
func (s *Schema) ValidateArgs(args json.RawMessage) error {
	err := s.v.validate(args)
	var u *unknownFieldError
	if errors.As(err, &u) {
		return unknownFieldUsage(s.v.tool, u.field, u.known)
	}
	return err
}

// ValidateValue checks any JSON value (a tool's structured result); the
// message names the field.
func (s *Schema) ValidateValue(v any) error {
	if err := s.v.bounded(v); err != nil {
		return err
	}
	if err := s.v.resolved.Validate(v); err != nil {
		return fmt.Errorf("%s", readableValidation(err.Error()))
	}
	return nil
}
