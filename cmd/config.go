package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
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

// configFile is one file of the configuration's layers.
type configFile struct {
	// layer names it for people: "system file", "user file", "workspace
	// file", "--config file", "MCODE_CONFIG file".
	layer string
	path  string
	// trusted: the person's own file (system or user): it sets policy
	// keys freely; every other layer may only tighten them.
	trusted bool
	// explicit: the caller named it, so a missing file is an error.
	explicit bool
}

func (c configFile) name() string { return c.layer + " " + c.path }

// configFiles lists the files of a call's configuration, lowest layer
// first: the system file, the user file, then the workspace's
// .mcode.yaml at the root (or the file --config / MCODE_CONFIG names
// instead of it). A user file that an environment variable
// (XDG_CONFIG_HOME, HOME) moved into a place the caller can write is
// read, but not trusted: the person's own is then the one under the home
// folder of the user database.
func (f *Factory) configFiles() []configFile {
	files := []configFile{{layer: "system file", path: f.Trusted.System, trusted: true}}
	if f.Trusted.System == "" {
		files = files[:0]
	}
	_, trustedUser, relocated := f.userConfigDirs()
	if relocated != "" {
		files = append(files, configFile{layer: "user file (moved by XDG_CONFIG_HOME or HOME into a place the caller can write)", path: filepath.Join(relocated, userConfigName)})
	}
	if trustedUser != "" {
		files = append(files, configFile{layer: "user file", path: filepath.Join(trustedUser, userConfigName), trusted: true})
	}
	switch {
	case f.Global.Config != "":
		files = append(files, configFile{layer: "--config file", path: f.Global.Config, explicit: true})
	case f.Getenv("MCODE_CONFIG") != "":
		files = append(files, configFile{layer: "MCODE_CONFIG file", path: f.Getenv("MCODE_CONFIG"), explicit: true})
	default:
		dir, err := f.RootDir()
		if err != nil {
			dir, _ = f.Getwd()
		}
		files = append(files, configFile{layer: "workspace file", path: filepath.Join(dir, workspaceConfigName)})
	}
	for i := range files {
		if !filepath.IsAbs(files[i].path) {
			if cwd, err := f.Getwd(); err == nil {
				files[i].path = filepath.Join(cwd, files[i].path)
			}
		}
	}
	return files
}

// File names of the configuration.
const (
	workspaceConfigName = ".mcode.yaml"
	userConfigName      = "config.yaml"
	// SystemConfigPath is the system file, an administrator's.
	SystemConfigPath = "/etc/mcode/config.yaml"
)

// layerFile is a config file read on its own.
type layerFile struct {
	configFile
	settings map[string]any // as viper reads it: keys in lower case
	cfg      config.Config  // what the file alone sets; the rest zero
	set      map[string]bool
	data     []byte // the file's bytes, read once
}

// loadConfig reads the configuration of a call once, layer by layer
// (defaults < system file < user file < workspace file < environment),
// and copies it into plain structs. Ordinary keys merge, later winning;
// policy keys come from the trusted layers and are only tightened by the
// others (config.ApplyPolicy), which returns what it ignored. Any error
// names the file or variable, the key and what was expected.
//
// Every key is also MCODE_ + its path, upper-cased, dots as underscores
// (envconfig.go): names lists the variables set (only their names; values
// come through getenv), so that keys under a map (an agent's name, a
// capability) are found too.
func loadConfig(files []configFile, getenv func(string) string, names []string) (*config.Config, []config.Ignored, error) {
	defaults := config.Defaults()
	leaves := leafKeys(reflect.TypeOf(defaults), "")
	fromEnv, err := configFromEnv(reflect.TypeOf(defaults), getenv, names)
	if err != nil {
		return nil, nil, err
	}
	for _, key := range leaves {
		for _, n := range envAliases[key] {
			if _, set := fromEnv[strings.ToLower(key)]; !set && getenv(n) != "" {
				fromEnv[strings.ToLower(key)] = envValue{name: n, value: getenv(n), decoded: getenv(n)}
			}
		}
	}
	var layers []*layerFile
	for _, file := range files {
		lf, err := readLayer(file)
		if err != nil {
			return nil, nil, err
		}
		if lf != nil {
			layers = append(layers, lf)
		}
	}
	if len(layers) == 0 && len(fromEnv) == 0 {
		// Nothing to read or merge: the defaults are the config, and a
		// small call does not pay for viper.
		return &defaults, nil, nil
	}
	var envLayer *config.Layer
	if len(fromEnv) > 0 {
		v := viper.New()
		for key, ev := range fromEnv {
			v.Set(key, ev.decoded)
		}
		var cfg config.Config
		if err := decode(v, &cfg); err != nil {
			return nil, nil, translateDecodeError(err, "", fromEnv)
		}
		envLayer = &config.Layer{Name: "environment", Config: cfg, Set: keySet(v.AllSettings()),
			Source: func(key string) string {
				if n := envSource(fromEnv, key); n != "" {
					return "environment variable " + n
				}
				return ""
			}}
	}
	merge := func(trustedOnly bool) (*config.Config, error) {
		v := viper.New()
		dv := reflect.ValueOf(defaults)
		for _, key := range leaves {
			v.SetDefault(key, fieldByKey(dv, key).Interface())
		}
		for _, lf := range layers {
			if trustedOnly && !lf.trusted {
				continue
			}
			// A copy: viper merges nested maps in by reference, and the
			// next layer would then change this layer's settings.
			if err := v.MergeConfigMap(deepCopy(lf.settings).(map[string]any)); err != nil {
				return nil, configError(lf.path, "", "not valid YAML: %v", err)
			}
		}
		if !trustedOnly {
			for key, ev := range fromEnv {
				v.Set(key, ev.decoded) // explicit Set: env beats the files
			}
		}
		cfg := config.Config{}
		if err := decode(v, &cfg); err != nil {
			return nil, translateDecodeError(err, "", fromEnv)
		}
		for _, lf := range layers {
			if (!trustedOnly || lf.trusted) && (len(cfg.McpServers) > 0 || len(cfg.Tools.Custom) > 0) {
				if err := restoreCase(lf.data, &cfg); err != nil {
					return nil, configError(lf.path, "", "not valid YAML: %v", err)
				}
			}
		}
		return &cfg, nil
	}
	cfg, err := merge(false)
	if err != nil {
		return nil, nil, err
	}
	// Every value is checked where it was written, before the policy
	// decides which of them count.
	if errs := cfg.Validate(); len(errs) > 0 {
		fe := errs[0]
		return nil, nil, configError(sourceOfKey(fe.Key, layers, fromEnv), fe.Key, "expected %s, got %v", fe.Expected, fe.Got)
	}
	var untrusted []config.Layer
	for _, lf := range layers {
		if !lf.trusted {
			untrusted = append(untrusted, config.Layer{Name: lf.name(), Config: lf.cfg, Set: lf.set})
		}
	}
	if envLayer != nil {
		untrusted = append(untrusted, *envLayer)
	}
	var ignored []config.Ignored
	if len(untrusted) > 0 {
		trusted, err := merge(true)
		if err != nil {
			return nil, nil, err
		}
		ignored = config.ApplyPolicy(cfg, *trusted, untrusted, config.PolicyOptions{CI: truthy(getenv("CI")) || truthy(getenv("GITHUB_ACTIONS"))})
	} else {
		config.ApplyPolicy(cfg, *cfg, nil, config.PolicyOptions{})
	}
	if errs := cfg.Validate(); len(errs) > 0 {
		fe := errs[0]
		return nil, nil, configError(sourceOfKey(fe.Key, layers, fromEnv), fe.Key, "expected %s, got %v", fe.Expected, fe.Got)
	}
	return cfg, ignored, nil
}

// readLayer reads one config file alone; nil when an optional file is
// not there.
func readLayer(file configFile) (*layerFile, error) {
	data, err := readConfigBytes(file.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !file.explicit {
			return nil, nil
		}
		var te *tool.Error
		if errors.As(err, &te) {
			return nil, err
		}
		return nil, configError(file.path, "", "cannot read the config file: %v", err)
	}
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, configError(file.path, "", "not valid YAML: %v", unwrapViper(err))
	}
	lf := &layerFile{configFile: file, settings: v.AllSettings(), data: data}
	if err := decode(v, &lf.cfg); err != nil {
		return nil, translateDecodeError(err, file.path, nil)
	}
	if len(lf.cfg.McpServers) > 0 || len(lf.cfg.Tools.Custom) > 0 {
		if err := restoreCase(data, &lf.cfg); err != nil {
			return nil, configError(file.path, "", "not valid YAML: %v", err)
		}
	}
	lf.set = keySet(lf.settings)
	return lf, nil
}

// decode copies viper's settings into cfg: durations in seconds or Go's
// form, integers refused when they have a fraction, every key known.
func decode(v *viper.Viper, cfg *config.Config) error {
	return v.Unmarshal(cfg, func(dc *mapstructure.DecoderConfig) {
		dc.ErrorUnused = true
		dc.DecodeHook = mapstructure.ComposeDecodeHookFunc(durationHook, integerHook, mapstructure.StringToSliceHookFunc(","))
	})
}

// deepCopy copies nested settings (maps and lists).
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

// keySet lists the dotted keys of nested settings, sections included.
func keySet(settings map[string]any) map[string]bool {
	set := map[string]bool{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			key := strings.ToLower(prefix + k)
			set[key] = true
			if sub, ok := v.(map[string]any); ok {
				walk(key+".", sub)
			}
		}
	}
	walk("", settings)
	return set
}

// sourceOfKey names where a key's value came from: its environment
// variable if set, else the last file that sets it, else the defaults.
func sourceOfKey(key string, layers []*layerFile, env map[string]envValue) string {
	if n := envSource(env, key); n != "" {
		return "environment variable " + n
	}
	k := strings.ToLower(strings.NewReplacer("[", ".", "]", "").Replace(key))
	for i := len(layers) - 1; i >= 0; i-- {
		for probe := k; probe != ""; {
			if layers[i].set[probe] {
				return layers[i].path
			}
			j := strings.LastIndexByte(probe, '.')
			if j < 0 {
				break
			}
			probe = probe[:j]
		}
	}
	return "defaults"
}

// restoreCase reads again, from the file, the maps whose keys are names
// the user chose, in the case they were written: viper lower-cases every
// key, and a server's PATH or API_KEY (mcpServers.NAME.env), or a command
// tool's argument names (tools.custom[].inputSchema), must stay as
// written.
func restoreCase(data []byte, cfg *config.Config) error {
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

// sourceOf names where a key's value came from: its env var if set, else
// the file.
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
		if f.Tag.Get("mapstructure") == "-" {
			continue // set by mcode, never by a file
		}
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
		if tag := t.Field(i).Tag.Get("mapstructure"); tag != "-" {
			out = append(out, tag)
		}
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
