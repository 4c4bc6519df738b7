package patch

import (
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// contents drops the modes readTree records.
func contents(tr tree) tree {
	out := tree{}
	for k, v := range tr {
		if strings.HasSuffix(k, "/") {
			continue
		}
		c, _, _ := strings.Cut(v, "\x00")
		out[k] = c
	}
	return out
}

// scenario is one patch applied to a folder: the files after it, or the
// error it must give with every file left as it was.
type scenario struct {
	name   string
	before tree
	patch  string
	after  tree      // every file after; nil when the patch must fail
	code   tool.Code // the error code when it must fail
	// msg is text the error message must hold.
	msg string
	// ops and tiers, when set, are what the result must report.
	ops   []string
	tiers map[string][]string
}

const greet = "package greet\n\nimport \"fmt\"\n\nfunc Hello(name string) {\n\tfmt.Println(\"hello\", name)\n}\n\nfunc Bye(name string) {\n\tfmt.Println(\"bye\", name)\n}\n"

var scenarios = []scenario{
	{
		name:   "add a file in a new folder",
		before: tree{"keep.txt": "kept\n"},
		patch:  "*** Begin Patch\n*** Add File: docs/notes/todo.md\n+# To do\n+\n+- write tests\n*** End Patch\n",
		after:  tree{"keep.txt": "kept\n", "docs/notes/todo.md": "# To do\n\n- write tests\n"},
		ops:    []string{OpAdd},
	},
	{
		name:   "delete a file",
		before: tree{"a.txt": "one\n", "b.txt": "two\n"},
		patch:  "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n",
		after:  tree{"b.txt": "two\n"},
		ops:    []string{OpDelete},
	},
	{
		name:   "update with several chunks",
		before: tree{"greet.go": greet},
		patch: "*** Begin Patch\n*** Update File: greet.go\n@@\n import \"fmt\"\n+import \"os\"\n \n" +
			"@@ func Hello(name string) {\n-\tfmt.Println(\"hello\", name)\n+\tfmt.Println(\"hi\", name)\n }\n" +
			"@@ func Bye(name string) {\n-\tfmt.Println(\"bye\", name)\n+\tfmt.Fprintln(os.Stderr, \"bye\", name)\n }\n*** End Patch\n",
		after: tree{"greet.go": "package greet\n\nimport \"fmt\"\nimport \"os\"\n\nfunc Hello(name string) {\n\tfmt.Println(\"hi\", name)\n}\n\nfunc Bye(name string) {\n\tfmt.Fprintln(os.Stderr, \"bye\", name)\n}\n"},
		tiers: map[string][]string{"greet.go": {TierExact, TierExact, TierExact}},
	},
	{
		name:   "move into a new folder with a change",
		before: tree{"old/name.txt": "alpha\nbeta\ngamma\n"},
		patch:  "*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: new/dir/name.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n",
		after:  tree{"new/dir/name.txt": "alpha\nBETA\ngamma\n"},
		ops:    []string{OpMove},
	},
	{
		name:   "move without a change",
		before: tree{"a.txt": "same\n"},
		patch:  "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n*** End Patch\n",
		after:  tree{"b.txt": "same\n"},
		ops:    []string{OpMove},
	},
	{
		name:   "pure additions between context",
		before: tree{"list.txt": "one\ntwo\nthree\n"},
		patch:  "*** Begin Patch\n*** Update File: list.txt\n@@\n one\n+one and a half\n two\n*** End Patch\n",
		after:  tree{"list.txt": "one\none and a half\ntwo\nthree\n"},
	},
	{
		name:   "additions with no context go at the end",
		before: tree{"log.txt": "first\n"},
		patch:  "*** Begin Patch\n*** Update File: log.txt\n@@\n+second\n+third\n*** End Patch\n",
		after:  tree{"log.txt": "first\nsecond\nthird\n"},
	},
	{
		name:   "deletion only",
		before: tree{"list.txt": "one\ntwo\nthree\nfour\n"},
		patch:  "*** Begin Patch\n*** Update File: list.txt\n@@\n one\n-two\n-three\n four\n*** End Patch\n",
		after:  tree{"list.txt": "one\nfour\n"},
	},
	{
		name:   "end of file anchors the last of twin blocks",
		before: tree{"twins.txt": "}\n\nreturn nil\n}\nmiddle\n}\n\nreturn nil\n}\n"},
		patch:  "*** Begin Patch\n*** Update File: twins.txt\n@@\n }\n \n-return nil\n+return err\n }\n*** End of File\n*** End Patch\n",
		after:  tree{"twins.txt": "}\n\nreturn nil\n}\nmiddle\n}\n\nreturn err\n}\n"},
	},
	{
		name:   "twin blocks without an anchor are ambiguous",
		before: tree{"twins.txt": "}\n\nreturn nil\n}\nmiddle\n}\n\nreturn nil\n}\n"},
		patch:  "*** Begin Patch\n*** Update File: twins.txt\n@@\n \n-return nil\n+return err\n }\n*** End Patch\n",
		code:   tool.CodeNotUnique,
		msg:    "lines 2, 7",
	},
	{
		name:   "context headers stack and pick the instance",
		before: tree{"k.py": "class A:\n    def run(self):\n        return 1\n\nclass B:\n    def run(self):\n        return 1\n"},
		patch:  "*** Begin Patch\n*** Update File: k.py\n@@ class B:\n@@     def run(self):\n-        return 1\n+        return 2\n*** End Patch\n",
		after:  tree{"k.py": "class A:\n    def run(self):\n        return 1\n\nclass B:\n    def run(self):\n        return 2\n"},
	},
	{
		name:   "a header that names part of a line",
		before: tree{"k.py": "def a(x):\n    return x\n\ndef b(x):\n    return x\n"},
		patch:  "*** Begin Patch\n*** Update File: k.py\n@@ def b\n-    return x\n+    return -x\n*** End Patch\n",
		after:  tree{"k.py": "def a(x):\n    return x\n\ndef b(x):\n    return -x\n"},
	},
	{
		name:   "unicode punctuation folded, the file's own context kept",
		before: tree{"q.md": "Title \u2014 part\n\u201cquoted\u201d text\u00a0here\nend\n"},
		patch:  "*** Begin Patch\n*** Update File: q.md\n@@\n Title - part\n-\"quoted\" text here\n+plain text here\n end\n*** End Patch\n",
		after:  tree{"q.md": "Title \u2014 part\nplain text here\nend\n"},
		tiers:  map[string][]string{"q.md": {TierUnicode}},
	},
	{
		name:   "trailing whitespace tier",
		before: tree{"t.txt": "a  \nb\t\nc\n"},
		patch:  "*** Begin Patch\n*** Update File: t.txt\n@@\n a\n-b\n+B\n c\n*** End Patch\n",
		after:  tree{"t.txt": "a  \nB\nc\n"},
		tiers:  map[string][]string{"t.txt": {TierTrailing}},
	},
	{
		name:   "surrounding whitespace tier",
		before: tree{"t.go": "func f() {\n\tx := 1\n\treturn x\n}\n"},
		patch:  "*** Begin Patch\n*** Update File: t.go\n@@\n     x := 1\n-    return x\n+\treturn x + 1\n }\n*** End Patch\n",
		after:  tree{"t.go": "func f() {\n\tx := 1\n\treturn x + 1\n}\n"},
		tiers:  map[string][]string{"t.go": {TierSpace}},
	},
	{
		name:   "padded markers, stars, fence, CRLF, no final newline, no end marker",
		before: tree{"p.txt": "x\ny\n"},
		patch:  "```diff\r\n  *** Begin Patch ***  \r\n***  Update File:   p.txt  \r\n@@\r\n x\r\n-y\r\n+z\r\n```",
		after:  tree{"p.txt": "x\nz\n"},
	},
	{
		name:   "a heredoc around the patch",
		before: tree{"p.txt": "x\n"},
		patch:  "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: p.txt\n-x\n+y\n*** End Patch\nEOF\n",
		after:  tree{"p.txt": "y\n"},
	},
	{
		name:   "an empty patch",
		before: tree{"p.txt": "x\n"},
		patch:  "  \n",
		code:   tool.CodeUsage,
	},
	{
		name:   "a patch that names no file",
		before: tree{"p.txt": "x\n"},
		patch:  "*** Begin Patch\n*** End Patch\n",
		code:   tool.CodeInvalidArgs,
		msg:    "names no file",
	},
	{
		name:   "missing context",
		before: tree{"greet.go": greet},
		patch:  "*** Begin Patch\n*** Update File: greet.go\n@@\n func Hello(name string) {\n-\tfmt.Println(\"hallo\", name)\n+\tfmt.Println(\"hi\", name)\n }\n*** End Patch\n",
		code:   tool.CodeNoMatch,
		msg:    "first difference at line 6",
	},
	{
		name:   "delete of a missing file",
		before: tree{"a.txt": "a\n"},
		patch:  "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch\n",
		code:   tool.CodeNotFound,
	},
	{
		name:   "update of a missing file",
		before: tree{"a.txt": "a\n"},
		patch:  "*** Begin Patch\n*** Update File: nope.txt\n@@\n-a\n+b\n*** End Patch\n",
		code:   tool.CodeNotFound,
	},
	{
		name:   "invalid hunk line",
		before: tree{"a.txt": "a\n"},
		patch:  "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\nnot a hunk line\n*** End Patch\n",
		code:   tool.CodeInvalidArgs,
		msg:    "at line 6",
	},
	{
		name:   "an empty hunk",
		before: tree{"a.txt": "a\n"},
		patch:  "*** Begin Patch\n*** Update File: a.txt\n@@ -1 +1 @@\n*** End Patch\n",
		code:   tool.CodeInvalidArgs,
		msg:    "has no lines",
	},
	{
		name:   "a line before the begin marker",
		before: tree{"a.txt": "a\n"},
		patch:  "here is my patch\n*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n",
		code:   tool.CodeInvalidArgs,
		msg:    "at line 1",
	},
	{
		name:   "hunks out of order",
		before: tree{"l.txt": "a\nb\nc\nd\ne\nf\n"},
		patch:  "*** Begin Patch\n*** Update File: l.txt\n@@\n e\n-f\n+F\n@@\n a\n-b\n+B\n*** End Patch\n",
		code:   tool.CodeNoMatch,
		msg:    "file's order",
	},
	{
		name:   "move to the same path is an update",
		before: tree{"a.txt": "a\nb\n"},
		patch:  "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ./a.txt\n@@\n a\n-b\n+c\n*** End Patch\n",
		after:  tree{"a.txt": "a\nc\n"},
		ops:    []string{OpUpdate},
	},
	{
		name:   "delete then add is a replacement",
		before: tree{"a.txt": "old\n"},
		patch:  "*** Begin Patch\n*** Delete File: a.txt\n*** Add File: a.txt\n+new\n*** End Patch\n",
		after:  tree{"a.txt": "new\n"},
		ops:    []string{OpReplace},
	},
	{
		name:   "two updates of one file apply in turn",
		before: tree{"a.txt": "1\n2\n3\n"},
		patch:  "*** Begin Patch\n*** Update File: a.txt\n-1\n+one\n*** Update File: a.txt\n@@\n-3\n+three\n*** End Patch\n",
		after:  tree{"a.txt": "one\n2\nthree\n"},
	},
	{
		name:   "a new file under a path that is a file",
		before: tree{"a.txt": "a\n"},
		patch:  "*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n*** Add File: a.txt/inner.txt\n+x\n*** End Patch\n",
		code:   tool.CodeNotADirectory,
		msg:    "a part of the path is a file",
	},
	// Where mcode deliberately differs from Codex: nothing is lost.
	{
		name:   "move onto an existing file is refused",
		before: tree{"a.txt": "from a\n", "b.txt": "precious b\n"},
		patch:  "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-from a\n+moved\n*** End Patch\n",
		code:   tool.CodeExists,
		msg:    "b.txt already exists",
	},
	{
		name:   "add over an existing file is refused",
		before: tree{"a.txt": "precious\n"},
		patch:  "*** Begin Patch\n*** Add File: a.txt\n+clobber\n*** End Patch\n",
		code:   tool.CodeExists,
	},
	{
		name:   "add over a file with exactly that content is left alone",
		before: tree{"a.txt": "same\n"},
		patch:  "*** Begin Patch\n*** Add File: a.txt\n+same\n*** End Patch\n",
		after:  tree{"a.txt": "same\n"},
		ops:    []string{OpAdd},
	},
	{
		name:   "no final newline is kept when the last line changes",
		before: tree{"n.txt": "a\nb"},
		patch:  "*** Begin Patch\n*** Update File: n.txt\n@@\n a\n-b\n+B\n*** End Patch\n",
		after:  tree{"n.txt": "a\nB"},
	},
	{
		name:   "no final newline is kept when lines are appended",
		before: tree{"n.txt": "a\nb"},
		patch:  "*** Begin Patch\n*** Update File: n.txt\n@@\n b\n+c\n*** End of File\n*** End Patch\n",
		after:  tree{"n.txt": "a\nb\nc"},
	},
	{
		name:   "no final newline is kept when the last lines are deleted",
		before: tree{"n.txt": "a\nb\nc"},
		patch:  "*** Begin Patch\n*** Update File: n.txt\n@@\n a\n-b\n-c\n*** End Patch\n",
		after:  tree{"n.txt": "a"},
	},
	{
		name:   "a failure in the last file leaves the first ones untouched",
		before: tree{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"},
		patch: "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Delete File: b.txt\n*** Add File: d.txt\n+d\n" +
			"*** Update File: c.txt\n-nothing like c\n+C\n*** End Patch\n",
		code: tool.CodeNoMatch,
		msg:  "c.txt",
	},
}

func TestScenarios(t *testing.T) {
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			env := testEnv(t)
			writeTree(t, env.Root, s.before)
			before := readTree(t, env.Root)
			res, terr, _ := apply(t, env, Params{Input: s.patch})
			if s.after == nil {
				if terr == nil {
					t.Fatalf("the patch applied; want %s", s.code)
				}
				if terr.Code != s.code || !strings.Contains(terr.Message, s.msg) {
					t.Fatalf("error %s: %s; want %s holding %q", terr.Code, terr.Message, s.code, s.msg)
				}
				sameTree(t, before, readTree(t, env.Root))
				return
			}
			if terr != nil {
				t.Fatalf("%s: %s (%s)", terr.Code, terr.Message, terr.Hint)
			}
			sameTree(t, s.after, contents(readTree(t, env.Root)))
			if s.ops != nil {
				var got []string
				for _, f := range res.Files {
					got = append(got, f.Op)
				}
				if strings.Join(got, ",") != strings.Join(s.ops, ",") {
					t.Errorf("ops %v, want %v", got, s.ops)
				}
			}
			for path, want := range s.tiers {
				found := false
				for _, f := range res.Files {
					if f.Path == path {
						found = true
						if strings.Join(f.Tiers, ",") != strings.Join(want, ",") {
							t.Errorf("%s: tiers %v, want %v", path, f.Tiers, want)
						}
					}
				}
				if !found {
					t.Errorf("no report for %s", path)
				}
			}
			if !strings.HasPrefix(output(res), "Success. Updated the following files:\n") {
				t.Errorf("output does not start with Codex's summary: %q", output(res))
			}
		})
	}
}

// TestCheckWritesNothing: check answers as the real call would.
func TestCheckWritesNothing(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.Root, tree{"a.txt": "a\n", "b.txt": "b\n"})
	before := readTree(t, env.Root)
	p := "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Delete File: b.txt\n*** Add File: c/d.txt\n+d\n*** End Patch\n"
	checked, terr, _ := apply(t, env, Params{Input: p, Check: true})
	if terr != nil {
		t.Fatal(terr)
	}
	sameTree(t, before, readTree(t, env.Root))
	done, terr, _ := apply(t, env, Params{Input: p})
	if terr != nil {
		t.Fatal(terr)
	}
	if !checked.Check || done.Check {
		t.Errorf("check flags: %v %v", checked.Check, done.Check)
	}
	checked.Check = true
	done.Check = true
	if checked.Diff != done.Diff || len(checked.Files) != len(done.Files) {
		t.Fatalf("check answered otherwise than the call:\n%s\n%s", checked.Diff, done.Diff)
	}
	for i := range done.Files {
		c, d := checked.Files[i], done.Files[i]
		if c.Op != d.Op || c.Path != d.Path || c.Additions != d.Additions || c.Removals != d.Removals || str(c.NewSHA256) != str(d.NewSHA256) {
			t.Errorf("file %d: check %+v, call %+v", i, c, d)
		}
	}
	sameTree(t, tree{"a.txt": "A\n", "c/d.txt": "d\n"}, contents(readTree(t, env.Root)))
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// TestDeletingAFolderIsRefused: a folder is never deleted, whatever is
// in it.
func TestDeletingAFolderIsRefused(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.Root, tree{"dir/a.txt": "a\n"})
	before := readTree(t, env.Root)
	_, terr, _ := apply(t, env, Params{Input: "*** Begin Patch\n*** Delete File: dir\n*** End Patch\n"})
	if terr == nil || terr.Code != tool.CodeIsDirectory {
		t.Fatalf("got %v, want is_directory", terr)
	}
	sameTree(t, before, readTree(t, env.Root))
}

// TestNoMatchPointsAtTheFix: the failure names the file, hunk, patch
// line, nearest place and its similarity, and the differing line.
func TestNoMatchPointsAtTheFix(t *testing.T) {
	env := testEnv(t)
	writeTree(t, env.Root, tree{"greet.go": greet})
	p := "*** Begin Patch\n*** Update File: greet.go\n@@\n func Bye(name string) {\n-\tfmt.Println(\"bye\", nme)\n+\tfmt.Println(\"ciao\", name)\n }\n*** End Patch\n"
	_, terr, info := apply(t, env, Params{Input: p})
	if terr == nil || terr.Code != tool.CodeNoMatch {
		t.Fatalf("got %v", terr)
	}
	f := info.(Failure)
	if f.File != "greet.go" || f.Hunk != 1 || f.PatchLine != 3 || f.Nearest == nil {
		t.Fatalf("failure facts: %+v", f)
	}
	n := f.Nearest
	if n.LineStart != 9 || n.Line != 10 || n.Expected != "\tfmt.Println(\"bye\", nme)" || n.Found != "\tfmt.Println(\"bye\", name)" || n.Similarity < 0.8 || n.Similarity >= 1 {
		t.Fatalf("nearest: %+v", n)
	}
	for _, want := range []string{"greet.go", "patch line 3", "lines 9-11", "% similar", "line 10"} {
		if !strings.Contains(terr.Message, want) {
			t.Errorf("message lacks %q: %s", want, terr.Message)
		}
	}
	if !strings.Contains(terr.Hint, "mcode read greet.go --offset 9 --limit 3") {
		t.Errorf("hint: %s", terr.Hint)
	}
}
