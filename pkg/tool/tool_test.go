package tool

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type echoParams struct {
	Path  string `json:"path"`
	Limit int    `json:"limit,omitempty"`
}

const echoSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "a path"},
    "limit": {"type": "integer", "minimum": 1, "maximum": {{.Max}}, "description": "at most {{.Max}}"}
  },
  "required": ["path"],
  "additionalProperties": false
}`

func echoTool(name string) *Tool { return factTool(name, Facts{}) }

// factTool is an echo tool that declares facts.
func factTool(name string, facts Facts) *Tool {
	return New(Spec{
		Name: name, Mode: Parallel, Facts: facts,
		Description: "Echoes. Limit at most {{.Max}} lines.",
		Schema:      echoSchema,
		Data:        map[string]int{"Max": 2000},
	}, func(ctx context.Context, env *Env, p echoParams) (*Response, error) {
		return &Response{Output: p.Path, Result: p}, nil
	})
}

func TestExitCodes(t *testing.T) {
	cases := map[Code]int{
		"": 0, CodeUsage: 2, CodeApprovalRequired: 75, CodeDenied: 77,
		CodeTimeout: 124, CodeInterrupted: 130, CodeNotFound: 1, CodeInternal: 1,
		CodeEncrypted: 1, CodeCorruptFile: 1,
	}
	for code, want := range cases {
		if got := code.ExitCode(); got != want {
			t.Errorf("%q.ExitCode() = %d, want %d", code, got, want)
		}
	}
	if got := (&Error{Code: CodeExitStatus, Exit: 42}).ExitCode(); got != 42 {
		t.Errorf("explicit exit: got %d", got)
	}
}

func TestAsErrorWrapsUntyped(t *testing.T) {
	typed := Errorf(CodeNotFound, "no %s", "file")
	if got := AsError(errors.Join(errors.New("ctx"), typed)); got != typed {
		t.Errorf("typed error in chain not found: %v", got)
	}
	if got := AsError(errors.New("boom")); got.Code != CodeInternal || got.Message != "boom" {
		t.Errorf("untyped error = %+v, want internal", got)
	}
	if AsError(nil) != nil {
		t.Error("nil error should stay nil")
	}
}

func TestEnvelopeKeysAlwaysPresent(t *testing.T) {
	wantKeys := []string{"archived", "continuation", "duration_ms", "error", "ok", "output", "result", "tool", "truncated"}
	for _, env := range []*Envelope{
		NewEnvelope("x", &Response{Output: "hi", Result: 1}, nil),
		NewEnvelope("x", nil, Errorf(CodeNotFound, "gone")),
	} {
		data, err := env.Marshal(false)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		if diff := cmp.Diff(wantKeys, sortStrings(keys)); diff != "" {
			t.Errorf("keys (-want +got):\n%s", diff)
		}
	}
}

func TestEnvelopeNoHTMLEscapeAndIndent(t *testing.T) {
	env := NewEnvelope("x", &Response{Output: "a < b && c > d"}, nil)
	compact, _ := env.Marshal(false)
	if !strings.Contains(string(compact), `"a < b && c > d"`) {
		t.Errorf("HTML escaped: %s", compact)
	}
	if strings.Count(string(compact), "\n") != 1 {
		t.Errorf("compact form should be one line: %q", compact)
	}
	indented, _ := env.Marshal(true)
	if !strings.Contains(string(indented), "\n  \"ok\": true") {
		t.Errorf("indented form: %s", indented)
	}
}

func sortStrings(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func TestRegistryDuplicate(t *testing.T) {
	_, err := NewRegistry(echoTool("echo"), echoTool(" ECHO "))
	if err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("want duplicate error, got %v", err)
	}
	r, err := NewRegistry(echoTool("echo"), echoTool("other"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Lookup(" Echo"); !ok {
		t.Error("lookup should normalize names")
	}
}

// TestOtherNames: a tool is found by its other names; they are taken
// like names (a second tool may not use one), and agent lists that name
// the tool by one mean it.
func TestOtherNames(t *testing.T) {
	web := echoTool("web_fetch")
	web.OtherNames = []string{"fetch"}
	r, err := NewRegistry(echoTool("read"), web)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := r.Lookup("Fetch"); !ok || got != web {
		t.Fatalf("Lookup(Fetch) = %v, %v", got, ok)
	}
	if names := r.Names(); len(names) != 2 || names[1] != "web_fetch" {
		t.Errorf("Names() = %v", names)
	}
	if _, err := NewRegistry(web, echoTool("fetch")); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("a tool named like another's other name: %v", err)
	}
	if err := (Profile{Agent: "a", Allowed: []string{"read", "fetch"}}).Permits(web); err != nil {
		t.Errorf("tools: [fetch] does not allow web_fetch: %v", err)
	}
	if err := (Profile{Agent: "a", Disallowed: []string{"fetch"}}).Permits(web); err == nil {
		t.Error("disallowedTools: [fetch] lets web_fetch through")
	}
}

func TestValidateNamesTheField(t *testing.T) {
	tl := echoTool("echo")
	cases := []struct {
		args string
		want string // substring of the message; "" means valid
	}{
		{`{"path":"a"}`, ""},
		{`{"path":"a","limit":5}`, ""},
		{`{"path":5}`, `field "path": got integer 5, want string`},
		{`{}`, `missing required field "path"`},
		{`{"path":"a","limit":2001}`, `field "limit"`},
		{`{"path":"a","bogus":1}`, `bogus`},
		{`[1]`, `got an array, want an object`},
		{`{"path":`, `not valid JSON`},
	}
	for _, c := range cases {
		err := tl.Validate(json.RawMessage(c.args))
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: unexpected error %v", c.args, err)
			}
			continue
		}
		te := AsError(err)
		if te == nil || te.Code != CodeUsage || !strings.Contains(te.Message, c.want) {
			t.Errorf("%s: got %v, want usage error containing %q", c.args, err, c.want)
		}
	}
}

func TestDefinitionRendersConstants(t *testing.T) {
	def, err := echoTool("echo").Definition()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def.Description, "at most 2000 lines") {
		t.Errorf("description not rendered: %q", def.Description)
	}
	if !strings.Contains(string(def.InputSchema), `"maximum": 2000`) {
		t.Errorf("schema not rendered: %s", def.InputSchema)
	}
	if err := echoTool("echo").Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
}

func TestCheckCatchesDrift(t *testing.T) {
	type drifted struct {
		Path  string `json:"path"`
		Extra bool   `json:"extra"`
		Limit string `json:"limit"`
	}
	tl := New(Spec{Name: "d", Description: "d", Schema: echoSchema, Data: map[string]int{"Max": 1}},
		func(ctx context.Context, env *Env, p drifted) (*Response, error) { return nil, nil })
	err := tl.Check()
	if err == nil {
		t.Fatal("Check should fail")
	}
	for _, want := range []string{`field "extra"`, `property "limit" has type integer`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check error %q lacks %q", err, want)
		}
	}
}

// roleTools are tools of every kind of facts that roles tell apart.
var roleTools = map[string]Facts{
	"read":        {ReadOnly: true, Idempotent: true},
	"edit":        {Destructive: true},
	"bash":        {Destructive: true, OpenWorld: true, Processes: true},
	"task_output": {ReadOnly: true, Tasks: true},
	"task_stop":   {Destructive: true, Processes: true, Tasks: true},
	"task":        {Delegates: true},
	"todo_write":  {Idempotent: true, SessionState: true},
	"todo_read":   {ReadOnly: true, Idempotent: true},
}

func TestProfilePermits(t *testing.T) {
	tools := map[string]*Tool{}
	for n, f := range roleTools {
		tools[n] = factTool(n, f)
	}
	cases := []struct {
		p    Profile
		tool string
		ok   bool
	}{
		{Profile{}, "edit", true},
		{Profile{Disabled: true}, "read", false},
		{Profile{Allowed: []string{" READ ", "bash"}}, "read", true},
		{Profile{Allowed: []string{"read"}}, "bash", false},
		{Profile{Disallowed: []string{"Bash"}}, "bash", false},
		{Profile{Role: RoleVerifier}, "edit", false},
		{Profile{Role: RoleVerifier}, "bash", true},
		{Profile{Role: RoleVerifier}, "task_output", true},
		{Profile{Role: RoleExplore}, "task_output", false},
		{Profile{Role: RoleWorker}, "edit", true},
		{Profile{Role: RoleWorker}, "task", false},
		{Profile{Role: RoleExplore}, "bash", true},
		{Profile{Role: RoleExplore}, "task_stop", false},
		{Profile{Role: RoleVerifier}, "read", true},
		// Seed 000: verifier and explore lose todowrite; reading stays.
		{Profile{Role: RoleWorker}, "todo_write", true},
		{Profile{Role: RoleVerifier}, "todo_write", false},
		{Profile{Role: RoleExplore}, "todo_write", false},
		{Profile{Role: RoleExplore}, "todo_read", true},
	}
	for _, c := range cases {
		err := c.p.Permits(tools[c.tool])
		if (err == nil) != c.ok {
			t.Errorf("%+v permits %s: got %v, want ok=%v", c.p, c.tool, err, c.ok)
		}
		if err != nil && err.Code != CodeDenied {
			t.Errorf("refusal code = %s", err.Code)
		}
	}
}

// Roles are ordered, each narrower than the one before, so that the
// narrowest of two roles refuses all that either refuses.
func TestRolesNarrowInOrder(t *testing.T) {
	for i := 1; i < len(Roles); i++ {
		wider, narrower := Profile{Role: Roles[i-1]}, Profile{Role: Roles[i]}
		for n, f := range roleTools {
			if wider.Permits(factTool(n, f)) != nil && narrower.Permits(factTool(n, f)) == nil {
				t.Errorf("%s refuses %s but the narrower %s allows it", Roles[i-1], n, Roles[i])
			}
		}
	}
	for _, c := range []struct {
		roles []string
		want  string
	}{
		{[]string{"", ""}, ""},
		{[]string{"", RoleWorker}, RoleWorker},
		{[]string{RoleVerifier, RoleWorker}, RoleVerifier},
		{[]string{RoleVerifier, RoleExplore}, RoleExplore},
		{[]string{RoleExplore, ""}, RoleExplore},
	} {
		if got := NarrowestRole(c.roles...); got != c.want {
			t.Errorf("NarrowestRole(%q) = %q, want %q", c.roles, got, c.want)
		}
	}
}

func TestEnvAbs(t *testing.T) {
	cases := map[string]string{
		"a/b.go":    "/root/a/b.go",
		"./a/../c":  "/root/c",
		"/abs/x":    "/abs/x",
		"~":         "/home/u",
		"~/notes":   "/home/u/notes",
		"~other/x":  "/root/~other/x",
		"/a/b/../c": "/a/c",
	}
	for in, want := range cases {
		if got := (&Env{Root: "/root", UserHome: "/home/u"}).Abs(in); got != want {
			t.Errorf("Abs(%q) = %q, want %q", in, got, want)
		}
	}
}

// A number JSON Schema counts as an integer (2.0, 1e1) is one for the
// Params struct too; a fraction is refused by the schema first.
func TestRunTakesIntegralNumbers(t *testing.T) {
	tl := echoTool("echo")
	resp, err := tl.Run(context.Background(), &Env{}, json.RawMessage(`{"path":"a","limit":2.0}`))
	if err != nil || resp.Result.(echoParams).Limit != 2 {
		t.Fatalf("limit 2.0: %v, %v", resp, err)
	}
	resp, err = tl.Run(context.Background(), &Env{}, json.RawMessage(`{"path":"a","limit":1e1}`))
	if err != nil || resp.Result.(echoParams).Limit != 10 {
		t.Fatalf("limit 1e1: %v, %v", resp, err)
	}
	if _, err := tl.Run(context.Background(), &Env{}, json.RawMessage(`{"path":"a","limit":2.5}`)); AsError(err).Code != CodeUsage {
		t.Fatalf("limit 2.5: %v", err)
	}
}

func TestReadableValidation(t *testing.T) {
	tl := echoTool("echo")
	for args, want := range map[string]string{
		`{"path":"a","limit":0}`:    `field "limit": got 0, must be at least 1`,
		`{"path":"a","limit":2001}`: `field "limit": got 2001, must be at most 2000`,
		`{"path":"a","limit":1.5}`:  `field "limit": got number 1.5, want integer`,
		`{"path":null}`:             `missing required field "path"`,
	} {
		err := tl.Validate(json.RawMessage(args))
		if te := AsError(err); te == nil || !strings.HasSuffix(te.Message, want) {
			t.Errorf("%s: got %v, want suffix %q", args, err, want)
		}
	}
}

func TestNestedFieldPathsAndNulls(t *testing.T) {
	cases := map[string]string{
		"edits/items/properties/expect_count": "edits[].expect_count",
		"glob/items":                          "glob[]",
		"offset":                              "offset",
	}
	for in, want := range cases {
		if got := fieldPath(in); got != want {
			t.Errorf("fieldPath(%q) = %q, want %q", in, got, want)
		}
	}
	tl := echoTool("echo")
	if err := tl.Validate(json.RawMessage(`{"path":"a","limit":null}`)); err != nil {
		t.Errorf("a null optional field should count as left out: %v", err)
	}
	err := tl.Validate(json.RawMessage(`{"path":null}`))
	if te := AsError(err); te == nil || !strings.Contains(te.Message, `missing required field "path"`) {
		t.Errorf("a null required field: got %v", err)
	}
}

func TestNormalizeRewritesAliases(t *testing.T) {
	tl := New(Spec{Name: "g", Description: "d", Schema: echoSchema, Data: map[string]int{"Max": 1},
		Aliases: map[string]Alias{"file_path": {Param: "path"}, "output_mode": {Param: "path", Values: map[string]any{"files_with_matches": "files"}}}},
		func(ctx context.Context, env *Env, p echoParams) (*Response, error) {
			return &Response{Output: p.Path}, nil
		})
	for in, want := range map[string]string{
		`{"file_path":"a.go"}`:                   `{"path":"a.go"}`,
		`{"output_mode":"files_with_matches"}`:   `{"path":"files"}`,
		`{"path":"a.go"}`:                        `{"path":"a.go"}`,
		`{"file_path":"a.go","path":"a.go"}`:     `{"path":"a.go"}`,
		`{"file_path":"a.go","limit":3}`:         `{"limit":3,"path":"a.go"}`,
		`{"output_mode":"other","unknown":true}`: `{"path":"other","unknown":true}`,
	} {
		got, err := tl.Normalize(json.RawMessage(in))
		if err != nil || string(got) != want {
			t.Errorf("Normalize(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := tl.Normalize(json.RawMessage(`{"file_path":"a.go","path":"b.go"}`)); err == nil {
		t.Error("an alias and its parameter with different values were accepted")
	}
	resp, err := tl.Run(context.Background(), &Env{}, json.RawMessage(`{"file_path":"x.go"}`))
	if err != nil || resp.Output != "x.go" {
		t.Errorf("Run with an alias: %v, %v", resp, err)
	}
}
