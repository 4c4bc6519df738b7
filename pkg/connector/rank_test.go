package connector

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTokenize(t *testing.T) {
	for in, want := range map[string]string{
		"get_file-info.v2":  "get file info v2",
		"getHTTPServer":     "get http server",
		"readFile":          "read file",
		"XMLHttpRequest":    "xml http request",
		"list  directories": "list directories",
		"":                  "",
		"__":                "",
		"éclairÜber":        "éclair über",
	} {
		if got := strings.Join(tokenize(in), " "); got != want {
			t.Errorf("tokenize(%q) = %q, want %q", in, got, want)
		}
	}
}

func defs(server string, specs ...string) []ToolDef {
	var out []ToolDef
	for _, s := range specs {
		name, desc, _ := strings.Cut(s, ":")
		out = append(out, ToolDef{Server: server, Name: name, Description: desc, InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	return out
}

func names(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Tool.Qualified())
	}
	return out
}

func TestRank(t *testing.T) {
	tools := append(defs("b",
		"echo:Echoes back the input",
		"get-sum:Returns the sum of two numbers",
		"long_echo_chamber:A tool that mentions echo once",
		"printEnv:Prints the environment",
	), defs("a",
		"echo:Echoes the message",
		"search_files:Find files by name; an echo of find",
	)...)
	tools = append(tools, ToolDef{Server: "a", Name: "notes", Description: "Writes a note",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"echoMode":{"type":"string"}}}`)})

	got := names(Rank(tools, "echo"))
	// Exact name matches first, ties by server; then the prefix-less
	// substring match; then description and parameter mentions.
	if len(got) < 3 || got[0] != "a__echo" || got[1] != "b__echo" || got[2] != "b__long_echo_chamber" {
		t.Fatalf("echo: %v", got)
	}
	for _, want := range []string{"a__search_files", "a__notes"} {
		if !slices.Contains(got, want) {
			t.Errorf("echo: %s (description or parameter match) missing from %v", want, got)
		}
	}
	if slices.Contains(got, "b__get-sum") {
		t.Errorf("echo: unrelated get-sum in %v", got)
	}
	// camelCase in a name is split: "env" finds printEnv.
	if got := names(Rank(tools, "env")); len(got) == 0 || got[0] != "b__printEnv" {
		t.Errorf("env: %v", got)
	}
	// Qualified names match too, and a prefix beats a description.
	if got := names(Rank(tools, "b__get")); len(got) == 0 || got[0] != "b__get-sum" {
		t.Errorf("b__get: %v", got)
	}
	// No keyword: everything, by server then name.
	if got := names(Rank(tools, "")); !slices.IsSortedFunc(got, strings.Compare) || len(got) != len(tools) {
		t.Errorf("no keyword: %v", got)
	}
	// Deterministic whatever the input order.
	rev := slices.Clone(tools)
	slices.Reverse(rev)
	if a, b := names(Rank(tools, "echo find")), names(Rank(rev, "echo find")); !slices.Equal(a, b) {
		t.Errorf("order depends on input order:\n%v\n%v", a, b)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"getHTTPServer", "a_b-c.d", "", "ÀÉ", "x\xffy"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, w := range tokenize(s) {
			if w == "" || w != strings.ToLower(w) && utf8.ValidString(w) {
				t.Fatalf("tokenize(%q) gave %q", s, w)
			}
		}
		_ = Rank(defs("s", s+":"+s), s)
	})
}

func FuzzSplitName(f *testing.F) {
	for _, s := range []string{"everything__echo", "a/b", "__x", "a__", "a/b__c", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		server, name, ok := SplitName(s)
		if !ok {
			return
		}
		if server == "" || name == "" || strings.Contains(server, Separator) || strings.Contains(server, "/") {
			t.Fatalf("SplitName(%q) = %q, %q", s, server, name)
		}
	})
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"${A}", "${A:-b}", "$A ${", "}${}", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := expand(s, func(string) string { return "" })
		if !strings.Contains(s, "${") && got != s {
			t.Fatalf("expand(%q) = %q, changed text without ${", s, got)
		}
	})
}
