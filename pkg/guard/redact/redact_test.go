package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDefaultPatterns(t *testing.T) {
	r := Builtin()
	for _, secret := range []string{
		"AKIAIOSFODNN7EXAMPLE",
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"ghp_" + strings.Repeat("a", 36),
		"github_pat_" + strings.Repeat("B", 30),
		"glpat-" + strings.Repeat("c", 20),
		"xoxb-1234567890-abcdef",
		"sk-ant-" + strings.Repeat("d", 30),
		"sk-proj-" + strings.Repeat("e", 30),
		"AIza" + strings.Repeat("f", 35),
		"sk_live_" + strings.Repeat("g", 24),
		"npm_" + strings.Repeat("h", 36),
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
		"Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345",
		"PASSWORD=hunter2hunter2",
		`"api_key": "0123456789abcdef"`,
		"https://ada:Pa55w0rd@example.com/",
		"https://tok3nQ9x7Zk2Lm4Np8Rw@example.com/",
	} {
		text := "before " + secret + " after"
		got := r.String(text)
		if strings.Contains(got, secret) || !strings.Contains(got, Mask) || !strings.HasPrefix(got, "before ") {
			t.Errorf("%q → %q", text, got)
		}
	}
	if got := r.String("clone https://ada:Pa55w0rd@example.com/x.git"); got != "clone https://"+Mask+"@example.com/x.git" {
		t.Errorf("a URL's user information: %q", got)
	}
	for _, plain := range []string{"go test ./...", "git status --short", "password policy: see docs", "sk-short", "the AKIA prefix", "ssh://git@example.com/x.git", "https://example.com/a@b"} {
		if got := r.String(plain); got != plain {
			t.Errorf("%q masked: %q", plain, got)
		}
	}
}

func BenchmarkBuiltinCompile(b *testing.B) {
	for b.Loop() {
		New([]string{"default"})
	}
}

func BenchmarkMaskTypicalArgs(b *testing.B) {
	r := Builtin()
	args := []byte(`{"command":"cd pkg && go test -run TestX ./... 2>&1 | grep -v '^ok' | head -n 50"}`)
	for b.Loop() {
		r.JSON(args)
	}
}

func TestPreviewCapsAndStaysJSON(t *testing.T) {
	long := []byte(`{"content":"` + strings.Repeat("x", 10000) + ` AKIAIOSFODNN7EXAMPLE"}`)
	p := Builtin().Preview(long, 100)
	if len(p) > 110 || !strings.HasSuffix(string(p), `…"`) || strings.Contains(string(p), "AKIA") {
		t.Errorf("preview %s", p)
	}
	if p := Builtin().Preview([]byte(`{"a":1}`), 100); string(p) != `{"a":1}` {
		t.Errorf("short preview %s", p)
	}
}

// A preview of megabytes of arguments shows what masking the whole of
// them would show: strings are cut before masking only far past the end.
func TestPreviewOfLargeArgumentsIsTheSame(t *testing.T) {
	r := Builtin()
	big := "key AKIAIOSFODNN7EXAMPLE and " + strings.Repeat("line of a patch\n", 20000) + " ghp_" + strings.Repeat("a", 36)
	raw, _ := json.Marshal(map[string]any{"input": big, "check": true})
	got := r.Preview(raw, 8<<10)
	masked := r.JSON(raw)
	want, _ := json.Marshal(string(masked[:8<<10]) + "…")
	if string(got) != string(want) {
		t.Errorf("preview differs from masking it all:\n%.200s\n%.200s", got, want)
	}
	if strings.Contains(string(got), "AKIAIOSFODNN7EXAMPLE") {
		t.Error("the secret shows")
	}
}

// TestHintedSubsetsMaskAsTheWholeSet: searching a text with only the
// default patterns whose fixed parts it holds gives what all of them
// give, for every pattern's secret alone, mixed, folded and amid code.
func TestHintedSubsetsMaskAsTheWholeSet(t *testing.T) {
	if len(defaultHints) != len(Default) {
		t.Fatalf("%d hint lists for %d default patterns", len(defaultHints), len(Default))
	}
	whole := alternation(Default)
	secrets := []string{
		"AKIAIOSFODNN7EXAMPLE", "ASIAIOSFODNN7EXAMPLE",
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"AWS_ſECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"ghp_" + strings.Repeat("a", 36), "ghs_" + strings.Repeat("Z", 40),
		"github_pat_" + strings.Repeat("B", 30), "glpat-" + strings.Repeat("c", 20),
		"xoxb-1234567890-abcdef", "sk-ant-" + strings.Repeat("d", 30),
		"AIza" + strings.Repeat("f", 35), "rk_test_" + strings.Repeat("g", 24),
		"npm_" + strings.Repeat("h", 36),
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
		"Authorization: BEARER abcdefghijklmnopqrstuvwxyz012345",
		"PASSWORD=hunter2hunter2", `"api_key": "0123456789abcdef"`, "pwd: 'sesame-sesame'",
		"client_secret=abcdefgh", "auth_token = tok123456", "token := cfg.Token // key lookup",
		"Kelvin: \u212Aey=0123456789",
	}
	var texts []string
	for i, s := range secrets {
		texts = append(texts, s, "before "+s+" after", s+" "+secrets[(i+5)%len(secrets)]+"\n"+secrets[(i+11)%len(secrets)])
	}
	texts = append(texts, "func (c *Client) Do(req *Request) { key := req.Header.Get(\"X-Key\"); token = secret }",
		"nothing here at all", "the AKIA prefix", "sk-short", strings.Join(secrets, " | "))
	r := Builtin()
	for _, text := range texts {
		if got, want := r.String(text), whole.ReplaceAllLiteralString(text, Mask); got != want {
			t.Errorf("%q:\n got %q\nwant %q", text, got, want)
		}
	}
}
