package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/pkg/config"
)

// policyCase is one policy key: the person's setting, a caller's that
// loosens it and one that tightens it, each as YAML and as the
// environment variable of the key, and how to read the effect.
type policyCase struct {
	key             string
	person          string // YAML of the user file
	loosen, tighten string // YAML of a caller's layer
	loosenEnv       [2]string
	tightenEnv      [2]string
	// effect reads what a config does with the key, as text.
	effect func(c *config.Config) string
	// personSays, loosened and tightened are the effects expected of the
	// person's file alone, with the loosening, and with the tightening.
	personSays, tightened string
}

var policyCases = []policyCase{
	{
		key: "guard.enabled", person: "guard: {enabled: true}",
		loosen: "guard: {enabled: false}", tighten: "guard: {enabled: true}",
		loosenEnv: [2]string{"MCODE_GUARD_ENABLED", "false"}, tightenEnv: [2]string{"MCODE_GUARD_ENABLED", "true"},
		effect:     func(c *config.Config) string { return fmt.Sprint(c.Guard.Enabled) },
		personSays: "true", tightened: "true",
	},
	{
		key: "guard.defaultPolicy", person: "guard: {defaultPolicy: require_approval}",
		loosen: "guard: {defaultPolicy: allow}", tighten: "guard: {defaultPolicy: deny}",
		loosenEnv: [2]string{"MCODE_GUARD_DEFAULTPOLICY", "allow"}, tightenEnv: [2]string{"MCODE_GUARD_DEFAULTPOLICY", "deny"},
		effect: func(c *config.Config) string {
			s := c.Guard.DefaultPolicy
			for _, l := range c.Guard.Layers {
				s += "+" + l.DefaultPolicy
			}
			return s
		},
		personSays: "require_approval", tightened: "require_approval+deny",
	},
	{
		key: "guard.paths.sensitive", person: "guard: {paths: {sensitive: require_approval}}",
		loosen: "guard: {paths: {sensitive: allow}}", tighten: "guard: {paths: {sensitive: deny}}",
		loosenEnv: [2]string{"MCODE_GUARD_PATHS_SENSITIVE", "allow"}, tightenEnv: [2]string{"MCODE_GUARD_PATHS_SENSITIVE", "deny"},
		effect:     func(c *config.Config) string { return c.Guard.Paths.Sensitive },
		personSays: "require_approval", tightened: "deny",
	},
	{
		key: "guard.paths.outsideRoot", person: "guard: {paths: {outsideRoot: require_approval}}",
		loosen: "guard: {paths: {outsideRoot: allow}}", tighten: "guard: {paths: {outsideRoot: deny}}",
		loosenEnv: [2]string{"MCODE_GUARD_PATHS_OUTSIDEROOT", "allow"}, tightenEnv: [2]string{"MCODE_GUARD_PATHS_OUTSIDEROOT", "deny"},
		effect:     func(c *config.Config) string { return c.Guard.Paths.OutsideRoot },
		personSays: "require_approval", tightened: "deny",
	},
	{
		key: "guard.approvalTTL", person: "guard: {approvalTTL: 1h}",
		loosen: "guard: {approvalTTL: 100h}", tighten: "guard: {approvalTTL: 5m}",
		loosenEnv: [2]string{"MCODE_GUARD_APPROVALTTL", "100h"}, tightenEnv: [2]string{"MCODE_GUARD_APPROVALTTL", "5m"},
		effect:     func(c *config.Config) string { return c.Guard.ApprovalTTL.String() },
		personSays: "1h0m0s", tightened: "5m0s",
	},
	{
		key: "guard.grants", person: "guard: {grants: [{tool: bash, argPattern: '^make$'}]}",
		loosen: "guard: {grants: [{tool: bash, argPattern: '.*'}]}", tighten: "",
		loosenEnv: [2]string{"MCODE_GUARD_GRANTS", `[{"tool":"bash","argPattern":".*"}]`},
		effect: func(c *config.Config) string {
			var out []string
			for _, g := range c.Guard.Grants {
				out = append(out, g.ArgPattern)
			}
			return strings.Join(out, ",")
		},
		personSays: "^make$",
	},
	{
		key: "guard.rules", person: "guard: {rules: [{tool: bash, argPattern: '^curl', action: deny}]}",
		// A layer's allow rule is judged within the layer: it can never
		// undo the person's deny (pkg/guard tests the verdicts).
		loosen: "", tighten: "guard: {rules: [{tool: bash, argPattern: '^wget', action: deny}]}",
		tightenEnv: [2]string{"MCODE_GUARD_RULES", `[{"tool":"bash","argPattern":"^wget","action":"deny"}]`},
		effect: func(c *config.Config) string {
			var out []string
			for _, r := range c.Guard.Rules {
				out = append(out, r.ArgPattern)
			}
			for _, l := range c.Guard.Layers {
				for _, r := range l.Rules {
					out = append(out, "layer:"+r.ArgPattern)
				}
			}
			return strings.Join(out, ",")
		},
		personSays: "^curl", tightened: "^curl,layer:^wget",
	},
	{
		key: "bash.envSanitize", person: "bash: {envSanitize: scrub}",
		loosen: "bash: {envSanitize: off}", tighten: "bash: {envSanitize: strict}",
		loosenEnv: [2]string{"MCODE_BASH_ENVSANITIZE", "off"}, tightenEnv: [2]string{"MCODE_BASH_ENV_SANITIZE", "strict"},
		effect:     func(c *config.Config) string { return c.Bash.EnvSanitize },
		personSays: "scrub", tightened: "strict",
	},
	{
		key: "bash.envAllow", person: "bash: {envAllow: [KEEP_ME]}",
		loosen: "bash: {envAllow: [AWS_SECRET_ACCESS_KEY]}", tighten: "",
		loosenEnv:  [2]string{"MCODE_BASH_ENVALLOW", "AWS_SECRET_ACCESS_KEY"},
		effect:     func(c *config.Config) string { return strings.Join(c.Bash.EnvAllow, ",") },
		personSays: "KEEP_ME",
	},
	{
		key: "bash.trashShim", person: "bash: {trashShim: true}",
		loosen: "bash: {trashShim: false}", tighten: "bash: {trashShim: true}",
		loosenEnv: [2]string{"MCODE_BASH_TRASHSHIM", "false"}, tightenEnv: [2]string{"MCODE_BASH_TRASHSHIM", "true"},
		effect:     func(c *config.Config) string { return fmt.Sprint(c.Bash.TrashShim) },
		personSays: "true", tightened: "true",
	},
	{
		key: "audit.enabled", person: "audit: {enabled: true}",
		loosen: "audit: {enabled: false}", tighten: "audit: {enabled: true}",
		loosenEnv: [2]string{"MCODE_AUDIT_ENABLED", "false"}, tightenEnv: [2]string{"MCODE_AUDIT_ENABLED", "true"},
		effect:     func(c *config.Config) string { return fmt.Sprint(c.Audit.Enabled) },
		personSays: "true", tightened: "true",
	},
	{
		key: "workspace.roots", person: "workspace: {roots: [/work]}",
		loosen: "workspace: {roots: [/]}", tighten: "",
		loosenEnv:  [2]string{"MCODE_WORKSPACE_ROOTS", "/"},
		effect:     func(c *config.Config) string { return strings.Join(c.Workspace.Roots, ",") },
		personSays: "/work",
	},
	{
		key: "sandbox.mode", person: "sandbox: {mode: workspace-write}",
		loosen: "sandbox: {mode: danger-full-access}", tighten: "sandbox: {mode: read-only}",
		loosenEnv: [2]string{"MCODE_SANDBOX_MODE", "danger-full-access"}, tightenEnv: [2]string{"MCODE_SANDBOX_MODE", "read-only"},
		effect:     func(c *config.Config) string { return c.Sandbox.Mode },
		personSays: "workspace-write", tightened: "read-only",
	},
	{
		key: "sandbox.network", person: "sandbox: {network: [api.github.com:443, '22']}",
		loosen: "sandbox: {network: [on]}", tighten: "sandbox: {network: ['22']}",
		loosenEnv: [2]string{"MCODE_SANDBOX_NETWORK", "on"}, tightenEnv: [2]string{"MCODE_SANDBOX_NETWORK", "22"},
		effect:     func(c *config.Config) string { return strings.Join(c.Sandbox.Network, ",") },
		personSays: "api.github.com:443,22", tightened: "22",
	},
	{
		key: "sandbox.writable", person: "sandbox: {writable: [/data]}",
		loosen: "sandbox: {writable: [/etc]}", tighten: "",
		loosenEnv:  [2]string{"MCODE_SANDBOX_WRITABLE", "/etc"},
		effect:     func(c *config.Config) string { return strings.Join(c.Sandbox.Writable, ",") },
		personSays: "/data",
	},
	{
		key: "sandbox.readDeny", person: "sandbox: {readDeny: [~/private]}",
		loosen: "", tighten: "sandbox: {readDeny: [~/notes]}",
		tightenEnv: [2]string{"MCODE_SANDBOX_READDENY", "~/notes"},
		effect:     func(c *config.Config) string { return strings.Join(c.Sandbox.ReadDeny, ",") },
		personSays: "~/private", tightened: "~/private,~/notes",
	},
	{
		key: "agents.reviewer.role", person: "agents: {reviewer: {role: verifier}}",
		loosen: "agents: {reviewer: {role: worker}}", tighten: "agents: {reviewer: {role: explore}}",
		loosenEnv: [2]string{"MCODE_AGENTS_REVIEWER_ROLE", "worker"}, tightenEnv: [2]string{"MCODE_AGENTS_REVIEWER_ROLE", "explore"},
		effect:     func(c *config.Config) string { return c.Agents["reviewer"].Role },
		personSays: "verifier", tightened: "explore",
	},
	{
		key: "agents.reviewer.tools", person: "agents: {reviewer: {tools: [read, grep]}}",
		loosen: "agents: {reviewer: {tools: [read, grep, bash]}}", tighten: "agents: {reviewer: {tools: [read]}}",
		loosenEnv: [2]string{"MCODE_AGENTS_REVIEWER_TOOLS", "read,grep,bash"}, tightenEnv: [2]string{"MCODE_AGENTS_REVIEWER_TOOLS", "read"},
		effect:     func(c *config.Config) string { return strings.Join(c.Agents["reviewer"].Tools, ",") },
		personSays: "read,grep", tightened: "read",
	},
	{
		key: "fetch.allowHosts", person: "fetch: {allowHosts: [127.0.0.1, intranet.example]}",
		loosen: "fetch: {allowHosts: [169.254.169.254]}", tighten: "fetch: {allowHosts: [intranet.example]}",
		loosenEnv: [2]string{"MCODE_FETCH_ALLOWHOSTS", "169.254.169.254"}, tightenEnv: [2]string{"MCODE_FETCH_ALLOWHOSTS", "intranet.example"},
		effect:     func(c *config.Config) string { return strings.Join(c.Fetch.AllowHosts, ",") },
		personSays: "127.0.0.1,intranet.example", tightened: "intranet.example",
	},
	{
		// A shell of the workspace's choosing would run whatever it likes
		// for every command the guard let through.
		key: "bash.shell", person: "bash: {shell: sh}",
		loosen: "bash: {shell: /tmp/evil.sh}", tighten: "bash: {shell: sh}",
		loosenEnv: [2]string{"MCODE_BASH_SHELL", "/tmp/evil.sh"}, tightenEnv: [2]string{"MCODE_BASH_SHELL", "sh"},
		effect:     func(c *config.Config) string { return c.Bash.Shell },
		personSays: "sh", tightened: "sh",
	},
	{
		// A repository that chose a server's token would know it.
		// (MCODE_SERVE_TOKEN is the caller's and wins: mcpserve.ResolveToken.)
		key: "serve.token", person: "serve: {token: the-persons-token-0123456789}",
		loosen: "serve: {token: the-repos-token-0123456789}", tighten: "serve: {token: the-persons-token-0123456789}",
		effect:     func(c *config.Config) string { return c.Serve.Token },
		personSays: "the-persons-token-0123456789", tightened: "the-persons-token-0123456789",
	},
	{
		key: "agents.reviewer.disallowedTools", person: "agents: {reviewer: {disallowedTools: [bash]}}",
		loosen: "", tighten: "agents: {reviewer: {disallowedTools: [grep]}}",
		tightenEnv: [2]string{"MCODE_AGENTS_REVIEWER_DISALLOWEDTOOLS", "grep"},
		effect:     func(c *config.Config) string { return strings.Join(c.Agents["reviewer"].DisallowedTools, ",") },
		personSays: "bash", tightened: "bash,grep",
	},
}

// Every policy key from every untrusted layer (the workspace file, the
// --config file, the environment): a loosening is ignored and said,
// naming the key and the layer; a tightening applies.
func TestPolicyKeysOnlyTighten(t *testing.T) {
	dir := t.TempDir()
	for _, pc := range policyCases {
		t.Run(pc.key, func(t *testing.T) {
			person := writeFile(t, filepath.Join(dir, pc.key, "person.yaml"), pc.person)
			load := func(callerYAML string, env [2]string, layer string) (*config.Config, []config.Ignored) {
				t.Helper()
				files := []configFile{{layer: "user file", path: person, trusted: true}}
				if callerYAML != "" {
					files = append(files, configFile{layer: layer, path: writeFile(t, filepath.Join(dir, pc.key, layer+".yaml"), callerYAML), explicit: true})
				}
				vars := map[string]string{}
				if env[0] != "" {
					vars[env[0]] = env[1]
				}
				cfg, ignored, err := loadConfig(files, envFunc(vars), envNames(vars))
				if err != nil {
					t.Fatal(err)
				}
				return cfg, ignored
			}
			cfg, ignored := load("", [2]string{}, "")
			if got := pc.effect(cfg); got != pc.personSays || len(ignored) > 0 {
				t.Fatalf("the person's file alone: %q (ignored %v), want %q", got, ignored, pc.personSays)
			}
			for _, layer := range []string{"workspace file", "--config file"} {
				if pc.loosen != "" {
					cfg, ignored = load(pc.loosen, [2]string{}, layer)
					if got := pc.effect(cfg); got != pc.personSays {
						t.Errorf("%s loosening %q: %q, want the person's %q", layer, pc.loosen, got, pc.personSays)
					}
					if !saysIgnored(ignored, pc.key, layer) {
						t.Errorf("%s loosening: ignored %+v does not name %s", layer, ignored, pc.key)
					}
				}
				if pc.tighten != "" {
					cfg, ignored = load(pc.tighten, [2]string{}, layer)
					if got := pc.effect(cfg); got != pc.tightened || len(ignored) > 0 {
						t.Errorf("%s tightening %q: %q (ignored %v), want %q", layer, pc.tighten, got, ignored, pc.tightened)
					}
				}
			}
			if pc.loosenEnv[0] != "" {
				cfg, ignored = load("", pc.loosenEnv, "")
				if got := pc.effect(cfg); got != pc.personSays {
					t.Errorf("%s=%s: %q, want the person's %q", pc.loosenEnv[0], pc.loosenEnv[1], got, pc.personSays)
				}
				if !saysIgnored(ignored, pc.key, pc.loosenEnv[0]) {
					t.Errorf("%s: ignored %+v does not name it", pc.loosenEnv[0], ignored)
				}
			}
			if pc.tightenEnv[0] != "" {
				cfg, ignored = load("", pc.tightenEnv, "")
				if got := pc.effect(cfg); got != pc.tightened || len(ignored) > 0 {
					t.Errorf("%s=%s: %q (ignored %v), want %q", pc.tightenEnv[0], pc.tightenEnv[1], got, ignored, pc.tightened)
				}
			}
		})
	}
}

func saysIgnored(ignored []config.Ignored, key, layer string) bool {
	return slices.ContainsFunc(ignored, func(ig config.Ignored) bool {
		return strings.EqualFold(ig.Key, key) && strings.Contains(ig.Layer, layer)
	})
}

// Every policy key of the config is covered by a case above, or named
// here with the test that covers it.
func TestEveryPolicyKeyHasACase(t *testing.T) {
	elsewhere := map[string]string{
		"hooks":        "guard_hooks.txtar: an untrusted command hook waits for a person's trust",
		"mcpServers":   "connector.txtar: an untrusted server is not started before trust",
		"tools.custom": "cmdtool.txtar and TestLayersDoNotLeakIntoEachOther",
		"tools.dirs":   "TestEveryConfigKeyFromEnv: the dirs of an untrusted layer are untrusted",
		"agents":       "the agents.reviewer cases above",
	}
	covered := map[string]bool{}
	for _, pc := range policyCases {
		covered[pc.key] = true
	}
	for _, k := range config.PolicyKeys {
		if elsewhere[k] != "" {
			continue
		}
		found := covered[k]
		for c := range covered {
			found = found || strings.HasPrefix(c, k+".")
		}
		if !found {
			t.Errorf("policy key %s has no case", k)
		}
	}
}

// The safety page names every policy key (one list in the code, the page
// written from it).
func TestSafetyPageNamesEveryPolicyKey(t *testing.T) {
	page, err := os.ReadFile("../docs/safety.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range config.PolicyKeys {
		if !strings.Contains(string(page), "`"+k) {
			t.Errorf("docs/safety.md does not name the policy key %s", k)
		}
	}
}
