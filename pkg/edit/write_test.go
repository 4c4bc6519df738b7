package edit

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/textedit"
	"github.com/mcode-dev/mcode/pkg/tool"
)

func writeFile(t *testing.T, env *tool.Env, p WriteParams) (*WriteResult, error) {
	t.Helper()
	resp, err := Write(context.Background(), env, p)
	if err != nil {
		return nil, err
	}
	return resp.Result.(*WriteResult), nil
}

func TestWriteCreates(t *testing.T) {
	env := testEnv(t)
	res, err := writeFile(t, env, WriteParams{FilePath: "a/b/new.txt", Content: "one\ntwo\n"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(env.Root, "a", "b", "new.txt")
	data, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	if string(data) != "one\ntwo\n" || res.Action != Created || res.BytesAfter != 8 || res.Additions != 2 {
		t.Errorf("created %q, result %+v", data, res)
	}
	if want := textedit.NewFileMode &^ fsutil.Umask(); info.Mode().Perm() != want || res.Mode != fmt.Sprintf("%04o", want) {
		t.Errorf("mode %v (result %s), want %v", info.Mode().Perm(), res.Mode, want)
	}
	if res.SHA256 != textedit.SHA256Hex(data) {
		t.Error("sha256 is not the file's")
	}
}

func TestWriteKeepsWhatWasThere(t *testing.T) {
	cases := []struct {
		name      string
		old       []byte
		content   string
		want      []byte
		enc, eol  string
		wantNoted bool
	}{
		{"crlf kept for LF content", []byte("a\r\nb\r\n"), "x\ny\n", []byte("x\r\ny\r\n"), "utf-8", "crlf", false},
		{"content with CRLF as sent", []byte("a\nb\n"), "x\r\ny\n", []byte("x\r\ny\n"), "utf-8", "mixed", false},
		{"bom kept", []byte("\xEF\xBB\xBFold\n"), "new\n", []byte("\xEF\xBB\xBFnew\n"), "utf-8-bom", "lf", false},
		{"bom not doubled", []byte("\xEF\xBB\xBFold\n"), "\uFEFFnew\n", []byte("\xEF\xBB\xBFnew\n"), "utf-8-bom", "lf", false},
		{"utf-16le kept", []byte("\xFF\xFEo\x00\n\x00"), "n\u00e9\n", []byte("\xFF\xFEn\x00\xe9\x00\n\x00"), "utf-16le", "lf", false},
		{"latin-1 kept", []byte("caf\xe9\n"), "th\u00e9\n", []byte("th\xe9\n"), "latin-1", "lf", false},
		{"latin-1 cannot hold it", []byte("caf\xe9\n"), "\u4e2d\n", []byte("\u4e2d\n"), "utf-8", "lf", true},
		{"binary replaced", []byte("\x00\x01\x02"), "text\n", []byte("text\n"), "utf-8", "lf", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(t)
			path := filepath.Join(env.Root, "f")
			os.WriteFile(path, c.old, 0o600)
			res, err := writeFile(t, env, WriteParams{FilePath: "f", Content: c.content})
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			if !bytes.Equal(data, c.want) {
				t.Errorf("bytes %q, want %q", data, c.want)
			}
			if res.Action != Replaced || res.Encoding != c.enc || res.LineEnding != c.eol || (res.Note != "") != c.wantNoted {
				t.Errorf("result %+v", res)
			}
			if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600 kept", info.Mode().Perm())
			}
			if res.BytesBefore != len(c.old) || res.BytesAfter != len(c.want) || res.SHA256 != textedit.SHA256Hex(c.want) {
				t.Errorf("sizes or sha256 wrong: %+v", res)
			}
		})
	}
}

func TestWriteDiffAndUnchanged(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Root, "f.go")
	os.WriteFile(path, []byte("a\nb\nc\n"), 0o644)
	res, err := writeFile(t, env, WriteParams{FilePath: "f.go", Content: "a\nB\nc\n"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "--- a/f.go\n+++ b/f.go\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"; res.Diff != want || res.Additions != 1 || res.Removals != 1 || res.FirstChangedLine != 2 {
		t.Errorf("diff %q, result %+v", res.Diff, res)
	}
	before, _ := os.Stat(path)
	res, err = writeFile(t, env, WriteParams{FilePath: "f.go", Content: "a\nB\nc\n"})
	after, _ := os.Stat(path)
	if err != nil || res.Action != Unchanged || !os.SameFile(before, after) {
		t.Errorf("same content: %v %+v (file replaced: %v)", err, res, !os.SameFile(before, after))
	}
}

func TestWriteRefuses(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Root, "f.txt")
	os.WriteFile(path, []byte("keep\n"), 0o644)
	os.Mkdir(filepath.Join(env.Root, "dir"), 0o755)
	cases := []struct {
		name string
		p    WriteParams
		code tool.Code
	}{
		{"create_only", WriteParams{FilePath: "f.txt", Content: "x", CreateOnly: true}, tool.CodeInvalidArgs},
		{"stale", WriteParams{FilePath: "f.txt", Content: "x", IfMatch: strings.Repeat("a", 64)}, tool.CodeStale},
		{"stale missing file", WriteParams{FilePath: "nope.txt", Content: "x", IfMatch: strings.Repeat("a", 64)}, tool.CodeStale},
		{"pasted read output", WriteParams{FilePath: "f.txt", Content: "     1→package main\n     2→\n     3→func main() {}\n"}, tool.CodeInvalidArgs},
		{"directory", WriteParams{FilePath: "dir", Content: "x"}, tool.CodeIsDirectory},
		{"under a file", WriteParams{FilePath: "f.txt/sub", Content: "x"}, tool.CodeNotADirectory},
		{"device", WriteParams{FilePath: "/dev/null", Content: "x"}, tool.CodeSpecialFile},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := writeFile(t, env, c.p)
			if te := tool.AsError(err); te == nil || te.Code != c.code {
				t.Fatalf("err = %v, want %s", err, c.code)
			}
			if data, _ := os.ReadFile(path); string(data) != "keep\n" {
				t.Errorf("file changed to %q", data)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(env.Root, "nope.txt")); err == nil {
		t.Error("a refused write created a file")
	}
	// The right stamp lets the write through; dry_run writes nothing.
	res, err := writeFile(t, env, WriteParams{FilePath: "f.txt", Content: "new\n", IfMatch: textedit.SHA256Hex([]byte("keep\n")), DryRun: true})
	if data, _ := os.ReadFile(path); err != nil || string(data) != "keep\n" || !strings.Contains(res.Diff, "+new") {
		t.Errorf("dry run: %v, file %q, result %+v", err, data, res)
	}
	res, err = writeFile(t, env, WriteParams{FilePath: "fresh.txt", Content: "x", DryRun: true})
	if _, statErr := os.Stat(filepath.Join(env.Root, "fresh.txt")); err != nil || res.Action != Created || statErr == nil {
		t.Errorf("dry-run create: %v %+v, stat %v", err, res, statErr)
	}
}

func TestWriteThroughSymlink(t *testing.T) {
	env := testEnv(t)
	os.Mkdir(filepath.Join(env.Root, "real"), 0o755)
	os.WriteFile(filepath.Join(env.Root, "real", "t.txt"), []byte("old\n"), 0o640)
	os.Symlink("real/t.txt", filepath.Join(env.Root, "link"))
	res, err := writeFile(t, env, WriteParams{FilePath: "link", Content: "new\n"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(env.Root, "real", "t.txt"))
	info, _ := os.Lstat(filepath.Join(env.Root, "link"))
	if string(data) != "new\n" || info.Mode()&os.ModeSymlink == 0 || res.Target == "" || res.Mode != "0640" {
		t.Errorf("target %q, link mode %v, result %+v", data, info.Mode(), res)
	}
}

// TestWriteRefusesContentOverItsLimit: write never makes a file larger
// than edit and write can change afterwards.
func TestWriteRefusesContentOverItsLimit(t *testing.T) {
	env := testEnv(t)
	// The content is zeros the test never writes: fresh pages from the
	// system, so 256 MiB costs no page faults (strings.Repeat took 5 s).
	big := make([]byte, textedit.MaxFileMiB<<20+1)
	_, err := writeFile(t, env, WriteParams{FilePath: "big.txt", Content: unsafe.String(unsafe.SliceData(big), len(big))})
	if te := tool.AsError(err); te == nil || te.Code != tool.CodeTooLarge {
		t.Fatalf("err = %v, want too_large", err)
	}
	if _, err := os.Stat(filepath.Join(env.Root, "big.txt")); err == nil {
		t.Error("the file was created")
	}
}
