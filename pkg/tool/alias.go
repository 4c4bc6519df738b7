package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcode-dev/mcode/pkg/nearest"
)

// Alias is another name a caller may give one of a tool's parameters:
// the names models were trained on (Claude Code's file_path, output_mode,
// head_limit, -C) and the ones people know from ripgrep. An alias is
// rewritten to the tool's own name before the schema checks the call, so
// both are validated by the same schema.
type Alias struct {
	// Param is the tool's own parameter the alias stands for.
	Param string
	// Values maps the alias's values onto the parameter's, where they
	// differ (output_mode files_with_matches is mode files).
	Values map[string]any
}

// Normalize rewrites the aliases in args to the tool's own parameter
// names. Giving both an alias and its parameter, with different values,
// is a usage error.
func (t *Tool) Normalize(args json.RawMessage) (json.RawMessage, error) {
	aliases := t.spec.Aliases
	if len(aliases) == 0 || !mentionsAny(args, aliases) {
		return args, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return args, nil // the schema check says what is wrong with it
	}
	names := make([]string, 0, len(aliases))
	for name := range aliases {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		raw, ok := obj[name]
		if !ok {
			continue
		}
		a := aliases[name]
		if len(a.Values) > 0 {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				if v, ok := a.Values[s]; ok {
					raw, _ = json.Marshal(v)
				}
			}
		}
		if prev, ok := obj[a.Param]; ok && !bytes.Equal(bytes.TrimSpace(prev), bytes.TrimSpace(raw)) && string(prev) != "null" {
			return nil, &Error{Code: CodeUsage,
				Message: fmt.Sprintf("arguments for %s give both %q and %q, another name for it, with different values", t.Name, a.Param, name),
				Hint:    fmt.Sprintf("pass only %q", a.Param)}
		}
		delete(obj, name)
		obj[a.Param] = raw
	}
	return json.Marshal(obj)
}

func mentionsAny(args json.RawMessage, aliases map[string]Alias) bool {
	for name := range aliases {
		if bytes.Contains(args, []byte(`"`+name+`"`)) {
			return true
		}
	}
	return false
}

// unknownField is the usage error for a parameter the tool does not
// have, naming the closest one it has (its aliases included).
func (t *Tool) unknownField(field string, known []string) *Error {
	for name := range t.spec.Aliases {
		known = append(known, name)
	}
	return unknownFieldUsage(t.Name, field, known)
}

// unknownFieldUsage is the usage error of an argument the schema does
// not allow, naming the closest one it does.
func unknownFieldUsage(toolName, field string, known []string) *Error {
	slices.Sort(known)
	hint := fmt.Sprintf("`mcode tools list %s` shows its parameters", toolName)
	if near := nearest.Names(field, known, 1); len(near) > 0 && nearest.Distance(strings.ToLower(field), strings.ToLower(near[0])) <= max(2, len(field)/2) {
		hint = fmt.Sprintf("did you mean %q? ", near[0]) + hint
	}
	return &Error{Code: CodeUsage,
		Message: fmt.Sprintf("invalid arguments for %s: unknown field %q", toolName, field),
		Hint:    hint}
}
