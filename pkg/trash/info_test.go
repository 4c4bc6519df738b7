package trash

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/pkg/fsutil"
)

var utc = time.UTC

func TestEscapePathMatchesTrashCli(t *testing.T) {
	// trash-cli writes quote(path, '/') and GLib g_uri_escape_string(path,
	// "/", FALSE): the same set of kept characters.
	cases := map[string]string{
		"/home/u/a.txt":           "/home/u/a.txt",
		"/home/u/my file.txt":     "/home/u/my%20file.txt",
		"/x/100%":                 "/x/100%25",
		"/x/a\nb":                 "/x/a%0Ab",
		"/x/é":                    "/x/%C3%A9",
		"/x/\xff\xfe":             "/x/%FF%FE",
		"/x/~user_-.":             "/x/~user_-.",
		"/x/a+b=c&d?e#f;g!h*i'j(": "/x/a%2Bb%3Dc%26d%3Fe%23f%3Bg%21h%2Ai%27j%28",
		"relative/dir":            "relative/dir",
	}
	for in, want := range cases {
		if got := EscapePath(in); got != want {
			t.Errorf("EscapePath(%q) = %q, want %q", in, got, want)
		}
		if back := UnescapePath(EscapePath(in)); back != in {
			t.Errorf("round trip of %q gave %q", in, back)
		}
	}
}

func TestUnescapePathKeepsBadEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"/a%20b":  "/a b",
		"/a%2":    "/a%2",
		"/a%zz":   "/a%zz",
		"/a%":     "/a%",
		"/a%e9":   "/a\xe9",
		"%41%42C": "ABC",
	} {
		if got := UnescapePath(in); got != want {
			t.Errorf("UnescapePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFormatInfo(t *testing.T) {
	at := time.Date(2026, 11, 29, 8, 30, 5, 0, time.Local)
	got := string(FormatInfo("/home/u/my notes\n.txt", at.UTC()))
	want := "[Trash Info]\nPath=/home/u/my%20notes%0A.txt\nDeletionDate=2026-11-29T08:30:05\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestParseInfo(t *testing.T) {
	at := time.Date(2004, 8, 31, 22, 32, 8, 0, utc)
	cases := []struct {
		name, in string
		want     Info
		err      bool
	}{
		{"spec example", "[Trash Info]\nPath=foo/bar/meow.bow-wow\nDeletionDate=20040831T22:32:08\n",
			Info{Path: "foo/bar/meow.bow-wow", Deleted: at}, false},
		{"usual", "[Trash Info]\nPath=/a%20b\nDeletionDate=2004-08-31T22:32:08\n", Info{Path: "/a b", Deleted: at}, false},
		{"CRLF and no final newline", "[Trash Info]\r\nPath=/a\r\nDeletionDate=2004-08-31T22:32:08", Info{Path: "/a", Deleted: at}, false},
		{"first occurrence wins", "[Trash Info]\nPath=/first\nPath=/second\nDeletionDate=2004-08-31T22:32:08\nDeletionDate=1999-01-01T00:00:00\n",
			Info{Path: "/first", Deleted: at}, false},
		{"comments, blanks, unknown keys", "# made by hand\n\n[Trash Info]\nX-Extra=1\n  Path = /spaced\nDeletionDate=2004-08-31T22:32:08\n",
			Info{Path: "/spaced", Deleted: at}, false},
		{"keys of other groups ignored", "[Other]\nPath=/wrong\n[Trash Info]\nPath=/right\n[Later]\nDeletionDate=2000-01-01T00:00:00\n",
			Info{Path: "/right"}, false},
		{"bad date is unknown, not an error", "[Trash Info]\nPath=/a\nDeletionDate=yesterday\n", Info{Path: "/a"}, false},
		{"date with a zone", "[Trash Info]\nPath=/a\nDeletionDate=2004-08-31T22:32:08Z\n", Info{Path: "/a", Deleted: at}, false},
		{"date with a fraction", "[Trash Info]\nPath=/a\nDeletionDate=2004-08-31T22:32:08.5\n", Info{Path: "/a", Deleted: at.Add(time.Second / 2)}, false},
		{"non-UTF-8 bytes", "[Trash Info]\nPath=/x/%FF%FEz\n", Info{Path: "/x/\xff\xfez"}, false},
		{"no group", "Path=/a\nDeletionDate=2004-08-31T22:32:08\n", Info{}, true},
		{"no path", "[Trash Info]\nDeletionDate=2004-08-31T22:32:08\n", Info{}, true},
		{"empty path", "[Trash Info]\nPath=\n", Info{}, true},
		{"empty file", "", Info{}, true},
		{"binary junk", "\x00\x01\x02[Trash", Info{}, true},
	}
	for _, c := range cases {
		got, err := ParseInfo([]byte(c.in), utc)
		if (err != nil) != c.err {
			t.Errorf("%s: err = %v, want error %v", c.name, err, c.err)
			continue
		}
		if err != nil && !errors.Is(err, ErrInfoSyntax) {
			t.Errorf("%s: error %v does not wrap ErrInfoSyntax", c.name, err)
		}
		if !got.Deleted.Equal(c.want.Deleted) || got.Path != c.want.Path {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestEscapeID(t *testing.T) {
	for in, want := range map[string]string{
		"notes.txt":   "notes.txt",
		"my notes":    "my notes",
		"日本語":         "日本語",
		"a\nb":        "a%0Ab",
		"100%":        "100%25",
		"bad\xffbyte": "bad%FFbyte",
		"del\x7f":     "del%7F",
	} {
		got := escapeID(in)
		if got != want {
			t.Errorf("escapeID(%q) = %q, want %q", in, got, want)
		}
		if UnescapeID(got) != in {
			t.Errorf("UnescapeID(%q) = %q, want %q", got, UnescapeID(got), in)
		}
	}
}

func TestDirSizesRoundTrip(t *testing.T) {
	m := map[string]dirSize{"Documents": {16384, 15803468}, "a b\n%c": {8192, 1}, "\xff": {0, -5}}
	data := formatDirSizes(m)
	if !strings.Contains(string(data), "16384 15803468 Documents\n") || !strings.Contains(string(data), "8192 1 a%20b%0A%25c\n") {
		t.Errorf("unexpected format:\n%s", data)
	}
	if diff := cmp.Diff(m, parseDirSizes(data)); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// Malformed lines and names that cannot be children of files/ are skipped.
	got := parseDirSizes([]byte("12 34 ok\nnonsense\n-1 2 neg\n1 2 a%2Fb\n1 x y\n5 6 ..\n7 8\n"))
	if diff := cmp.Diff(map[string]dirSize{"ok": {12, 34}}, got); diff != "" {
		t.Errorf("lenient parse (-want +got):\n%s", diff)
	}
}

func TestCandidateNameFitsNameMax(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	for _, i := range []int{0, 1, 42, 150} {
		n := candidateName(long, i)
		if len(n)+len(InfoSuffix) > nameMax {
			t.Errorf("candidate %d: %d bytes with the suffix, over %d", i, len(n)+len(InfoSuffix), nameMax)
		}
		if !strings.HasPrefix(n, "é") || strings.ContainsRune(strings.TrimRight(n, "_0123456789abcdef"), '\uFFFD') {
			t.Errorf("candidate %d cut a character in half: %q", i, n)
		}
	}
	if got := candidateName("a.txt", 3); got != "a.txt_3" {
		t.Errorf("candidateName(a.txt, 3) = %q", got)
	}
}

func FuzzParseInfo(f *testing.F) {
	f.Add([]byte("[Trash Info]\nPath=/a%20b\nDeletionDate=2004-08-31T22:32:08\n"))
	f.Add([]byte("[Trash Info]\r\nPath=%FF%\r\n"))
	f.Add([]byte("[Other]\nPath=x\n[Trash Info]\nPath=y"))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := ParseInfo(data, utc)
		if err != nil {
			return
		}
		if info.Path == "" {
			t.Fatal("accepted an info without a path")
		}
		// What we write from what we read reads back the same.
		again, err := ParseInfo(FormatInfo(info.Path, info.Deleted), utc)
		if err != nil || again.Path != info.Path {
			t.Fatalf("re-read of %q: %+v, %v", info.Path, again, err)
		}
	})
}

func FuzzEscapePath(f *testing.F) {
	for _, s := range []string{"/a b", "%", "\xff", "a\nb", "/日本/語"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := EscapePath(s)
		if UnescapePath(e) != s {
			t.Fatalf("UnescapePath(EscapePath(%q)) = %q", s, UnescapePath(e))
		}
		for i := 0; i < len(e); i++ {
			if e[i] < 0x21 || e[i] > 0x7e {
				t.Fatalf("EscapePath(%q) = %q has a raw byte %#x", s, e, e[i])
			}
		}
		if id := escapeID(s); UnescapeID(id) != s || strings.ContainsAny(id, "\n\r") {
			t.Fatalf("escapeID(%q) = %q does not round-trip", s, id)
		}
	})
}

func FuzzParseDirSizes(f *testing.F) {
	f.Add([]byte("16384 15803468 Documents\n8192 15803582 Another_Folder\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := parseDirSizes(data)
		if diff := cmp.Diff(m, parseDirSizes(formatDirSizes(m))); diff != "" {
			t.Fatalf("cache does not round-trip: %s", diff)
		}
	})
}

func TestDisplayPathRoundTrip(t *testing.T) {
	for in, shown := range map[string]string{
		"/a/b":       "/a/b",
		"/a/\xffb":   `/a/\xFFb`,
		"日本\xfe":     `日本\xFE`,
		"\xe6\x97":   `\xE6\x97`,
		"new\nline":  "new\nline",
		`back\slash`: `back\slash`,
	} {
		if got := fsutil.DisplayPath(in); got != shown {
			t.Errorf("fsutil.DisplayPath(%q) = %q, want %q", in, got, shown)
		}
		if back, _ := fsutil.UndisplayPath(shown); back != in {
			t.Errorf("fsutil.UndisplayPath(%q) = %q, want %q", shown, back, in)
		}
	}
}
