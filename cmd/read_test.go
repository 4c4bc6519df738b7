package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/pkg/tool"
)

func TestNewCmdReadFlagsEqualArgs(t *testing.T) {
	cases := []struct {
		argv []string
		want map[string]any
	}{
		{[]string{"read", "main.go"}, map[string]any{"path": "main.go"}},
		{[]string{"read", "main.go", "--offset", "10", "--limit", "5"}, map[string]any{"path": "main.go", "offset": int64(10), "limit": int64(5)}},
		{[]string{"read", "doc.pdf", "--pages", "1-3"}, map[string]any{"path": "doc.pdf", "pages": "1-3"}},
		{[]string{"read", "--args", `{"path":"a.go","offset":3}`}, map[string]any{"path": "a.go", "offset": json.Number("3")}},
		{[]string{"read", "--args", `{"path":"a.go","limit":3}`, "b.go", "--limit", "7"}, map[string]any{"path": "b.go", "limit": int64(7)}},
	}
	for _, c := range cases {
		f, _ := testFactory(t, nil)
		var got *CallOptions
		root := NewCmdRoot(f)
		for _, sc := range root.Commands() {
			if sc.Name() == "read" {
				root.RemoveCommand(sc)
			}
		}
		root.AddCommand(NewCmdRead(f, func(o *CallOptions) error { got = o; return nil }))
		root.SetArgs(c.argv)
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v", c.argv, err)
		}
		if diff := cmp.Diff(c.want, got.Args); diff != "" {
			t.Errorf("%v (-want +got):\n%s", c.argv, diff)
		}
	}
}

func TestReadCommandEnvelope(t *testing.T) {
	f, bufs := testFactory(t, nil)
	root, _ := f.Getwd()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\r\ntwo\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, m := runJSON(t, f, bufs, "read", "a.txt")
	if code != 0 || m["output"] != "     1→one\n     2→two\n" {
		t.Fatalf("exit %d, %v", code, m)
	}
	res := m["result"].(map[string]any)
	if res["line_ending"] != "crlf" || res["kind"] != "text" || res["variant"] != nil {
		t.Errorf("result %v", res)
	}

	for _, c := range []struct {
		argv []string
		exit int
		code string
	}{
		{[]string{"read", "nope.txt"}, tool.ExitFailure, "not_found"},
		{[]string{"read", "a.txt", "--offset", "-1"}, tool.ExitUsage, "usage"},
		{[]string{"read", "a.txt", "--limit", "2001"}, tool.ExitUsage, "usage"},
		{[]string{"read", "a.txt", "--limit", "0"}, tool.ExitUsage, "usage"},
		{[]string{"read", "a.txt", "--offset", "3"}, tool.ExitFailure, "invalid_args"},
		{[]string{"read"}, tool.ExitUsage, "usage"},
		{[]string{"read", "a.txt", "b.txt"}, tool.ExitFailure, "not_found"}, // a.txt is read, b.txt is missing
		{[]string{"read", "/dev/zero"}, tool.ExitFailure, "special_file"},
		{[]string{"read", "."}, tool.ExitFailure, "is_directory"},
	} {
		f2, bufs2 := testFactory(t, nil)
		f2.Getwd = f.Getwd
		code, m := runJSON(t, f2, bufs2, c.argv...)
		if code != c.exit || errCode(m) != c.code {
			t.Errorf("%v: exit %d code %s, want %d %s (%v)", c.argv, code, errCode(m), c.exit, c.code, m["error"])
		}
	}

	// -o text prints the numbered lines only.
	f3, bufs3 := testFactory(t, nil)
	f3.Getwd = f.Getwd
	if code := Run(t.Context(), f3, []string{"-o", "text", "read", "a.txt"}); code != 0 || bufs3.out.String() != "     1→one\n     2→two\n" {
		t.Errorf("-o text: exit %d, %q", code, bufs3.out.String())
	}
}
