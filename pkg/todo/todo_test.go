package todo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/tool"
)

func TestDiffMatchesByContent(t *testing.T) {
	old := []Item{{Content: "a", Status: Pending}, {Content: "b", Status: InProgress}, {Content: "c", Status: Pending}}
	now := []Item{{Content: "b", Status: Completed}, {Content: "c", Status: InProgress}, {Content: "d", Status: Pending}}
	ch := diff(old, now)
	for name, got := range map[string][]string{"added": ch.Added, "started": ch.Started, "completed": ch.Completed, "removed": ch.Removed} {
		want := map[string][]string{"added": {"d"}, "started": {"c"}, "completed": {"b"}, "removed": {"a"}}[name]
		if !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}

func TestCleanRefusesTwoInProgress(t *testing.T) {
	_, err := clean([]Item{{Content: "one", Status: InProgress}, {Content: "two", Status: Pending}, {Content: "three", Status: InProgress}})
	te, ok := err.(*tool.Error)
	if !ok || te.Code != tool.CodeInvalidArgs || !strings.Contains(te.Message, `todos[1] "one" and todos[3] "three"`) {
		t.Fatalf("err %v", err)
	}
}

// TestCorruptListCountsAsEmpty: a damaged file never blocks the next
// write, and the answer says what happened.
func TestCorruptListCountsAsEmpty(t *testing.T) {
	env := &tool.Env{Root: "/w", DataDir: t.TempDir(), Now: time.Now, Session: "s1"}
	_, dir := location(env)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fileName), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	resp, err := Write(context.Background(), env, WriteParams{Todos: []Item{{Content: "x", Status: Pending}}})
	if err != nil {
		t.Fatal(err)
	}
	res := resp.Result.(*Result)
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "could not be read") || !slices.Equal(res.Changes.Added, []string{"x"}) {
		t.Fatalf("result %+v", res)
	}
	resp, _ = Read(context.Background(), env)
	if got := resp.Result.(*Result).Todos; len(got) != 1 || got[0].Content != "x" {
		t.Fatalf("read back %+v", got)
	}
}

func TestSessionFolderNames(t *testing.T) {
	for session, want := range map[string]string{"abc-1.2_x": "abc-1.2_x", "../x": "session-", ".hidden": "session-", "": "root-"} {
		key, dir := location(&tool.Env{Root: "/w", DataDir: "/d", Session: session})
		if !strings.HasPrefix(key, want) || filepath.Dir(dir) != filepath.Join("/d", SessionsDir) {
			t.Errorf("session %q: key %q dir %q", session, key, dir)
		}
	}
}
