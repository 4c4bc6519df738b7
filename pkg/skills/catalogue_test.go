package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

func TestSplitFrontMatter(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		body     int
		err      string
	}{
		{"lf", "---\nname: a\n---\nbody\n", 4, ""},
		{"crlf and bom", "\ufeff---\r\nname: a\r\n---\r\nbody\r\n", 4, ""},
		{"dots close", "---\nname: a\n...\nbody", 4, ""},
		{"no block", "# title\n", 0, "does not start with a front matter block"},
		{"unclosed", "---\nname: a\n", 0, "never closed"},
		{"empty", "", 0, "does not start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, body, err := splitFrontMatter([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || body != tc.body {
				t.Fatalf("body line %d, err %v; want %d", body, err, tc.body)
			}
		})
	}
}

func TestSetFrontMatterChecksFields(t *testing.T) {
	for in, want := range map[string]string{
		"name: a\ndescription: b":             "",
		"description: b":                      "has no name",
		"name: a":                             "has no description",
		"name: [a]\ndescription: b":           "name is an array",
		"name: a\ndescription: ''":            "description is empty",
		"name: ../x\ndescription: b":          "not a name",
		"name: a\ndescription: " + long(2000): "more than the 1024 allowed",
		"name: a\nx: a: b":                    "line 3: mapping values",
	} {
		var s Skill
		err := s.setFrontMatter([]byte(in))
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", in, err, want)
		}
	}
}

func long(n int) string { return strings.Repeat("x", n) }

// TestScanFirstDirWins: the same name in two dirs keeps the first and
// reports the second; the same folder named twice is no duplicate.
func TestScanFirstDirWins(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/x/SKILL.md", "---\nname: x\ndescription: first\n---\n")
	write("b/y/SKILL.md", "---\nname: X\ndescription: second, same name by NormalizeName\n---\n")
	cfg := config.Defaults()
	cfg.Skills.Dirs = []string{"a", "b", "./a"}
	cat := Scan(&tool.Env{Root: root, Config: &cfg, Getenv: func(string) string { return "" }})
	if len(cat.Skills) != 1 || cat.Skills[0].Description != "first" {
		t.Fatalf("skills %+v", cat.Skills)
	}
	if len(cat.Duplicates) != 1 || cat.Duplicates[0].Dir != filepath.Join(root, "b", "y") {
		t.Fatalf("duplicates %+v", cat.Duplicates)
	}
	if len(cat.Dirs) != 3 || cat.Dirs[2].Skills != 0 {
		t.Fatalf("dirs %+v", cat.Dirs)
	}
}

func FuzzSplitFrontMatter(f *testing.F) {
	for _, s := range []string{"---\nname: a\ndescription: b\n---\nbody", "---\r\n---\r\n", "\ufeff---\n...\n", "---\nname: [\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fm, body, err := splitFrontMatter(data)
		if err != nil {
			return
		}
		lines := strings.Count(string(data), "\n")
		if body < 3 || body > lines+2 {
			t.Fatalf("body line %d of %d lines", body, lines)
		}
		if len(fm) > len(data) {
			t.Fatalf("front matter longer than the file")
		}
		var s Skill
		_ = s.setFrontMatter(fm) // never panics
	})
}
