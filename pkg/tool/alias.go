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
	Param string `json:"param"`
	// Values maps the alias's values onto the parameter's, where they
	// differ (output_mode files_with_matches is mode files).
	Values map[string]any `json:"values,omitempty"`
}

// AliasesMetaKey is the key of a tool's _meta under which mcp serve
// publishes its aliases, so that a client (mcode's connector) applies
// them before it checks a call against the input schema.
const AliasesMetaKey = "mcode/aliases"

// NoticesMetaKey is the key of a tools/call result's _meta under which
// mcp serve names the end of the text that is about it rather than part
// of it (Response.Notices), so that a client that is mcode prints it
// where a direct call does: on stderr in -o text.
const NoticesMetaKey = "mcode/notices"

// Normalize rewrites the aliases in args to the tool's own parameter
// names. Giving both an alias and its parameter, with different values,
// is a usage error.
func (t *Tool) Normalize(args json.RawMessage) (json.RawMessage, error) {
	return NormalizeArgs(t.Name, t.spec.Aliases, args)
}

// NormalizeArgs rewrites the aliases of a tool's arguments to the tool's
// own parameter names (see Tool.Normalize).
func NormalizeArgs(name string, aliases map[string]Alias, args json.RawMessage) (json.RawMessage, error) {
	if len(aliases) == 0 || !mentionsAny(args, aliases) {
		return args, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return args, nil // the schema check says what is wrong with it
	}
	names := make([]string, 0, len(aliases))
	for alias := range aliases {
		names = append(names, alias)
	}
	slices.Sort(names)
	for _, alias := range names {
		raw, ok := obj[alias]
		if !ok {
			continue
		}
		a := aliases[alias]
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
				Message: fmt.Sprintf("arguments for %s give both %q and %q, another name for it, with different values", name, a.Param, alias),
				Hint:    fmt.Sprintf("pass only %q", a.Param)}
		}
		delete(obj, alias)
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
	e := unknownFieldUsage(t.Name, field, known)
	e.Hint = t.ParamsLine()
	return e
}

// unknownFieldUsage is the usage error of an argument the schema does
// not allow, naming the closest one it does.
func unknownFieldUsage(toolName, field string, known []string) *Error {
	slices.Sort(known)
	msg := fmt.Sprintf("invalid arguments for %s: unknown field %q", toolName, field)
	if near := Nearest(field, known); near != "" {
		msg += fmt.Sprintf(": did you mean %q?", near)
	}
	return &Error{Code: CodeUsage, Message: msg, Hint: fmt.Sprintf("`mcode tools list %s` shows its parameters", toolName), BadArgs: true}
}

// Nearest is the one of known closest to name, ignoring case and the
// spelling of separators (file-path is file_path), or "" when none is
// close enough to be what was meant.
func Nearest(name string, known []string) string {
	key := func(s string) string { return strings.ToLower(strings.ReplaceAll(strings.TrimLeft(s, "-"), "-", "_")) }
	keys := make([]string, len(known))
	for i, k := range known {
		keys[i] = key(k)
	}
	near := nearest.Names(key(name), keys, 1)
	if len(near) == 0 || nearest.Distance(key(name), near[0]) > max(2, len(key(name))/2) {
		return ""
	}
	return known[slices.Index(keys, near[0])]
}
