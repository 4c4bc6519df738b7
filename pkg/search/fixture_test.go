package search

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/internal/peer"
	"github.com/mcode-dev/mcode/pkg/sensitive"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// gitEnvFor isolates git and search from the machine's configuration.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	return home
}

func run(t testing.TB, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && name == "rg" && ee.ExitCode() == 1 {
			return "" // rg: no match
		}
		t.Fatalf("%s %v: %v\n%s", name, args, err, stderr.String())
	}
	return string(out)
}

func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fixture builds a git work tree with every rule the search engine has to
// get right, and returns its root and the user's home.
func fixture(t *testing.T) (string, string) {
	t.Helper()
	peer.Require(t, "git", "git")
	home := isolate(t)
	writeFiles(t, home, map[string]string{".config/git/ignore": "*.swp\n"})
	root := filepath.Join(t.TempDir(), "repo")
	big := strings.Repeat("filler line of text\n", 60000) + "needle in the big file\n"
	writeFiles(t, root, map[string]string{
		".gitignore":               "*.log\n!keep.log\n/generated/\ntmp/\ndocs/**/*.bak\n\\#hash.txt\ntrailing.txt\\ \n",
		"src/.gitignore":           "*.gen.go\n!important.gen.go\n",
		"src/main.go":              "package main\n\nfunc main() {\n\tfmt.Println(\"hello world\") // needle\n}\n",
		"src/util.go":              "package main\n\nfunc helper_one(x int) int { return x }\nfunc HelperTwo() {}\n",
		"src/a.gen.go":             "package main // generated needle\n",
		"src/important.gen.go":     "package main // important needle\n",
		"src/deep/x/y/z.go":        "package y\n\nfunc deepFunc() { /* Needle */ }\n",
		"src/.main.go.swp":         "swap needle\n",
		"app.log":                  "needle in a log\n",
		"keep.log":                 "needle kept\n",
		"debug/trace.log":          "needle trace\n",
		"generated/out.go":         "package generated // needle\n",
		"sub/generated/out.go":     "package generated // needle not anchored\n",
		"tmp/cache.txt":            "needle cache\n",
		"sub/tmp/x.txt":            "needle sub tmp\n",
		"docs/a/b/old.bak":         "needle bak\n",
		"docs/readme.md":           "# Readme\nSearch for the needle here.\nHELLO World\n",
		"#hash.txt":                "needle hash\n",
		"trailing.txt ":            "needle trailing space\n",
		"build/tracked.c":          "int needle_tracked;\n",
		"forced.log":               "needle forced into git\n",
		".hidden/notes.txt":        "needle hidden\n",
		".github/workflows/ci.yml": "name: ci # needle\n",
		"local-only/x.txt":         "needle local\n",
		"with space.txt":           "needle with space\n",
		"ünïcode.txt":              "needle ünïcode straße\n",
		"crlf.txt":                 "first\r\nneedle crlf\r\nlast\r\n",
		"long.txt":                 strings.Repeat("x", 3000) + " needle " + strings.Repeat("y", 3000) + "\n",
		"noeol.txt":                "no newline at the end needle",
		"empty.txt":                "",
		"big.txt":                  big,
		".env":                     "API_KEY=needle\n",
		".env.local":               "needle\n",
		"config/server.pem":        "needle\n",
		"keys/id_rsa":              "needle\n",
		".ssh/config":              "needle\n",
		".npmrc":                   "//registry/:_authToken=needle\n",
		"app/.aws/credentials":     "needle\n",
		"vendor/lib/lib.go":        "package lib // needle\n",
		"Makefile":                 "all:\n\techo needle\n",
		"case/UPPER.TXT":           "NEEDLE upper\n",
		"multi.txt":                "foo\nbar\nfoo bar\nbaz foo_bar(x)\n",
		"sparse.txt":               "1\n2\nmatch 3\n4\n5\n6\n7\n8\n9\n10\nmatch 11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\nmatch 22\n23\n24\n",
	})
	if err := os.WriteFile(filepath.Join(root, "bin.dat"), []byte("needle\x00\x01\x02binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src/main.go", filepath.Join(root, "link-to-main.go")); err != nil {
		t.Fatal(err)
	}
	run(t, root, "git", "init", "-q", "-b", "main")
	writeFiles(t, root, map[string]string{".git/info/exclude": "local-only/\n"})
	run(t, root, "git", "add", "-A")
	run(t, root, "git", "add", "-f", "forced.log")
	run(t, root, "git", "commit", "-qm", "fixture")
	// Untracked after the commit: dependency and build output, a new file.
	writeFiles(t, root, map[string]string{
		"node_modules/pkg/index.js": "module.exports = 'needle'\n",
		"dist/bundle.js":            "needle bundle\n",
		"build/untracked.o":         "needle object\n",
		"src/new.go":                "package main // needle new\n",
		"sub/target/x.txt":          "needle target\n",
		"py/__pycache__/m.pyc":      "needle pyc\n",
	})
	return root, home
}

func testEnv(root, home string) *tool.Env {
	return &tool.Env{Root: root, UserHome: home}
}

// gitExpected is the oracle's file set: git ls-files -co --exclude-standard,
// minus untracked paths under default-excluded folders, minus secrets.
func gitExpected(t *testing.T, root string) []string {
	t.Helper()
	cached := strings.Split(strings.TrimRight(run(t, root, "git", "ls-files", "-c", "-z"), "\x00"), "\x00")
	others := strings.Split(strings.TrimRight(run(t, root, "git", "ls-files", "-o", "--exclude-standard", "-z"), "\x00"), "\x00")
	var want []string
	add := func(p string) {
		if p != "" && !sensitive.MatchPath(p, false) && !slices.Contains(want, p) {
			want = append(want, p)
		}
	}
	for _, p := range cached {
		add(p)
	}
	for _, p := range others {
		parts := strings.Split(p, "/")
		if slices.ContainsFunc(parts[:len(parts)-1], isDefaultExcluded) {
			continue
		}
		add(p)
	}
	slices.Sort(want)
	return want
}

func TestGlobMatchesGitLsFiles(t *testing.T) {
	root, home := fixture(t)
	want := gitExpected(t, root)
	res, err := Glob(context.Background(), testEnv(root, home), GlobParams{Pattern: "**", Limit: GlobMaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Paths, want) {
		t.Errorf("glob ** differs from git ls-files -co --exclude-standard (minus default and sensitive excludes):\n%s", diffLists(want, res.Paths))
	}
	if res.Total != len(want) || res.Truncated {
		t.Errorf("total %d truncated %v, want %d false", res.Total, res.Truncated, len(want))
	}
	// Spot checks of why each rule exists.
	for _, p := range []string{"build/tracked.c", "forced.log", "keep.log", "src/important.gen.go", "sub/generated/out.go", "link-to-main.go", ".hidden/notes.txt", "src/new.go"} {
		if !slices.Contains(res.Paths, p) {
			t.Errorf("%s missing", p)
		}
	}
	for _, p := range []string{"build/untracked.o", "node_modules/pkg/index.js", "app.log", "src/a.gen.go", "generated/out.go", "src/.main.go.swp", "local-only/x.txt", ".env", "keys/id_rsa", "trailing.txt "} {
		if slices.Contains(res.Paths, p) {
			t.Errorf("%s listed", p)
		}
	}
	if res.Skipped.Sensitive == 0 || res.Skipped.Ignored == 0 {
		t.Errorf("skipped counts %+v", res.Skipped)
	}
}

func TestGlobPatternsMatchGit(t *testing.T) {
	root, home := fixture(t)
	all := gitExpected(t, root)
	for _, pat := range []string{"**/*.go", "src/**/*.go", "*.txt", "src/*.go", "**/out.go", "**/*.{go,md}", "docs/**", "[a-c]*/**", "sub/*/*"} {
		var want []string
		for _, p := range all {
			if matchDoublestar(pat, p) {
				want = append(want, p)
			}
		}
		res, err := Glob(context.Background(), testEnv(root, home), GlobParams{Pattern: pat, Limit: GlobMaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Paths, want) {
			t.Errorf("glob %q:\n%s", pat, diffLists(want, res.Paths))
		}
	}
}

func diffLists(want, got []string) string {
	var b strings.Builder
	for _, w := range want {
		if !slices.Contains(got, w) {
			b.WriteString("  missing: " + w + "\n")
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			b.WriteString("  extra:   " + g + "\n")
		}
	}
	return b.String()
}

func matchDoublestar(pattern, p string) bool {
	ok, _ := doublestarMatch(pattern, p)
	return ok
}

// rgOracle runs ripgrep with the same rules: its own ignore handling, the
// default and sensitive excludes as globs, and the files git tracks
// inside excluded folders searched explicitly (ripgrep does not read the
// index).
func rgOracle(t *testing.T, root string, flags []string, pattern string) []string {
	t.Helper()
	base := []string{"--no-config", "--no-messages", "--hidden", "--max-filesize", "1M", "-H"}
	for _, d := range DefaultExcludes {
		base = append(base, "-g", "!"+d+"/")
	}
	for _, g := range sensitive.Globs() {
		base = append(base, "--iglob", g)
	}
	walked := map[string]bool{}
	for _, p := range strings.Split(run(t, root, "rg", append(slices.Clone(base), "--files")...), "\n") {
		walked[p] = true
	}
	var explicit []string
	for _, p := range strings.Split(strings.TrimRight(run(t, root, "git", "ls-files", "-c", "-z"), "\x00"), "\x00") {
		fi, err := os.Lstat(filepath.Join(root, p))
		// ripgrep skips none of the files it is given by name; the walk
		// would have skipped big ones.
		if p == "" || walked[p] || sensitive.MatchPath(p, false) || err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxFileSize {
			continue
		}
		explicit = append(explicit, p)
	}
	args := append(append(slices.Clone(base), flags...), "--", pattern)
	out := run(t, root, "rg", args...)
	if len(explicit) > 0 {
		out += run(t, root, "rg", append(args, explicit...)...)
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	slices.Sort(lines)
	return lines
}

func TestGrepMatchesRipgrep(t *testing.T) {
	root, home := fixture(t)
	peer.Require(t, "rg", "ripgrep")
	env := testEnv(root, home)
	cases := []struct {
		pattern string
		fixed   bool
		fold    bool
	}{
		{pattern: "needle"},
		{pattern: "needle", fold: true},
		{pattern: "NEEDLE"},
		{pattern: `func \w+\(`},
		{pattern: `helper_one|HelperTwo`},
		{pattern: `^package`},
		{pattern: `foo$`},
		{pattern: `\bfoo\b`},
		{pattern: `foo_bar\(`},
		{pattern: "straße"},
		{pattern: "STRASSE|straße", fold: true},
		{pattern: "fmt.Println(", fixed: true},
		{pattern: "hello world", fold: true, fixed: true},
		{pattern: `[Nn]eedle (in|kept)`},
		{pattern: `x{100}`},
		{pattern: `(?i)upper`},
		{pattern: `e\s+\w`},
		{pattern: `needle$`},
	}
	for _, c := range cases {
		var flags []string
		if c.fixed {
			flags = append(flags, "-F")
		}
		if c.fold {
			flags = append(flags, "-i")
		}
		p := GrepParams{Pattern: c.pattern, FixedStrings: c.fixed, CaseInsensitive: c.fold, Limit: GrepMaxLimit}

		p.Mode = ModeFiles
		res, err := Grep(context.Background(), env, p)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		want := rgOracle(t, root, append(slices.Clone(flags), "-l"), c.pattern)
		if !slices.Equal(res.Files, want) {
			t.Errorf("grep -l %v %q:\n%s", flags, c.pattern, diffLists(want, res.Files))
		}

		p.Mode = ModeCount
		res, err = Grep(context.Background(), env, p)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, fc := range res.Counts {
			got = append(got, fmt.Sprintf("%s:%d", fc.Path, fc.Count))
		}
		slices.Sort(got)
		want = rgOracle(t, root, append(slices.Clone(flags), "-c"), c.pattern)
		if !slices.Equal(got, want) {
			t.Errorf("grep -c %v %q:\n%s", flags, c.pattern, diffLists(want, got))
		}

		p.Mode = ModeContent
		res, err = Grep(context.Background(), env, p)
		if err != nil {
			t.Fatal(err)
		}
		got = got[:0]
		for _, m := range res.Matches {
			got = append(got, fmt.Sprintf("%s:%d", m.Path, m.Line))
		}
		slices.Sort(got)
		want = want[:0]
		for _, l := range rgOracle(t, root, append(slices.Clone(flags), "-n", "--no-heading"), c.pattern) {
			parts := strings.SplitN(l, ":", 3)
			want = append(want, parts[0]+":"+parts[1])
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("grep -n %v %q:\n%s", flags, c.pattern, diffLists(want, got))
		}
		if res.Total != len(want) || res.MatchedLines != len(want) {
			t.Errorf("grep -n %q: total %d matched_lines %d, want %d", c.pattern, res.Total, res.MatchedLines, len(want))
		}
	}
}

func TestContentRenderingMatchesRipgrep(t *testing.T) {
	root, home := fixture(t)
	peer.Require(t, "rg", "ripgrep")
	for _, c := range []struct {
		path, pattern string
		context       int
		multiline     bool
	}{
		{"multi.txt", `foo\nbar`, 1, true},
		{"multi.txt", `bar\nfoo`, 0, true},
		{"multi.txt", "bar", 1, false},
		{"multi.txt", "foo", 2, false},
		{"src/main.go", "needle|package", 1, false},
		{"docs/readme.md", "e", 0, false},
		{"sparse.txt", "match", 3, false},
		{"sparse.txt", "match", 20, false},
	} {
		res := grep(t, testEnv(root, home), GrepParams{Pattern: c.pattern, Path: Globs{c.path}, Mode: ModeContent, Context: c.context, Multiline: c.multiline})
		out, _, _ := res.render()
		got := out[:strings.LastIndex(out[:len(out)-1], "\n")+1] // without the summary line
		args := []string{"--no-config", "-H", "-n", "--no-heading", "-C", fmt.Sprint(c.context)}
		if c.multiline {
			args = append(args, "-U")
		}
		want := run(t, root, "rg", append(args, "--", c.pattern, c.path)...)
		if got != want {
			t.Errorf("%s %q -C %d:\ngot:\n%s\nripgrep:\n%s", c.path, c.pattern, c.context, got, want)
		}
	}
}
