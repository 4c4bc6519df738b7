package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The flags of grep and glob fill the schema's fields one to one.
func TestNewCmdGrepGlobFlagsEqualArgs(t *testing.T) {
	cases := []struct {
		argv []string
		want map[string]any
	}{
		{[]string{"grep", "foo"}, map[string]any{"pattern": "foo"}},
		{[]string{"grep", "foo", "src", "--glob", "*.go", "--glob", "!*_test.go", "--mode", "content", "-i", "-F", "-C", "2", "-U", "--limit", "5", "--sort", "modified", "--no-ignore"},
			map[string]any{"pattern": "foo", "path": "src", "glob": []string{"*.go", "!*_test.go"}, "mode": "content",
				"case_insensitive": true, "fixed_strings": true, "context": int64(2), "multiline": true, "limit": int64(5), "sort": "modified", "no_ignore": true}},
		{[]string{"grep", "--args", `{"pattern":"x","limit":3}`, "--limit", "4"}, map[string]any{"pattern": "x", "limit": int64(4)}},
		// rg's and grep's habits: -rn, several paths, Claude Code's names as flags.
		{[]string{"grep", "-rn", "x", "a.py", "src"}, map[string]any{"pattern": "x", "path": []string{"a.py", "src"}, "recursive": true, "line_number": true}},
		{[]string{"grep", "x", "--output-mode", "files_with_matches", "--path", "src/x.py", "--case_insensitive", "--head_limit", "3"},
			map[string]any{"pattern": "x", "path": "src/x.py", "mode": "files", "case_insensitive": true, "limit": int64(3)}},
		{[]string{"glob", "**/*.go", "pkg", "--include-ignored", "--sort", "modified", "--limit", "7", "--type", "dir"},
			map[string]any{"pattern": "**/*.go", "path": "pkg", "include_ignored": true, "sort": "modified", "limit": int64(7), "type": "dir"}},
	}
	for _, c := range cases {
		f, _ := testFactory(t, nil)
		var got *CallOptions
		root := NewCmdRoot(f)
		for _, sc := range root.Commands() {
			if sc.Name() == c.argv[0] {
				root.RemoveCommand(sc)
			}
		}
		capture := func(o *CallOptions) error { got = o; return nil }
		if c.argv[0] == "grep" {
			root.AddCommand(NewCmdGrep(f, capture))
		} else {
			root.AddCommand(NewCmdGlob(f, capture))
		}
		root.SetArgs(c.argv)
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v", c.argv, err)
		}
		// --args values decode as json.Number; compare flags only where they set the value.
		if diff := cmp.Diff(c.want, normalize(got.Args)); diff != "" {
			t.Errorf("%v (-want +got):\n%s", c.argv, diff)
		}
	}
}

func normalize(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		switch x := v.(type) {
		case interface{ Int64() (int64, error) }:
			n, _ := x.Int64()
			out[k] = n
		default:
			out[k] = v
		}
	}
	return out
}

func TestGrepAndGlobRunThroughTheRegistry(t *testing.T) {
	f, bufs := testFactory(t, nil)
	dir, _ := f.Getwd()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a // needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, m := runJSON(t, f, bufs, "grep", "needle", "--mode", "count")
	res, _ := m["result"].(map[string]any)
	if code != 0 || res["total"] != float64(1) || m["tool"] != "grep" {
		t.Fatalf("grep: exit %d %v", code, m)
	}
	f, bufs = testFactory(t, nil)
	dir, _ = f.Getwd()
	_ = os.WriteFile(filepath.Join(dir, "b.go"), nil, 0o644)
	code, m = runJSON(t, f, bufs, "glob", "*.go")
	res, _ = m["result"].(map[string]any)
	if code != 0 || res["total"] != float64(1) {
		t.Fatalf("glob: exit %d %v", code, m)
	}
	f, bufs = testFactory(t, nil)
	code, m = runJSON(t, f, bufs, "grep", "--mode", "lines", "x")
	if code != 2 || errCode(m) != "usage" {
		t.Errorf("bad --mode: exit %d %v", code, m)
	}
}
