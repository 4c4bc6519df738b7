package edit

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/pkg/textedit"
	"github.com/mcode-dev/mcode/pkg/tool"
)

func intp(n int) *int { return &n }

// apply runs applyEdits and renders the result.
func apply(t *testing.T, text string, edits ...Edit) (string, []EditReport, *failed) {
	t.Helper()
	pieces, reports, f := applyEdits("f", []byte(text), edits, false)
	if f != nil {
		return "", nil, f
	}
	return string(textedit.Render([]byte(text), pieces)), reports, nil
}

func TestApplyEdits(t *testing.T) {
	cases := []struct {
		name  string
		text  string
		edits []Edit
		want  string
	}{
		{"one", "a\nb\nc\n", []Edit{{OldString: "b", NewString: "B"}}, "a\nB\nc\n"},
		{"replace_all is literal", "TOKEN x TOKEN\n", []Edit{{OldString: "TOKEN", NewString: "$& $$ $' $` $1", ReplaceAll: true}},
			"$& $$ $' $` $1 x $& $$ $' $` $1\n"},
		{"single replacement is literal", "v = OLD\n", []Edit{{OldString: "OLD", NewString: "$&"}}, "v = $&\n"},
		{"in order: the first makes the second unique", "k1\nk2\n", []Edit{{OldString: "k1", NewString: "z1"}, {OldString: "k", NewString: "K"}},
			"z1\nK2\n"},
		{"several places", "one two three\n", []Edit{{OldString: "three", NewString: "3"}, {OldString: "one", NewString: "1"}}, "1 two 3\n"},
		{"adjacent edits", "ab\n", []Edit{{OldString: "a", NewString: "x"}, {OldString: "b", NewString: "y"}}, "xy\n"},
		{"LF new into CRLF file", "a\r\nb\r\n", []Edit{{OldString: "a\n", NewString: "a\nnew\n"}}, "a\r\nnew\r\nb\r\n"},
		{"single line, CRLF file", "a\r\nb\r\n", []Edit{{OldString: "a", NewString: "x\ny"}}, "x\r\ny\r\nb\r\n"},
		{"LF never splits a CRLF", "a\r\nb\r\n", []Edit{{OldString: "\n", NewString: "\n\n", ReplaceAll: true}}, "a\r\n\r\nb\r\n\r\n"},
		{"a line starting with LF", "a\r\nb\r\n", []Edit{{OldString: "\nb", NewString: "\nB"}}, "a\r\nB\r\n"},
		{"mixed stays mixed", "a\r\nb\nc\r\n", []Edit{{OldString: "b", NewString: "B"}}, "a\r\nB\nc\r\n"},
		{"no final newline kept", "a\nlast", []Edit{{OldString: "last", NewString: "LAST"}}, "a\nLAST"},
		{"fuzzy keeps CJK elsewhere", "\u201c\u4f60\u597d\u201d\u3000\u4e16\u754c\nprint(\u201chi\u201d)\n\u3000\u3000\u7ed3\u675f\u2014\u2014\n",
			[]Edit{{OldString: `print("hi")`, NewString: `print("bye")`}},
			"\u201c\u4f60\u597d\u201d\u3000\u4e16\u754c\nprint(\"bye\")\n\u3000\u3000\u7ed3\u675f\u2014\u2014\n"},
		{"deletion", "a\nb\nc\n", []Edit{{OldString: "b\n", NewString: ""}}, "a\nc\n"},
		{"expect_count met", "x x x\n", []Edit{{OldString: "x", NewString: "y", ReplaceAll: true, ExpectCount: intp(3)}}, "y y y\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _, f := apply(t, c.text, c.edits...)
			if f != nil {
				t.Fatalf("failed: %v", f.err)
			}
			if got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestApplyEditsRefuses(t *testing.T) {
	cases := []struct {
		name  string
		text  string
		edits []Edit
		code  tool.Code
		in    string // a phrase the message must hold
	}{
		{"empty old", "a\n", []Edit{{OldString: "", NewString: "x"}}, tool.CodeUsage, "old_string is empty"},
		{"same strings", "a\n", []Edit{{OldString: "a", NewString: "a"}}, tool.CodeInvalidArgs, "the same"},
		{"no match", "a\n", []Edit{{OldString: "zzz", NewString: "y"}}, tool.CodeNoMatch, "not found"},
		{"not unique", "x\ny\nx\nx\n", []Edit{{OldString: "x", NewString: "z"}}, tool.CodeNotUnique, "matches 3 places (lines 1, 3, 4"},
		{"count mismatch", "x x\n", []Edit{{OldString: "x", NewString: "z", ReplaceAll: true, ExpectCount: intp(3)}}, tool.CodeCountMismatch, "occurs 2 times"},
		{"count needs replace_all", "x x\n", []Edit{{OldString: "x", NewString: "z", ExpectCount: intp(2)}}, tool.CodeUsage, "needs replace_all"},
		{"overlap", "abc\n", []Edit{{OldString: "b", NewString: "B"}, {OldString: "aB", NewString: "x"}}, tool.CodeOverlappingEdits, "edits[1] matches at line 1, in text that edits[0] wrote"},
		{"overlap across a deletion", "abc\n", []Edit{{OldString: "b", NewString: ""}, {OldString: "ac", NewString: "x"}}, tool.CodeOverlappingEdits, "edits[0] wrote"},
		{"replacement char", "a\n", []Edit{{OldString: "a", NewString: "\uFFFD"}}, tool.CodeEncoding, "U+FFFD"},
		{"the second sees the first's result", "foo\n", []Edit{{OldString: "foo", NewString: "bar"}, {OldString: "foo", NewString: "baz"}}, tool.CodeOverlappingEdits, "edits[1] overlaps edits[0]"},
		{"later edit fails, none applied", "a\nb\n", []Edit{{OldString: "a", NewString: "A"}, {OldString: "q", NewString: "Q"}}, tool.CodeNoMatch, "edits[1]: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, f := apply(t, c.text, c.edits...)
			if f == nil {
				t.Fatal("applied, want a refusal")
			}
			if f.err.Code != c.code || !strings.Contains(f.err.Message, c.in) {
				t.Errorf("got %s: %s\nwant %s containing %q", f.err.Code, f.err.Message, c.code, c.in)
			}
			if f.err.Hint == "" {
				t.Error("no hint")
			}
		})
	}
}

func TestOverlapNamesBothEdits(t *testing.T) {
	_, _, f := apply(t, "abc\n", Edit{OldString: "b", NewString: "B"}, Edit{OldString: "aB", NewString: "x"})
	if f == nil || *f.info.Edit != 1 || f.info.OtherEdit == nil || *f.info.OtherEdit != 0 {
		t.Fatalf("failure = %+v", f)
	}
}

func TestApplyReportsOriginalLines(t *testing.T) {
	text := "a\nb\nc\nd\nb\n"
	_, reports, f := apply(t, text,
		Edit{OldString: "a\n", NewString: "x\ny\nz\n"}, // adds two lines before the others
		Edit{OldString: "b", NewString: "B", ReplaceAll: true})
	if f != nil {
		t.Fatal(f.err)
	}
	want := []EditReport{
		{Index: 0, Match: textedit.MatchExact, Count: 1, LineStart: 1, LineEnd: 1, Lines: []int{1}},
		{Index: 1, Match: textedit.MatchExact, Count: 2, LineStart: 2, LineEnd: 2, Lines: []int{2, 5}},
	}
	if diff := cmp.Diff(want, reports); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
}

func TestLineNumberRetry(t *testing.T) {
	text := "func a() {\n\treturn 1\n}\n"
	old := "     1→func a() {\n     2→\treturn 1\n"
	repl := "     1→func a() {\n\treturn 2\n"
	got, reports, f := apply(t, text, Edit{OldString: old, NewString: repl})
	if f != nil {
		t.Fatal(f.err)
	}
	if got != "func a() {\n\treturn 2\n}\n" || !reports[0].LineNumbersStripped {
		t.Errorf("got %q, report %+v", got, reports[0])
	}
	// Every line numbered, and still no match: the diagnosis is of the
	// text without the prefixes, which the caller need not strip again.
	_, _, f = apply(t, text, Edit{OldString: "     1→func a() {\n     2→\treturn 3\n", NewString: "x"})
	if f == nil || f.err.Code != tool.CodeNoMatch || f.info.Candidate == nil {
		t.Fatalf("numbered, no match: %+v", f)
	}
	if c := f.info.Candidate; c.Cause != "different_text" || c.Line != 2 || c.Column != 9 || !strings.Contains(f.err.Message, "prefixes were taken off") {
		t.Errorf("numbered, no match: %+v, %s", c, f.err.Message)
	}
	// Not every line numbered: no retry, and the cause is named.
	_, _, f = apply(t, text, Edit{OldString: "     1→func a() {\n\treturn 1\n", NewString: "x"})
	if f == nil || f.err.Code != tool.CodeNoMatch || f.info.Candidate == nil || f.info.Candidate.Cause != "line_numbers" {
		t.Errorf("partial prefixes: %+v", f)
	}
}

func TestApplyByteWise(t *testing.T) {
	text := "caf\xe9 = 1\nna\xefve = 2\n" // Latin-1
	pieces, _, f := applyEdits("f", []byte(text), []Edit{{OldString: "= 2", NewString: "= 3"}}, true)
	if f != nil {
		t.Fatal(f.err)
	}
	if got := string(textedit.Render([]byte(text), pieces)); got != "caf\xe9 = 1\nna\xefve = 3\n" {
		t.Errorf("got %q", got)
	}
	pieces, reports, f := applyEdits("f", []byte(text), []Edit{{OldString: "     2→ve = 2", NewString: "     2→ve = 3"}}, true)
	if f != nil || !reports[0].LineNumbersStripped || string(textedit.Render([]byte(text), pieces)) != "caf\xe9 = 1\nna\xefve = 3\n" {
		t.Errorf("pasted prefixes in a Latin-1 file: %+v", f)
	}
	_, _, f = applyEdits("f", []byte(text), []Edit{{OldString: "= 2", NewString: "= \u00e9"}}, true)
	if f == nil || f.err.Code != tool.CodeEncoding {
		t.Errorf("non-ASCII new_string in a Latin-1 file: %+v", f)
	}
}

func TestNoMatchDiagnosis(t *testing.T) {
	file := "package main\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\tos.Exit(0)\n}\n"
	cases := []struct {
		name      string
		text, old string
		cause     string
		line, col int
	}{
		{"tabs vs spaces", file, "func main() {\n    fmt.Println(\"hello\")\n", "tabs_vs_spaces", 4, 1},
		{"different text", file, "func main() {\n\tfmt.Println(\"world\")\n", "different_text", 4, 15},
		{"pasted prefix", file, "     3→func main() {\n\tfmt.Println(\"hello\")\n", "line_numbers", 3, 1},
		{"bom", file, "\uFEFFpackage main\n\nfunc main() {\n", "bom", 1, 1},
		{"typo, one line", file, "\tfmt.Printl(\"hello\")", "different_text", 4, 12},
		{"past the end", file, "\tos.Exit(0)\n}\nmore\n", "end_of_file", 7, 1},
		{"curly quote, not UTF-8 file", "say \"hi\" \xff\n", "say \u201chi\u201d", "curly_quote", 1, 5},
		// The lines around a changed one place the candidate, even when
		// the changed line is old_string's longest and like no other.
		{"lines around agree", "a = 1\ntotally different content here!!\nb = 2\n",
			"a = 1\nthis is the longest line of all of them\nb = 2", "different_text", 2, 2},
		// A curly quote the fuzzy tier looks past is not what stopped
		// the match: the indentation of the next line is.
		{"blocker after a curly quote", "func f() {\n\tif x == \u201cy\u201d {\n\t\treturn 1\n\t}\n}\n",
			"if x == \"y\" {\n    return 1", "tabs_vs_spaces", 3, 1},
		{"only a curly quote and a line break", "say(\u201chi\u201d)\nnext\n", "say(\"hi\")\r\nnext", "curly_quote", 1, 5},
		// old_string starts after the indentation of its first line.
		{"first line unindented", file, "fmt.Println(\"world\")\n\tos.Exit(0)", "different_text", 4, 15},
		{"one line of two agrees", "a\r\nb\r\n", "a\r\nc", "different_text", 2, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loc := textedit.Locate([]byte(c.text), c.old, false, -1)
			f := noMatch("f", []byte(c.text), c.old, loc, 0, 1, false)
			cand := f.info.Candidate
			if cand == nil {
				t.Fatalf("no candidate: %s", f.err.Message)
			}
			if cand.Cause != c.cause || cand.Line != c.line || cand.Column != c.col {
				t.Errorf("candidate %+v, want cause %s at %d:%d\n%s", cand, c.cause, c.line, c.col, f.err.Message)
			}
		})
	}
	f := noMatch("f", []byte(file), "nothing like it at all", textedit.Located{}, 0, 1, false)
	if f.info.Candidate != nil || f.err.Code != tool.CodeNoMatch {
		t.Errorf("unrelated old_string: %+v %v", f.info.Candidate, f.err)
	}
}

func TestLinesPhrase(t *testing.T) {
	for _, c := range []struct {
		lines []int
		total int
		want  string
	}{
		{[]int{4}, 1, "line 4"},
		{[]int{1, 3, 5}, 3, "lines 1, 3, 5"},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}, 22, "lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 and 2 more"},
		{[]int{1, 2}, 5000, "lines 1, 2 and 4998 more"},
	} {
		if got := textedit.LinesPhrase(c.lines, c.total); got != c.want {
			t.Errorf("LinesPhrase(%v, %d) = %q, want %q", c.lines, c.total, got, c.want)
		}
	}
}

func TestReportCapsItsLineList(t *testing.T) {
	text := strings.Repeat("x\n", textedit.MaxReportedLines+5)
	_, reports, f := apply(t, text, Edit{OldString: "x", NewString: "y", ReplaceAll: true})
	if f != nil {
		t.Fatal(f.err)
	}
	if r := reports[0]; r.Count != textedit.MaxReportedLines+5 || len(r.Lines) != textedit.MaxReportedLines || r.LinesOmitted != 5 {
		t.Errorf("count %d, %d lines listed, %d omitted", r.Count, len(r.Lines), r.LinesOmitted)
	}
}

func TestManyMatchesAreCountedNotKept(t *testing.T) {
	text := []byte(strings.Repeat("a ", 50_000))
	loc := textedit.Locate(text, "a", true, textedit.MaxReportedLines)
	if loc.Count != 50_000 || len(loc.Spans) != textedit.MaxReportedLines {
		t.Fatalf("count %d, kept %d", loc.Count, len(loc.Spans))
	}
	_, _, f := apply(t, string(text), Edit{OldString: "a", NewString: "b"})
	if f == nil || f.err.Code != tool.CodeNotUnique || *f.info.Count != 50_000 || !strings.Contains(f.err.Message, "matches 50000 places") {
		t.Fatalf("not_unique: %+v", f)
	}
	fz := textedit.Locate([]byte(strings.Repeat("\u201cq\u201d\n", 3000)), `"q"`, true, 10)
	if fz.Kind != textedit.MatchFuzzy || fz.Count != 3000 || len(fz.Spans) != 10 {
		t.Errorf("fuzzy: kind %s count %d kept %d", fz.Kind, fz.Count, len(fz.Spans))
	}
}

func TestTooManyReplacements(t *testing.T) {
	text := strings.Repeat("a", MaxReplacements+1)
	_, _, f := apply(t, text, Edit{OldString: "a", NewString: "b", ReplaceAll: true})
	if f == nil || f.err.Code != tool.CodeTooLarge || *f.info.Count != MaxReplacements+1 {
		t.Fatalf("got %+v", f)
	}
	// Without replace_all, that many matches are not a unique match: the
	// cap on replacements is not what stops the edit.
	_, _, f = apply(t, text, Edit{OldString: "a", NewString: "b"})
	if f == nil || f.err.Code != tool.CodeNotUnique || *f.info.Count != MaxReplacements+1 {
		t.Fatalf("without replace_all: got %+v", f)
	}
}

// A later edit whose old_string lost part of its text to an earlier edit
// is overlapping_edits naming both and the shared lines, not no_match;
// one that matches nowhere, even in the original, stays no_match.
func TestConsumedByEarlierEdit(t *testing.T) {
	text := "step1()\nstep2()\nstep3()\nstep4()\nstep5()\n"
	for _, c := range []struct {
		name   string
		edits  []Edit
		code   tool.Code
		edit   int
		other  int
		shared []int
	}{
		{"one shared line", []Edit{{OldString: "step2()\nstep3()", NewString: "both23()"}, {OldString: "step3()\nstep4()", NewString: "both34()"}},
			tool.CodeOverlappingEdits, 1, 0, []int{3}},
		{"shared at its start", []Edit{{OldString: "step3()\nstep4()", NewString: "x"}, {OldString: "step2()\nstep3()", NewString: "y"}},
			tool.CodeOverlappingEdits, 1, 0, []int{3}},
		{"inside it", []Edit{{OldString: "step3()", NewString: "s3"}, {OldString: "step2()\nstep3()\nstep4()", NewString: "z"}},
			tool.CodeOverlappingEdits, 1, 0, []int{3}},
		{"two lines shared", []Edit{{OldString: "step2()\nstep3()\nstep4()", NewString: "q"}, {OldString: "step3()\nstep4()\nstep5()", NewString: "r"}},
			tool.CodeOverlappingEdits, 1, 0, []int{3, 4}},
		{"in the original nowhere", []Edit{{OldString: "step2()", NewString: "s2"}, {OldString: "step9()", NewString: "s9"}},
			tool.CodeNoMatch, 1, -1, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, f := apply(t, text, c.edits...)
			if f == nil || f.err.Code != c.code || *f.info.Edit != c.edit {
				t.Fatalf("failure = %+v", f)
			}
			if c.code != tool.CodeOverlappingEdits {
				return
			}
			if f.info.OtherEdit == nil || *f.info.OtherEdit != c.other || !slices.Equal(f.info.MatchLines, c.shared) {
				t.Errorf("other %v lines %v, want %d %v", f.info.OtherEdit, f.info.MatchLines, c.other, c.shared)
			}
			for _, s := range []string{fmt.Sprintf("edits[%d]", c.edit), fmt.Sprintf("edits[%d]", c.other)} {
				if !strings.Contains(f.err.Message, s) {
					t.Errorf("message %q does not name %s", f.err.Message, s)
				}
			}
		})
	}
}
