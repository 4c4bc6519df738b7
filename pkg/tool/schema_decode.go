package tool

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// decodeSchema is json.Unmarshal into a jsonschema.Schema, done by hand
// for the keywords mcode's own schemas use. jsonschema-go's decoder
// reflects over the sixty fields of Schema on first use and decodes every
// node twice: about 0.4 ms of a small call's start, paid by every call,
// since each is a process of its own. Any other keyword, and any value of
// a type the keyword does not take, goes to json.Unmarshal, so the result
// is the same schema either way (FuzzDecodeSchema checks it).
func decodeSchema(raw []byte) (*jsonschema.Schema, error) {
	if s, ok := fastSchema(raw); ok {
		return s, nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// fastSchema is the hand decoder; ok is false for what it leaves to
// json.Unmarshal.
func fastSchema(raw []byte) (*jsonschema.Schema, bool) {
	if !json.Valid(raw) {
		return nil, false
	}
	// Numbers stay text, to be read as jsonschema-go reads each one.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	// A key given twice keeps its last value in a map, while
	// json.Unmarshal reads (and may refuse) each: such input is left to
	// it. Every member has one colon outside the strings.
	if dec.Decode(&v) != nil || members(v) != colonsOutsideStrings(raw) {
		return nil, false
	}
	return schemaOf(v)
}

// members counts the members of every object in a decoded JSON value.
func members(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		n += len(v)
		for _, e := range v {
			n += members(e)
		}
	case []any:
		for _, e := range v {
			n += members(e)
		}
	}
	return n
}

// colonsOutsideStrings counts the name separators of valid JSON.
func colonsOutsideStrings(raw []byte) int {
	n, inString, escaped := 0, false, false
	for _, c := range raw {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && c == ':':
			n++
		}
	}
	return n
}

// schemaOf builds the schema a decoded JSON value stands for; ok is false
// for anything beyond the keywords it knows.
func schemaOf(v any) (*jsonschema.Schema, bool) {
	switch v := v.(type) {
	case bool:
		if v {
			return &jsonschema.Schema{}, true
		}
		return &jsonschema.Schema{Not: &jsonschema.Schema{}}, true
	case map[string]any:
		s := &jsonschema.Schema{}
		for k, val := range v {
			if !setKeyword(s, k, val) {
				return nil, false
			}
		}
		return s, true
	}
	return nil, false
}

// setKeyword sets one keyword of s from its decoded value.
func setKeyword(s *jsonschema.Schema, k string, val any) bool {
	var ok bool
	switch k {
	case "type":
		switch t := val.(type) {
		case string:
			s.Type, ok = t, true
		case []any:
			s.Types, ok = stringsOf(t)
		}
	case "description":
		s.Description, ok = val.(string)
	case "title":
		s.Title, ok = val.(string)
	case "pattern":
		s.Pattern, ok = val.(string)
	case "format":
		s.Format, ok = val.(string)
	case "required":
		var list []any
		if list, ok = val.([]any); ok {
			s.Required, ok = stringsOf(list)
		}
	case "enum":
		var list []any
		if list, ok = val.([]any); ok {
			var e any
			e, ok = floats(list)
			s.Enum, _ = e.([]any)
		}
	case "properties":
		var m map[string]any
		if m, ok = val.(map[string]any); ok {
			s.Properties = make(map[string]*jsonschema.Schema, len(m))
			for name, sub := range m {
				if s.Properties[name], ok = schemaOf(sub); !ok {
					return false
				}
			}
		}
	case "additionalProperties":
		s.AdditionalProperties, ok = schemaOf(val)
	case "items":
		s.Items, ok = schemaOf(val)
	case "minimum":
		s.Minimum, ok = number(val)
	case "maximum":
		s.Maximum, ok = number(val)
	case "exclusiveMinimum":
		s.ExclusiveMinimum, ok = number(val)
	case "exclusiveMaximum":
		s.ExclusiveMaximum, ok = number(val)
	case "minLength":
		s.MinLength, ok = integer(val)
	case "maxLength":
		s.MaxLength, ok = integer(val)
	case "minItems":
		s.MinItems, ok = integer(val)
	case "maxItems":
		s.MaxItems, ok = integer(val)
	}
	return ok
}

func stringsOf(list []any) ([]string, bool) {
	out := make([]string, len(list))
	for i, v := range list {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

func number(v any) (*float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	f, err := strconv.ParseFloat(string(n), 64) // as encoding/json reads a float64
	return &f, err == nil
}

// integer reads an integer keyword as jsonschema-go does: with a decimal
// point, a float that must be whole; without, an int64; either within 32
// bits.
func integer(v any) (*int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	var i int64
	if strings.Contains(string(n), ".") {
		f, err := strconv.ParseFloat(string(n), 64)
		if i = int64(f); err != nil || float64(i) != f {
			return nil, false
		}
	} else {
		var err error
		if i, err = strconv.ParseInt(string(n), 10, 64); err != nil {
			return nil, false
		}
	}
	if i < math.MinInt32 || i > math.MaxInt32 {
		return nil, false
	}
	r := int(i)
	return &r, true
}

// floats turns the numbers in a decoded value into float64, as
// json.Unmarshal into an any has them.
func floats(v any) (any, bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		return f, err == nil
	case []any:
		for i, e := range v {
			var ok bool
			if v[i], ok = floats(e); !ok {
				return nil, false
			}
		}
	case map[string]any:
		for k, e := range v {
			var ok bool
			if v[k], ok = floats(e); !ok {
				return nil, false
			}
		}
	}
	return v, true
}
