package cmd

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcode-dev/mcode/pkg/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files of the CLI surface")

// golden compares got with testdata/NAME, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s changed (-want +got); if that is intended, go test ./cmd -run %s -update:\n%s", path, t.Name(), diff)
	}
}

// TestToolsListGolden pins what models see: every tool's name,
// description and schema in every format. A change to a model-facing
// text shows in review as a change to testdata/golden; refresh them with
// go test ./cmd -run TestToolsListGolden -update.
func TestToolsListGolden(t *testing.T) {
	for _, format := range toolFormats {
		t.Run(format, func(t *testing.T) {
			f, bufs := testFactory(t, nil)
			code, m := runJSON(t, f, bufs, "tools", "list", "--format", format)
			if code != 0 {
				t.Fatalf("exit %d: %v", code, m["error"])
			}
			result := m["result"].(map[string]any)
			got, err := json.MarshalIndent(result["tools"], "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "tools-"+format+".json", string(got)+"\n")
		})
	}
}

// schemaProperty is what the flag test reads of a schema property.
type schemaProperty struct {
	Type    any   `json:"type"`
	Enum    []any `json:"enum"`
	Default any   `json:"default"`
	Items   *struct {
		Type any `json:"type"`
	} `json:"items"`
}

// TestToolCommandFlagsMatchSchemas walks the command tree: every flag of
// a tool's command fills a schema property of the same name (--foo-bar
// fills foo_bar) whose JSON type fits the flag's, an enum flag offers
// the schema's values, and a flag's default is the schema's.
func TestToolCommandFlagsMatchSchemas(t *testing.T) {
	f, _ := testFactory(t, nil)
	reg, err := tool.NewRegistry(f.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	root := NewCmdRoot(f)
	var seen []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sc := range c.Commands() {
			walk(sc)
		}
		name, ok := c.Annotations[annotationTool]
		if !ok {
			return
		}
		tl, ok := reg.Lookup(name)
		if !ok {
			return // a command that reports under a tool's name without running it
		}
		seen = append(seen, name)
		def, err := tl.Definition()
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Properties map[string]schemaProperty `json:"properties"`
		}
		if err := json.Unmarshal(def.InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if fl.Annotations[annotationNoField] != nil || fl.Name == "help" {
				return
			}
			field := strings.ReplaceAll(fl.Name, "-", "_")
			p, ok := s.Properties[field]
			if !ok {
				t.Errorf("%s: flag --%s fills no schema property %q", c.CommandPath(), fl.Name, field)
				return
			}
			checkFlagType(t, c.CommandPath(), fl, p)
			if ev, ok := fl.Value.(*enumValue); ok && len(p.Enum) > 0 {
				var enum []string
				for _, e := range p.Enum {
					enum = append(enum, fmt.Sprint(e))
				}
				if !slices.Equal(ev.allowed, enum) {
					t.Errorf("%s --%s offers %v, the schema %v", c.CommandPath(), fl.Name, ev.allowed, enum)
				}
			}
			if p.Default != nil && fl.DefValue != fmt.Sprint(p.Default) {
				t.Errorf("%s --%s defaults to %q, the schema to %v", c.CommandPath(), fl.Name, fl.DefValue, p.Default)
			}
		})
	}
	walk(root)
	for _, want := range []string{"read", "grep", "glob", "write", "edit", "bash"} {
		if !slices.Contains(seen, want) {
			t.Errorf("no command runs tool %s", want)
		}
	}
}

func checkFlagType(t *testing.T, path string, fl *pflag.Flag, p schemaProperty) {
	t.Helper()
	want := map[string]string{
		"bool": "boolean", "int": "integer", "int64": "integer", "count": "integer",
		"float64": "number", "string": "string", "stringSlice": "array", "stringArray": "array",
	}[fl.Value.Type()]
	if _, ok := fl.Value.(*enumValue); ok {
		want = "string"
	}
	if want == "" {
		return
	}
	types := fmt.Sprint(p.Type)
	if want == "integer" && strings.Contains(types, "number") {
		return
	}
	if !strings.Contains(types, want) {
		t.Errorf("%s --%s is a %s flag, the schema says %v", path, fl.Name, fl.Value.Type(), p.Type)
	}
}

// TestUseLinesStayShort: a Use line names the positionals and leaves
// the flags to the flags section, so they are not listed three times.
func TestUseLinesStayShort(t *testing.T) {
	f, _ := testFactory(t, nil)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sc := range c.Commands() {
			walk(sc)
		}
		if c.Annotations[annotationTool] == "" {
			return
		}
		var long bytes.Buffer
		for _, w := range strings.Fields(c.Use) {
			if w != "[--]" && strings.HasPrefix(strings.Trim(w, "[("), "--") {
				long.WriteString(w + " ")
			}
		}
		if long.Len() > 0 {
			t.Errorf("%q lists flags in its Use line: %s", c.Use, long.String())
		}
	}
	walk(NewCmdRoot(f))
}
