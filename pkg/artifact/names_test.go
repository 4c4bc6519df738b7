package artifact

import (
	"path"
	"strings"
	"testing"
)

func TestCleanName(t *testing.T) {
	for _, c := range []struct {
		name      string
		strip     int
		backslash bool
		want      string
		skip      bool
		bad       string
	}{
		{name: "package/index.js", want: "package/index.js"},
		{name: "./package//lib/./a.js", want: "package/lib/a.js"},
		{name: "package/lib/", want: "package/lib"},
		{name: "package/index.js", strip: 1, want: "index.js"},
		{name: "package/", strip: 1, skip: true},
		{name: "./", skip: true},
		{name: "dir\\file.txt", backslash: true, want: "dir/file.txt"},
		{name: "dir\\file.txt", want: "dir\\file.txt"}, // an ordinary byte in a tar name
		{name: "../evil", bad: "climbs out"},
		{name: "a/../../evil", bad: "climbs out"},
		{name: "a/..", bad: "climbs out"},
		{name: "..\\evil", bad: "climbs out"}, // zip-slip the Windows way, in a tar
		{name: "..\\..\\evil", backslash: true, bad: "climbs out"},
		{name: "a\\..\\..\\evil", bad: "climbs out"},
		{name: "/etc/passwd", bad: "absolute"},
		{name: "\\evil", bad: "absolute"},
		{name: "C:\\Windows\\evil", bad: "absolute"},
		{name: "c:evil", bad: "absolute"},
		{name: "", bad: "empty"},
		{name: "a\x00b", bad: "NUL"},
	} {
		got, skip, err := CleanName(c.name, c.strip, c.backslash)
		if c.bad != "" {
			if err == nil || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("CleanName(%q) = %q, %v; want an error saying %q", c.name, got, err, c.bad)
			}
			continue
		}
		if err != nil || got != c.want || skip != c.skip {
			t.Errorf("CleanName(%q, %d, %v) = %q, %v, %v; want %q, %v", c.name, c.strip, c.backslash, got, skip, err, c.want, c.skip)
		}
	}
}

func TestResolveLink(t *testing.T) {
	for _, c := range []struct {
		links        map[string]string
		name, target string
		inside       bool
	}{
		{nil, "bin/tool", "../lib/tool.js", true},
		{nil, "a/b/c", "../../x", true},
		{nil, "a/b/c", "../../../x", false},
		{nil, "link", "/etc/passwd", false},
		{nil, "link", "..", false},
		{nil, "link", ".", true},
		{nil, "link", "..\\x", false},
		// Lexically inside, really outside: a is the root, so a/.. is its parent.
		{map[string]string{"a": "."}, "b", "a/..", false},
		{map[string]string{"a": "d/e"}, "b", "a/..", true},         // d/e/.. is d
		{map[string]string{"a": "b", "b": "a"}, "c", "a/x", false}, // a loop
		{map[string]string{"up": "sub/../.."}, "x", "up/y", false},
	} {
		if got := resolveLink(c.links, c.name, c.target); got != c.inside {
			t.Errorf("resolveLink(%v, %q, %q) = %v, want %v", c.links, c.name, c.target, got, c.inside)
		}
	}
}

// FuzzCleanName: whatever an archive names, an accepted name is
// relative and stays below the destination.
func FuzzCleanName(f *testing.F) {
	for _, s := range []string{"package/a.js", "../x", "a/../../b", "/abs", "C:\\x", "..\\x", "./a//b/", "a\\..\\..\\b", "\x00"} {
		f.Add(s, 0, false)
		f.Add(s, 1, true)
	}
	f.Fuzz(func(t *testing.T, name string, strip int, backslash bool) {
		if strip < 0 || strip > 8 {
			return
		}
		clean, skip, err := CleanName(name, strip, backslash)
		if err != nil || skip {
			return
		}
		if clean == "" || path.IsAbs(clean) || hasDrive(clean) || strings.HasPrefix(clean, "\\") {
			t.Fatalf("CleanName(%q) = %q: not a relative name", name, clean)
		}
		for _, p := range strings.FieldsFunc(clean, func(r rune) bool { return r == '/' || r == '\\' }) {
			if p == ".." {
				t.Fatalf("CleanName(%q) = %q climbs out", name, clean)
			}
		}
		if j := path.Join("/dest", clean); !strings.HasPrefix(j, "/dest/") {
			t.Fatalf("CleanName(%q) = %q lands at %q", name, clean, j)
		}
		if !resolveLink(nil, clean, clean) && !strings.Contains(clean, "\\") {
			// a relative target made of clean components never leaves
			t.Fatalf("resolveLink refuses the clean name %q as a target", clean)
		}
	})
}
