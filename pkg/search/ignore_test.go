package search

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/internal/peer"
)

// Cases from git's t/t3070-wildmatch.sh (wildmatch with WM_PATHNAME, as
// .gitignore uses it for patterns with a slash).
func TestWildmatchPathname(t *testing.T) {
	cases := []struct {
		pat, text string
		want      bool
	}{
		{"foo", "foo", true},
		{"foo", "bar", false},
		{"", "", true},
		{"???", "foo", true},
		{"??", "foo", false},
		{"*", "foo", true},
		{"f*", "foo", true},
		{"*f", "foo", false},
		{"*foo*", "foo", true},
		{"*ob*a*r*", "foobar", true},
		{"*ab", "aaaaaaabababab", true},
		{"foo\\*", "foo*", true},
		{"foo\\*bar", "foobar", false},
		{"f\\\\oo", "f\\oo", true},
		{"*[al]?", "ball", true},
		{"[ten]", "ten", false},
		{"**[!te]", "ten", true},
		{"**[!ten]", "ten", false},
		{"t[a-g]n", "ten", true},
		{"t[!a-g]n", "ten", false},
		{"t[!a-g]n", "ton", true},
		{"t[^a-g]n", "ton", true},
		{"a[]]b", "a]b", true},
		{"a[]-]b", "a-b", true},
		{"a[]-]b", "a]b", true},
		{"a[]-]b", "aab", false},
		{"a[]a-]b", "aab", true},
		{"]", "]", true},
		{"foo*bar", "foo/baz/bar", false},
		{"foo**bar", "foo/baz/bar", false},
		{"foo**bar", "foobazbar", true},
		{"foo/**/bar", "foo/baz/bar", true},
		{"foo/**/**/bar", "foo/baz/bar", true},
		{"foo/**/bar", "foo/b/a/z/bar", true},
		{"foo/**/**/bar", "foo/b/a/z/bar", true},
		{"foo/**/bar", "foo/bar", true},
		{"foo/**/**/bar", "foo/bar", true},
		{"foo?bar", "foo/bar", false},
		{"foo[/]bar", "foo/bar", false},
		{"foo[^a-z]bar", "foo/bar", false},
		{"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo/bar", false},
		{"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", true},
		{"**/foo", "foo", true},
		{"**/foo", "XXX/foo", true},
		{"**/foo", "bar/baz/foo", true},
		{"*/foo", "bar/baz/foo", false},
		{"**/bar*", "foo/bar/baz", false},
		{"**/bar/*", "deep/foo/bar/baz", true},
		{"**/bar/*", "deep/foo/bar/baz/", false},
		{"**/bar/**", "deep/foo/bar/baz/", true},
		{"**/bar/*", "deep/foo/bar", false},
		{"**/bar/**", "deep/foo/bar/", true},
		{"**/bar**", "foo/bar/baz", false},
		{"*/bar/**", "foo/bar/baz/x", true},
		{"*/bar/**", "deep/foo/bar/baz/x", false},
		{"**/bar/*/*", "deep/foo/bar/baz/x", true},
		{"a[c-c]st", "acrt", false},
		{"a[c-c]rt", "acrt", true},
		{"[!]-]", "]", false},
		{"[!]-]", "a", true},
		{"\\", "", false},
		{"\\", "\\", false},
		{"*/\\", "XXX/\\", false},
		{"*/\\\\", "XXX/\\", true},
		{"foo", "foo", true},
		{"@foo", "@foo", true},
		{"@foo", "foo", false},
		{"\\[ab]", "[ab]", true},
		{"[[]ab]", "[ab]", true},
		{"[[:]ab]", "[ab]", true},
		{"[[::]ab]", "[ab]", false},
		{"[[:digit]ab]", "[ab]", true},
		{"[\\[:]ab]", "[ab]", true},
		{"\\??\\?b", "?a?b", true},
		{"\\a\\b\\c", "abc", true},
		{"", "foo", false},
		{"**/t[o]", "foo/bar/baz/to", true},
		{"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true},
		{"[[:digit:][:upper:][:space:]]", "a", false},
		{"[[:digit:][:upper:][:space:]]", "A", true},
		{"[[:digit:][:upper:][:space:]]", "1", true},
		{"[[:digit:][:upper:][:spaci:]]", "1", false},
		{"[[:space:]]", " ", true},
		{"[[:xdigit:]]", "5", true},
		{"[[:xdigit:]]", "f", true},
		{"[[:xdigit:]]", "D", true},
		{"[a-c[:digit:]x-z]", "5", true},
		{"[a-c[:digit:]x-z]", "b", true},
		{"[a-c[:digit:]x-z]", "y", true},
		{"[a-c[:digit:]x-z]", "q", false},
		{"[\\\\-^]", "]", true},
		{"[\\\\-^]", "[", false},
		{"[\\-_]", "-", true},
		{"[\\]]", "]", true},
		{"[\\]]", "\\]", false},
		{"[\\]]", "\\", false},
		{"a[]b", "ab", false},
		{"ab[", "ab[", false},
		{"[!", "ab", false},
		{"[-", "ab", false},
		{"[-]", "-", true},
		{"[a-", "-", false},
		{"[!a-", "-", false},
		{"[--A]", "-", true},
		{"[--A]", "5", true},
		{"[ --]", " ", true},
		{"[ --]", "$", true},
		{"[ --]", "-", true},
		{"[ --]", "0", false},
		{"[---]", "-", true},
		{"[------]", "-", true},
		{"[a-e-n]", "j", false},
		{"[a-e-n]", "-", true},
		{"[!------]", "a", true},
		{"[]-a]", "[", false},
		{"[]-a]", "^", true},
		{"[!]-a]", "^", false},
		{"[!]-a]", "[", true},
		{"[a^bc]", "^", true},
		{"[a-]b]", "-b]", true},
		{"[\\]", "\\", false},
		{"[\\\\]", "\\", true},
		{"[!\\\\]", "\\", false},
		{"[A-\\\\]", "G", true},
		{"b*a", "aaabbb", false},
		{"*ba*", "aabcaa", false},
		{"[,]", ",", true},
		{"[\\\\,]", ",", true},
		{"[\\\\,]", "\\", true},
		{"[,-.]", "-", true},
		{"[,-.]", "+", false},
		{"[,-.]", "-.]", false},
		{"[\\1-\\3]", "2", true},
		{"[\\1-\\3]", "3", true},
		{"[\\1-\\3]", "4", false},
		{"[[-\\]]", "\\", true},
		{"[[-\\]]", "[", true},
		{"[[-\\]]", "]", true},
		{"[[-\\]]", "-", false},
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true},
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", false},
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1", false},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", true},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", false},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", true},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", false},
		{"*/*/*", "foo", false},
		{"*/*/*", "foo/bar", false},
		{"*/*/*", "foo/bba/arr", true},
		{"*/*/*", "foo/bb/aa/rr", false},
		{"**/**/**", "foo/bb/aa/rr", true},
		{"*X*i", "abcXdefXghi", true},
		{"*X*i", "ab/cXd/efXg/hi", false},
		{"*/*X*/*/*i", "ab/cXd/efXg/hi", true},
		{"**/*X*/**/*i", "ab/cXd/efXg/hi", true},
	}
	for _, c := range cases {
		if got := wildmatch(c.pat, c.text, true); got != c.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", c.pat, c.text, got, c.want)
		}
	}
	// Without WM_PATHNAME (basename patterns), '*' crosses '/'.
	if !wildmatch("foo*bar", "foo/baz/bar", false) || !wildmatch("*/foo", "bar/baz/foo", false) {
		t.Error("without pathname '*' must match '/'")
	}
}

func TestParsePattern(t *testing.T) {
	cases := []struct {
		line string
		ok   bool
		want pattern
	}{
		{"", false, pattern{}},
		{"# comment", false, pattern{}},
		{"\\#hash", true, pattern{text: "\\#hash", basename: true}},
		{"!keep.log", true, pattern{text: "keep.log", negate: true, basename: true, kind: patExact, lit: "keep.log"}},
		{"\\!bang", true, pattern{text: "\\!bang", basename: true}},
		{"build/", true, pattern{text: "build", dirOnly: true, basename: true, kind: patExact, lit: "build"}},
		{"/root.txt", true, pattern{text: "root.txt", kind: patExact, lit: "root.txt"}},
		{"a/b", true, pattern{text: "a/b", kind: patExact, lit: "a/b"}},
		{"*.log", true, pattern{text: "*.log", basename: true, kind: patSuffix, lit: ".log"}},
		{"tmp*", true, pattern{text: "tmp*", basename: true, kind: patPrefix, lit: "tmp"}},
		{"trailing   ", true, pattern{text: "trailing", basename: true, kind: patExact, lit: "trailing"}},
		{"escaped\\ ", true, pattern{text: "escaped\\ ", basename: true}},
		{"crlf\r", true, pattern{text: "crlf", basename: true, kind: patExact, lit: "crlf"}},
		{"/", false, pattern{}},
		{"!", false, pattern{}},
	}
	for _, c := range cases {
		got, ok := parsePattern(c.line)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("parsePattern(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

func TestRulesPrecedence(t *testing.T) {
	var rs *rules
	rs = rs.push(parseRules("", "global", []byte("*.tmp\n"), true))
	rs = rs.push(parseRules("", ".gitignore", []byte("*.log\n!keep.log\nbuild/\n"), true))
	rs = rs.push(parseRules("sub", "sub/.gitignore", []byte("!*.log\n/only-here\n"), true))
	rs = rs.push(parseRules("sub", "sub/.mcodeignore", []byte("fixtures/\n"), false))
	cases := []struct {
		path  string
		isDir bool
		want  bool
		git   bool
	}{
		{"a.tmp", false, true, true},
		{"a.log", false, true, true},
		{"keep.log", false, false, false},
		{"sub/a.log", false, false, false}, // the deeper negation wins
		{"sub/only-here", false, true, true},
		{"sub/x/only-here", false, false, false},
		{"only-here", false, false, false},
		{"build", true, true, true},
		{"build", false, false, false}, // directory-only
		{"sub/fixtures", true, true, false},
	}
	for _, c := range cases {
		got, git := rs.ignored(c.path, filepath.Base(c.path), c.isDir)
		if got != c.want || git != c.git {
			t.Errorf("ignored(%q, dir=%v) = %v (git %v), want %v (git %v)", c.path, c.isDir, got, git, c.want, c.git)
		}
	}
}

// ignoredLikeGit decides a path the way git check-ignore does: a path is
// ignored if it or any of its leading folders is.
func ignoredLikeGit(rs *rules, path string, isDir bool) bool {
	parts := strings.Split(path, "/")
	for i := range parts {
		dir := i < len(parts)-1 || isDir
		if ign, _ := rs.ignored(strings.Join(parts[:i+1], "/"), parts[i], dir); ign {
			return true
		}
	}
	return false
}

// FuzzIgnoreMatchesGit compares the ignore engine with git's own answer
// (git check-ignore --no-index) on generated patterns and paths.
func FuzzIgnoreMatchesGit(f *testing.F) {
	git := peer.Require(f, "git", "git")
	for _, s := range [][2]string{
		{"*.log", "a/b.log"}, {"a/", "a/b"}, {"/a", "b/a"}, {"**/b", "a/b"}, {"a/**", "a/b/c"},
		{"a/**/b", "a/b"}, {"!a\n*", "a"}, {"a*\n!ab", "ab"}, {"[a-c]", "b"}, {"a?b", "a/b"},
		{"\\!a", "!a"}, {"a\\ ", "a "}, {"*\n!a/", "a/b"}, {"b/*\n!b/a", "b/a"}, {"**", "a/.b"},
		{"a/*/b", "a/x/y/b"}, {"[!a]b", "ab"}, {"[[:alpha:]]", "a"},
	} {
		f.Add(s[0], s[1], false)
	}
	repo := f.TempDir()
	if out, err := exec.Command(git, "init", "-q", repo).CombinedOutput(); err != nil {
		f.Fatalf("git init: %v %s", err, out)
	}
	f.Fuzz(func(t *testing.T, patterns, path string, isDir bool) {
		if !fuzzPath(path) || len(patterns) > 64 || strings.ContainsAny(patterns, "\x00\r") {
			return
		}
		work := filepath.Join(repo, "w")
		if err := os.RemoveAll(work); err != nil {
			t.Fatal(err)
		}
		full := filepath.Join(work, filepath.FromSlash(path))
		if isDir {
			if err := os.MkdirAll(full, 0o755); err != nil {
				return
			}
		} else {
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return
			}
			if err := os.WriteFile(full, nil, 0o644); err != nil {
				return
			}
		}
		if err := os.WriteFile(filepath.Join(work, ".gitignore"), []byte(patterns+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(git, "check-ignore", "--no-index", "-q", "--", path)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+repo, "XDG_CONFIG_HOME="+repo)
		err := cmd.Run()
		var ee *exec.ExitError
		want := err == nil
		if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
			return // git refused the input (exit 128): nothing to compare
		}
		rs := (*rules)(nil).push(parseRules("", ".gitignore", []byte(patterns+"\n"), true))
		if got := ignoredLikeGit(rs, path, isDir); got != want {
			t.Errorf("patterns %q, path %q (dir %v): ignored=%v, git says %v", patterns, path, isDir, got, want)
		}
	})
}

// fuzzPath accepts short relative paths of simple names.
func fuzzPath(p string) bool {
	if p == "" || len(p) > 24 || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." || part == ".git" || strings.HasSuffix(part, " ") {
			return false
		}
		for _, c := range part {
			if !strings.ContainsRune("ab.!*?[]- ", c) {
				return false
			}
		}
	}
	return true
}
