package sensitive

import (
	"os"
	"strings"
	"testing"
)

func TestMatchPath(t *testing.T) {
	cases := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{".env", false, true},
		{".env.local", false, true},
		{"app/.env.production", false, true},
		{".ENV", false, true},
		{"config/server.pem", false, true},
		{"certs/tls.KEY", false, true},
		{"home/.ssh/config", false, true},
		{"home/.ssh", true, true},
		{".aws/credentials", false, true},
		{"deep/a/.gnupg/pubring.kbx", false, true},
		{"keys/id_rsa", false, true},
		{"keys/id_rsa.pub", false, true},
		{"keys/id_ed25519", false, true},
		{".netrc", false, true},
		{"pkg/.npmrc", false, true},
		{"vault.kdbx", false, true},
		{"store.p12", false, true},
		{"home/.kube/config", false, true},
		{".vault-token", false, true},
		{"home/.terraformrc", false, true},

		{"environment.go", false, false},
		{"src/env.go", false, false},
		{"keyboard.go", false, false},
		{"monkey.go", false, false},
		{"docs/ssh.md", false, false},
		{"a.pem.go", false, false},
		{".sshrc", false, false},
		{"my.ssh", false, false},
		// A file named like a folder rule is not the folder.
		{".aws", false, false},
		{"", false, false},
	}
	for _, c := range cases {
		if got := MatchPath(c.path, c.isDir); got != c.want {
			t.Errorf("MatchPath(%q, %v) = %v, want %v", c.path, c.isDir, got, c.want)
		}
	}
}

func TestRulesAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		p := r.Pattern
		if p == "" || strings.Count(p, "*") > 1 || strings.Contains(strings.Trim(p, "*"), "*") || strings.Contains(p, "/") {
			t.Errorf("rule %q: a name with at most one leading or trailing '*'", p)
		}
		if seen[p] {
			t.Errorf("rule %q listed twice", p)
		}
		seen[p] = true
		if r.Why == "" {
			t.Errorf("rule %q: say why it is sensitive", p)
		}
	}
	if len(Globs()) != len(Rules) {
		t.Error("Globs must render every rule")
	}
}

// docs/safety.md lists every rule: the documentation cannot drift from the code.
func TestDocsListEveryRule(t *testing.T) {
	data, err := os.ReadFile("../../docs/safety.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(data), "## Sensitive files")
	for _, r := range Rules {
		want := "`" + r.Pattern + "`"
		if r.Kind == Dir {
			want = "`" + r.Pattern + "/`"
		}
		if !strings.Contains(section, want) {
			t.Errorf("docs/safety.md's \"Sensitive files\" section does not list %s", want)
		}
	}
}
