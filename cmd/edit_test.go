package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// parseArgs runs argv through a fresh root whose command name is built by
// ctor with a runF that only records the call.
func parseArgs(t *testing.T, ctor func(*Factory, func(*CallOptions) error) *cobra.Command, stdin string, argv ...string) (map[string]any, int, map[string]any) {
	t.Helper()
	f, bufs := testFactory(t, nil)
	bufs.in.WriteString(stdin)
	var got *CallOptions
	root := NewCmdRoot(f)
	probe := ctor(f, nil)
	for _, sc := range root.Commands() {
		if sc.Name() == probe.Name() {
			root.RemoveCommand(sc)
		}
	}
	root.AddCommand(ctor(f, func(o *CallOptions) error { got = o; return nil }))
	root.SetArgs(argv)
	if err := root.Execute(); err != nil {
		env := tool.NewEnvelope(argv[0], nil, usageError(nil, err))
		data, _ := json.Marshal(env)
		var m map[string]any
		json.Unmarshal(data, &m)
		return nil, env.ExitCode(), m
	}
	// Round-trip through JSON, as the call does, so numbers compare alike.
	var args map[string]any
	json.Unmarshal(got.JSON(), &args)
	return args, 0, nil
}

func TestNewCmdEditFlagsEqualArgs(t *testing.T) {
	dir := t.TempDir()
	oldFile := filepath.Join(dir, "old.txt")
	os.WriteFile(oldFile, []byte("line 1\nline 2\n"), 0o644)
	cases := []struct {
		argv  []string
		stdin string
		want  map[string]any
	}{
		{[]string{"edit", "f.go", "--old", "a", "--new", "b"}, "",
			map[string]any{"file_path": "f.go", "old_string": "a", "new_string": "b"}},
		{[]string{"edit", "f.go", "--old", "a", "--new", ""}, "",
			map[string]any{"file_path": "f.go", "old_string": "a", "new_string": ""}},
		{[]string{"edit", "f.go", "--old", "a", "--new", "b", "--replace-all", "--expect-count", "3", "--dry-run", "--if-match", "abc"}, "",
			map[string]any{"file_path": "f.go", "old_string": "a", "new_string": "b", "replace_all": true, "expect_count": 3.0, "dry_run": true, "if_match": "abc"}},
		{[]string{"edit", "f.go", "--old-file", oldFile, "--new-file", "-"}, "new\n",
			map[string]any{"file_path": "f.go", "old_string": "line 1\nline 2\n", "new_string": "new\n"}},
		{[]string{"edit", "f.go", "--edits", `[{"old_string":"a","new_string":"b","replace_all":true}]`}, "",
			map[string]any{"file_path": "f.go", "edits": []any{map[string]any{"old_string": "a", "new_string": "b", "replace_all": true}}}},
		{[]string{"edit", "--args", `{"file_path":"f.go","old_string":"a","new_string":"b"}`}, "",
			map[string]any{"file_path": "f.go", "old_string": "a", "new_string": "b"}},
		{[]string{"edit", "--args", `{"file_path":"f.go","old_string":"a","new_string":"b"}`, "--new", "c"}, "",
			map[string]any{"file_path": "f.go", "old_string": "a", "new_string": "c"}},
	}
	for _, c := range cases {
		got, code, env := parseArgs(t, NewCmdEdit, c.stdin, c.argv...)
		if code != 0 {
			t.Errorf("%v: exit %d %v", c.argv, code, env)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", c.argv, diff)
		}
	}
}

func TestNewCmdWriteFlagsEqualArgs(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.txt")
	os.WriteFile(src, []byte("from file\n"), 0o644)
	cases := []struct {
		argv  []string
		stdin string
		want  map[string]any
	}{
		{[]string{"write", "f.txt", "--content", "hi"}, "", map[string]any{"file_path": "f.txt", "content": "hi"}},
		{[]string{"write", "f.txt", "--content", ""}, "", map[string]any{"file_path": "f.txt", "content": ""}},
		{[]string{"write", "f.txt", "-"}, "from stdin\n", map[string]any{"file_path": "f.txt", "content": "from stdin\n"}},
		{[]string{"write", "f.txt", "--content-file", src, "--create-only"}, "", map[string]any{"file_path": "f.txt", "content": "from file\n", "create_only": true}},
		{[]string{"write", "--args", `{"file_path":"f.txt","content":"x"}`, "--dry-run"}, "", map[string]any{"file_path": "f.txt", "content": "x", "dry_run": true}},
	}
	for _, c := range cases {
		got, code, env := parseArgs(t, NewCmdWrite, c.stdin, c.argv...)
		if code != 0 {
			t.Errorf("%v: exit %d %v", c.argv, code, env)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", c.argv, diff)
		}
	}
}

func TestEditWriteUsageErrors(t *testing.T) {
	dir := t.TempDir()
	latin1 := filepath.Join(dir, "latin1.txt")
	os.WriteFile(latin1, []byte("caf\xe9"), 0o644)
	for _, c := range []struct {
		ctor func(*Factory, func(*CallOptions) error) *cobra.Command
		argv []string
	}{
		{NewCmdEdit, []string{"edit", "f", "--old", "a", "--old-file", latin1, "--new", "b"}},
		{NewCmdEdit, []string{"edit", "f", "--old-file", "-", "--new-file", "-"}},
		{NewCmdEdit, []string{"edit", "f", "--old-file", "-", "--args", "-"}},
		{NewCmdEdit, []string{"edit", "f", "--old-file", latin1, "--new", "b"}},
		{NewCmdEdit, []string{"edit", "f", "--old-file", filepath.Join(dir, "missing"), "--new", "b"}},
		{NewCmdEdit, []string{"edit", "f", "--edits", `{"old_string":"a"}`}},
		{NewCmdEdit, []string{"edit", "f", "g", "--old", "a", "--new", "b"}},
		{NewCmdWrite, []string{"write", "f", "--content", "x", "-"}},
		{NewCmdWrite, []string{"write", "f", "extra"}},
		{NewCmdWrite, []string{"write", "f", "--content", "x", "--content-file", latin1}},
		{NewCmdWrite, []string{"write", "f", "--content-file", latin1}},
	} {
		_, code, env := parseArgs(t, c.ctor, "", c.argv...)
		if code != tool.ExitUsage || errCode(env) != "usage" {
			t.Errorf("%v: exit %d, envelope %v", c.argv, code, env)
		}
	}
}

// TestEditThroughTheCLI runs real calls: a schema violation and a tool
// error each give one envelope and the contract's exit code.
func TestEditThroughTheCLI(t *testing.T) {
	f, bufs := testFactory(t, nil)
	root, _ := f.RootDir()
	path := filepath.Join(root, "f.txt")
	os.WriteFile(path, []byte("a\nb\n"), 0o644)
	code, m := runJSON(t, f, bufs, "edit", "f.txt", "--old", "b", "--new", "B")
	if code != 0 || m["ok"] != true {
		t.Fatalf("exit %d %v", code, m)
	}
	if data, _ := os.ReadFile(path); string(data) != "a\nB\n" {
		t.Errorf("file %q", data)
	}
	for argv, want := range map[string][]string{
		"no_match": {"edit", "f.txt", "--old", "zzz", "--new", "y"},
		"usage":    {"edit", "f.txt", "--old", "", "--new", "y"},
		"stale":    {"edit", "f.txt", "--old", "a", "--new", "y", "--if-match", "0000000000000000000000000000000000000000000000000000000000000000"},
	} {
		f, bufs := testFactory(t, nil)
		r, _ := f.RootDir()
		os.WriteFile(filepath.Join(r, "f.txt"), []byte("a\n"), 0o644)
		code, m := runJSON(t, f, bufs, want...)
		if errCode(m) != argv || code != tool.Code(argv).ExitCode() {
			t.Errorf("%v: exit %d %v", want, code, m)
		}
	}
}
