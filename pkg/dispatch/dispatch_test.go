package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcode-dev/mcode/pkg/budget"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// trace records the steps of calls in the order they happen.
type trace struct {
	mu    sync.Mutex
	steps []string
}

func (tr *trace) add(s string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.steps = append(tr.steps, s)
}

func (tr *trace) get() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return slices.Clone(tr.steps)
}

type fakeGuard struct {
	tr       *trace
	decision Decision
}

func (g *fakeGuard) Decide(ctx context.Context, c *Call) (Decision, error) {
	g.tr.add("guard " + string(c.Args))
	return g.decision, nil
}

type fakeHooks struct {
	tr *trace
	// newArgs, when set, replaces the call's arguments before it runs.
	newArgs json.RawMessage
	// redact is masked in the output after the call.
	redact string
	block  error
}

func (h *fakeHooks) Before(ctx context.Context, c *Call) error {
	h.tr.add("before")
	if h.block != nil {
		return h.block
	}
	if h.newArgs != nil {
		c.Args = h.newArgs
	}
	return nil
}

func (h *fakeHooks) After(ctx context.Context, c *Call, resp *tool.Response, err error) (*tool.Response, error) {
	h.tr.add("after")
	if resp != nil && h.redact != "" {
		resp.Output = strings.ReplaceAll(resp.Output, h.redact, "[REDACTED]")
	}
	return resp, err
}

type fakeAudit struct {
	tr      *trace
	records []Decision
	envs    []*tool.Envelope
}

func (a *fakeAudit) Record(c *Call, d Decision, env *tool.Envelope) {
	a.tr.add("audit " + string(d.Verdict))
	a.records = append(a.records, d)
	a.envs = append(a.envs, env)
}

type echoParams struct {
	Text  string `json:"text"`
	Sleep int    `json:"sleep,omitempty"`
}

const echoSchema = `{"type": "object", "properties": {
  "text": {"type": "string", "description": "what to echo"},
  "sleep": {"type": "integer", "minimum": 0, "description": "milliseconds to wait first"}},
  "required": ["text"], "additionalProperties": false}`

func echoTool(name string, tr *trace, facts tool.Facts, timeout time.Duration) *tool.Tool {
	return tool.New(tool.Spec{Name: name, Mode: tool.Parallel, Facts: facts, Timeout: timeout,
		Description: "Echoes text.", Schema: echoSchema},
		func(ctx context.Context, env *tool.Env, p echoParams) (*tool.Response, error) {
			tr.add("run " + p.Text)
			if p.Sleep > 0 {
				select {
				case <-time.After(time.Duration(p.Sleep) * time.Millisecond):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return &tool.Response{Output: p.Text, Result: p}, nil
		})
}

func newDispatcher(t *testing.T, tr *trace, o Options) *Dispatcher {
	t.Helper()
	reg, err := tool.NewRegistry(
		echoTool("echo", tr, tool.Facts{ReadOnly: true}, 0),
		echoTool("scribble", tr, tool.Facts{Destructive: true}, 0),
		echoTool("slow", tr, tool.Facts{ReadOnly: true}, 50*time.Millisecond),
	)
	if err != nil {
		t.Fatal(err)
	}
	o.Registry = reg
	if o.Env == nil {
		o.Env = &tool.Env{Root: t.TempDir(), DataDir: t.TempDir()}
	}
	if o.Timeout == 0 {
		o.Timeout = -1
	}
	return New(o)
}

func TestStepsRunInOrder(t *testing.T) {
	tr := &trace{}
	audit := &fakeAudit{tr: tr}
	d := newDispatcher(t, tr, Options{
		Guard: &fakeGuard{tr: tr, decision: Decision{Verdict: Allow, Source: "rule", Rule: "echo"}},
		Hooks: &fakeHooks{tr: tr},
		Audit: audit,
	})
	env := d.Call(context.Background(), "echo", json.RawMessage(`{"text":"hi"}`))
	if !env.OK || env.OutputText() != "hi" {
		t.Fatalf("envelope = %+v", env)
	}
	want := []string{`guard {"text":"hi"}`, "before", "run hi", "after", "audit allow"}
	if diff := cmp.Diff(want, tr.get()); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if audit.records[0].Rule != "echo" || audit.envs[0] != env {
		t.Errorf("audit got %+v", audit.records[0])
	}
}

func TestRefusalsStopBeforeTheTool(t *testing.T) {
	cases := []struct {
		name    string
		o       func(tr *trace) Options
		tool    string
		args    string
		code    tool.Code
		steps   []string
		inHint  string
		verdict Verdict
	}{
		{"unknown tool", func(tr *trace) Options { return Options{} }, "nope", `{}`, tool.CodeUsage, nil, "known tools: echo", ""},
		{"role", func(tr *trace) Options {
			return Options{Profile: tool.Profile{Role: tool.RoleVerifier}, Guard: &fakeGuard{tr: tr}, Audit: &fakeAudit{tr: tr}}
		}, "scribble", `{"text":"x"}`, tool.CodeDenied, []string{"audit deny"}, "tools list", Deny},
		{"schema", func(tr *trace) Options {
			return Options{Guard: &fakeGuard{tr: tr}, Audit: &fakeAudit{tr: tr}}
		}, "echo", `{"text":3}`, tool.CodeUsage, []string{"audit allow"}, "", Allow},
		{"guard denies", func(tr *trace) Options {
			return Options{Guard: &fakeGuard{tr: tr, decision: Decision{Verdict: Deny, Source: "rule", Reason: "no echo here"}},
				Hooks: &fakeHooks{tr: tr}, Audit: &fakeAudit{tr: tr}}
		}, "echo", `{"text":"x"}`, tool.CodeDenied, []string{`guard {"text":"x"}`, "audit deny"}, "guard check echo", Deny},
		{"guard asks", func(tr *trace) Options {
			return Options{Guard: &fakeGuard{tr: tr, decision: Decision{Verdict: RequireApproval, Source: "rule", ApprovalID: "ap-1"}},
				Hooks: &fakeHooks{tr: tr}, Audit: &fakeAudit{tr: tr}}
		}, "echo", `{"text":"x"}`, tool.CodeApprovalRequired, []string{`guard {"text":"x"}`, "audit require_approval"}, "mcode approve ap-1", RequireApproval},
		{"hook blocks", func(tr *trace) Options {
			return Options{Hooks: &fakeHooks{tr: tr, block: &tool.Error{Code: tool.CodeDenied, Message: "hook said no"}}, Audit: &fakeAudit{tr: tr}}
		}, "echo", `{"text":"x"}`, tool.CodeDenied, []string{"before", "audit allow"}, "", Allow},
		{"hook breaks the schema", func(tr *trace) Options {
			return Options{Hooks: &fakeHooks{tr: tr, newArgs: json.RawMessage(`{"text":"x","extra":1}`)}}
		}, "echo", `{"text":"x"}`, tool.CodeUsage, []string{"before"}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := &trace{}
			o := c.o(tr)
			d := newDispatcher(t, tr, o)
			env := d.Call(context.Background(), c.tool, json.RawMessage(c.args))
			if env.OK || env.Error.Code != c.code {
				t.Fatalf("envelope = %+v, want code %s", env, c.code)
			}
			if env.ExitCode() != c.code.ExitCode() {
				t.Errorf("exit %d, want %d", env.ExitCode(), c.code.ExitCode())
			}
			if diff := cmp.Diff(c.steps, tr.get()); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if !strings.Contains(env.Error.Hint, c.inHint) {
				t.Errorf("hint %q lacks %q", env.Error.Hint, c.inHint)
			}
			if a, ok := o.Audit.(*fakeAudit); ok && c.verdict != "" && a.records[0].Verdict != c.verdict {
				t.Errorf("audited %+v, want %s", a.records[0], c.verdict)
			}
		})
	}
}

func TestBeforeHookReplacesArguments(t *testing.T) {
	tr := &trace{}
	d := newDispatcher(t, tr, Options{Hooks: &fakeHooks{tr: tr, newArgs: json.RawMessage(`{"text":"changed"}`)}})
	env := d.Call(context.Background(), "echo", json.RawMessage(`{"text":"sent"}`))
	if env.OutputText() != "changed" {
		t.Errorf("output %q: the hook's arguments were not used", env.OutputText())
	}
}

// An after hook redacts before the output budget archives: the secret
// reaches neither stdout nor the archive file.
func TestRedactionHappensBeforeTheBudget(t *testing.T) {
	tr := &trace{}
	archive := t.TempDir()
	secret := "AKIAABCDEFGHIJKLMNOP"
	d := newDispatcher(t, tr, Options{
		Hooks:  &fakeHooks{tr: tr, redact: secret},
		Budget: budget.Budget{MaxInlineBytes: 4096, Dir: archive, Now: time.Now},
	})
	text := strings.Repeat("line of text "+secret+"\n", 1000)
	args, _ := json.Marshal(map[string]string{"text": text})
	env := d.Call(context.Background(), "echo", args)
	if env.Archived == nil {
		t.Fatalf("not archived: %+v", env)
	}
	data, err := os.ReadFile(env.Archived.Path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secret) || strings.Contains(env.OutputText(), secret) {
		t.Error("the secret reached the archive or the output")
	}
	if !strings.Contains(string(data), "[REDACTED]") {
		t.Error("the archive does not hold the redacted text")
	}
	if filepath.Dir(env.Archived.Path) != archive {
		t.Errorf("archived in %s", env.Archived.Path)
	}
}

func TestTimeLimits(t *testing.T) {
	tr := &trace{}
	d := newDispatcher(t, tr, Options{}) // each tool's own limit
	env := d.Call(context.Background(), "slow", json.RawMessage(`{"text":"x","sleep":5000}`))
	if env.OK || env.Error.Code != tool.CodeTimeout || !strings.Contains(env.Error.Message, "50ms") {
		t.Errorf("slow's own 50ms limit: %+v", env.Error)
	}
	if env.DurationMS > 3000 {
		t.Errorf("took %d ms", env.DurationMS)
	}
	d = newDispatcher(t, tr, Options{Timeout: 20 * time.Millisecond})
	env = d.Call(context.Background(), "echo", json.RawMessage(`{"text":"x","sleep":5000}`))
	if env.OK || env.Error.Code != tool.CodeTimeout || !strings.Contains(env.Error.Message, "20ms") {
		t.Errorf("--timeout 20ms: %+v", env.Error)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env = d.Call(ctx, "echo", json.RawMessage(`{"text":"x","sleep":5000}`))
	if env.OK || env.Error.Code != tool.CodeInterrupted {
		t.Errorf("cancelled: %+v", env.Error)
	}
}

func TestEmptyArgumentsAreAnObject(t *testing.T) {
	tr := &trace{}
	d := newDispatcher(t, tr, Options{})
	env := d.Call(context.Background(), "echo", nil)
	if env.OK || env.Error.Code != tool.CodeUsage || !strings.Contains(env.Error.Message, "text") {
		t.Errorf("no args: %+v", env.Error)
	}
}

// provider serves tools from outside, one of which it cannot list.
type provider struct {
	tools []*tool.Tool
	err   error
}

func (p *provider) Tools(ctx context.Context, env *tool.Env) ([]*tool.Tool, error) {
	return p.tools, p.err
}

func (p *provider) Lookup(ctx context.Context, env *tool.Env, name string) (*tool.Tool, bool, error) {
	for _, t := range p.tools {
		if tool.NormalizeName(t.Name) == tool.NormalizeName(name) {
			return t, true, nil
		}
	}
	return nil, false, nil
}

// listingProvider looks every name up in a listing that takes until the
// call's context ends, as an MCP server still starting does.
type listingProvider struct{}

func (listingProvider) Tools(ctx context.Context, env *tool.Env) ([]*tool.Tool, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (listingProvider) Lookup(ctx context.Context, env *tool.Env, name string) (*tool.Tool, bool, error) {
	<-ctx.Done()
	return nil, false, ctx.Err()
}

func TestSignalDuringLookup(t *testing.T) {
	d := newDispatcher(t, &trace{}, Options{})
	d.o.Registry.AddProvider(listingProvider{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	env := d.Call(ctx, "docs__search", json.RawMessage(`{"q":"x"}`))
	if env.OK || env.Error.Code != tool.CodeInterrupted {
		t.Errorf("a signal while the tool was looked up: %+v", env.Error)
	}
}

func TestToolsFromOutside(t *testing.T) {
	tr := &trace{}
	// An MCP server's description and schema may hold template syntax:
	// they are used as they are.
	ext, err := tool.NewExternal(tool.External{
		Name: "docs__search", Description: "Search {{docs}}.", Facts: tool.Facts{ReadOnly: true, OpenWorld: true},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"{{query}}"}},"required":["q"]}`),
	}, func(ctx context.Context, env *tool.Env, args json.RawMessage) (*tool.Response, error) {
		return &tool.Response{Output: "found " + string(args)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d := newDispatcher(t, tr, Options{})
	d.o.Registry.AddProvider(&provider{err: errors.New("server broken is down")})
	d.o.Registry.AddProvider(&provider{tools: []*tool.Tool{ext}})

	env := d.Call(context.Background(), "docs__search", json.RawMessage(`{"q":"x"}`))
	if !env.OK || env.OutputText() != `found {"q":"x"}` {
		t.Fatalf("call: %+v", env)
	}
	env = d.Call(context.Background(), "docs__search", json.RawMessage(`{}`))
	if env.OK || env.Error.Code != tool.CodeUsage || !strings.Contains(env.Error.Message, "q") {
		t.Errorf("schema of an external tool: %+v", env.Error)
	}
	tools, err := d.List(context.Background())
	if err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("the failing provider's error is lost: %v", err)
	}
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	if !slices.Contains(names, "docs__search") || !slices.Contains(names, "echo") {
		t.Errorf("listed %v", names)
	}
	def, err := ext.Definition()
	if err != nil || def.Description != "Search {{docs}}." || def.Source != tool.Configured {
		t.Errorf("definition %+v, %v", def, err)
	}
	if _, err := tool.NewExternal(tool.External{Name: "bad", InputSchema: json.RawMessage(`[1]`)}, nil); err == nil {
		t.Error("a schema that is not an object was accepted")
	}
	// The profile filters tools from outside as it does built-ins.
	d = newDispatcher(t, tr, Options{Profile: tool.Profile{Disallowed: []string{"docs__search"}}})
	d.o.Registry.AddProvider(&provider{tools: []*tool.Tool{ext}})
	if env := d.Call(context.Background(), "docs__search", json.RawMessage(`{"q":"x"}`)); env.Error == nil || env.Error.Code != tool.CodeDenied {
		t.Errorf("disallowed external tool: %+v", env)
	}
	if _, err := d.Lookup(context.Background(), "docs__search"); err == nil {
		t.Error("Lookup permits a disallowed tool")
	}
}
