package budget

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/tool"
)

func TestBudgetArchives(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tool-outputs")
	var big strings.Builder
	for i := 1; i <= 5000; i++ {
		big.WriteString("line ")
		big.WriteString(strings.Repeat("x", i%50))
		big.WriteString("\n")
	}
	text := big.String()
	env := tool.NewEnvelope("read", &tool.Response{Output: text, Result: map[string]int{"n": 1}}, nil)
	Budget{MaxInlineBytes: 4096, Dir: dir}.Apply(env)
	if env.Archived == nil {
		t.Fatal("not archived")
	}
	saved, err := os.ReadFile(env.Archived.Path)
	if err != nil {
		t.Fatal(err)
	}
	if string(saved) != text {
		t.Error("archive does not hold the full text")
	}
	if env.Archived.Lines != 5000 || env.Archived.Bytes != len(text) {
		t.Errorf("archived = %+v", env.Archived)
	}
	out := env.OutputText()
	for _, want := range []string{env.Archived.Path, env.Archived.SHA256, "mcode grep", "mcode read", "--offset", "line \n", "lines,"} {
		if !strings.Contains(out, want) {
			t.Errorf("receipt lacks %q:\n%s", want, out)
		}
	}
	if !env.Truncated || env.Continuation == nil {
		t.Error("archived result must say truncated and how to continue")
	}
	data, _ := env.Marshal(false)
	if len(data) > 8192 {
		t.Errorf("receipt envelope is %d bytes", len(data))
	}
	// A second archive of the same tool in the same second gets its own name.
	env2 := tool.NewEnvelope("read", &tool.Response{Output: text}, nil)
	Budget{MaxInlineBytes: 4096, Dir: dir}.Apply(env2)
	if env2.Archived == nil || env2.Archived.Path == env.Archived.Path {
		t.Errorf("second archive reused a name: %+v", env2.Archived)
	}
	list, err := ListArchives(dir)
	if err != nil || len(list) != 2 {
		t.Errorf("ListArchives = %v, %v", list, err)
	}
}

func TestBudgetUnderLimitUntouched(t *testing.T) {
	env := tool.NewEnvelope("read", &tool.Response{Output: "small"}, nil)
	Budget{MaxInlineBytes: 64 * 1024, Dir: t.TempDir()}.Apply(env)
	if env.Archived != nil || env.OutputText() != "small" || env.Truncated {
		t.Errorf("small output changed: %+v", env)
	}
}

func TestBudgetFallbackWhenArchiveFails(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("0123456789abcdef\n", 10000)
	env := tool.NewEnvelope("bash", &tool.Response{Output: text}, nil)
	Budget{MaxInlineBytes: 4096, Dir: filepath.Join(blocker, "sub"), Now: time.Now}.Apply(env)
	out := env.OutputText()
	if env.Archived != nil || !env.Truncated {
		t.Fatalf("want unarchived truncated result, got %+v", env)
	}
	if !strings.Contains(out, "could not be archived") || !strings.Contains(out, "omitted") {
		t.Errorf("fallback note missing:\n%s", out)
	}
	if len(out) > 2048+512 {
		t.Errorf("fallback preview is %d bytes, want about 2 KiB", len(out))
	}
}

func TestHeadTail(t *testing.T) {
	if got := headTail("short", 100); got != "short" {
		t.Errorf("short text changed: %q", got)
	}
	s := strings.Repeat("é", 300) // 600 bytes of 2-byte runes
	got := headTail(s, 101)
	if !strings.Contains(got, "omitted") {
		t.Fatalf("no marker: %q", got)
	}
	if !utf8.ValidString(got) {
		t.Errorf("split a rune: %q", got)
	}
}

// A result that is large because of its media keeps its short output:
// moving a text shorter than a receipt would only make it longer.
func TestBudgetLeavesShortOutputWithLargeMedia(t *testing.T) {
	media := map[string]string{"data": strings.Repeat("QUJD", 50000)}
	env := tool.NewEnvelope("read", &tool.Response{Output: "photo.png: PNG 4000x3000, sent 2000x1500", Result: media}, nil)
	dir := t.TempDir()
	Budget{MaxInlineBytes: 4096, Dir: dir}.Apply(env)
	if env.Archived != nil || env.Truncated || env.OutputText() != "photo.png: PNG 4000x3000, sent 2000x1500" {
		t.Errorf("short output with large media was archived: %+v", env)
	}
	if list, _ := ListArchives(dir); len(list) != 0 {
		t.Errorf("archives written: %v", list)
	}
}

// The budget bounds the whole printed document: a result with a long
// list goes to the archive whole, and what is printed keeps its scalar
// fields, its counts and the path of the archive.
func TestBudgetBoundsTheWholeEnvelope(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tool-outputs")
	paths := make([]string, 10000)
	var text strings.Builder
	for i := range paths {
		paths[i] = fmt.Sprintf("src/pkg%04d/file.go", i)
		text.WriteString(paths[i] + "\n")
	}
	result := map[string]any{"paths": paths, "total": 10000, "truncated": false,
		"skipped": map[string]any{"ignored": 3, "sensitive": 1, "names": []string{"a", "b"}}}
	env := tool.NewEnvelope("glob", &tool.Response{Output: text.String(), Result: result}, nil)
	const limit = 64 * 1024
	Budget{MaxInlineBytes: limit, Dir: dir}.Apply(env)
	printed, _ := env.Marshal(false)
	if len(printed) > limit {
		t.Fatalf("printed %d bytes, over the %d limit", len(printed), limit)
	}
	got := env.Result.(map[string]any)
	if got["total"] != json.Number("10000") || got["paths"] != nil {
		t.Errorf("result kept %v", got)
	}
	if sk := got["skipped"].(map[string]any); sk["ignored"] != json.Number("3") || sk["names"] != nil {
		t.Errorf("nested scalars: %v", sk)
	}
	omitted := got[ResultOmittedKey].(map[string]int)
	if omitted["paths"] != 10000 || omitted["skipped.names"] != 2 {
		t.Errorf("omitted = %v", omitted)
	}
	whole, err := os.ReadFile(got[ResultArchiveKey].(string))
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Tool   string
		Result struct {
			Paths []string `json:"paths"`
		}
	}
	if err := json.Unmarshal(whole, &back); err != nil || back.Tool != "glob" || len(back.Result.Paths) != 10000 {
		t.Errorf("the JSON archive does not hold the whole envelope: %v, %d paths", err, len(back.Result.Paths))
	}
	if env.Archived == nil || !strings.Contains(env.OutputText(), env.Archived.Path) {
		t.Error("the text was not archived with a receipt")
	}
	if !env.Truncated {
		t.Error("a budgeted envelope must say truncated")
	}
}

// A short text with a big list still fits: the list is archived, the
// text stays.
func TestBudgetArchivesABigResultWithAShortText(t *testing.T) {
	dir := t.TempDir()
	items := make([]int, 20000)
	env := tool.NewEnvelope("x", &tool.Response{Output: "20000 items", Result: map[string]any{"items": items}}, nil)
	Budget{MaxInlineBytes: 4096, Dir: dir}.Apply(env)
	if env.OutputText() != "20000 items" || env.Archived != nil {
		t.Errorf("the short text changed: %q %+v", env.OutputText(), env.Archived)
	}
	if m := env.Result.(map[string]any); m[ResultOmittedKey].(map[string]int)["items"] != 20000 {
		t.Errorf("result = %v", m)
	}
}
