package cmd

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"
)

// envValue is a config key set by an environment variable.
type envValue struct {
	name  string // the variable
	value string // as set
	// decoded is what viper is given: the text, or for a key holding a
	// mapping or a list of records, the JSON it holds.
	decoded any
}

// environNames lists the process's environment variables, names only.
func environNames() []string {
	env := os.Environ()
	names := make([]string, 0, len(env))
	for _, kv := range env {
		if name, _, ok := strings.Cut(kv, "="); ok {
			names = append(names, name)
		}
	}
	return names
}

// configFromEnv finds the config keys set by variables among names: each
// key is MCODE_ + its path, upper-cased, with underscores for dots
// (bash.maxTimeout is MCODE_BASH_MAXTIMEOUT). Under a mapping the entry's
// name comes in lower case, as viper keeps every key
// (MCODE_MODELS_CAPABILITIES_IMAGES is models.capabilities.images,
// MCODE_AGENTS_REVIEWER_ROLE is agents.reviewer.role); a key that holds
// a mapping or a list of records takes JSON (MCODE_GUARD_RULES='[…]').
// Other MCODE_ variables (MCODE_HOME, MCODE_ROOT…) are no config keys and
// are left alone. The result is keyed by the lower-case dotted path.
func configFromEnv(t reflect.Type, getenv func(string) string, names []string) (map[string]envValue, error) {
	out := map[string]envValue{}
	for _, n := range names {
		rest, ok := strings.CutPrefix(n, envPrefix+"_")
		val := getenv(n)
		if !ok || rest == "" || val == "" {
			continue
		}
		path, leaf, ok := envPath(t, rest)
		if !ok {
			continue
		}
		key := strings.Join(path, ".")
		ev := envValue{name: n, value: val, decoded: val}
		if takesJSON(leaf) {
			var x any
			if err := json.Unmarshal([]byte(val), &x); err != nil {
				return nil, configError("environment variable "+n, key, "expected %s as JSON (%v)", jsonKind(leaf), err)
			}
			ev.decoded = x
		}
		out[strings.ToLower(key)] = ev
	}
	return out, nil
}

// envPath resolves rest, a variable name after MCODE_, to a key path
// under t and the type of the value there.
func envPath(t reflect.Type, rest string) ([]string, reflect.Type, bool) {
	switch t.Kind() {
	case reflect.Struct:
		if t == reflect.TypeOf(time.Duration(0)) {
			return nil, nil, false
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("mapstructure")
			if tag == "-" {
				continue
			}
			up := strings.ToUpper(tag)
			if rest == up {
				if f.Type.Kind() == reflect.Struct {
					return nil, nil, false // a section, not a key
				}
				return []string{tag}, f.Type, true
			}
			if sub, ok := strings.CutPrefix(rest, up+"_"); ok && (f.Type.Kind() == reflect.Struct || f.Type.Kind() == reflect.Map) {
				if p, leaf, ok := envPath(f.Type, sub); ok {
					return append([]string{tag}, p...), leaf, true
				}
			}
		}
	case reflect.Map:
		elem := t.Elem()
		if elem.Kind() != reflect.Struct && elem.Kind() != reflect.Map {
			return []string{strings.ToLower(rest)}, elem, true
		}
		// NAME_FIELD: the first split whose right side is a key of the
		// entry (an agent may have underscores in its name).
		for i := 1; i < len(rest)-1; i++ {
			if rest[i] != '_' {
				continue
			}
			if p, leaf, ok := envPath(elem, rest[i+1:]); ok {
				return append([]string{strings.ToLower(rest[:i])}, p...), leaf, true
			}
		}
		return []string{strings.ToLower(rest)}, elem, true // the whole entry, as JSON
	}
	return nil, nil, false
}

// takesJSON reports whether a value of type t is given as JSON in a variable.
func takesJSON(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return true
	case reflect.Slice:
		return t.Elem().Kind() == reflect.Struct
	}
	return false
}

func jsonKind(t reflect.Type) string {
	if t.Kind() == reflect.Slice {
		return `a list, e.g. [{"key": "value"}]`
	}
	return `a mapping, e.g. {"key": "value"}`
}

// envSource names the variable that set key (a dotted path, perhaps with
// [i] or [name] parts, as decode and validation errors write it), or "".
func envSource(env map[string]envValue, key string) string {
	k := strings.ToLower(strings.NewReplacer("[", ".", "]", "").Replace(key))
	for k != "" {
		if ev, ok := env[k]; ok {
			return ev.name
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	// A whole entry judged by what was set under it.
	k = strings.ToLower(strings.NewReplacer("[", ".", "]", "").Replace(key))
	var names []string
	for path, ev := range env {
		if strings.HasPrefix(path, k+".") {
			names = append(names, ev.name)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
