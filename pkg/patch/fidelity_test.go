package patch

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestByteFidelity patches files in every encoding and line-break style
// and compares the result byte for byte: only the changed lines differ,
// and they take the file's encoding and their neighbours' breaks.
func TestByteFidelity(t *testing.T) {
	utf16 := func(s string) []byte {
		out := []byte{0xFF, 0xFE}
		for _, r := range s {
			out = append(out, byte(r), byte(r>>8))
		}
		return out
	}
	update := "*** Begin Patch\n*** Update File: f\n@@\n one\n-two\n+TWO\n+two and a half\n three\n*** End Patch\n"
	cases := []struct {
		name          string
		before, after []byte
		patch         string
		mode          os.FileMode
	}{
		{"lf", []byte("one\ntwo\nthree\n"), []byte("one\nTWO\ntwo and a half\nthree\n"), update, 0o644},
		{"crlf", []byte("one\r\ntwo\r\nthree\r\n"), []byte("one\r\nTWO\r\ntwo and a half\r\nthree\r\n"), update, 0o644},
		{"mixed: the changed line's own break", []byte("one\ntwo\r\nthree\n"), []byte("one\nTWO\r\ntwo and a half\r\nthree\n"), update, 0o644},
		{"mixed: an insertion takes the line above's", []byte("zero\r\none\ntwo\r\n"),
			[]byte("zero\r\none\nhalf\ntwo\r\n"), "*** Begin Patch\n*** Update File: f\n@@\n one\n+half\n two\n*** End Patch\n", 0o644},
		{"bom", []byte("\xEF\xBB\xBFone\ntwo\nthree\n"), []byte("\xEF\xBB\xBFone\nTWO\ntwo and a half\nthree\n"), update, 0o644},
		{"bom crlf first line", []byte("\xEF\xBB\xBFone\r\ntwo\r\n"), []byte("\xEF\xBB\xBFuno\r\ntwo\r\n"),
			"*** Begin Patch\n*** Update File: f\n-one\n+uno\n two\n*** End Patch\n", 0o644},
		{"utf-16le", utf16("one\r\ntwo\r\nthree\r\n"), utf16("one\r\nTWO\r\ntwo and a half\r\nthree\r\n"), update, 0o644},
		{"utf-16le non-ascii", utf16("caf\u00e9\nna\u00efve\n"), utf16("caf\u00e9\nna\u00eff \u2713\n"),
			"*** Begin Patch\n*** Update File: f\n café\n-naïve\n+naïf ✓\n*** End Patch\n", 0o644},
		{"latin-1 as decoded", []byte("caf\xe9\nna\xefve\nend\n"), []byte("caf\xe9\nna\xeff\nend\n"),
			"*** Begin Patch\n*** Update File: f\n café\n-naïve\n+naïf\n end\n*** End Patch\n", 0o644},
		{"no final newline", []byte("one\ntwo"), []byte("one\nTWO"), "*** Begin Patch\n*** Update File: f\n one\n-two\n+TWO\n*** End Patch\n", 0o644},
		{"mode kept", []byte("#!/bin/sh\necho a\n"), []byte("#!/bin/sh\necho b\n"),
			"*** Begin Patch\n*** Update File: f\n #!/bin/sh\n-echo a\n+echo b\n*** End Patch\n", 0o755},
		{"pure addition rewrites nothing else", append([]byte("a\r\nb  \n\xEF\xBB\xBF\tc\n"), bytes.Repeat([]byte("z"), 3)...),
			append([]byte("a\r\nnew\r\nb  \n\xEF\xBB\xBF\tc\n"), bytes.Repeat([]byte("z"), 3)...),
			"*** Begin Patch\n*** Update File: f\n a\n+new\n b  \n*** End Patch\n", 0o644},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(t)
			path := filepath.Join(env.Root, "f")
			if err := os.WriteFile(path, c.before, c.mode); err != nil {
				t.Fatal(err)
			}
			os.Chmod(path, c.mode)
			if _, terr, _ := apply(t, env, Params{Input: c.patch}); terr != nil {
				t.Fatalf("%s: %s", terr.Code, terr.Message)
			}
			got, _ := os.ReadFile(path)
			if !bytes.Equal(got, c.after) {
				t.Fatalf("bytes:\n got %q\nwant %q", got, c.after)
			}
			if info, _ := os.Stat(path); info.Mode().Perm() != c.mode {
				t.Errorf("mode %v, want %v", info.Mode().Perm(), c.mode)
			}
		})
	}
}

// TestEncodingRefusals: text a file cannot hold is refused before any
// write.
func TestEncodingRefusals(t *testing.T) {
	cases := []struct {
		name  string
		data  []byte
		patch string
	}{
		{"latin-1 cannot hold a check mark", []byte("caf\xe9\nx\n"), "*** Begin Patch\n*** Update File: f\n café\n-x\n+✓\n*** End Patch\n"},
		{"non-UTF-8 bytes take ASCII only", []byte("\xff\xfe\xfd garbage\x80\nx\n"), "*** Begin Patch\n*** Update File: f\n-x\n+é\n*** End Patch\n"},
		{"U+FFFD is never written", []byte("x\n"), "*** Begin Patch\n*** Update File: f\n-x\n+\uFFFD\n*** End Patch\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(t)
			path := filepath.Join(env.Root, "f")
			os.WriteFile(path, c.data, 0o644)
			_, terr, _ := apply(t, env, Params{Input: c.patch})
			if terr == nil {
				t.Fatal("applied")
			}
			if terr.Code != "encoding" {
				t.Errorf("code %s: %s", terr.Code, terr.Message)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, c.data) {
				t.Fatalf("file changed: %q", got)
			}
		})
	}
}
