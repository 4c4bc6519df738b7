package cmdtool

import (
	"bytes"
	"encoding/json"
	"strings"
)

// placeholders lists the fields {{field}} names in one argv element
// (spaces inside the braces are allowed: {{ path }}).
func placeholders(arg string) []string {
	var out []string
	for rest := arg; ; {
		i := strings.Index(rest, "{{")
		if i < 0 {
			return out
		}
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			return out
		}
		if field := strings.TrimSpace(rest[i+2 : i+2+j]); field != "" {
			out = append(out, field)
		}
		rest = rest[i+2+j+2:]
	}
}

// expandArgv fills each {{field}} from the arguments. No shell sees the
// result, so no value needs quoting: each element reaches the program as
// one argument, whatever it holds. An element that is only a placeholder
// is dropped when the field is absent (an optional flag value) and, for an
// array, becomes one element per item; strings go in as they are, other
// values as their JSON text.
func expandArgv(argv []string, args map[string]any) []string {
	out := make([]string, 0, len(argv))
	for _, arg := range argv {
		if field, whole := onlyPlaceholder(arg); whole {
			v, ok := args[field]
			switch items := v.(type) {
			case nil:
				if !ok {
					continue
				}
			case []any:
				for _, it := range items {
					out = append(out, text(it))
				}
				continue
			}
			out = append(out, text(v))
			continue
		}
		out = append(out, substitute(arg, args))
	}
	return out
}

// onlyPlaceholder says whether arg is one placeholder and nothing else,
// parsed as placeholders parses it (the first }} closes).
func onlyPlaceholder(arg string) (string, bool) {
	s := arg
	if !strings.HasPrefix(s, "{{") {
		return "", false
	}
	j := strings.Index(s[2:], "}}")
	if j < 0 || 2+j+2 != len(s) {
		return "", false
	}
	field := strings.TrimSpace(s[2 : 2+j])
	return field, field != ""
}

func substitute(arg string, args map[string]any) string {
	var b strings.Builder
	for rest := arg; ; {
		i := strings.Index(rest, "{{")
		j := -1
		if i >= 0 {
			j = strings.Index(rest[i+2:], "}}")
		}
		if i < 0 || j < 0 {
			b.WriteString(rest)
			return b.String()
		}
		b.WriteString(rest[:i])
		field := strings.TrimSpace(rest[i+2 : i+2+j])
		if field == "" {
			b.WriteString(rest[i : i+2+j+2]) // {{}} names nothing: kept as written
		} else if v, ok := args[field]; ok && v != nil {
			b.WriteString(text(v))
		}
		rest = rest[i+2+j+2:]
	}
}

// text is a value as one argument: a string as it is, anything else as
// JSON.
func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
