package cmd

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// TestExitCodesAgreeEverywhere: the skill's exit table, mcode bash
// --help, mcode --help and the docs' exit code tables list the same
// codes as tool.ExitCodes, the one table in code.
func TestExitCodesAgreeEverywhere(t *testing.T) {
	text := func(args ...string) string {
		f, bufs := testFactory(t, nil)
		if code := Run(context.Background(), f, append([]string{"-o", "text"}, args...)); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, bufs.errOut)
		}
		return bufs.out.String()
	}
	skill, bashHelp, rootHelp := text("skill"), text("bash", "--help"), text("--help")
	want := make([]int, 0, len(tool.ExitCodes))
	for _, e := range tool.ExitCodes {
		want = append(want, e.Code)
		if !strings.Contains(skill, "| "+strconv.Itoa(e.Code)+" | "+e.Meaning+" |") {
			t.Errorf("the skill's exit table has no row for %d (%s)", e.Code, e.Meaning)
		}
		if !regexp.MustCompile(`(?m)^  ` + strconv.Itoa(e.Code) + ` +\S`).MatchString(bashHelp) {
			t.Errorf("mcode bash --help does not list exit %d", e.Code)
		}
		if !strings.Contains(rootHelp, strconv.Itoa(e.Code)+" "+e.Short) {
			t.Errorf("mcode --help does not list exit %d (%s)", e.Code, e.Short)
		}
	}
	docs, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	docs = append(docs, filepath.Join("..", "README.md"))
	tables := 0
	for _, path := range docs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, codes := range exitTables(string(data)) {
			tables++
			for _, c := range want {
				if !slices.Contains(codes, c) {
					t.Errorf("%s: its exit code table has no %d", path, c)
				}
			}
			for _, c := range codes {
				if !slices.Contains(want, c) {
					t.Errorf("%s: its exit code table lists %d, which tool.ExitCodes does not", path, c)
				}
			}
		}
	}
	if tables == 0 {
		t.Errorf("no exit code table in README.md or docs/*.md")
	}
}

// exitTables finds the tables under a heading that names exit codes and
// returns the codes each lists in its first column (a range like 1–255,
// bash's own statuses, is not one of mcode's).
func exitTables(doc string) [][]int {
	var out [][]int
	var cur []int
	under, inTable := false, false
	row := regexp.MustCompile(`^\|\s*(\d+)\s*\|`)
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			under = strings.Contains(strings.ToLower(line), "exit code")
		case under && strings.HasPrefix(line, "|"):
			inTable = true
			if m := row.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[1])
				if !slices.Contains(cur, n) {
					cur = append(cur, n)
				}
			}
			continue
		}
		if inTable {
			out = append(out, cur)
			cur, inTable = nil, false
		}
	}
	if inTable {
		out = append(out, cur)
	}
	return out
}
