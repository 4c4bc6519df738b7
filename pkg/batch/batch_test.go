package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// overlap counts the calls running at once.
type overlap struct {
	mu           sync.Mutex
	now, maxSeen int
	order        []string
}

type waitParams struct {
	Name string `json:"name"`
	MS   int    `json:"ms"`
}

// dispatcher is the real call path over two tools that sleep: "look"
// (parallel) and "change" (sequential).
func dispatcher(t *testing.T, o *overlap) *dispatch.Dispatcher {
	t.Helper()
	run := func(ctx context.Context, env *tool.Env, p waitParams) (*tool.Response, error) {
		o.mu.Lock()
		o.now++
		o.maxSeen = max(o.maxSeen, o.now)
		o.order = append(o.order, p.Name)
		o.mu.Unlock()
		defer func() { o.mu.Lock(); o.now--; o.mu.Unlock() }()
		select {
		case <-time.After(time.Duration(p.MS) * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if p.Name == "fail" {
			return nil, &tool.Error{Code: tool.CodeNotFound, Message: "failed as asked"}
		}
		return &tool.Response{Output: "done " + p.Name}, nil
	}
	schema := `{"type": "object", "properties": {"name": {"type": "string"}, "ms": {"type": "integer"}}, "additionalProperties": false}`
	reg, err := tool.NewRegistry(
		tool.New(tool.Spec{Name: "look", Mode: tool.Parallel, Description: "Looks.", Schema: schema, Facts: tool.Facts{ReadOnly: true}}, run),
		tool.New(tool.Spec{Name: "change", Mode: tool.Sequential, Description: "Changes.", Schema: schema}, run),
	)
	if err != nil {
		t.Fatal(err)
	}
	return dispatch.New(dispatch.Options{Registry: reg, Env: &tool.Env{Root: t.TempDir()}, Timeout: -1})
}

func lines(calls ...string) string { return strings.Join(calls, "\n") + "\n" }

func runBatch(t *testing.T, input string, maxParallel int) (*overlap, []map[string]any, Summary) {
	t.Helper()
	o := &overlap{}
	calls, err := Parse(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sum, err := Run(context.Background(), dispatcher(t, o), calls, maxParallel, &out)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, m)
	}
	return o, got, sum
}

func TestParallelCallsRunConcurrentlyBoundedInInputOrder(t *testing.T) {
	var in []string
	for i := range 12 {
		// Earlier calls take longer, so they end last: the answers must
		// still come in input order.
		in = append(in, fmt.Sprintf(`{"id":%d,"tool":"look","args":{"name":"l%d","ms":%d}}`, i, i, 120-8*i))
	}
	o, got, sum := runBatch(t, lines(in...), 4)
	if !sum.Concurrent || sum.OK != 12 {
		t.Errorf("summary %+v", sum)
	}
	if o.maxSeen < 2 || o.maxSeen > 4 {
		t.Errorf("%d calls ran at once, want 2 to 4 (maxParallel 4)", o.maxSeen)
	}
	for i, m := range got {
		if m["id"] != float64(i) || m["output"] != fmt.Sprintf("done l%d", i) {
			t.Errorf("line %d = %v", i, m)
		}
	}
}

func TestOneSequentialCallMakesAllRunInOrder(t *testing.T) {
	o, got, sum := runBatch(t, lines(
		`{"id":"a","tool":"look","args":{"name":"a","ms":30}}`,
		`{"id":"b","tool":"change","args":{"name":"b","ms":1}}`,
		`{"id":"c","tool":"look","args":{"name":"c","ms":1}}`,
		`{"id":"d","tool":"look","args":{"name":"fail","ms":1}}`,
	), 8)
	if sum.Concurrent || o.maxSeen != 1 {
		t.Errorf("summary %+v, %d at once: want one by one", sum, o.maxSeen)
	}
	if strings.Join(o.order, ",") != "a,b,c,fail" {
		t.Errorf("ran in order %v", o.order)
	}
	if sum.OK != 3 || sum.Failed != 1 || got[3]["ok"] != false {
		t.Errorf("summary %+v, last %v", sum, got[3])
	}
}

// A line that names an unknown tool, or is no call, does not decide the
// mode: the others still run concurrently.
func TestBadLinesDoNotStopTheOthers(t *testing.T) {
	o, got, sum := runBatch(t, lines(
		`{"id":1,"tool":"look","args":{"name":"x","ms":40}}`,
		`{"id":2,"tool":"nope"}`,
		`[1,2]`,
		`{"id":4,"tool":"look","args":{"name":"y","ms":40}}`,
	), 4)
	if !sum.Concurrent || o.maxSeen != 2 || sum.Failed != 2 {
		t.Errorf("summary %+v, %d at once", sum, o.maxSeen)
	}
	if got[1]["error"].(map[string]any)["code"] != "usage" || got[2]["id"] != nil || got[2]["error"].(map[string]any)["code"] != "usage" {
		t.Errorf("bad lines: %v / %v", got[1], got[2])
	}
}

// A signal ends the calls in flight and the ones not started yet answer
// that they did not run.
func TestCancelledBatch(t *testing.T) {
	o := &overlap{}
	calls, _ := Parse(strings.NewReader(lines(
		`{"id":1,"tool":"change","args":{"name":"long","ms":10000}}`,
		`{"id":2,"tool":"change","args":{"name":"next","ms":1}}`,
	)))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	var out bytes.Buffer
	start := time.Now()
	sum, err := Run(ctx, dispatcher(t, o), calls, 4, &out)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 5*time.Second || sum.Failed != 2 {
		t.Errorf("summary %+v after %s", sum, time.Since(start))
	}
	if !strings.Contains(out.String(), `"code":"interrupted"`) || strings.Count(out.String(), "\n") != 2 {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestParseLongLine(t *testing.T) {
	long := `{"id":1,"tool":"look","args":{"name":"` + strings.Repeat("x", MaxLineBytes) + `"}}`
	calls, err := Parse(strings.NewReader(long + "\n" + `{"id":2,"tool":"look"}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0].Err == nil || calls[1].Err != nil || string(calls[1].ID) != "2" {
		t.Errorf("calls = %+v", calls)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"id":1,"tool":"read","args":{"path":"a"}}` + "\n" + `{"id":"x","tool":"glob","args":null,"approval":"ab"}`))
	f.Add([]byte("\n\n{\"id\":[1],\"tool\":\"\"}\r\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		calls, err := Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			if c.Err == nil && (c.Tool == "" || len(c.ID) == 0 || !json.Valid(c.Args) || c.Args[0] != '{') {
				t.Fatalf("accepted a bad call %+v", c)
			}
			var out bytes.Buffer
			if err := WriteLine(&out, c, tool.NewEnvelope("t", nil, c.Err)); err != nil {
				t.Fatal(err)
			}
			if !json.Valid(bytes.TrimSpace(out.Bytes())) || bytes.Count(out.Bytes(), []byte("\n")) != 1 {
				t.Fatalf("answer line is not one JSON line: %q", out.String())
			}
		}
	})
}
