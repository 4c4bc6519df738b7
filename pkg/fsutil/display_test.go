package fsutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestInputPath(t *testing.T) {
	dir := t.TempDir()
	abs := func(p string) string { return filepath.Join(dir, p) }
	for _, name := range []string{"caf\xe9.txt", `lit\x41.txt`, "sub\xff/in.txt"} {
		if err := os.MkdirAll(filepath.Dir(abs(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs(name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for in, want := range map[string]string{
		`caf\xE9.txt`:     "caf\xe9.txt",     // shown by grep and glob
		`caf\xe9.txt`:     "caf\xe9.txt",     // either case of hex
		`lit\x41.txt`:     `lit\x41.txt`,     // a name that holds the text \x41 itself
		`sub\xFF/new.txt`: "sub\xff/new.txt", // a new file in a folder so named
		`none\xFF.txt`:    `none\xFF.txt`,    // neither exists: as written
		"plain.txt":       "plain.txt",
	} {
		if got := InputPath(abs, in); got != want {
			t.Errorf("InputPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzDisplayPathRoundTrips(f *testing.F) {
	f.Add("caf\xe9.txt")
	f.Add("\xff\xfe/ok/\xc3")
	f.Fuzz(func(t *testing.T, s string) {
		shown := DisplayPath(s)
		if !utf8.ValidString(shown) {
			t.Fatalf("DisplayPath(%q) = %q is not UTF-8", s, shown)
		}
		if strings.Contains(s, `\`) {
			return // a literal backslash is InputPath's to tell apart
		}
		back, _ := UndisplayPath(shown)
		if back != s {
			t.Fatalf("%q → %q → %q", s, shown, back)
		}
	})
}
