package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

// TestToolFlagsComeFromTheSchema walks the command tree: every
// parameter of a tool's schema is a flag of its command in both
// spellings (--file_path, --file-path), every alias is a flag (or short
// flag), every flag that fills an argument fills a parameter or an
// alias, and an enum flag offers the schema's values.
func TestToolFlagsComeFromTheSchema(t *testing.T) {
	f, _ := testFactory(t, nil)
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
		tl := f.builtin(name)
		if tl == nil {
			return // a command that reports under a tool's name without running it
		}
		seen = append(seen, name)
		params, err := tl.Params()
		if err != nil {
			t.Fatal(err)
		}
		known := map[string]bool{}
		for _, p := range params {
			known[p.Name] = true
			for _, spelling := range []string{p.Name, strings.ReplaceAll(p.Name, "_", "-")} {
				fl := c.Flags().Lookup(spelling)
				if fl == nil {
					t.Errorf("%s: parameter %q has no flag --%s", c.CommandPath(), p.Name, spelling)
					continue
				}
				if key := fl.Annotations[annotationField]; len(key) == 0 || (key[0] != p.Name && tl.Aliases()[key[0]].Param != p.Name) {
					t.Errorf("%s: --%s fills %v, not %q", c.CommandPath(), spelling, key, p.Name)
				}
			}
			if ev, ok := c.Flags().Lookup(p.Name).Value.(*enumValue); ok && !slices.Equal(ev.allowed[:len(p.Enum)], p.Enum) {
				t.Errorf("%s --%s offers %v, the schema %v", c.CommandPath(), p.Name, ev.allowed, p.Enum)
			}
		}
		for a, al := range tl.Aliases() {
			known[a] = true
			var fl *pflag.Flag
			if isShortAlias(a) {
				fl = c.Flags().ShorthandLookup(a[1:])
			} else {
				fl = c.Flags().Lookup(a)
			}
			if fl == nil {
				t.Errorf("%s: alias %q of %s has no flag", c.CommandPath(), a, al.Param)
				continue
			}
			if key := fl.Annotations[annotationField]; len(key) == 0 || (key[0] != a && key[0] != al.Param) {
				t.Errorf("%s: %s fills %v, not %q", c.CommandPath(), flagForm(a), key, a)
			}
		}
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if key := fl.Annotations[annotationField]; len(key) > 0 && !known[key[0]] {
				t.Errorf("%s: --%s fills %q, which %s does not take", c.CommandPath(), fl.Name, key[0], name)
			}
		})
	}
	walk(root)
	for _, want := range []string{"read", "grep", "glob", "write", "edit", "bash", "rm", "trash_restore", "task_output", "render", "extract"} {
		if !slices.Contains(seen, want) {
			t.Errorf("no command runs tool %s", want)
		}
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

// TestAParameterAddedToTheSchemaIsEverywhere adds one property to a
// tool's schema, and nothing else: it is then a flag in both spellings,
// in the one-line usage, in tools list, and reaches the tool.
func TestAParameterAddedToTheSchemaIsEverywhere(t *testing.T) {
	const base = `{"type": "object", "properties": {
		"name": {"type": "string", "description": "who to greet"}%s},
		"required": ["name"], "additionalProperties": false}`
	const added = `, "shout_twice": {"type": "boolean", "description": "say it twice, loudly"}`
	for _, withParam := range []bool{false, true} {
		schema := fmt.Sprintf(base, "")
		if withParam {
			schema = fmt.Sprintf(base, added)
		}
		probe := tool.New(tool.Spec{Name: "probe", Positional: []string{"name"}, Description: "Greets someone.", Schema: schema},
			func(ctx context.Context, env *tool.Env, p map[string]any) (*tool.Response, error) {
				return &tool.Response{Output: "hello", Result: p}, nil
			})
		run := func(args ...string) (int, map[string]any) {
			f, bufs := testFactory(t, nil)
			f.Tools = func() []*tool.Tool { return append(f.builtinTools(), probe) }
			root := NewCmdRoot(f)
			root.AddCommand(subToolCommand(f, nil, "probe", "probe NAME", "Greet someone", ""))
			root.SetArgs(args)
			code := 0
			if err := root.Execute(); err != nil {
				var ee *exitError
				if !errors.As(err, &ee) {
					printEnvelope(f, tool.NewEnvelope("probe", nil, usageError(nil, err)))
					code = tool.ExitUsage
				} else {
					code = ee.code
				}
			}
			var m map[string]any
			if err := json.Unmarshal(bufs.out.Bytes(), &m); err != nil {
				t.Fatalf("%v: %v: %q", args, err, bufs.out.String())
			}
			return code, m
		}
		for _, spelling := range []string{"--shout_twice", "--shout-twice"} {
			code, m := run("probe", "ada", spelling)
			if !withParam {
				if code != tool.ExitUsage || !strings.Contains(fmt.Sprint(m["error"]), "unknown flag "+spelling) {
					t.Errorf("without the parameter, %s: exit %d %v", spelling, code, m["error"])
				}
				continue
			}
			if code != 0 || m["result"].(map[string]any)["shout_twice"] != true {
				t.Errorf("with the parameter, %s: exit %d %v", spelling, code, m)
			}
		}
		code, m := run("probe", "ada", "--shout-twise")
		hint := fmt.Sprint(m["error"].(map[string]any)["hint"])
		if code != tool.ExitUsage || strings.Contains(hint, "[--shout-twice]") != withParam {
			t.Errorf("with the parameter %v, the usage line is %q", withParam, hint)
		}
		_, m = run("tools", "list", "probe")
		listed := strings.Contains(fmt.Sprint(m["result"]), "shout_twice")
		if listed != withParam {
			t.Errorf("with the parameter %v, tools list shows it: %v", withParam, listed)
		}
	}
}
