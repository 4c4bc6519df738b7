package read

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"golang.org/x/text/unicode/norm"
)

func TestPathCandidates(t *testing.T) {
	has := func(cs []candidate, path, variant string) bool {
		for _, c := range cs {
			if c.path == path && c.variant == variant {
				return true
			}
		}
		return false
	}
	cases := []struct {
		in, path, variant string
	}{
		{"@src/main.go", "src/main.go", VariantAtPrefix},
		{"file:///tmp/a%20b.txt", "/tmp/a b.txt", VariantFileURL},
		{"file://localhost/etc/hosts", "/etc/hosts", VariantFileURL},
		{"Screenshot 2024-05-01 at 10.00.00 AM.png", "Screenshot 2024-05-01 at 10.00.00\u202fAM.png", VariantNarrowSpace},
		{"café.txt", norm.NFD.String("café.txt"), VariantNFD},
		{"Bob's notes.txt", "Bob\u2019s notes.txt", VariantCurlyQuotes},
		{`say "hi".txt`, "say \u201chi\u201d.txt", VariantCurlyQuotes},
		{"Zoë's.txt", norm.NFD.String("Zoë\u2019s.txt"), VariantNFD + "+" + VariantCurlyQuotes},
		{"@Bob's.txt", "Bob\u2019s.txt", VariantAtPrefix + "+" + VariantCurlyQuotes},
	}
	for _, c := range cases {
		cs := pathCandidates(c.in)
		if cs[0].path != c.in || cs[0].variant != "" {
			t.Errorf("%q: the literal path is not tried first: %+v", c.in, cs[0])
		}
		if !has(cs, c.path, c.variant) {
			t.Errorf("%q: no candidate %q (%s) in %+v", c.in, c.path, c.variant, cs)
		}
		seen := map[string]bool{}
		for _, x := range cs {
			if seen[x.path] {
				t.Errorf("%q: duplicate candidate %q", c.in, x.path)
			}
			seen[x.path] = true
		}
	}
	for _, in := range []string{"plain.go", "file://remote.host/x", "@"} {
		if cs := pathCandidates(in); len(cs) != 1 {
			t.Errorf("%q has fallbacks %+v", in, cs)
		}
	}
}

// Each fallback finds a real file whose name differs from what the caller
// typed, and the result names the spelling that matched.
func TestReadPathVariants(t *testing.T) {
	env := testEnv(t)
	files := map[string]string{
		"at":     "main.go",
		"url":    "dir with space/x.txt",
		"nbsp":   "Screenshot 2024-05-01 at 10.00.00\u202fAM.txt",
		"nfd":    norm.NFD.String("résumé.txt"),
		"curly":  "Bob\u2019s notes.txt",
		"nfdcur": norm.NFD.String("Zoë\u2019s.txt"),
	}
	for _, name := range files {
		write(t, env, name, []byte(name+"\n"))
	}
	cases := []struct {
		typed, file, variant string
	}{
		{"@main.go", "main.go", VariantAtPrefix},
		{"file://" + filepath.Join(env.Root, "dir%20with%20space/x.txt"), files["url"], VariantFileURL},
		{"Screenshot 2024-05-01 at 10.00.00 AM.txt", files["nbsp"], VariantNarrowSpace},
		{norm.NFC.String("résumé.txt"), files["nfd"], VariantNFD},
		{"Bob's notes.txt", files["curly"], VariantCurlyQuotes},
		{norm.NFC.String("Zoë's.txt"), files["nfdcur"], VariantNFD + "+" + VariantCurlyQuotes},
	}
	for _, c := range cases {
		resp, res := mustRead(t, env, Params{Path: c.typed})
		if res.Path != filepath.Join(env.Root, c.file) || res.Variant == nil || *res.Variant != c.variant {
			t.Errorf("%q read %q as %v, want %q as %s", c.typed, res.Path, res.Variant, c.file, c.variant)
			continue
		}
		if resp.Output != numbered(1, c.file) || !hasNote(res, c.variant) {
			t.Errorf("%q: output %q notes %v", c.typed, resp.Output, res.Notes)
		}
	}
	// The literal path wins when it exists.
	write(t, env, "@literal.txt", []byte("at\n"))
	write(t, env, "literal.txt", []byte("plain\n"))
	if _, res := mustRead(t, env, Params{Path: "@literal.txt"}); res.Variant != nil || !strings.HasSuffix(res.Path, "@literal.txt") {
		t.Errorf("literal @ path not preferred: %s %v", res.Path, res.Variant)
	}
}

func TestDevicePathReason(t *testing.T) {
	for _, p := range []string{"/dev/zero", "/dev/random", "/dev/urandom", "/dev/full", "/dev/stdin", "/dev/stdout", "/dev/tty",
		"/dev/tty0", "/dev/pts/3", "/dev/fd/0", "/dev/fd/../zero", "/proc/self/fd/0", "/proc/1234/fd/7",
		"/proc/self/task/99/fd/2", "/proc/kmsg", "//dev//zero", "/proc/self/mem", "/proc/42/task/43/mem", "/proc/kcore"} {
		if devicePathReason(p) == "" {
			t.Errorf("%s not refused by name", p)
		}
	}
	for _, p := range []string{"/dev/shm/data.txt", "/proc/cpuinfo", "/proc/self/status", "/proc/self/fdinfo/0", "/proc/self/fd", "/home/dev/zero", "/tmp/x",
		"/proc/self/maps", "/proc/self/task/43/status", "/proc/mem/x"} {
		if why := devicePathReason(p); why != "" {
			t.Errorf("%s refused by name: %s", p, why)
		}
	}
}

func TestPathArg(t *testing.T) {
	for in, want := range map[string]string{"main.go": "main.go", "-x.txt": "./-x.txt", "--help": "./--help", "-a b": "'./-a b'", "/abs/-x": "/abs/-x"} {
		if got := pathArg(in); got != want {
			t.Errorf("pathArg(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"main.go": "main.go", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", "/x/y-z_1.txt": "/x/y-z_1.txt"} {
		if got := fsutil.ShellQuote(in); got != want {
			t.Errorf("fsutil.ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func FuzzPathCandidates(f *testing.F) {
	for _, s := range []string{"@a.go", "file:///x%20y", "a 10 AM.png", "Zoë's.txt", `"q"`, "file://", "@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		cs := pathCandidates(p)
		if len(cs) == 0 || cs[0].path != p || cs[0].variant != "" {
			t.Fatalf("%q: literal not first: %+v", p, cs)
		}
		seen := map[string]bool{}
		for _, c := range cs[1:] {
			if c.variant == "" || seen[c.path] || c.path == p {
				t.Fatalf("%q: bad candidate %+v in %+v", p, c, cs)
			}
			seen[c.path] = true
		}
	})
}
