// Package cmdtool turns a team's own programs into tools (scripts wrapped
// as tools, docs/agent-state.md): entries of tools.custom in
// the config, and of *.yaml files in tools.dirs, each a name, a
// description, a JSON Schema and an argv. A call validates its arguments
// against the schema, runs the argv without a shell in a process group of
// its own under a time limit, and turns exit status and output into the
// envelope.
package cmdtool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Limits of a command tool, quoted in docs/agent-state.md.
const (
	// DefaultTimeout applies when an entry sets none.
	DefaultTimeout = 120 * time.Second
	// MaxDirFiles bounds the *.yaml files read from one tools dir.
	MaxDirFiles = 200
	// MaxFileBytes bounds one such file.
	MaxFileBytes = 1 << 20
)

// Def is one command tool, checked, with where it was declared.
type Def struct {
	config.CustomTool
	// Origin names where it was declared, for errors: "tools.custom[2]"
	// or "tools dir file /x/lint.yaml, entry 1".
	Origin string
	// BaseDir resolves a relative program path (one with a slash): the
	// workspace root for the config, the file's folder for tools.dirs.
	BaseDir string
	schema  json.RawMessage
	// trust is set when the declaration comes from a config layer the
	// caller can write.
	trust *tool.Untrusted
}

// untrusted marks the declaration as one a person must trust first,
// unless trusted says a person did.
func (d *Def) untrusted(layer, root string, trusted func(digest string) bool) {
	def := d.CustomTool
	def.Trust, def.Layer = "", ""
	u := tool.NewUntrusted("command tool", d.Name, layer, root, struct {
		config.CustomTool
		BaseDir string
	}{def, d.BaseDir})
	if trusted == nil || !trusted(u.Digest) {
		d.trust = u
	}
}

// fileEntry is an entry of a tools dir file: the config's fields, with
// the timeout as written (seconds or a Go duration).
type fileEntry struct {
	config.CustomTool `yaml:",inline"`
	Timeout           string `yaml:"timeout"`
}

// configError is a bad declaration: a usage error naming where it is.
func configError(origin, format string, args ...any) *tool.Error {
	return &tool.Error{Code: tool.CodeUsage,
		Message: fmt.Sprintf("command tool %s: ", origin) + fmt.Sprintf(format, args...),
		Hint:    "fix the entry (docs/agent-state.md, \"Command tools\", lists its fields), or remove it"}
}

// fieldErrors turns the first of errs into a config error.
func fieldErrors(origin string, errs []config.FieldError) error {
	if len(errs) == 0 {
		return nil
	}
	fe := errs[0]
	return configError(origin, "key %s: expected %s, got %v", fe.Key, fe.Expected, fe.Got)
}

// newDef checks an entry and its schema, and that every {{field}} of its
// argv is a property of the schema.
func newDef(ct config.CustomTool, origin, baseDir string) (*Def, error) {
	if err := fieldErrors(origin, ct.Check(origin)); err != nil {
		return nil, err
	}
	d := &Def{CustomTool: ct, Origin: origin, BaseDir: baseDir}
	schema := ct.InputSchema
	if schema == nil {
		schema = map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false}
	}
	if t, ok := schema["type"]; ok && t != "object" {
		return nil, configError(origin, "key %s.inputSchema: expected a JSON Schema of type object (tool arguments are one object), got type %v", origin, t)
	}
	data, err := json.Marshal(jsonable(schema))
	if err != nil {
		return nil, configError(origin, "key %s.inputSchema: %v", origin, err)
	}
	d.schema = data
	props, _ := schema["properties"].(map[string]any)
	for _, arg := range ct.Command {
		for _, field := range placeholders(arg) {
			if _, ok := props[field]; !ok {
				return nil, configError(origin, "key %s.command: {{%s}} names no property of inputSchema (properties: %s)",
					origin, field, strings.Join(sortedKeys(props), ", "))
			}
		}
	}
	return d, nil
}

// jsonable turns YAML's decoded maps (map[string]any, but map[any]any in
// older decoders) into values encoding/json takes.
func jsonable(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = jsonable(x)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[fmt.Sprint(k)] = jsonable(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = jsonable(x)
		}
		return out
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return []string{"none"}
	}
	return keys
}

// loadDir reads the *.yaml (and *.yml) files of a tools dir, in name
// order. A missing dir holds no tools.
func loadDir(dir string) ([]*Def, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, configError("dir "+dir, "cannot be read: %v", err)
	}
	var defs []*Def
	n := 0
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".yaml" && ext != ".yml") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if n++; n > MaxDirFiles {
			break
		}
		fileDefs, err := LoadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		defs = append(defs, fileDefs...)
	}
	return defs, nil
}

// LoadFile reads one file of command tools: a YAML list of entries, or a
// mapping whose tools: key holds the list. Unknown keys are errors.
func LoadFile(path string) ([]*Def, error) {
	origin := "file " + path
	fi, err := os.Stat(path)
	if err != nil {
		return nil, configError(origin, "cannot be read: %v", err)
	}
	if fi.Size() > MaxFileBytes {
		return nil, configError(origin, "is %d bytes, more than the %d allowed", fi.Size(), MaxFileBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, configError(origin, "cannot be read: %v", err)
	}
	var entries []fileEntry
	if err := decodeStrict(data, &entries); err != nil {
		var wrapped struct {
			Tools []fileEntry `yaml:"tools"`
		}
		if werr := decodeStrict(data, &wrapped); werr != nil {
			return nil, configError(origin, "not a list of command tools: %v", err)
		}
		entries = wrapped.Tools
	}
	defs := make([]*Def, 0, len(entries))
	for i, e := range entries {
		entryOrigin := fmt.Sprintf("%s, entry %d", origin, i+1)
		ct := e.CustomTool
		if strings.TrimSpace(e.Timeout) != "" {
			d, err := config.ParseDuration(e.Timeout)
			if err != nil {
				return nil, configError(entryOrigin, "key timeout: %v", err)
			}
			ct.Timeout = d
		}
		def, err := newDef(ct, entryOrigin, filepath.Dir(path))
		if err != nil {
			return nil, err
		}
		defs = append(defs, def)
	}
	return defs, nil
}

func decodeStrict(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(v)
	if errors.Is(err, io.EOF) {
		return nil // an empty file declares nothing
	}
	return err
}
