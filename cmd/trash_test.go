package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/pkg/tool"
)

func TestNewCmdRmFlagsEqualArgs(t *testing.T) {
	cases := []struct {
		argv []string
		want map[string]any
	}{
		{[]string{"rm", "a"}, map[string]any{"paths": []string{"a"}}},
		{[]string{"rm", "-rf", "a", "b"}, map[string]any{"paths": []string{"a", "b"}, "force": true, "recursive": true}},
		{[]string{"rm", "-R", "-v", "a"}, map[string]any{"paths": []string{"a"}, "recursive": true}},
		{[]string{"rm", "-di", "--", "-x"}, map[string]any{"paths": []string{"-x"}, "dir": true, "interactive": true}},
		{[]string{"rm", "--args", `{"paths":["a"],"force":true}`}, map[string]any{"paths": []any{"a"}, "force": true}},
	}
	for _, c := range cases {
		f, _ := testFactory(t, nil)
		var got *CallOptions
		root := NewCmdRoot(f)
		for _, sc := range root.Commands() {
			if sc.Name() == "rm" {
				root.RemoveCommand(sc)
			}
		}
		root.AddCommand(NewCmdRm(f, func(o *CallOptions) error { got = o; return nil }))
		root.SetArgs(c.argv)
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v", c.argv, err)
		}
		if diff := cmp.Diff(c.want, got.Args); diff != "" {
			t.Errorf("%v (-want +got):\n%s", c.argv, diff)
		}
	}
}

// trashFactory is a factory whose workspace root is a fresh folder and
// whose trash is in its own temp HOME; standard input is no terminal, so
// rm has nobody to ask.
func trashFactory(t *testing.T) (*Factory, *iostreamsBuffers, string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	os.MkdirAll(root, 0o755)
	f, bufs := testFactory(t, map[string]string{
		"HOME":          filepath.Join(base, "home"),
		"XDG_DATA_HOME": filepath.Join(base, "home", ".local", "share"),
		"MCODE_ROOT":    root,
	})
	return f, bufs, root
}

func rerun(t *testing.T, f *Factory, bufs *iostreamsBuffers, args ...string) (int, map[string]any) {
	t.Helper()
	bufs.out.Reset()
	bufs.errOut.Reset()
	return runJSON(t, f, bufs, args...)
}

func field(m map[string]any, path string) any {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		switch node := v.(type) {
		case map[string]any:
			v = node[k]
		case []any:
			i := 0
			for _, c := range k {
				i = i*10 + int(c-'0')
			}
			if i >= len(node) {
				return nil
			}
			v = node[i]
		default:
			return nil
		}
	}
	return v
}

func TestTrashCommandsRoundTrip(t *testing.T) {
	f, bufs, root := trashFactory(t)
	os.MkdirAll(filepath.Join(root, "build", "obj"), 0o755)
	os.WriteFile(filepath.Join(root, "build", "obj", "a.o"), []byte("obj"), 0o644)
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main"), 0o600)

	code, m := rerun(t, f, bufs, "rm", "build")
	if code != 1 || errCode(m) != "is_directory" || !strings.Contains(m["output"].(string), "cannot remove 'build': Is a directory") {
		t.Fatalf("rm dir without -r: %d %v", code, m)
	}
	code, m = rerun(t, f, bufs, "rm", "-r", "build", "main.go")
	if code != 0 || field(m, "result.trashed") != 2.0 || field(m, "result.items.0.entry.id") != "build" {
		t.Fatalf("rm -r: %d %v", code, m)
	}
	if _, err := os.Stat(filepath.Join(root, "build")); !os.IsNotExist(err) {
		t.Fatalf("build still there: %v", err)
	}

	code, m = rerun(t, f, bufs, "trash", "list")
	if code != 0 || field(m, "result.total") != 2.0 || field(m, "tool") != "trash_list" {
		t.Fatalf("list: %d %v", code, m)
	}
	code, m = rerun(t, f, bufs, "trash", "list", "--path", "build")
	if code != 0 || field(m, "result.total") != 1.0 || field(m, "result.entries.0.kind") != "directory" {
		t.Fatalf("list --path: %d %v", code, m)
	}
	code, m = rerun(t, f, bufs, "trash", "list", "--limit", "1")
	if code != 0 || m["truncated"] != true || field(m, "result.count") != 1.0 || field(m, "continuation.hint") == nil {
		t.Fatalf("list --limit: %d %v", code, m)
	}
	if code, m = rerun(t, f, bufs, "trash", "list", "--since", "yesterday"); code != 2 || errCode(m) != "usage" {
		t.Errorf("bad --since: %d %v", code, m)
	}

	// main.go comes back by path, with its mode.
	code, m = rerun(t, f, bufs, "trash", "restore", "main.go")
	if code != 0 || field(m, "result.restored.0.restored_to") != filepath.Join(root, "main.go") {
		t.Fatalf("restore: %d %v", code, m)
	}
	if st, err := os.Stat(filepath.Join(root, "main.go")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("main.go restored as %v, %v", st, err)
	}
	// build by id into another folder; twice is not_found.
	code, m = rerun(t, f, bufs, "trash", "restore", "build", "--to", "recovered")
	if code != 0 {
		t.Fatalf("restore --to: %d %v", code, m)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "recovered", "build", "obj", "a.o")); string(data) != "obj" {
		t.Errorf("restored tree: %q", data)
	}
	if code, m = rerun(t, f, bufs, "trash", "restore", "build"); code != 1 || errCode(m) != "not_found" {
		t.Errorf("restore twice: %d %v", code, m)
	}

	// Overwrite is refused, and --force keeps what it replaces.
	os.WriteFile(filepath.Join(root, "main.go"), []byte("v2"), 0o644)
	rerun(t, f, bufs, "rm", "main.go")
	os.WriteFile(filepath.Join(root, "main.go"), []byte("v3"), 0o644)
	if code, m = rerun(t, f, bufs, "trash", "restore", "main.go"); code != 1 || errCode(m) != "invalid_args" || !strings.Contains(field(m, "error.hint").(string), "force") {
		t.Errorf("restore over a file: %d %v", code, m)
	}
	code, m = rerun(t, f, bufs, "trash", "restore", "main.go", "--force")
	if data, _ := os.ReadFile(filepath.Join(root, "main.go")); code != 0 || string(data) != "v2" || field(m, "result.restored.0.replaced.id") == nil {
		t.Errorf("restore --force: %d %q %v", code, data, m)
	}

	// trash put, then empty: refused without a filter or --all.
	code, m = rerun(t, f, bufs, "trash", "put", "main.go", "recovered")
	if code != 0 || field(m, "result.trashed") != 2.0 {
		t.Fatalf("put: %d %v", code, m)
	}
	if code, m = rerun(t, f, bufs, "trash", "empty"); code != 2 || errCode(m) != "usage" || !strings.Contains(field(m, "error.hint").(string), "--all") {
		t.Errorf("empty without --all: %d %v", code, m)
	}
	if code, m = rerun(t, f, bufs, "trash", "empty", "--older-than", "30"); code != 2 || !strings.Contains(field(m, "error.message").(string), "no unit") {
		t.Errorf("empty --older-than 30: %d %v", code, m)
	}
	code, m = rerun(t, f, bufs, "trash", "empty", "--older-than", "30d")
	if code != 0 || field(m, "result.erased") != 0.0 || field(m, "result.kept") != 3.0 {
		t.Errorf("empty --older-than 30d: %d %v", code, m)
	}
	code, m = rerun(t, f, bufs, "trash", "empty", "--all")
	if code != 0 || field(m, "result.erased") != 3.0 {
		t.Errorf("empty --all: %d %v", code, m)
	}
	if code, m = rerun(t, f, bufs, "trash", "list"); field(m, "result.total") != 0.0 || !strings.Contains(m["output"].(string), "the trash is empty") {
		t.Errorf("list after empty: %d %v", code, m)
	}
}

func TestRmRefusalsAreDenied(t *testing.T) {
	f, bufs, root := trashFactory(t)
	os.MkdirAll(f.userHome(), 0o755)
	for _, target := range []string{"~", ".", root, filepath.Dir(root), "/"} {
		code, m := rerun(t, f, bufs, "rm", "-rf", target)
		if target == "." {
			if code != 1 || errCode(m) != "invalid_args" {
				t.Errorf("rm -rf .: %d %v", code, m)
			}
			continue
		}
		if code != tool.ExitDenied || errCode(m) != "denied" {
			t.Errorf("rm -rf %s: %d %v", target, code, m)
		}
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatal("the workspace root is gone")
	}
}

func TestRmInteractiveWithoutTerminalIsRefused(t *testing.T) {
	f, bufs, root := trashFactory(t)
	os.WriteFile(filepath.Join(root, "f"), nil, 0o644)
	code, m := rerun(t, f, bufs, "rm", "-i", "f")
	if code != 2 || errCode(m) != "usage" {
		t.Errorf("rm -i: %d %v", code, m)
	}
	if _, err := os.Stat(filepath.Join(root, "f")); err != nil {
		t.Error("rm -i without a terminal removed the file")
	}
}

func TestRmInteractiveOnATerminalAsks(t *testing.T) {
	f, bufs, root := trashFactory(t)
	f.IO.InTTY = true
	for _, n := range []string{"yes", "no"} {
		os.WriteFile(filepath.Join(root, n), nil, 0o644)
	}
	bufs.in.WriteString("y\nn\n")
	code, m := runJSON(t, f, bufs, "rm", "-i", "yes", "no")
	if code != 0 || field(m, "result.trashed") != 1.0 || field(m, "result.items.1.skipped") != "declined" {
		t.Fatalf("rm -i: %d %v", code, m)
	}
	if got, want := bufs.errOut.String(), "mcode rm: remove regular empty file 'yes'? mcode rm: remove regular empty file 'no'? "; got != want {
		t.Errorf("questions %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(root, "no")); err != nil {
		t.Error("answered n, the file is gone")
	}
}

func TestTrashToolsAreRegistered(t *testing.T) {
	reg, err := tool.NewRegistry(NewFactory().builtinTools()...)
	if err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]tool.Mode{
		"rm": tool.Sequential, "trash_put": tool.Sequential, "trash_restore": tool.Sequential,
		"trash_empty": tool.Sequential, "trash_list": tool.Parallel,
	} {
		tl, ok := reg.Lookup(name)
		if !ok || tl.Mode != mode {
			t.Errorf("%s: registered %v, mode %v; want %v", name, ok, tl.Mode, mode)
		}
		// A verifier may list the trash but not change it.
		denied := tool.Profile{Role: tool.RoleVerifier}.Permits(tl)
		if (denied == nil) != (mode == tool.Parallel) {
			t.Errorf("%s: verifier permitted = %v", name, denied == nil)
		}
	}
}

// Names that are not UTF-8 cannot ride in JSON as they are: the command
// line sends them as \xHH and the tools decode them, so they round-trip.
func TestNonUTF8NamesFromTheCommandLine(t *testing.T) {
	f, bufs, root := trashFactory(t)
	for _, n := range []string{"bad\xffname", "two\xfe"} {
		os.WriteFile(filepath.Join(root, n), []byte(n), 0o644)
	}
	if code, m := rerun(t, f, bufs, "rm", "bad\xffname"); code != 0 || field(m, "result.items.0.entry.id") != "bad%FFname" ||
		field(m, "result.items.0.path") != `bad\xFFname` {
		t.Fatalf("rm: %d %v", code, m)
	}
	if code, m := rerun(t, f, bufs, "trash", "put", "two\xfe"); code != 0 {
		t.Fatalf("trash put: %d %v", code, m)
	}
	code, m := rerun(t, f, bufs, "trash", "list")
	if code != 0 || field(m, "result.entries.0.original_path") != filepath.Join(root, `two\xFE`) {
		t.Fatalf("list: %d %v", code, m)
	}
	if code, m := rerun(t, f, bufs, "trash", "restore", filepath.Join(root, "bad\xffname"), "two%FE"); code != 0 {
		t.Fatalf("restore: %d %v", code, m)
	}
	for _, n := range []string{"bad\xffname", "two\xfe"} {
		if data, err := os.ReadFile(filepath.Join(root, n)); err != nil || string(data) != n {
			t.Errorf("%q: %q, %v", n, data, err)
		}
	}
}
