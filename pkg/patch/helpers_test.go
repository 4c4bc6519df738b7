package patch

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/tool"
)

func testEnv(t *testing.T) *tool.Env {
	t.Helper()
	dir := t.TempDir()
	return &tool.Env{Root: dir, UserHome: dir, Now: time.Now}
}

// tree is a folder's files: path (slash-separated) to content.
type tree map[string]string

func writeTree(t *testing.T, root string, files tree) {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree reads every file under root, with its mode.
func readTree(t *testing.T, root string) tree {
	t.Helper()
	out := tree{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			dest, _ := os.Readlink(p)
			out[rel] = "symlink→" + dest
		case d.IsDir():
			if rel != "." {
				out[rel+"/"] = ""
			}
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, _ := d.Info()
			out[rel] = string(data) + "\x00mode " + info.Mode().Perm().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, want, got tree) {
	t.Helper()
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		w, okw := want[k]
		g, okg := got[k]
		switch {
		case !okw:
			t.Errorf("%s appeared: %q", k, g)
		case !okg:
			t.Errorf("%s vanished (was %q)", k, w)
		case w != g:
			t.Errorf("%s changed:\n was %q\n now %q", k, w, g)
		}
	}
}

// apply runs the tool on input in env.
func apply(t *testing.T, env *tool.Env, p Params) (*Result, *tool.Error, any) {
	t.Helper()
	resp, err := Run(context.Background(), env, p)
	if err != nil {
		te := tool.AsError(err)
		if te.Code == tool.CodeInternal {
			t.Fatalf("internal error: %v", err)
		}
		if te.Message == "" || te.Hint == "" {
			t.Errorf("error without message or hint: %+v", te)
		}
		var info any
		if resp != nil {
			info = resp.Result
		}
		return nil, te, info
	}
	return resp.Result.(*Result), nil, nil
}
