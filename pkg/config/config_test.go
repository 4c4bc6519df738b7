package config

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	good := map[string]time.Duration{"90": 90 * time.Second, "1.5": 1500 * time.Millisecond, "90s": 90 * time.Second, "2m": 2 * time.Minute, " 0 ": 0}
	for in, want := range good {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "soon", "-5", "-1s", "1e300", "NaN"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) should fail", in)
		}
	}
}

func TestValidate(t *testing.T) {
	c := Defaults()
	if errs := c.Validate(); len(errs) != 0 {
		t.Fatalf("defaults invalid: %v", errs)
	}
	c.Bash.EnvSanitize = "loud"
	c.Guard.Rules = []GuardRule{{Tool: "bash", Action: "maybe"}}
	c.McpToolSearch.ThresholdPct = 15
	c.ToolResultCompaction.MaxInlineKiB = 0
	var keys []string
	for _, e := range c.Validate() {
		keys = append(keys, e.Key)
	}
	got := strings.Join(keys, ",")
	want := "bash.envSanitize,guard.rules[0].action,toolResultCompaction.maxInlineKiB,mcpToolSearch.thresholdPct"
	if got != want {
		t.Errorf("invalid keys = %s, want %s", got, want)
	}
}

func TestValidateMcp(t *testing.T) {
	c := Defaults()
	c.McpServers = map[string]McpServer{
		"ok":       {Command: "node", Args: []string{"server.js"}},
		"web":      {URL: "http://127.0.0.1:3001/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}},
		"a__b":     {Command: "x"},
		"empty":    {},
		"both":     {Command: "x", URL: "http://127.0.0.1:1/mcp"},
		"ftp":      {URL: "ftp://example/mcp"},
		"hdr":      {Command: "x", Headers: map[string]string{"A": "b"}},
		"urlenv":   {URL: "https://127.0.0.1/mcp", Env: map[string]string{"A": "b"}},
		"negative": {Command: "x", Timeout: -time.Second},
	}
	c.Agents = map[string]Agent{"reviewer": {McpServers: []string{"OK", "nosuch"}}}
	c.McpToolSearch.MinDeferCount = -1
	c.McpToolSearch.ContextWindow = 0
	var keys []string
	for _, e := range c.Validate() {
		keys = append(keys, e.Key)
	}
	got := strings.Join(keys, ",")
	want := "mcpServers.a__b,mcpServers.both,mcpServers.empty,mcpServers.ftp.url,mcpServers.hdr.headers," +
		"mcpServers.negative.timeout,mcpServers.urlenv,agents.reviewer.mcpServers[1],mcpToolSearch.minDeferCount,mcpToolSearch.contextWindow"
	if got != want {
		t.Errorf("invalid keys =\n%s\nwant\n%s", got, want)
	}
}

func TestValidateGuardAndHooks(t *testing.T) {
	c := Defaults()
	c.Guard.Rules = []GuardRule{{Tool: "bash", ArgPattern: "(unclosed", Action: "deny"}}
	c.Guard.Grants = []GuardGrant{{Tool: "bash", ArgPattern: "[z-a]"}}
	c.Guard.Paths.Sensitive = "ask"
	c.Guard.ApprovalTTL = 0
	c.Hooks.BeforeTool = []Hook{{Tool: "bash"}, {Command: "x", Redact: []string{"default"}}}
	c.Hooks.AfterTool = []Hook{{Redact: []string{"default", "a(b"}}, {Command: "./h", Timeout: -1}}
	c.Audit.MaxMiB = 0
	var keys []string
	for _, e := range c.Validate() {
		keys = append(keys, e.Key)
	}
	want := "guard.rules[0].argPattern,guard.grants[0].argPattern,guard.paths.sensitive," +
		"hooks.before_tool[0],hooks.before_tool[1],hooks.before_tool[1].redact,hooks.after_tool[0].redact,hooks.after_tool[1].timeout," +
		"audit.maxMiB,guard.approvalTTL"
	if got := strings.Join(keys, ","); got != want {
		t.Errorf("invalid keys =\n%s, want\n%s", got, want)
	}
}

func TestValidateFetchAllowHosts(t *testing.T) {
	c := Defaults()
	c.Fetch.AllowHosts = []string{"127.0.0.1", "*.corp.example", "10.0.0.0/8", "intranet", "http://x.example/", "host:8080", "10.0.0.0/99"}
	var keys []string
	for _, e := range c.Validate() {
		keys = append(keys, e.Key)
	}
	if got, want := strings.Join(keys, ","), "fetch.allowHosts[4],fetch.allowHosts[5],fetch.allowHosts[6]"; got != want {
		t.Errorf("invalid keys = %s, want %s", got, want)
	}
}

// TestAllowHostsOnlyNarrow: an untrusted layer narrows fetch.allowHosts
// to what the person allowed and it lists; what it adds is ignored.
func TestAllowHostsOnlyNarrow(t *testing.T) {
	trusted := Defaults()
	trusted.Fetch.AllowHosts = []string{"127.0.0.1", "intranet.example"}
	for _, c := range []struct {
		layer   []string
		want    string
		ignored bool
	}{
		{[]string{"intranet.example", "10.0.0.0/8"}, "intranet.example", true},
		{[]string{"169.254.169.254"}, "127.0.0.1,intranet.example", true},
		{[]string{}, "", false},
		{[]string{"127.0.0.1"}, "127.0.0.1", false},
	} {
		cfg := trusted
		l := Layer{Name: "workspace file", Set: map[string]bool{"fetch.allowhosts": true}}
		l.Config.Fetch.AllowHosts = c.layer
		ignored := ApplyPolicy(&cfg, trusted, []Layer{l}, PolicyOptions{})
		if got := strings.Join(cfg.Fetch.AllowHosts, ","); got != c.want || (len(ignored) > 0) != c.ignored {
			t.Errorf("layer %v: %q (ignored %v), want %q", c.layer, got, ignored, c.want)
		}
	}
}
