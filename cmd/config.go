package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// envPrefix turns a config key into its environment variable:
// bash.envSanitize is MCODE_BASH_ENVSANITIZE.
const envPrefix = "MCODE"

// envAliases are extra names accepted for a key (the seed's spelling).
var envAliases = map[string][]string{
	"bash.envSanitize": {"MCODE_BASH_ENV_SANITIZE"},
}

// configSearch returns the config file to read: --config, MCODE_CONFIG,
// ./.mcode.yaml, then $XDG_CONFIG_HOME/mcode/config.yaml. explicit is true
// when the caller named it, so that a missing file is an error.
func configSearch(flagPath string, getenv func(string) string, cwd, home string) (path string, explicit bool) {
	if flagPath != "" {
		return flagPath, true
	}
	if p := getenv("MCODE_CONFIG"); p != "" {
		return p, true
	}
	if p := filepath.Join(cwd, ".mcode.yaml"); fileExists(p) {
		return p, false
	}
	xdg := getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		if p := filepath.Join(xdg, "mcode", "config.yaml"); fileExists(p) {
			return p, false
		}
	}
	return "", false
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// loadConfig reads the config once with viper (defaults < file < env) and
// copies it into plain structs. Any error names the file or variable, the
// key and what was expected.
//
// Every key is also MCODE_ + its path, upper-cased, dots as underscores
// (envconfig.go): names lists the variables set (only their names; values
// come through getenv), so that keys under a map (an agent's name, a
// capability) are found too.
func loadConfig(path string, explicit bool, getenv func(string) string, names []string) (*config.Config, error) {
	defaults := config.Defaults()
	leaves := leafKeys(reflect.TypeOf(defaults), "")
	fromEnv, err := configFromEnv(reflect.TypeOf(defaults), getenv, names)
	if err != nil {
		return nil, err
	}
	for _, key := range leaves {
		for _, n := range envAliases[key] {
			if _, set := fromEnv[strings.ToLower(key)]; !set && getenv(n) != "" {
				fromEnv[strings.ToLower(key)] = envValue{name: n, value: getenv(n), decoded: getenv(n)}
			}
		}
	}
	if path == "" && len(fromEnv) == 0 {
		// Nothing to read or merge: the defaults are the config, and a
		// small call does not pay for viper.
		return &defaults, nil
	}
	v := viper.New()
	dv := reflect.ValueOf(defaults)
	for _, key := range leaves {
		v.SetDefault(key, fieldByKey(dv, key).Interface())
	}
	for key, ev := range fromEnv {
		v.Set(key, ev.decoded) // explicit Set: env beats the file
	}
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) && !explicit {
				path = ""
			} else {
				return nil, configError(path, "", "cannot read the config file: %v", err)
			}
		}
	}
	if path != "" {
		v.SetConfigFile(path)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return nil, configError(path, "", "not valid YAML: %v", unwrapViper(err))
		}
	}
	cfg := config.Config{}
	err = v.Unmarshal(&cfg, func(dc *mapstructure.DecoderConfig) {
		dc.ErrorUnused = true
		dc.DecodeHook = mapstructure.ComposeDecodeHookFunc(durationHook, integerHook, mapstructure.StringToSliceHookFunc(","))
	})
	if err != nil {
		return nil, translateDecodeError(err, path, fromEnv)
	}
	if path != "" && (len(cfg.McpServers) > 0 || len(cfg.Tools.Custom) > 0) {
		if err := restoreCase(path, &cfg); err != nil {
			return nil, configError(path, "", "not valid YAML: %v", err)
		}
	}
	if errs := cfg.Validate(); len(errs) > 0 {
		fe := errs[0]
		return nil, configError(sourceOf(fe.Key, path, fromEnv), fe.Key, "expected %s, got %v", fe.Expected, fe.Got)
	}
	return &cfg, nil
}

// restoreCase reads again, from the file, the maps whose keys are names
// the user chose, in the case they were written: viper lower-cases every
// key, and a server's PATH or API_KEY (mcpServers.NAME.env), or a command
// tool's argument names (tools.custom[].inputSchema), must stay as
// written.
func restoreCase(path string, cfg *config.Config) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return err
	}
	for name, s := range cfg.McpServers {
		env, ok := childFold(childFold(childFold(raw, "mcpServers"), name), "env").(map[string]any)
		if !ok {
			continue
		}
		s.Env = make(map[string]string, len(env))
		for k := range env {
			s.Env[k] = cfg.McpServers[name].Env[strings.ToLower(k)]
		}
		cfg.McpServers[name] = s
	}
	custom, _ := childFold(childFold(raw, "tools"), "custom").([]any)
	if len(custom) == len(cfg.Tools.Custom) { // else set from the environment
		for i, entry := range custom {
			if schema, ok := childFold(entry, "inputSchema").(map[string]any); ok {
				cfg.Tools.Custom[i].InputSchema = schema
			}
		}
	}
	return nil
}

// childFold is node's key, compared as viper compares keys (ignoring
// case); nil when node is not a mapping or lacks the key.
func childFold(node any, key string) any {
	m, _ := node.(map[string]any)
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v
		}
	}
	return nil
}

func envName(key string) string {
	return envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// sourceOf names where a key's value came from: its env var if set, else the file.
func sourceOf(key, path string, env map[string]envValue) string {
	if n := envSource(env, key); n != "" {
		return "environment variable " + n
	}
	if path == "" {
		return "defaults"
	}
	return path
}

func configError(source, key, format string, args ...any) *tool.Error {
	msg := fmt.Sprintf(format, args...)
	where := "config"
	if source != "" {
		where = "config " + source
	}
	if key != "" {
		msg = fmt.Sprintf("%s: key %s: %s", where, key, msg)
	} else {
		msg = fmt.Sprintf("%s: %s", where, msg)
	}
	return &tool.Error{
		Code:    tool.CodeUsage,
		Message: msg,
		Hint:    "fix the value (docs/config.md lists every config key and its type), or point --config / MCODE_CONFIG at another file",
	}
}

func unwrapViper(err error) error {
	var pe viper.ConfigParseError
	if errors.As(err, &pe) {
		if u := pe.Unwrap(); u != nil {
			return u
		}
	}
	return err
}

// decodeLine matches one of mapstructure's error lines: 'key' problem.
// Compiled on first use: only a bad config needs it.
var decodeLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^'([^']*)' (.*)$`) })

func translateDecodeError(err error, path string, env map[string]envValue) error {
	for _, line := range strings.Split(err.Error(), "\n") {
		m := decodeLine().FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		key, problem := m[1], m[2]
		if strings.HasPrefix(key, "config.") { // mapstructure names the root by its type
			key = ""
		}
		if rest, ok := strings.CutPrefix(problem, "has invalid keys: "); ok {
			full := rest
			if key != "" {
				full = key + "." + rest
			}
			return configError(sourceOf(full, path, env), full, "unknown key (expected one of: %s)", strings.Join(knownChildren(key), ", "))
		}
		expected := "a valid value"
		switch {
		case strings.Contains(problem, "'int"), strings.Contains(problem, "'uint"):
			expected = "an integer"
		case strings.Contains(problem, "'float"):
			expected = "a number"
		case strings.Contains(problem, "'bool'"):
			expected = "true or false"
		case strings.Contains(problem, "duration"):
			expected = "a duration: seconds (90) or a Go duration (90s, 2m)"
		case strings.Contains(problem, "expected a map"), strings.Contains(problem, "expected type 'map"):
			expected = "a mapping"
		case strings.Contains(problem, "expected type 'string'"):
			expected = "a string"
		}
		return configError(sourceOf(key, path, env), key, "expected %s (%s)", expected, problem)
	}
	return configError(path, "", "%v", err)
}

// durationHook reads durations as bare seconds or Go durations.
func durationHook(from, to reflect.Type, data any) (any, error) {
	if to != reflect.TypeOf(time.Duration(0)) {
		return data, nil
	}
	switch v := data.(type) {
	case string:
		return config.ParseDuration(v)
	case int, int64, float64:
		return config.ParseDuration(fmt.Sprint(v))
	}
	return data, nil
}

// integerHook refuses a number with a fraction, or one out of range, for
// an integer key: mapstructure would cut 1.5 to 1 and wrap 1e20 around.
func integerHook(from, to reflect.Type, data any) (any, error) {
	f, ok := data.(float64)
	switch to.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	default:
		ok = false
	}
	if !ok {
		return data, nil
	}
	if f != math.Trunc(f) || math.Abs(f) >= 1<<53 {
		return nil, fmt.Errorf("cannot parse %v as 'int'", f)
	}
	return int64(f), nil
}

// leafKeys lists the dotted keys of every non-struct field reachable
// through structs (maps are user-named and have no fixed keys).
func leafKeys(t reflect.Type, prefix string) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key := prefix + f.Tag.Get("mapstructure")
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(time.Duration(0)) {
			out = append(out, leafKeys(f.Type, key+".")...)
			continue
		}
		if f.Type.Kind() == reflect.Map {
			continue
		}
		out = append(out, key)
	}
	return out
}

func fieldByKey(v reflect.Value, key string) reflect.Value {
	for _, part := range strings.Split(key, ".") {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).Tag.Get("mapstructure") == part {
				v = v.Field(i)
				break
			}
		}
	}
	return v
}

// knownChildren lists the keys allowed under a struct key path.
func knownChildren(key string) []string {
	t := reflect.TypeOf(config.Config{})
	if key != "" {
		for _, part := range strings.Split(key, ".") {
			if i := strings.IndexByte(part, '['); i >= 0 {
				part = part[:i]
				if ft, ok := fieldType(t, part); ok {
					t = ft
				}
				for t.Kind() == reflect.Map || t.Kind() == reflect.Slice {
					t = t.Elem()
				}
				continue
			}
			ft, ok := fieldType(t, part)
			if !ok {
				return nil
			}
			t = ft
		}
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		out = append(out, t.Field(i).Tag.Get("mapstructure"))
	}
	return out
}

func fieldType(t reflect.Type, tag string) (reflect.Type, bool) {
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	for i := 0; i < t.NumField(); i++ {
		if strings.EqualFold(t.Field(i).Tag.Get("mapstructure"), tag) {
			return t.Field(i).Type, true
		}
	}
	return nil, false
}
