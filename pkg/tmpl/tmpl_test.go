package tmpl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"
)

type mode string

type entry struct {
	Name string
	Mode mode
	Tags []string
}

type inner struct{ Agent, Role string }

type data struct {
	inner
	Limit    int
	Ratio    float64
	On, Off  bool
	Empty    string
	Tools    []entry
	None     []entry
	Excludes []string
	Meta     map[string]any
	Ptr      *entry
}

func sample() data {
	return data{
		inner:    inner{Agent: "reviewer"},
		Limit:    2000,
		Ratio:    1.5,
		On:       true,
		Tools:    []entry{{"read", "parallel", []string{"a", "b"}}, {"bash", "sequential", nil}},
		Excludes: []string{".git", "node_modules", "vendor"},
		Meta:     map[string]any{"Count": 3, "Deferred": true, "Servers": "a, b", "Zero": 0},
		Ptr:      &entry{Name: "p"},
	}
}

// Each case is rendered by text/template too: the two must agree.
var cases = []string{
	"plain text, no actions",
	"{{.Limit}} lines, ratio {{.Ratio}}, {{.On}} {{.Off}} [{{.Empty}}]",
	"agent {{.Agent}}, role {{.Role}}: promoted fields",
	"{{if .Agent}}agent `{{.Agent}}`{{end}}{{if and .Agent .Role}}, {{end}}{{if .Role}}role `{{.Role}}`{{end}}.",
	"{{if or .Agent .Role}}some{{else}}none{{end}}",
	"{{if not .Tools}}no tools{{else}}tools{{end}} {{if not .None}}no none{{end}}",
	"a\n{{- if .On}}\n\nyes\n{{- end}}\nb",
	"x   {{- .Limit -}}   \n\ty",
	"{{range .Tools}}\n- `{{.Name}}` ({{.Mode}}): {{range .Tags}}{{.}} {{end}}\n{{- end}}",
	"{{range $i, $e := .Excludes}}{{if $i}}, {{end}}`{{$e}}`{{end}}",
	"{{range $e := .Excludes}}{{$e}}/{{$.Limit}};{{end}}",
	"{{range .None}}never{{end}}|{{range .Meta}}{{.}},{{end}}",
	"{{range $k, $v := .Meta}}{{$k}}={{$v}} {{end}}",
	"{{.Meta.Count}} {{.Meta.Servers}} {{if .Meta.Deferred}}deferred{{end}}{{if .Meta.Zero}}zero{{end}}",
	"{{.Ptr.Name}} {{$.Ptr.Name}} {{and .On .Limit}} {{or .Empty .Limit}} {{not .On}}",
	"nested {{if .On}}{{if .Off}}a{{else}}{{range .Tools}}{{if .Tags}}{{.Name}}{{end}}{{end}}{{end}}{{end}}",
	"{\"type\": \"integer\", \"maximum\": {{.Limit}}, \"description\": \"at most {{.Limit}}\"}",
}

func TestAgreesWithTextTemplate(t *testing.T) {
	for _, src := range cases {
		want := textTemplate(t, src, sample())
		got, err := Render("case", src, sample())
		if err != nil {
			t.Errorf("Render(%q): %v", src, err)
			continue
		}
		if got != want {
			t.Errorf("Render(%q)\n got %q\nwant %q", src, got, want)
		}
	}
}

func textTemplate(t *testing.T, src string, d any) string {
	t.Helper()
	tpl, err := template.New("case").Option("missingkey=error").Parse(src)
	if err != nil {
		t.Fatalf("text/template refuses %q: %v", src, err)
	}
	var b strings.Builder
	if err := tpl.Execute(&b, d); err != nil {
		t.Fatalf("text/template fails on %q: %v", src, err)
	}
	return b.String()
}

// Every template in the tree parses, and uses nothing this package lacks.
func TestParsesEveryTemplateInTheTree(t *testing.T) {
	var files []string
	for _, pat := range []string{"../*/*.md", "../*/*.json"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "{{") {
			continue
		}
		n++
		if _, err := Parse(f, string(b)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if n < 10 {
		t.Fatalf("found only %d templates under pkg/: is the glob right?", n)
	}
}

func TestErrors(t *testing.T) {
	for src, want := range map[string]string{
		"{{.Missing}}":                          "can't evaluate field Missing",
		"{{.Meta.Nope}}":                        `no entry for key "Nope"`,
		"{{if .On}}open":                        "{{if}} has no {{end}}",
		"{{range .Tools}}x":                     "{{range}} has no {{end}}",
		"x{{end}}":                              "unexpected {{end}}",
		"{{.Limit":                              "unclosed action",
		"{{}}":                                  "empty action",
		"{{printf \"%d\" .Limit}}":              `function "printf" not defined`,
		"{{$nope}}":                             "undefined variable $nope",
		"{{range .Limit}}{{end}}":               "range can't iterate over int",
		"{{.Limit .On}}":                        "only not, and and or take arguments",
		"{{not .On .Off}}":                      "wrong number of arguments to not",
		"{{else}}":                              "unexpected {{else}}",
		"{{range $a, $b, $c := .Tools}}{{end}}": "at most two variables",
		"{{.Tools.}}":                           "bad field",
	} {
		_, err := Render("bad", src, sample())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Render(%q) = %v, want an error with %q", src, err, want)
		}
	}
}

func TestDepthIsBounded(t *testing.T) {
	src := strings.Repeat("{{if .On}}", maxDepth+5) + strings.Repeat("{{end}}", maxDepth+5)
	if _, err := Parse("deep", src); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Fatalf("Parse of %d nested ifs = %v", maxDepth+5, err)
	}
}

// FuzzRender: no input panics, and where text/template accepts a template
// of the subset and renders it, the two agree.
func FuzzRender(f *testing.F) {
	for _, c := range cases {
		f.Add(c)
	}
	f.Add("{{- -}}{{-}}{{ - }}")
	d := sample() // one value: a pointer prints as its address
	f.Fuzz(func(t *testing.T, src string) {
		got, err := Render("fuzz", src, d)
		if err != nil {
			return
		}
		tpl, terr := template.New("fuzz").Option("missingkey=error").Parse(src)
		if terr != nil {
			return // text/template is stricter about a few spellings; ours accepts only its subset
		}
		var b strings.Builder
		if tpl.Execute(&b, d) != nil {
			return
		}
		if b.String() != got {
			t.Fatalf("Render(%q) = %q, text/template %q", src, got, b.String())
		}
	})
}
