// Package todo is the agent's todo list (todo_write, todo_read): Claude
// Code's TodoWrite semantics, kept per session under MCODE_HOME/sessions.
// The whole list is written each time; the answer says what changed.
package todo

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofrs/flock"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Tool names.
const (
	WriteName = "todo_write"
	ReadName  = "todo_read"
)

// Limits of a list, quoted in the description and the schema.
const (
	MaxItems        = 100
	MaxContentChars = 500
)

// Statuses of an item.
const (
	Pending    = "pending"
	InProgress = "in_progress"
	Completed  = "completed"
)

// Timeout is each call's default limit: a write may wait this long for
// another process's write of the same list.
const Timeout = 30 * time.Second

// SessionsDir is the folder under MCODE_HOME that holds per-session state.
const SessionsDir = "sessions"

const (
	fileName  = "todos.json"
	lockName  = "todos.lock"
	lockRetry = 5 * time.Millisecond
)

// Item is one entry of the list.
type Item struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"active_form,omitempty"`
	// ActiveFormCC is Claude Code's spelling of active_form, taken on
	// input and stored as active_form.
	ActiveFormCC string `json:"activeForm,omitempty"`
}

// WriteParams are todo_write's parameters.
type WriteParams struct {
	Todos []Item `json:"todos"`
}

// ReadParams are todo_read's parameters: none.
type ReadParams struct{}

// Counts are the items per status.
type Counts struct {
	Pending    int `json:"pending"`
	InProgress int `json:"in_progress"`
	Completed  int `json:"completed"`
}

// Changes are what a write did to the stored list, by content.
type Changes struct {
	Added     []string `json:"added"`
	Started   []string `json:"started"`
	Completed []string `json:"completed"`
	Removed   []string `json:"removed"`
}

// Result is the structured answer of both tools.
type Result struct {
	Session string   `json:"session"`
	Path    string   `json:"path"`
	Todos   []Item   `json:"todos"`
	Counts  Counts   `json:"counts"`
	Changes *Changes `json:"changes,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// stored is the file's content.
type stored struct {
	Session string    `json:"session"`
	Updated time.Time `json:"updated"`
	Todos   []Item    `json:"todos"`
}

var (
	//go:embed todo_write.md
	writeDescription string
	//go:embed todo_write.schema.json
	writeSchema string
	//go:embed todo_read.md
	readDescription string
	//go:embed todo_read.schema.json
	readSchema string
)

// limits are the constants the description and schema quote (a func:
// a package-level map would be built at every start).
func limits() map[string]any {
	return map[string]any{"MaxItems": MaxItems, "MaxContentChars": MaxContentChars}
}

// WriteTool is todo_write's registry entry.
func WriteTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: WriteName, Mode: tool.Sequential, Timeout: Timeout,
		// Writing the same list again changes nothing; it touches no
		// workspace file, yet verifier and explore lose it (seed 000).
		Facts:       tool.Facts{Idempotent: true, SessionState: true},
		Description: writeDescription, Schema: writeSchema, Data: limits(),
	}, Write)
}

// ReadTool is todo_read's registry entry.
func ReadTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: ReadName, Mode: tool.Parallel, Timeout: Timeout,
		Facts:       tool.Facts{ReadOnly: true, Idempotent: true},
		Description: readDescription, Schema: readSchema, Data: limits(),
	}, func(ctx context.Context, env *tool.Env, _ ReadParams) (*tool.Response, error) {
		return Read(ctx, env)
	})
}

// Write replaces the session's list with p.Todos.
func Write(ctx context.Context, env *tool.Env, p WriteParams) (*tool.Response, error) {
	todos, err := clean(p.Todos)
	if err != nil {
		return nil, err
	}
	key, dir := location(env)
	var res *Result
	err = withLock(ctx, dir, func() error {
		old, note := load(dir)
		data, err := json.MarshalIndent(stored{Session: key, Updated: env.Now().UTC(), Todos: todos}, "", "  ")
		if err != nil {
			return err
		}
		if err := fsutil.WriteFileAtomic(filepath.Join(dir, fileName), append(data, '\n'), 0o600); err != nil {
			return fmt.Errorf("saving the todo list: %w", err)
		}
		res = newResult(key, dir, todos)
		res.Changes = diff(old, todos)
		if note != "" {
			res.Notes = append(res.Notes, note)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &tool.Response{Output: render(res), Result: res}, nil
}

// Read returns the session's list.
func Read(ctx context.Context, env *tool.Env) (*tool.Response, error) {
	key, dir := location(env)
	todos, note := load(dir)
	res := newResult(key, dir, todos)
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	return &tool.Response{Output: render(res), Result: res}, nil
}

// clean checks a list: contents trimmed, present and distinct (items are
// matched by content), at most one in progress.
func clean(in []Item) ([]Item, error) {
	out := make([]Item, 0, len(in))
	seen := map[string]int{}
	active := 0
	for i, it := range in {
		n := i + 1
		it.Content = strings.TrimSpace(it.Content)
		it.ActiveForm = strings.TrimSpace(it.ActiveForm)
		if cc := strings.TrimSpace(it.ActiveFormCC); cc != "" {
			if it.ActiveForm != "" && it.ActiveForm != cc {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "todos[%d] gives active_form %q and activeForm %q, two names of one field", n, short(it.ActiveForm), short(cc)).
					WithHint("pass only active_form")
			}
			it.ActiveForm, it.ActiveFormCC = cc, ""
		}
		if it.Content == "" {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "todos[%d] has an empty content", n).
				WithHint("give every item a short imperative text, e.g. \"Run the tests\"")
		}
		if strings.ContainsAny(it.Content, "\n\r") {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "todos[%d] content %q has a line break", n, short(it.Content)).
				WithHint("keep each item on one line; split a long step into several items")
		}
		if prev, dup := seen[it.Content]; dup {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "todos[%d] and todos[%d] have the same content %q", prev, n, short(it.Content)).
				WithHint("items are matched by their content: make each one distinct, or drop the repeat")
		}
		seen[it.Content] = n
		if it.Status == InProgress {
			if active != 0 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "todos[%d] %q and todos[%d] %q are both in_progress; at most one item may be in_progress",
					active, short(out[active-1].Content), n, short(it.Content)).
					WithHint("finish one first: mark it completed (or back to pending), and keep only the item you work on now in_progress")
			}
			active = n
		}
		out = append(out, it)
	}
	return out, nil
}

// short is a content cut for a message.
func short(s string) string {
	const max = 80
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// safeSession says whether a session id can name its folder as it is:
// 1 to 64 letters, digits, '.', '_' or '-', not starting with a dot or dash.
func safeSession(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '.' || s[0] == '-' {
		return false
	}
	for _, r := range s {
		if !(r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// location is the session's key and folder: MCODE_SESSION (or the
// serve connection) when there is one, else the workspace root.
func location(env *tool.Env) (key, dir string) {
	switch {
	case safeSession(env.Session):
		key = env.Session
	case env.Session != "":
		key = "session-" + digest(env.Session)
	default:
		key = "root-" + digest(env.Root)
	}
	return key, filepath.Join(env.DataDir, SessionsDir, key)
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// withLock runs fn holding the session's lock, so that writers in any
// process take turns over the read-compare-write.
func withLock(ctx context.Context, dir string, fn func() error) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the session folder: %w", err)
	}
	fl := flock.New(filepath.Join(dir, lockName))
	ok, err := fl.TryLockContext(ctx, lockRetry)
	if err != nil || !ok {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("locking the todo list: %w", err)
	}
	defer fl.Unlock()
	return fn()
}

// load reads the stored list; a missing file is an empty list, and an
// unreadable one is reported in a note and treated as empty, so that the
// next write starts afresh instead of failing for ever.
func load(dir string) ([]Item, string) {
	data, err := os.ReadFile(filepath.Join(dir, fileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	var s stored
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	if err != nil {
		return nil, fmt.Sprintf("the stored list %s could not be read (%v); it counts as empty", filepath.Join(dir, fileName), err)
	}
	return s.Todos, ""
}

func newResult(key, dir string, todos []Item) *Result {
	if todos == nil {
		todos = []Item{}
	}
	res := &Result{Session: key, Path: filepath.Join(dir, fileName), Todos: todos}
	for _, it := range todos {
		switch it.Status {
		case Pending:
			res.Counts.Pending++
		case InProgress:
			res.Counts.InProgress++
		case Completed:
			res.Counts.Completed++
		}
	}
	return res
}

// diff says what the new list changed, matching items by content.
func diff(old, todos []Item) *Changes {
	was := map[string]string{}
	for _, it := range old {
		was[it.Content] = it.Status
	}
	ch := &Changes{Added: []string{}, Started: []string{}, Completed: []string{}, Removed: []string{}}
	kept := map[string]bool{}
	for _, it := range todos {
		kept[it.Content] = true
		before, existed := was[it.Content]
		switch {
		case !existed:
			ch.Added = append(ch.Added, it.Content)
		case it.Status == Completed && before != Completed:
			ch.Completed = append(ch.Completed, it.Content)
		case it.Status == InProgress && before != InProgress:
			ch.Started = append(ch.Started, it.Content)
		}
	}
	for _, it := range old {
		if !kept[it.Content] {
			ch.Removed = append(ch.Removed, it.Content)
		}
	}
	return ch
}

// render is the checklist a model reads.
func render(res *Result) string {
	var b strings.Builder
	if len(res.Todos) == 0 {
		b.WriteString("The todo list is empty.\n")
	} else {
		fmt.Fprintf(&b, "Todo list: %d items (%d completed, %d in progress, %d pending)\n",
			len(res.Todos), res.Counts.Completed, res.Counts.InProgress, res.Counts.Pending)
		for _, it := range res.Todos {
			switch it.Status {
			case Completed:
				fmt.Fprintf(&b, "[x] %s\n", it.Content)
			case InProgress:
				if it.ActiveForm != "" && it.ActiveForm != it.Content {
					fmt.Fprintf(&b, "[~] %s (%s)\n", it.Content, it.ActiveForm)
				} else {
					fmt.Fprintf(&b, "[~] %s\n", it.Content)
				}
			default:
				fmt.Fprintf(&b, "[ ] %s\n", it.Content)
			}
		}
	}
	if ch := res.Changes; ch != nil {
		var parts []string
		for _, c := range []struct {
			verb  string
			items []string
		}{{"added", ch.Added}, {"started", ch.Started}, {"completed", ch.Completed}, {"removed", ch.Removed}} {
			if len(c.items) > 0 {
				parts = append(parts, fmt.Sprintf("%s %d (%s)", c.verb, len(c.items), quoteList(c.items)))
			}
		}
		if len(parts) == 0 {
			b.WriteString("Changed: nothing.\n")
		} else {
			b.WriteString("Changed: " + strings.Join(parts, "; ") + ".\n")
		}
	} else if len(res.Todos) == 0 {
		b.WriteString("Create one with todo_write when a task has three or more steps.\n")
	}
	for _, n := range res.Notes {
		b.WriteString("Note: " + n + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", short(s))
	}
	return strings.Join(q, ", ")
}
