package cmd

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// envKey is one config key as a test sets it from the environment.
type envKey struct {
	path       []string // through struct tags and map entries ("probe", "item")
	name       string   // the variable
	good, bad  string   // bad "" when any text is valid
	want       string   // fmt.Sprint of the value good gives
	recordList bool     // a list of records: good is JSON, want its length
}

// enumValues are valid non-default values of the keys that take one of
// a few words.
var enumValues = map[string]string{
	"bash.envSanitize":    "strict",
	"bash.shell":          "pwsh",
	"guard.defaultPolicy": "deny",
	"agents.probe.role":   "explore",
	// guard.paths.*: allow, require_approval, deny
	"guard.paths.sensitive":         "deny",
	"guard.paths.outsideRoot":       "deny",
	"mcpServers.probe.tier":         "extension",
	"sandbox.mode":                  "read-only",
	"mcpServers.probe.sandbox.mode": "read-only",
}

// listValues are valid values of lists of a form of their own.
var listValues = map[string][2]string{
	"sandbox.network":                   {"443,22", "[443 22]"},
	"sandbox.writable":                  {"/a,/b", "[/a /b]"},
	"sandbox.readDeny":                  {"/a,~/b", "[/a ~/b]"},
	"mcpServers.probe.sandbox.network":  {"off", "[off]"},
	"mcpServers.probe.sandbox.writable": {"/a,/b", "[/a /b]"},
	"mcpServers.probe.sandbox.readDeny": {"/a,/b", "[/a /b]"},
}

// otherValues are valid values of keys with a form of their own.
var otherValues = map[string]string{"mcpServers.probe.url": "http://127.0.0.1:1/mcp"}

// recordValues are valid values of the fields of a record in a list.
var recordValues = map[string]string{"tool": "bash", "action": "deny", "command": "true", "argPattern": "^x", "name": "probe_tool", "description": "a probe"}

// envKeys walks every key of t: struct fields, an entry "probe" of every
// mapping of records, an entry "item" of every other mapping.
func envKeys(t reflect.Type, name string, path []string) []envKey {
	switch {
	case t.Kind() == reflect.Struct:
		var out []envKey
		for i := 0; i < t.NumField(); i++ {
			tag := t.Field(i).Tag.Get("mapstructure")
			if tag == "-" {
				continue
			}
			out = append(out, envKeys(t.Field(i).Type, name+"_"+strings.ToUpper(tag), append(copyPath(path), tag))...)
		}
		return out
	case t.Kind() == reflect.Map && (t.Elem().Kind() == reflect.Struct || t.Elem().Kind() == reflect.Map):
		return envKeys(t.Elem(), name+"_PROBE", append(copyPath(path), "probe"))
	case t.Kind() == reflect.Map:
		return envKeys(t.Elem(), name+"_ITEM", append(copyPath(path), "item"))
	}
	k := envKey{path: path, name: name}
	key := strings.Join(path, ".")
	switch {
	case t == reflect.TypeOf(time.Duration(0)):
		k.good, k.want, k.bad = "7s", "7s", "soon"
	case t.Kind() == reflect.Bool:
		k.good, k.want, k.bad = "false", "false", "bogus"
		if key == "mcpToolSearch.enabled" || key == "bash.trashShim" {
			k.want = "false" // default true: false is the change
		} else {
			k.good, k.want = "true", "true"
		}
	case t.Kind() == reflect.Int:
		k.good, k.want, k.bad = "7", "7", "seven"
	case t.Kind() == reflect.Float64:
		k.good, k.want, k.bad = "0.5", "0.5", "half"
	case t.Kind() == reflect.String:
		k.good, k.want = "some-value", "some-value"
		if v, ok := enumValues[key]; ok {
			k.good, k.want, k.bad = v, v, "bogus"
		}
		if v, ok := otherValues[key]; ok {
			k.good, k.want, k.bad = v, v, "ftp:bogus"
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		rec := map[string]string{}
		for i := 0; i < t.Elem().NumField(); i++ {
			if tag := t.Elem().Field(i).Tag.Get("mapstructure"); recordValues[tag] != "" {
				rec[tag] = recordValues[tag]
			}
		}
		data, _ := json.Marshal([]map[string]string{rec})
		k.good, k.want, k.bad, k.recordList = string(data), "1", "not json", true
	case t.Kind() == reflect.Slice && key == "workspace.roots":
		k.good, k.want, k.bad = "/a,/b", "[/a /b]", "relative"
	case t.Kind() == reflect.Slice:
		k.good, k.want = "a,b", "[a b]"
		if v, ok := listValues[key]; ok {
			k.good, k.want = v[0], v[1]
		}
	default:
		panic(fmt.Sprintf("envKeys: no test value for %s (%s)", key, t))
	}
	return []envKey{k}
}

func copyPath(p []string) []string { return append([]string(nil), p...) }

// valueAt walks cfg along path.
func valueAt(v reflect.Value, path []string) (reflect.Value, bool) {
	for _, part := range path {
		switch v.Kind() {
		case reflect.Struct:
			found := false
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).Tag.Get("mapstructure") == part {
					v, found = v.Field(i), true
					break
				}
			}
			if !found {
				return v, false
			}
		case reflect.Map:
			v = v.MapIndex(reflect.ValueOf(part))
			if !v.IsValid() {
				return v, false
			}
		default:
			return v, false
		}
	}
	return v, true
}

// companions are the variables a key needs beside it to be valid: an MCP
// server needs a command (or a url), an agent's servers must exist.
func companions(k envKey) map[string]string {
	env := map[string]string{}
	switch {
	case strings.HasPrefix(k.name, "MCODE_MCPSERVERS_PROBE_HEADERS_"):
		env["MCODE_MCPSERVERS_PROBE_URL"] = "http://127.0.0.1:1/mcp"
	case strings.HasPrefix(k.name, "MCODE_MCPSERVERS_PROBE_") && k.name != "MCODE_MCPSERVERS_PROBE_COMMAND" && k.name != "MCODE_MCPSERVERS_PROBE_URL":
		env["MCODE_MCPSERVERS_PROBE_COMMAND"] = "true"
	case k.name == "MCODE_AGENTS_PROBE_MCPSERVERS":
		env["MCODE_MCPSERVERS_A_COMMAND"], env["MCODE_MCPSERVERS_B_COMMAND"] = "true", "true"
	}
	return env
}

// Every key of the config can be set as MCODE_ + its path, with a file
// in place or not, and a bad value is usage naming the variable.
func TestEveryConfigKeyFromEnv(t *testing.T) {
	keys := envKeys(reflect.TypeOf(config.Config{}), envPrefix, nil)
	if len(keys) < 30 {
		t.Fatalf("only %d keys found", len(keys))
	}
	file := writeFile(t, t.TempDir()+"/c.yaml", "bash:\n  maxSpoolMiB: 9\n")
	for _, k := range keys {
		t.Run(k.name, func(t *testing.T) {
			for _, path := range []string{"", file} {
				env := companions(k)
				env[k.name] = k.good
				var files []configFile
				if path != "" {
					files = []configFile{{layer: "user file", path: path, trusted: true, explicit: true}}
				}
				cfg, ignored, err := loadConfig(files, envFunc(env), envNames(env))
				if err != nil {
					t.Fatalf("%s=%s (file %q): %v", k.name, k.good, path, err)
				}
				key := strings.Join(k.path, ".")
				if config.IsPolicyKey(key) {
					// The environment is the caller's: a policy key there
					// tightens, or is ignored and said so.
					if i := slices.IndexFunc(ignored, func(ig config.Ignored) bool { return strings.Contains(ig.Layer, k.name) }); i >= 0 {
						if !strings.EqualFold(ignored[i].Key, key) && !strings.HasPrefix(strings.ToLower(key), strings.ToLower(ignored[i].Key)+".") {
							t.Errorf("%s=%s ignored as key %q", k.name, k.good, ignored[i].Key)
						}
						return
					}
					if key == "guard.rules" || key == "guard.defaultPolicy" {
						if len(cfg.Guard.Layers) != 1 || (cfg.Guard.Layers[0].Name != "environment variable "+k.name && cfg.Guard.Layers[0].DefaultFrom != "environment variable "+k.name) {
							t.Errorf("%s=%s: rules layers %+v", k.name, k.good, cfg.Guard.Layers)
						}
						return
					}
					if key == "tools.dirs" {
						if !slices.Equal(cfg.Tools.UntrustedDirs, []string{"a", "b"}) {
							t.Errorf("%s=%s: untrusted dirs %q", k.name, k.good, cfg.Tools.UntrustedDirs)
						}
						return
					}
				}
				v, ok := valueAt(reflect.ValueOf(*cfg), k.path)
				if !ok {
					t.Fatalf("%s=%s: %s is not set", k.name, k.good, strings.Join(k.path, "."))
				}
				got := fmt.Sprint(v.Interface())
				if k.recordList {
					got = fmt.Sprint(v.Len())
				}
				if got != k.want {
					t.Errorf("%s=%s: %s = %s, want %s", k.name, k.good, strings.Join(k.path, "."), got, k.want)
				}
			}
			if k.bad == "" {
				return
			}
			env := companions(k)
			env[k.name] = k.bad
			_, err := loadOne("", false, envFunc(env), envNames(env))
			te := tool.AsError(err)
			if te == nil || te.Code != tool.CodeUsage || !strings.Contains(te.Message, k.name) {
				t.Errorf("%s=%s: got %v, want usage naming %s", k.name, k.bad, err, k.name)
			}
		})
	}
}

// Variables that are no config keys are left alone, and the name of a
// map entry may hold underscores.
func TestEnvConfigNames(t *testing.T) {
	env := map[string]string{
		"MCODE_HOME": "/x", "MCODE_ROOT": "/y", "MCODE_REQUIRE_PEERS": "1", "MCODE_BASH": "x",
		"MCODE_AGENTS_CODE_REVIEWER_ROLE":  "verifier",
		"MCODE_MODELS_CAPABILITIES_IMAGES": "false",
		"MCODE_MCPSERVERS_GH_ENV_API_KEY":  "k",
		"MCODE_MCPSERVERS_GH_COMMAND":      "gh-mcp",
	}
	cfg, err := loadOne("", false, envFunc(env), envNames(env))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Agents["code_reviewer"].Role != "verifier" {
		t.Errorf("agents = %+v", cfg.Agents)
	}
	if on, set := cfg.Models.Capabilities["images"]; !set || on {
		t.Errorf("capabilities = %v", cfg.Models.Capabilities)
	}
	if cfg.McpServers["gh"].Env["api_key"] != "k" {
		t.Errorf("mcpServers = %+v", cfg.McpServers)
	}
}
