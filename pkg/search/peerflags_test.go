package search

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/internal/peer"
)

// flagsTree is a small tree without ignore rules or secrets, where rg and
// grep see the same files.
func flagsTree(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "tree")
	writeFiles(t, root, map[string]string{
		"a.txt":              "foo bar\nbaz\nfoo\nqux\nquux\nfood\n\n\nfoo end\nlast\n",
		"b.go":               "package b\n\nfunc foo() {}\n// foo_bar is not foo\nvar x = foo\n",
		"c.py":               "def foo():\n    return 'foobar'\n",
		"d/e.md":             "# foo\ntext\ntext\ntext\ntext\nfoo again\n",
		"d/f.rs":             "fn main() { foo(); }\n",
		"d/Makefile":         "all:\n\techo foo\n",
		"g/h.yaml":           "foo: 1\nbar: 2\n",
		"g/i.c":              "int foo;\n",
		"g/j.cpp":            "int foo2;\n",
		"g/k.ts":             "const foo = 1\n",
		"g/long-context.txt": strings.Repeat("x\n", 30) + "foo\n" + strings.Repeat("y\n", 30),
	})
	return root
}

// TestRipgrepFlagsContent checks the content output of -A, -B, -C, -w,
// -v and -m, with their separators, byte for byte against rg -n.
func TestRipgrepFlagsContent(t *testing.T) {
	peer.Require(t, "rg", "ripgrep")
	root := flagsTree(t)
	env := testEnv(root, t.TempDir())
	for _, c := range []struct {
		flags []string
		p     GrepParams
	}{
		{[]string{"-A", "1"}, GrepParams{AfterContext: 1}},
		{[]string{"-B", "2"}, GrepParams{BeforeContext: 2}},
		{[]string{"-A", "3", "-B", "1"}, GrepParams{AfterContext: 3, BeforeContext: 1}},
		{[]string{"-C", "2", "-A", "0"}, GrepParams{Context: 2}}, // -A 0 over -C: our zero means unset, so compare -C alone below
		{[]string{"-B", "20"}, GrepParams{BeforeContext: 20}},
		{[]string{"-w"}, GrepParams{WordRegexp: true}},
		{[]string{"-w", "-A", "1"}, GrepParams{WordRegexp: true, AfterContext: 1}},
		{[]string{"-v"}, GrepParams{InvertMatch: true}},
		{[]string{"-v", "-B", "1"}, GrepParams{InvertMatch: true, BeforeContext: 1}},
		{[]string{"-m", "1"}, GrepParams{MaxCount: 1}},
		{[]string{"-m", "2", "-A", "2"}, GrepParams{MaxCount: 2, AfterContext: 2}},
		{[]string{"-t", "go", "-t", "py"}, GrepParams{Type: Globs{"go", "py"}}},
		{[]string{"-t", "c", "-t", "make"}, GrepParams{Type: Globs{"c", "make"}}},
		{[]string{"-t", "cpp"}, GrepParams{Type: Globs{"cpp"}}},
		{[]string{"-w", "-F"}, GrepParams{WordRegexp: true, FixedStrings: true}},
	} {
		if slices.Contains(c.flags, "-A") && c.p.Context > 0 {
			c.flags = []string{"-C", "2"}
		}
		p := c.p
		p.Pattern, p.Mode, p.Limit = "foo", ModeContent, GrepMaxLimit
		res := grep(t, env, p)
		out, _, _ := res.render()
		got := out[:strings.LastIndex(out[:len(out)-1], "\n")+1]
		args := append([]string{"--no-config", "--sort", "path", "-H", "-n", "--no-heading"}, c.flags...)
		want := run(t, root, "rg", append(args, "--", "foo")...)
		if got != want {
			t.Errorf("rg %v foo:\ngot:\n%s\nripgrep:\n%s", c.flags, got, want)
		}
	}
}

// TestRipgrepFlagsModes checks -l, -c, -w, -v, -m and -t in files and
// count modes against rg.
func TestRipgrepFlagsModes(t *testing.T) {
	peer.Require(t, "rg", "ripgrep")
	root := flagsTree(t)
	env := testEnv(root, t.TempDir())
	for _, c := range []struct {
		flags []string
		p     GrepParams
	}{
		{[]string{"-l"}, GrepParams{FilesWithMatches: true}},
		{[]string{"-c"}, GrepParams{CountLines: true}},
		{[]string{"-c", "-w"}, GrepParams{CountLines: true, WordRegexp: true}},
		{[]string{"-c", "-v"}, GrepParams{CountLines: true, InvertMatch: true}},
		{[]string{"-l", "-v"}, GrepParams{FilesWithMatches: true, InvertMatch: true}},
		{[]string{"-c", "-m", "1"}, GrepParams{CountLines: true, MaxCount: 1}},
		{[]string{"-l", "-t", "rust", "-t", "md", "-t", "yaml"}, GrepParams{FilesWithMatches: true, Type: Globs{"rust", "md", "yaml"}}},
		{[]string{"-c", "-t", "ts", "-i"}, GrepParams{CountLines: true, Type: Globs{"ts"}, CaseInsensitive: true}},
	} {
		p := c.p
		p.Pattern, p.Limit = "foo", GrepMaxLimit
		res := grep(t, env, p)
		out, _, _ := res.render()
		got := out[:strings.LastIndex(out[:len(out)-1], "\n")+1]
		args := append([]string{"--no-config", "--sort", "path", "-H"}, c.flags...)
		want := run(t, root, "rg", append(args, "--", "foo")...)
		if got != want {
			t.Errorf("rg %v foo:\ngot:\n%s\nripgrep:\n%s", c.flags, got, want)
		}
	}
}

// TestGrepOffsetPages walks a content answer page by page: the pages
// joined are the whole answer, and each continuation names the next.
func TestGrepOffsetPages(t *testing.T) {
	root := flagsTree(t)
	env := testEnv(root, t.TempDir())
	for _, mode := range []string{ModeContent, ModeFiles, ModeCount} {
		whole := grep(t, env, GrepParams{Pattern: "foo", Mode: mode, Limit: GrepMaxLimit})
		var joined []string
		entries := func(r *GrepResult) []string {
			var e []string
			for _, m := range r.Matches {
				e = append(e, fmt.Sprintf("%s:%d", m.Path, m.Line))
			}
			for _, c := range r.Counts {
				e = append(e, fmt.Sprintf("%s:%d", c.Path, c.Count))
			}
			return append(e, r.Files...)
		}
		offset, pages := 0, 0
		for {
			r := grep(t, env, GrepParams{Pattern: "foo", Mode: mode, Limit: 3, Offset: offset})
			joined = append(joined, entries(r)...)
			pages++
			if !r.Truncated {
				if r.NextOffset != 0 {
					t.Errorf("%s: last page names a next offset %d", mode, r.NextOffset)
				}
				break
			}
			if r.NextOffset != offset+3 || !strings.Contains(r.Hint, fmt.Sprintf("--offset %d", r.NextOffset)) {
				t.Fatalf("%s offset %d: next_offset %d, hint %q", mode, offset, r.NextOffset, r.Hint)
			}
			offset = r.NextOffset
		}
		if want := entries(whole); !slices.Equal(joined, want) || pages < 2 {
			t.Errorf("%s: %d pages joined:\n%v\nwhole:\n%v", mode, pages, joined, want)
		}
	}
}

// TestGlobMatchesFd checks --exclude, --extension, --max-depth and
// --type f|d against fd on the same tree.
func TestGlobMatchesFd(t *testing.T) {
	peer.Require(t, "fdfind", "fd-find")
	root := flagsTree(t)
	writeFiles(t, root, map[string]string{"g/sub/deep/UPPER.GO": "x\n", "g/sub/n.min.js": "x\n", "g/sub/n.js": "x\n", "d/gen/x.go": "x\n"})
	env := testEnv(root, t.TempDir())
	for _, c := range []struct {
		flags []string
		p     GlobParams
	}{
		{[]string{"-e", "go"}, GlobParams{Extension: []string{"go"}}},
		{[]string{"-e", "go", "-e", "js"}, GlobParams{Extension: []string{"go", ".js"}}},
		{[]string{"-e", "min.js"}, GlobParams{Extension: []string{"min.js"}}},
		{[]string{"--max-depth", "1"}, GlobParams{MaxDepth: 1}},
		{[]string{"--max-depth", "2", "-t", "f"}, GlobParams{MaxDepth: 2, Type: "f"}},
		{[]string{"--max-depth", "2", "-t", "d"}, GlobParams{MaxDepth: 2, Type: "d"}},
		{[]string{"-t", "d"}, GlobParams{Type: "d"}},
		{[]string{"-t", "d", "--exclude", "sub"}, GlobParams{Type: "d", Exclude: []string{"sub"}}},
		{[]string{"--exclude", "*.min.js", "--exclude", "g/sub/deep"}, GlobParams{Exclude: []string{"*.min.js", "g/sub/deep"}}},
		{[]string{"--exclude", "d", "-e", "go"}, GlobParams{Exclude: []string{"d"}, Extension: []string{"go"}}},
		{[]string{"--exclude", "*.txt", "--max-depth", "1"}, GlobParams{Exclude: []string{"*.txt"}, MaxDepth: 1}},
	} {
		p := c.p
		p.Pattern, p.Limit = "**", GlobMaxLimit
		if p.Type == "" {
			p.Type = "f"
			c.flags = append(c.flags, "-t", "f")
		}
		res := glob(t, env, p)
		var want []string
		for _, l := range strings.Split(run(t, root, "fdfind", append([]string{"--hidden", "--no-ignore", "--color", "never"}, c.flags...)...), "\n") {
			if l != "" {
				want = append(want, strings.TrimSuffix(l, "/"))
			}
		}
		slices.Sort(want)
		got := slices.Clone(res.Paths)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("fd %v:\n%s", c.flags, diffLists(want, got))
		}
	}
}

// TestGrepQuietStopsAtFirstMatch: -q needs one match; the search stops
// there, complete rather than cut short, its total a lower bound.
func TestGrepQuietStopsAtFirstMatch(t *testing.T) {
	root := flagsTree(t)
	many := map[string]string{}
	for i := range 300 {
		many[fmt.Sprintf("many/%02d/%d.txt", i%30, i)] = "foo\n"
	}
	writeFiles(t, root, many)
	env := testEnv(root, t.TempDir())
	res := grep(t, env, GrepParams{Pattern: "foo", Quiet: true})
	if res.Total < 1 || !res.AtLeast || res.Partial || res.FilesSearched >= 100 {
		t.Errorf("quiet: total %d at_least %v partial %v searched %d", res.Total, res.AtLeast, res.Partial, res.FilesSearched)
	}
	if res := grep(t, env, GrepParams{Pattern: "nowhere", Quiet: true}); res.Total != 0 || res.AtLeast || res.FilesSearched != 311 {
		t.Errorf("quiet, no match: total %d at_least %v searched %d", res.Total, res.AtLeast, res.FilesSearched)
	}
}

// TestFileTypesMatchRipgrep: every type name is rg's (rb aside, ruby by
// the name models use), with rg's globs, sorted for the lookup.
func TestFileTypesMatchRipgrep(t *testing.T) {
	peer.Require(t, "rg", "ripgrep")
	list := map[string]string{}
	for _, l := range strings.Split(run(t, t.TempDir(), "rg", "--no-config", "--type-list"), "\n") {
		if name, globs, ok := strings.Cut(l, ": "); ok {
			list[name] = globs
		}
	}
	names := FileTypeNames()
	if !slices.IsSorted(names) {
		t.Errorf("fileTypes is not sorted: %v", names)
	}
	for _, ft := range fileTypes {
		name := ft.name
		if name == "rb" {
			name = "ruby"
		}
		if got := strings.Join(ft.globs, ", "); list[name] != got {
			t.Errorf("type %s: %q, rg: %q", ft.name, got, list[name])
		}
	}
}
