package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/internal/peer"
	"github.com/mcode-dev/mcode/pkg/tool"
)

func grep(t *testing.T, env *tool.Env, p GrepParams) *GrepResult {
	t.Helper()
	res, err := Grep(context.Background(), env, p)
	if err != nil {
		t.Fatalf("grep %+v: %v", p, err)
	}
	return res
}

func glob(t *testing.T, env *tool.Env, p GlobParams) *GlobResult {
	t.Helper()
	res, err := Glob(context.Background(), env, p)
	if err != nil {
		t.Fatalf("glob %+v: %v", p, err)
	}
	return res
}

func errorCode(err error) tool.Code {
	var te *tool.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return ""
}

func TestSensitiveFilesNeverSearched(t *testing.T) {
	root, home := fixture(t)
	env := testEnv(root, home)
	for _, p := range []GrepParams{
		{Pattern: "needle"},
		{Pattern: "needle", NoIgnore: true},
		{Pattern: "needle", Glob: []string{".env*", "*.pem", "**/id_rsa", ".ssh/**", ".npmrc", "**/credentials"}},
		{Pattern: "needle", Glob: []string{"*"}, NoIgnore: true},
	} {
		res := grep(t, env, p)
		for _, f := range res.Files {
			if strings.Contains(f, ".env") || strings.HasSuffix(f, ".pem") || strings.Contains(f, "id_rsa") || strings.Contains(f, ".ssh") || strings.Contains(f, ".npmrc") || strings.Contains(f, ".aws") {
				t.Errorf("%+v returned secret file %s", p, f)
			}
		}
		if res.Skipped.Sensitive == 0 {
			t.Errorf("%+v: skipped.sensitive = 0", p)
		}
	}
	res := glob(t, env, GlobParams{Pattern: ".env*", IncludeIgnored: true})
	if len(res.Paths) != 0 || res.Skipped.Sensitive == 0 {
		t.Errorf("glob .env*: %v, skipped %+v", res.Paths, res.Skipped)
	}
	// A workspace inside a secret folder is a secret folder too.
	inside := filepath.Join(t.TempDir(), ".ssh", "sub")
	writeFiles(t, inside, map[string]string{"creds": "needle"})
	if _, err := Grep(context.Background(), &tool.Env{Root: inside}, GrepParams{Pattern: "needle"}); errorCode(err) != tool.CodeDenied {
		t.Errorf("grep in a workspace inside .ssh/: %v, want denied", err)
	}
	if _, err := Glob(context.Background(), &tool.Env{Root: inside}, GlobParams{Pattern: "**"}); errorCode(err) != tool.CodeDenied {
		t.Errorf("glob in a workspace inside .ssh/: %v, want denied", err)
	}
	// Naming a secret explicitly is refused, not answered with "no match".
	for _, path := range []string{".env", "config/server.pem", ".ssh", "app/.aws/credentials"} {
		_, err := Grep(context.Background(), env, GrepParams{Pattern: "needle", Path: Globs{path}})
		if errorCode(err) != tool.CodeDenied {
			t.Errorf("grep in %s: %v, want denied", path, err)
		}
	}
}

func TestExplicitIgnoredPathIsSearched(t *testing.T) {
	root, home := fixture(t)
	env := testEnv(root, home)
	res := grep(t, env, GrepParams{Pattern: "needle", Path: Globs{"node_modules"}})
	if !slices.Equal(res.Files, []string{"node_modules/pkg/index.js"}) || res.Note == "" {
		t.Errorf("explicit node_modules: %v note %q", res.Files, res.Note)
	}
	res = grep(t, env, GrepParams{Pattern: "needle", Path: Globs{"app.log"}})
	if !slices.Equal(res.Files, []string{"app.log"}) {
		t.Errorf("explicit ignored file: %v", res.Files)
	}
	res = grep(t, env, GrepParams{Pattern: "needle", Path: Globs{"src"}})
	if slices.Contains(res.Files, "src/a.gen.go") || !slices.Contains(res.Files, "src/main.go") || !slices.Contains(res.Files, "src/important.gen.go") {
		t.Errorf("grep in src: %v (src/.gitignore must apply)", res.Files)
	}
	// The note is there exactly when the walk would have left the path out.
	for path, excluded := range map[string]bool{
		"app.log": true, "src/a.gen.go": true, "build/untracked.o": true, "node_modules": true, "dist/bundle.js": true,
		"keep.log": false, "src/main.go": false, "build": false, "build/tracked.c": false, "forced.log": false, "src": false,
	} {
		if res := grep(t, env, GrepParams{Pattern: "needle", Path: Globs{path}}); (res.Note != "") != excluded {
			t.Errorf("grep in %s: note %q, want one: %v", path, res.Note, excluded)
		}
	}
	// A subfolder still honours the .gitignore files above it.
	res = grep(t, env, GrepParams{Pattern: "needle", Path: Globs{"debug"}})
	if len(res.Files) != 0 {
		// debug/trace.log is excluded by the root's *.log
		t.Errorf("grep in debug: %v", res.Files)
	}
}

func TestNoIgnoreAndIncludeIgnored(t *testing.T) {
	root, home := fixture(t)
	env := testEnv(root, home)
	res := grep(t, env, GrepParams{Pattern: "needle", NoIgnore: true, Limit: GrepMaxLimit})
	for _, want := range []string{"app.log", "node_modules/pkg/index.js", "build/untracked.o", "src/a.gen.go", "local-only/x.txt", "src/.main.go.swp"} {
		if !slices.Contains(res.Files, want) {
			t.Errorf("--no-ignore misses %s", want)
		}
	}
	if res.Skipped.Ignored != 0 {
		t.Errorf("--no-ignore still ignored %d", res.Skipped.Ignored)
	}
	g := glob(t, env, GlobParams{Pattern: "node_modules/**", IncludeIgnored: true})
	if !slices.Equal(g.Paths, []string{"node_modules/pkg/index.js"}) || !g.IncludeIgnored {
		t.Errorf("include_ignored node_modules/**: %v", g.Paths)
	}
	g = glob(t, env, GlobParams{Pattern: "**/*.js", IncludeIgnored: true})
	if slices.Contains(g.Paths, "node_modules/pkg/index.js") || g.IncludeIgnored || !strings.Contains(g.Note, "include_ignored") {
		t.Errorf("include_ignored with a bare **: %v note %q", g.Paths, g.Note)
	}
	g = glob(t, env, GlobParams{Pattern: "**/*.js"})
	if !slices.Contains(g.IgnoredDirs, "node_modules/") || !strings.Contains(g.Hint, "include-ignored") {
		t.Errorf("glob **/*.js does not say node_modules was skipped: %+v", g)
	}
}

func TestZeroMatchesSaysWhatWasSearched(t *testing.T) {
	root, home := fixture(t)
	res := grep(t, testEnv(root, home), GrepParams{Pattern: "no such text anywhere"})
	out, _, _ := res.render()
	if res.Count != 0 || res.Total != 0 || res.FilesSearched == 0 || res.Skipped.Ignored == 0 || res.Skipped.Binary == 0 || res.Skipped.TooLarge == 0 {
		t.Errorf("zero-match result: %+v", res)
	}
	for _, want := range []string{"No matches", "searched", "ignored", "binary", "over 1 MiB", "sensitive", "--no-ignore"} {
		if !strings.Contains(out, want) {
			t.Errorf("zero-match output lacks %q:\n%s", want, out)
		}
	}
}

func TestLimitTruncatesHonestly(t *testing.T) {
	root, home := fixture(t)
	env := testEnv(root, home)
	full := grep(t, env, GrepParams{Pattern: "needle", Limit: GrepMaxLimit})
	res := grep(t, env, GrepParams{Pattern: "needle", Limit: 3})
	if res.Count != 3 || res.Total != full.Total || !res.Truncated || res.AtLeast || !slices.Equal(res.Files, full.Files[:3]) {
		t.Errorf("limit 3: %+v", res)
	}
	if !strings.Contains(res.Hint, "--limit") {
		t.Errorf("hint %q", res.Hint)
	}
	c := grep(t, env, GrepParams{Pattern: "e", Mode: ModeContent, Limit: 5})
	if c.Count != 5 || c.Total <= 5 || !c.Truncated {
		t.Errorf("content limit 5: count %d total %d", c.Count, c.Total)
	}
	g := glob(t, env, GlobParams{Pattern: "**", Limit: 2})
	if g.Count != 2 || g.Total < 10 || !g.Truncated {
		t.Errorf("glob limit 2: %+v", g)
	}
}

func TestContentModeContextAndClipping(t *testing.T) {
	root, home := fixture(t)
	env := testEnv(root, home)
	res := grep(t, env, GrepParams{Pattern: "bar", Path: Globs{"multi.txt"}, Context: 1})
	out, _, _ := res.render()
	want := "multi.txt-1-foo\nmulti.txt:2:bar\nmulti.txt:3:foo bar\nmulti.txt:4:baz foo_bar(x)\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("context output:\n%s\nwant prefix:\n%s", out, want)
	}
	res = grep(t, env, GrepParams{Pattern: "needle", Path: Globs{"long.txt"}, Mode: ModeContent})
	if len(res.Matches) != 1 || !strings.Contains(res.Matches[0].Text, "needle") || len(res.Matches[0].Text) > MaxLineChars+60 {
		t.Errorf("long line: %+v", res.Matches)
	}
	res = grep(t, env, GrepParams{Pattern: "needle crlf", Path: Globs{"crlf.txt"}, Mode: ModeContent})
	if len(res.Matches) != 1 || res.Matches[0].Text != "needle crlf" || res.Matches[0].Line != 2 {
		t.Errorf("crlf: %+v", res.Matches)
	}
}

func TestContentOutputCap(t *testing.T) {
	dir := t.TempDir()
	line := strings.Repeat("match ", 60) + "\n"
	writeFiles(t, dir, map[string]string{"many.txt": strings.Repeat(line, 500)})
	res := grep(t, &tool.Env{Root: dir}, GrepParams{Pattern: "match", Mode: ModeContent, Limit: 500})
	out, _, truncated := res.render()
	if !truncated || len(out) > GrepMaxOutputBytes+1024 || res.Count >= 500 || !strings.Contains(res.Hint, "capped") {
		t.Errorf("cap: truncated %v, %d bytes, count %d, hint %q", truncated, len(out), res.Count, res.Hint)
	}
}

func TestSortModified(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "x", "b.txt": "x", "c.txt": "x"})
	now := time.Now()
	for i, name := range []string{"b.txt", "c.txt", "a.txt"} { // b oldest, a newest
		tm := now.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(filepath.Join(dir, name), tm, tm); err != nil {
			t.Fatal(err)
		}
	}
	env := &tool.Env{Root: dir}
	if res := grep(t, env, GrepParams{Pattern: "x", Sort: SortModified}); !slices.Equal(res.Files, []string{"a.txt", "c.txt", "b.txt"}) {
		t.Errorf("grep sort modified: %v", res.Files)
	}
	if res := glob(t, env, GlobParams{Pattern: "*.txt", Sort: SortModified}); !slices.Equal(res.Paths, []string{"a.txt", "c.txt", "b.txt"}) {
		t.Errorf("glob sort modified: %v", res.Paths)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "x"})
	env := &tool.Env{Root: dir}
	_, err := Grep(context.Background(), env, GrepParams{Pattern: "a**"})
	if errorCode(err) != tool.CodeInvalidArgs || !strings.Contains(err.Error(), "column 2") || !strings.Contains(err.Error(), "repetition") {
		t.Errorf("invalid regex: %v", err)
	}
	_, err = Grep(context.Background(), env, GrepParams{Pattern: "a\nb"})
	if errorCode(err) != tool.CodeInvalidArgs || !strings.Contains(err.Error(), "--multiline") {
		t.Errorf("newline without multiline: %v", err)
	}
	_, err = Grep(context.Background(), env, GrepParams{Pattern: "x", Path: Globs{"nope.txt"}})
	if errorCode(err) != tool.CodeNotFound {
		t.Errorf("missing path: %v", err)
	}
	_, err = Grep(context.Background(), env, GrepParams{Pattern: "x", Context: 2, Mode: ModeFiles})
	if errorCode(err) != tool.CodeInvalidArgs {
		t.Errorf("context in files mode: %v", err)
	}
	if res := grep(t, env, GrepParams{Pattern: "x", Context: 2}); res.Mode != ModeContent {
		t.Errorf("context alone should imply content mode, got %s", res.Mode)
	}
	_, err = Grep(context.Background(), env, GrepParams{Pattern: "x", Glob: []string{"*.{go"}})
	if errorCode(err) != tool.CodeInvalidArgs {
		t.Errorf("bad glob: %v", err)
	}
	for _, pat := range []string{"", "/etc/*", "../*", "a[", "{a,b"} {
		if _, err := Glob(context.Background(), env, GlobParams{Pattern: pat}); errorCode(err) != tool.CodeInvalidArgs {
			t.Errorf("glob %q: %v", pat, err)
		}
	}
	if _, err := Glob(context.Background(), env, GlobParams{Pattern: "*", Path: "a.txt"}); errorCode(err) != tool.CodeNotADirectory {
		t.Errorf("glob in a file: %v", err)
	}
}

func TestSpecialFilesAndSymlinks(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "needle"})
	writeFiles(t, outside, map[string]string{"secret-elsewhere.txt": "needle"})
	mkfifo(t, filepath.Join(dir, "fifo"))
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	env := &tool.Env{Root: dir}
	done := make(chan *GrepResult)
	go func() { done <- grep(t, env, GrepParams{Pattern: "needle"}) }()
	select {
	case res := <-done:
		if !slices.Equal(res.Files, []string{"a.txt"}) {
			t.Errorf("files %v: symlinks must not be followed", res.Files)
		}
		out, _, _ := res.render()
		if res.Skipped.Symlinks != 2 || !strings.Contains(out, "2 symlinks (not followed)") {
			t.Errorf("skipped %+v: the two symlinks are not counted\n%s", res.Skipped, out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("grep blocked on a FIFO")
	}
	// A symlink named explicitly is followed, unless its target is a secret.
	if res := grep(t, env, GrepParams{Pattern: "needle", Path: Globs{"link.txt"}}); !slices.Equal(res.Files, []string{"link.txt"}) {
		t.Errorf("explicit symlink: %v", res.Files)
	}
	writeFiles(t, outside, map[string]string{".ssh/id_ed25519": "needle"})
	if err := os.Symlink(filepath.Join(outside, ".ssh", "id_ed25519"), filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := Grep(context.Background(), env, GrepParams{Pattern: "needle", Path: Globs{"notes.txt"}}); errorCode(err) != tool.CodeDenied {
		t.Errorf("symlink to a secret: %v, want denied", err)
	}
	g := glob(t, env, GlobParams{Pattern: "**"})
	if !slices.Equal(g.Paths, []string{"a.txt", "link.txt", "notes.txt", "out"}) {
		t.Errorf("glob lists %v; want the files and symlinks, not the FIFO, nothing behind out/", g.Paths)
	}
	d := glob(t, env, GlobParams{Pattern: "**", Type: TypeDir})
	if len(d.Paths) != 0 {
		t.Errorf("a symlinked folder is not a folder of the tree: %v", d.Paths)
	}
}

func TestIgnoreFilesOutsideGit(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".gitignore": "*.log\n", ".ignore": "skip-me/\n", "sub/.mcodeignore": "fixtures/\n!keep.log\n",
		"a.log": "x", "b.txt": "x", "skip-me/c.txt": "x", "sub/fixtures/d.txt": "x", "sub/keep.log": "x",
		"node_modules/e.js": "x", "dist/f.js": "x", "src/build/g.c": "x",
	})
	g := glob(t, &tool.Env{Root: dir}, GlobParams{Pattern: "**"})
	want := []string{".gitignore", ".ignore", "b.txt", "sub/.mcodeignore", "sub/keep.log"}
	if !slices.Equal(g.Paths, want) {
		t.Errorf("outside git: %v, want %v", g.Paths, want)
	}
}

func TestMcodeignoreBeatsTracking(t *testing.T) {
	root, home := fixture(t)
	writeFiles(t, root, map[string]string{".mcodeignore": "docs/\n"})
	res := glob(t, testEnv(root, home), GlobParams{Pattern: "docs/**"})
	if len(res.Paths) != 0 {
		t.Errorf(".mcodeignore is the user's word for mcode: tracked docs/ still listed: %v", res.Paths)
	}
	// Inside a default-excluded folder entered for its tracked files too,
	// whether the rule sits above it or in it.
	for _, files := range []map[string]string{{".mcodeignore": "*.c\n"}, {"build/.ignore": "tracked.c\n"}} {
		root, home := fixture(t)
		writeFiles(t, root, files)
		if res := glob(t, testEnv(root, home), GlobParams{Pattern: "build/**"}); len(res.Paths) != 0 {
			t.Errorf("%v: tracked build/ still lists %v", files, res.Paths)
		}
		if res := grep(t, testEnv(root, home), GrepParams{Pattern: "needle"}); slices.Contains(res.Files, "build/tracked.c") {
			t.Errorf("%v: grep still searches build/tracked.c", files)
		}
	}
}

func TestGlobTypeDirAndPrefix(t *testing.T) {
	root, home := fixture(t)
	env := testEnv(root, home)
	d := glob(t, env, GlobParams{Pattern: "src/**", Type: TypeDir})
	if !slices.Equal(d.Paths, []string{"src", "src/deep", "src/deep/x", "src/deep/x/y"}) {
		t.Errorf("dirs: %v", d.Paths)
	}
	d = glob(t, env, GlobParams{Pattern: "*", Type: TypeDir})
	if slices.Contains(d.Paths, "node_modules") || !slices.Contains(d.Paths, "build") || slices.Contains(d.Paths, ".git") {
		t.Errorf("top dirs: %v (build/ holds tracked files; node_modules and .git do not count)", d.Paths)
	}
	g := glob(t, env, GlobParams{Pattern: "*.go", Path: "src"})
	if !slices.Equal(g.Paths, []string{"src/important.gen.go", "src/main.go", "src/new.go", "src/util.go"}) {
		t.Errorf("path src: %v", g.Paths)
	}
}

func TestCancelledSearchIsPartial(t *testing.T) {
	root, home := fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Grep(ctx, testEnv(root, home), GrepParams{Pattern: "needle"})
	if err != nil || !res.Partial || !res.AtLeast {
		t.Fatalf("cancelled grep: %+v %v", res, err)
	}
	// A named file up to MaxNamedFileSize takes seconds to scan with a
	// costly regex: the time limit stops it too.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"big.txt": strings.Repeat("a needle line\n", 1<<17)})
	res, err = Grep(ctx, &tool.Env{Root: dir}, GrepParams{Pattern: "needle", Path: Globs{"big.txt"}, Mode: ModeCount})
	if err != nil || !res.Partial || !res.AtLeast {
		t.Errorf("cancelled grep of a named file: %+v %v", res, err)
	}
	// Through the tool: partial results come with a timeout error.
	ctx, cancel = context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	resp, err := GrepTool().Run(ctx, testEnv(root, home), []byte(`{"pattern":"needle"}`))
	if errorCode(err) != tool.CodeTimeout || resp == nil || !strings.Contains(resp.Output, "partial") {
		t.Errorf("timed-out tool call: %v %+v", err, resp)
	}
}

func TestGlobFilter(t *testing.T) {
	f, err := newGlobFilter([]string{"*.go", "!*_test.go", "docs/**/*.{md,txt}"})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		"a.go": true, "x/y/b.go": true, "a_test.go": false, "x/a_test.go": false,
		"docs/a/b.md": true, "docs/c.txt": true, "other/docs/c.txt": false, "README.md": false,
	} {
		if got := f.file(path, filepath.Base(path)); got != want {
			t.Errorf("filter(%q) = %v, want %v", path, got, want)
		}
	}
	neg, _ := newGlobFilter([]string{"!vendor/"})
	if neg.dir("vendor", "vendor") || !neg.dir("src", "src") || !neg.file("a.go", "a.go") {
		t.Error("an excluding glob prunes folders and passes other files")
	}
	if got, _ := expandBraces("a{b,c{d,e}}f"); !slices.Equal(got, []string{"abf", "acdf", "acef"}) {
		t.Errorf("expandBraces: %v", got)
	}
}

// docs/search.md lists every default exclude.
func TestDocsListDefaultExcludes(t *testing.T) {
	data, err := os.ReadFile("../../docs/search.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(data), "**Default excludes**")
	section, _, _ = strings.Cut(section, "(`search.DefaultExcludes`)")
	for _, d := range DefaultExcludes {
		if !strings.Contains(section, "`"+d+"`") {
			t.Errorf("docs/search.md's default excludes do not list %s", d)
		}
	}
}

// A folder holding several repositories is not a repository itself: each
// nested work tree's index still decides what is tracked.
func TestNestedRepositories(t *testing.T) {
	peer.Require(t, "git", "git")
	home := isolate(t)
	ws := t.TempDir()
	for _, name := range []string{"a", "b"} {
		dir := filepath.Join(ws, name)
		writeFiles(t, dir, map[string]string{"src/main.c": "needle", "build/gen.c": "needle"})
		run(t, dir, "git", "init", "-q")
		if name == "a" {
			run(t, dir, "git", "add", "-A") // a tracks its build/; b does not
		} else {
			run(t, dir, "git", "add", "src")
		}
		writeFiles(t, dir, map[string]string{".git/info/exclude": "*.local\n", "x.local": "needle"})
	}
	res := grep(t, &tool.Env{Root: ws, UserHome: home}, GrepParams{Pattern: "needle"})
	if want := []string{"a/build/gen.c", "a/src/main.c", "b/src/main.c"}; !slices.Equal(res.Files, want) {
		t.Errorf("files %v, want %v", res.Files, want)
	}
}

func TestGlobParamTakesAStringOrAList(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.go": "needle", "b.txt": "needle", "c.md": "needle"})
	env := &tool.Env{Root: dir}
	for args, want := range map[string]string{
		`{"pattern":"needle","glob":"*.go"}`:          "a.go\n",
		`{"pattern":"needle","glob":["*.go","*.md"]}`: "a.go\nc.md\n",
		`{"pattern":"needle","glob":"*.{go,txt}"}`:    "a.go\nb.txt\n",
		`{"pattern":"needle","glob":["!*.go"]}`:       "b.txt\nc.md\n",
	} {
		resp, err := GrepTool().Run(context.Background(), env, []byte(args))
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if !strings.HasPrefix(resp.Output, want) || strings.Count(resp.Output, "\n") != strings.Count(want, "\n")+1 {
			t.Errorf("%s: output %q, want %q first", args, resp.Output, want)
		}
	}
	if _, err := GrepTool().Run(context.Background(), env, []byte(`{"pattern":"x","glob":5}`)); errorCode(err) != tool.CodeUsage {
		t.Errorf("glob 5: %v", err)
	}
}

// Each worker prunes what it holds to a few times the limit; the first
// entries must be those of the full answer, in both sort orders.
func TestLimitKeepsTheFirstEntries(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("d%d/f%02d.txt", i%4, i)] = strings.Repeat("x\n", 1+i%3)
	}
	writeFiles(t, dir, files)
	now := time.Now()
	for name := range files {
		var i int
		fmt.Sscanf(filepath.Base(name), "f%02d.txt", &i)
		tm := now.Add(-time.Duration((i*37)%60) * time.Minute) // mtimes in another order than names
		if err := os.Chtimes(filepath.Join(dir, name), tm, tm); err != nil {
			t.Fatal(err)
		}
	}
	env := &tool.Env{Root: dir}
	for _, sortBy := range []string{SortPath, SortModified} {
		for _, mode := range []string{ModeFiles, ModeContent} {
			full := grep(t, env, GrepParams{Pattern: "x", Mode: mode, Sort: sortBy, Limit: GrepMaxLimit})
			cut := grep(t, env, GrepParams{Pattern: "x", Mode: mode, Sort: sortBy, Limit: 5})
			if !slices.Equal(cut.Files, full.Files[:min(5, len(full.Files))]) || !slices.EqualFunc(cut.Matches, full.Matches[:min(5, len(full.Matches))], func(a, b Match) bool { return a.Path == b.Path && a.Line == b.Line }) {
				t.Errorf("grep %s %s limit 5: %v %v", mode, sortBy, cut.Files, cut.Matches)
			}
		}
		full := glob(t, env, GlobParams{Pattern: "**", Sort: sortBy, Limit: GlobMaxLimit})
		cut := glob(t, env, GlobParams{Pattern: "**", Sort: sortBy, Limit: 3})
		if !slices.Equal(cut.Paths, full.Paths[:3]) || cut.Total != 60 {
			t.Errorf("glob %s limit 3: %v (total %d), want %v", sortBy, cut.Paths, cut.Total, full.Paths[:3])
		}
	}
}

// A search cut short knows only a lower bound, and its hint says so.
func TestPartialHintSaysAtLeast(t *testing.T) {
	g := &globRun{p: GlobParams{Pattern: "**", Limit: 1, Sort: SortPath, Type: TypeFile}, t: &target{display: "."}, walk: &walker{},
		workers: []globWorker{{total: 5, top: topHits{hits: []fileHit{{rel: "a"}, {rel: "b"}}}}}}
	if res := g.result(false, false); !strings.Contains(res.Hint, "showing 1 of at least 5") {
		t.Errorf("glob hint %q", res.Hint)
	}
	gr := &grepRun{p: GrepParams{Pattern: "x", Mode: ModeFiles, Limit: 1, Sort: SortPath}, t: &target{display: "."}, walk: &walker{},
		workers: []grepWorker{{matchFiles: 5, searched: 5, top: topHits{hits: []fileHit{{rel: "a", count: 1}, {rel: "b", count: 1}}}}}}
	if res := grepResult([]*grepRun{gr}, false); !strings.Contains(res.Hint, "showing 1 of at least 5") {
		t.Errorf("grep hint %q", res.Hint)
	}
}
