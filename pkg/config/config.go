// Package config holds mcode's configuration as plain structs. It is filled
// once at the edge (cmd/) from viper; nothing below cmd/ reads viper.
package config

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/safenet"
)

// Config is the whole configuration file (docs/config.md).
type Config struct {
	Agents               map[string]Agent     `mapstructure:"agents"`
	Models               Models               `mapstructure:"models"`
	ToolResultCompaction ToolResultCompaction `mapstructure:"toolResultCompaction"`
	McpServers           map[string]McpServer `mapstructure:"mcpServers"`
	McpToolSearch        McpToolSearch        `mapstructure:"mcpToolSearch"`
	Guard                Guard                `mapstructure:"guard"`
	Hooks                Hooks                `mapstructure:"hooks"`
	Bash                 Bash                 `mapstructure:"bash"`
	Trash                Trash                `mapstructure:"trash"`
	Read                 Read                 `mapstructure:"read"`
	Tools                Tools                `mapstructure:"tools"`
	Skills               Skills               `mapstructure:"skills"`
	Render               Render               `mapstructure:"render"`
	Serve                Serve                `mapstructure:"serve"`
	Batch                Batch                `mapstructure:"batch"`
	Audit                Audit                `mapstructure:"audit"`
	Sandbox              Sandbox              `mapstructure:"sandbox"`
	Workspace            Workspace            `mapstructure:"workspace"`
	Fetch                Fetch                `mapstructure:"fetch"`
}

// Workspace limits where mcode may work.
type Workspace struct {
	// Roots, when set (in the system or user config only), are the
	// folders a workspace root must lie within.
	Roots []string `mapstructure:"roots"`
}

// Fetch configures the web_fetch tool.
type Fetch struct {
	// AllowHosts are what fetch may reach although it is not a public
	// address: host names (exact, or *.example.com for the names under
	// it), IP addresses and CIDR prefixes. A policy key: only the system
	// and user config files may set it (safety.md).
	AllowHosts []string `mapstructure:"allowHosts"`
}

// Agent is a profile: which tools an agent may see and call.
type Agent struct {
	Role            string          `mapstructure:"role"`
	Tools           []string        `mapstructure:"tools"`
	DisallowedTools []string        `mapstructure:"disallowedTools"`
	McpServers      []string        `mapstructure:"mcpServers"`
	Features        map[string]bool `mapstructure:"features"`
	// Subtask marks an agent that runs as another agent's sub-task: it
	// keeps no todo list of its own (docs/agent-state.md, "todo_write").
	Subtask bool `mapstructure:"subtask"`
}

// Models describes what the calling model can take in.
type Models struct {
	Capabilities map[string]bool `mapstructure:"capabilities"`
}

// ToolResultCompaction is the output budget.
type ToolResultCompaction struct {
	MaxInlineKiB int `mapstructure:"maxInlineKiB"`
}

// McpServer is one configured MCP server: stdio (Command) or HTTP (URL).
type McpServer struct {
	Command string            `mapstructure:"command"`
	Args    []string          `mapstructure:"args"`
	Env     map[string]string `mapstructure:"env"`
	Cwd     string            `mapstructure:"cwd"`
	URL     string            `mapstructure:"url"`
	Headers map[string]string `mapstructure:"headers"`
	Timeout time.Duration     `mapstructure:"timeout"`
	// Trust is TrustTrusted for a server of the system or user config;
	// TrustUntrusted, with the Layer that defines it, for one that starts
	// only once a person trusted its definition.
	Trust string `mapstructure:"-"`
	Layer string `mapstructure:"-"`
	// Tier extension lists the server's tools as a catalogue until a
	// session enables one (enable_tool); core (the default) lists them.
	Tier string `mapstructure:"tier"`
	// Sandbox overrides the sandbox for a stdio server: what it leaves
	// empty is the global sandbox's.
	Sandbox Sandbox `mapstructure:"sandbox"`
}

// McpToolSearch decides when MCP tools are deferred behind tool_search.
type McpToolSearch struct {
	Enabled       bool     `mapstructure:"enabled"`
	Models        []string `mapstructure:"models"`
	MinDeferCount int      `mapstructure:"minDeferCount"`
	ThresholdPct  float64  `mapstructure:"thresholdPct"`
	ContextWindow int      `mapstructure:"contextWindow"`
}

// Guard holds the allow/deny/approval rules.
type Guard struct {
	Enabled       bool        `mapstructure:"enabled"`
	DefaultPolicy string      `mapstructure:"defaultPolicy"`
	Rules         []GuardRule `mapstructure:"rules"`
	Paths         GuardPaths  `mapstructure:"paths"`
	// ApprovalTTL is how long an approval stays good.
	ApprovalTTL time.Duration `mapstructure:"approvalTTL"`
	// Grants are approvals given in advance (CI): a call they match that
	// needs approval runs.
	Grants []GuardGrant `mapstructure:"grants"`
	// ProtectedBranches are the branches a force push to needs approval.
	ProtectedBranches []string `mapstructure:"protectedBranches"`
	// Layers are the rules of the untrusted layers, each judged on its
	// own; the strictest decision of all wins (see ApplyPolicy).
	Layers []GuardLayer `mapstructure:"-"`
}

// GuardLayer is what one untrusted layer adds to the guard: its rules,
// first match winning within the layer, else its default when it sets
// one stricter than the person's (else it has no say).
type GuardLayer struct {
	Name          string
	Rules         []GuardRule
	DefaultPolicy string
	// DefaultFrom names where DefaultPolicy was set.
	DefaultFrom string
}

// GuardPaths is the path policy of the file tools.
type GuardPaths struct {
	// Sensitive is the action for reading, writing or deleting a file of
	// the sensitive list (and /proc/*/environ).
	Sensitive string `mapstructure:"sensitive"`
	// OutsideRoot is the action for writing or deleting outside the
	// workspace root.
	OutsideRoot string `mapstructure:"outsideRoot"`
}

// GuardGrant is an approval given in advance.
type GuardGrant struct {
	Tool       string `mapstructure:"tool"`
	ArgPattern string `mapstructure:"argPattern"`
}

// Audit configures the audit log.
type Audit struct {
	Enabled bool `mapstructure:"enabled"`
	MaxMiB  int  `mapstructure:"maxMiB"`
}

// GuardRule is one rule; the first that matches decides.
type GuardRule struct {
	Tool       string `mapstructure:"tool"`
	ArgPattern string `mapstructure:"argPattern"`
	Action     string `mapstructure:"action"`
}

// Hooks run around tool calls.
type Hooks struct {
	BeforeTool []Hook `mapstructure:"before_tool"`
	AfterTool  []Hook `mapstructure:"after_tool"`
	OnError    []Hook `mapstructure:"on_error"`
}

// RedactDefault in a redact list stands for the built-in secret patterns
// (AWS keys, tokens, private keys).
const RedactDefault = "default"

// Hook is a command or a declarative step.
type Hook struct {
	Tool    string        `mapstructure:"tool"`
	Command string        `mapstructure:"command"`
	Timeout time.Duration `mapstructure:"timeout"`
	Redact  []string      `mapstructure:"redact"`
	// Trust and Layer: as for McpServer (a command hook of an untrusted
	// layer runs once a person trusted it).
	Trust string `mapstructure:"-"`
	Layer string `mapstructure:"-"`
}

// Bash configures the bash tool.
type Bash struct {
	EnvSanitize         string        `mapstructure:"envSanitize"`
	EnvAllow            []string      `mapstructure:"envAllow"`
	DefaultTimeout      time.Duration `mapstructure:"defaultTimeout"`
	MaxTimeout          time.Duration `mapstructure:"maxTimeout"`
	AutoBackgroundAfter time.Duration `mapstructure:"autoBackgroundAfter"`
	TrashShim           bool          `mapstructure:"trashShim"`
	MaxSpoolMiB         int           `mapstructure:"maxSpoolMiB"`
	// Shell is the shell that runs commands: auto (the platform's order),
	// a name of ShellChoices, or an absolute path to one.
	Shell string `mapstructure:"shell"`
}

// Sandbox confines what mcode starts on the caller's behalf: bash and its
// tasks, command tools, hooks and stdio MCP servers (docs/sandbox.md).
type Sandbox struct {
	// Mode is read-only, workspace-write (the default) or
	// danger-full-access.
	Mode string `mapstructure:"mode"`
	// Network is on (the default), off, or the places connections may go:
	// host:port, :port or a bare port.
	Network []string `mapstructure:"network"`
	// Writable folders are added to the writable set.
	Writable []string `mapstructure:"writable"`
	// ReadDeny files and folders are hidden from the tree, besides the
	// built-in list of secrets in the home folder.
	ReadDeny []string `mapstructure:"readDeny"`
}

// Sandbox modes, strictest first, and network words.
var (
	SandboxModes = []string{"read-only", "workspace-write", "danger-full-access"}
)

const (
	SandboxNetworkOn  = "on"
	SandboxNetworkOff = "off"
)

// validate checks a sandbox section; key prefixes its fields.
func (s Sandbox) validate(key string) []FieldError {
	var errs []FieldError
	if s.Mode != "" && !slices.Contains(SandboxModes, s.Mode) {
		errs = append(errs, FieldError{Key: key + ".mode", Expected: "one of " + strings.Join(SandboxModes, ", "), Got: fmt.Sprintf("%q", s.Mode)})
	}
	for i, n := range s.Network {
		n = strings.TrimSpace(n)
		if (n == SandboxNetworkOn || n == SandboxNetworkOff) && len(s.Network) == 1 {
			continue
		}
		if err := CheckNetworkPlace(n); err != nil {
			errs = append(errs, FieldError{Key: fmt.Sprintf("%s.network[%d]", key, i),
				Expected: "on, off, or a list of host:port, :port or port (1-65535)", Got: fmt.Sprintf("%q (%v)", n, err)})
		}
	}
	for i, p := range s.Writable {
		if !absOrHome(p) {
			errs = append(errs, FieldError{Key: fmt.Sprintf("%s.writable[%d]", key, i), Expected: "an absolute folder or one under ~/", Got: fmt.Sprintf("%q", p)})
		}
	}
	for i, p := range s.ReadDeny {
		if !absOrHome(p) || strings.ContainsAny(p, "*?[") {
			errs = append(errs, FieldError{Key: fmt.Sprintf("%s.readDeny[%d]", key, i), Expected: "an absolute path or one under ~/, without wildcards (the kernel takes folders and files, not patterns)", Got: fmt.Sprintf("%q", p)})
		}
	}
	return errs
}

func absOrHome(p string) bool {
	return strings.HasPrefix(p, "/") || p == "~" || strings.HasPrefix(p, "~/")
}

// CheckNetworkPlace checks one allowed place of sandbox.network:
// host:port, [v6]:port, :port or a bare port.
func CheckNetworkPlace(s string) error {
	host, port := "", s
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		host, port = s[:i], s[i+1:]
		if strings.Contains(host, ":") && !(strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]")) {
			return fmt.Errorf("an IPv6 host goes in brackets: [::1]:443")
		}
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	if strings.ContainsAny(host, " /") {
		return fmt.Errorf("host %q is not a host name or address", host)
	}
	return nil
}

// Trash configures recoverable deletion.
type Trash struct {
	Dir string `mapstructure:"dir"`
}

// Read configures the read tool's media limits.
type Read struct {
	MaxImageWidth     int `mapstructure:"maxImageWidth"`
	MaxImageHeight    int `mapstructure:"maxImageHeight"`
	MaxImageBase64KiB int `mapstructure:"maxImageBase64KiB"`
}

// Tools declares command tools: programs of the team's own, called like
// built-in tools.
type Tools struct {
	Custom []CustomTool `mapstructure:"custom"`
	// Dirs are folders whose *.yaml files each hold a list of the same
	// entries.
	Dirs []string `mapstructure:"dirs"`
	// UntrustedDirs are the dirs an untrusted layer names: their tools
	// run once a person trusted each definition.
	UntrustedDirs []string `mapstructure:"-"`
}

// CustomTool is one command tool (docs/agent-state.md, "Command tools").
type CustomTool struct {
	Name        string         `mapstructure:"name" yaml:"name"`
	Description string         `mapstructure:"description" yaml:"description"`
	InputSchema map[string]any `mapstructure:"inputSchema" yaml:"inputSchema"`
	// Command is the argv, run without a shell; {{field}} in an element
	// is replaced by that argument.
	Command []string `mapstructure:"command" yaml:"command"`
	// Stdin is json (the arguments object, the default) or none.
	Stdin       string        `mapstructure:"stdin" yaml:"stdin"`
	Timeout     time.Duration `mapstructure:"timeout" yaml:"-"`
	Mode        string        `mapstructure:"mode" yaml:"mode"`
	ReadOnly    bool          `mapstructure:"readOnly" yaml:"readOnly"`
	Destructive bool          `mapstructure:"destructive" yaml:"destructive"`
	// Trust and Layer: as for McpServer.
	Trust string `mapstructure:"-" yaml:"-"`
	Layer string `mapstructure:"-" yaml:"-"`
}

// MaxToolNameLen is the longest tool name every model API accepts.
const MaxToolNameLen = 64

// Check validates one command tool; key prefixes the names of its fields
// in the errors (tools.custom[2], or a file in tools.dirs).
func (t CustomTool) Check(key string) []FieldError {
	var errs []FieldError
	bad := func(field, expected string, got any) {
		errs = append(errs, FieldError{Key: key + "." + field, Expected: expected, Got: got})
	}
	if !validToolName(t.Name) {
		bad("name", fmt.Sprintf("1 to %d letters, digits, _ or - (the pattern every model API accepts)", MaxToolNameLen), fmt.Sprintf("%q", t.Name))
	}
	if strings.TrimSpace(t.Description) == "" {
		bad("description", "a text that tells the model what the tool does", `""`)
	}
	if len(t.Command) == 0 || t.Command[0] == "" {
		bad("command", "the program and its arguments as a list, e.g. [./scripts/lint.sh, --json]", t.Command)
	}
	if t.Stdin != "" && !slices.Contains(StdinModes, t.Stdin) {
		bad("stdin", "one of "+strings.Join(StdinModes, ", "), fmt.Sprintf("%q", t.Stdin))
	}
	if t.Mode != "" && !slices.Contains(ToolModes, t.Mode) {
		bad("mode", "one of "+strings.Join(ToolModes, ", "), fmt.Sprintf("%q", t.Mode))
	}
	if t.Timeout < 0 {
		bad("timeout", "a duration of 0 (the default) or more", t.Timeout)
	}
	if t.ReadOnly && t.Destructive {
		bad("destructive", "false when readOnly is true (a read-only tool destroys nothing)", true)
	}
	return errs
}

func validToolName(name string) bool {
	if name == "" || len(name) > MaxToolNameLen {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// Skills configures where skills are found.
type Skills struct {
	// Dirs are searched in order; the first that has a skill's name wins.
	// ~ is the home folder, $XDG_CONFIG_HOME its config folder (default
	// ~/.config), a relative folder is under the workspace root.
	Dirs []string `mapstructure:"dirs"`
}

// DefaultSkillDirs are mcode's own skill folders, then the ones agents
// already use.
var DefaultSkillDirs = []string{"./.mcode/skills", "$XDG_CONFIG_HOME/mcode/skills", "./.claude/skills", "~/.claude/skills"}

// Render configures the render tool.
type Render struct {
	// Fonts are font files (.ttf, .otf, .ttc, .otc; TrueType or CFF
	// outlines) tried first for characters the built-in fonts lack, such
	// as CJK text.
	Fonts []string `mapstructure:"fonts"`
}

// Serve configures mcode mcp serve.
type Serve struct {
	// Token is the HTTP bearer token (MCODE_SERVE_TOKEN wins over it);
	// empty: one is generated at start into MCODE_HOME/serve/token.
	Token string `mapstructure:"token"`
}

// Batch configures mcode batch.
type Batch struct {
	// MaxParallel bounds the calls a batch runs at once; 0 is the CPU
	// count. At most BatchMaxParallel.
	MaxParallel int `mapstructure:"maxParallel"`
}

// BatchMaxParallel is the most calls a batch runs at once.
const BatchMaxParallel = 8

// Defaults is the configuration when nothing is set.
func Defaults() Config {
	return Config{
		ToolResultCompaction: ToolResultCompaction{MaxInlineKiB: 64},
		McpToolSearch: McpToolSearch{
			Enabled: true, Models: []string{"*"}, MinDeferCount: 1,
			ThresholdPct: 0.15, ContextWindow: 200000,
		},
		Guard: Guard{Enabled: true, DefaultPolicy: "allow", ApprovalTTL: time.Hour,
			Paths: GuardPaths{Sensitive: "require_approval", OutsideRoot: "require_approval"}},
		Audit: Audit{Enabled: true, MaxMiB: 64},
		Bash: Bash{
			DefaultTimeout:      120 * time.Second,
			MaxTimeout:          300 * time.Second,
			AutoBackgroundAfter: 100 * time.Second, // exec.AutoBackgroundAfter; 50 s under mcp serve
			TrashShim:           true,
			MaxSpoolMiB:         256,
		},
		Read:    Read{MaxImageWidth: 2000, MaxImageHeight: 2000, MaxImageBase64KiB: 4608},
		Sandbox: Sandbox{Mode: "workspace-write", Network: []string{SandboxNetworkOn}},
		Skills:  Skills{Dirs: slices.Clone(DefaultSkillDirs)},
	}
}

// FieldError is a value that does not fit its key.
type FieldError struct {
	Key      string // canonical key path, e.g. bash.envSanitize
	Expected string
	Got      any
}

func (e FieldError) Error() string {
	return fmt.Sprintf("key %s: expected %s, got %v", e.Key, e.Expected, e.Got)
}

// Enumerations of the config file.
var (
	EnvSanitizeModes = []string{"off", "scrub", "strict"}
	StdinModes       = []string{"json", "none"}
	ToolModes        = []string{"parallel", "sequential"}
	Tiers            = []string{"core", "extension"}
	GuardPolicies    = []string{"allow", "require_approval", "deny"}
	Roles            = []string{"worker", "verifier", "explore"} // each narrower than the one before

	// ShellChoices are bash.shell's names (pkg/osshell says what each picks).
	ShellChoices = []string{"auto", "bash", "sh", "pwsh", "powershell", "git-bash"}
)

// Validate checks the values that the types alone do not.
func (c *Config) Validate() []FieldError {
	var errs []FieldError
	oneOf := func(key, got string, allowed []string, emptyOK bool) {
		if (got == "" && emptyOK) || slices.Contains(allowed, got) {
			return
		}
		errs = append(errs, FieldError{Key: key, Expected: "one of " + strings.Join(allowed, ", "), Got: fmt.Sprintf("%q", got)})
	}
	atLeast := func(key string, got, min int64) {
		if got < min {
			errs = append(errs, FieldError{Key: key, Expected: fmt.Sprintf("a number >= %d", min), Got: got})
		}
	}
	oneOf("bash.envSanitize", c.Bash.EnvSanitize, EnvSanitizeModes, true)
	if !filepath.IsAbs(c.Bash.Shell) {
		oneOf("bash.shell", c.Bash.Shell, ShellChoices, true)
	}
	oneOf("guard.defaultPolicy", c.Guard.DefaultPolicy, GuardPolicies, false)
	regex := func(key, pattern string) {
		if _, err := regexp.Compile(pattern); err != nil {
			errs = append(errs, FieldError{Key: key, Expected: "a regular expression (Go RE2 syntax)", Got: fmt.Sprintf("%q: %v", pattern, err)})
		}
	}
	for i, r := range c.Guard.Rules {
		oneOf(fmt.Sprintf("guard.rules[%d].action", i), r.Action, GuardPolicies, false)
		regex(fmt.Sprintf("guard.rules[%d].argPattern", i), r.ArgPattern)
	}
	for i, g := range c.Guard.Grants {
		regex(fmt.Sprintf("guard.grants[%d].argPattern", i), g.ArgPattern)
	}
	oneOf("guard.paths.sensitive", c.Guard.Paths.Sensitive, GuardPolicies, false)
	oneOf("guard.paths.outsideRoot", c.Guard.Paths.OutsideRoot, GuardPolicies, false)
	for _, ev := range []struct {
		event string
		hooks []Hook
	}{{"before_tool", c.Hooks.BeforeTool}, {"after_tool", c.Hooks.AfterTool}, {"on_error", c.Hooks.OnError}} {
		event := ev.event
		for i, h := range ev.hooks {
			key := fmt.Sprintf("hooks.%s[%d]", event, i)
			if (h.Command == "") == (len(h.Redact) == 0) {
				errs = append(errs, FieldError{Key: key, Expected: "either command or redact", Got: fmt.Sprintf("command %q, redact %q", h.Command, h.Redact)})
			}
			if h.Timeout < 0 {
				errs = append(errs, FieldError{Key: key + ".timeout", Expected: "a duration of 0 (the default) or more", Got: h.Timeout})
			}
			if len(h.Redact) > 0 && event != "after_tool" {
				errs = append(errs, FieldError{Key: key + ".redact", Expected: "redact steps under hooks.after_tool only (they mask results)", Got: h.Redact})
			}
			for _, p := range h.Redact {
				if p != RedactDefault {
					regex(key+".redact", p)
				}
			}
		}
	}
	for i, r := range c.Workspace.Roots {
		if !strings.HasPrefix(r, "/") && !strings.HasPrefix(r, "~/") {
			errs = append(errs, FieldError{Key: fmt.Sprintf("workspace.roots[%d]", i), Expected: "an absolute path, or ~/… for the home folder", Got: fmt.Sprintf("%q", r)})
		}
	}
	atLeast("audit.maxMiB", int64(c.Audit.MaxMiB), 1)
	for name, a := range c.Agents {
		oneOf("agents."+name+".role", a.Role, Roles, true)
	}
	atLeast("toolResultCompaction.maxInlineKiB", int64(c.ToolResultCompaction.MaxInlineKiB), 1)
	atLeast("bash.maxSpoolMiB", int64(c.Bash.MaxSpoolMiB), 1)
	positive := func(key string, d time.Duration) {
		if d <= 0 {
			errs = append(errs, FieldError{Key: key, Expected: "a duration above 0: seconds (90) or a Go duration (90s, 2m)", Got: d})
		}
	}
	positive("bash.defaultTimeout", c.Bash.DefaultTimeout)
	positive("guard.approvalTTL", c.Guard.ApprovalTTL)
	positive("bash.maxTimeout", c.Bash.MaxTimeout)
	if c.Bash.AutoBackgroundAfter < 0 {
		errs = append(errs, FieldError{Key: "bash.autoBackgroundAfter", Expected: "a duration of 0 (never) or more", Got: c.Bash.AutoBackgroundAfter})
	}
	atLeast("read.maxImageWidth", int64(c.Read.MaxImageWidth), 1)
	atLeast("read.maxImageHeight", int64(c.Read.MaxImageHeight), 1)
	atLeast("read.maxImageBase64KiB", int64(c.Read.MaxImageBase64KiB), 1)
	for i, t := range c.Tools.Custom {
		errs = append(errs, t.Check(fmt.Sprintf("tools.custom[%d]", i))...)
	}
	if c.Batch.MaxParallel < 0 || c.Batch.MaxParallel > BatchMaxParallel {
		errs = append(errs, FieldError{Key: "batch.maxParallel", Expected: fmt.Sprintf("a number from 1 to %d, or 0 for the CPU count (at most %d)", BatchMaxParallel, BatchMaxParallel), Got: c.Batch.MaxParallel})
	}

	errs = append(errs, c.Sandbox.validate("sandbox")...)
	if c.Sandbox.Mode == "" {
		errs = append(errs, FieldError{Key: "sandbox.mode", Expected: "one of " + strings.Join(SandboxModes, ", "), Got: `""`})
	}
	for i, h := range c.Fetch.AllowHosts {
		if err := safenet.CheckAllowEntry(h); err != nil {
			errs = append(errs, FieldError{Key: fmt.Sprintf("fetch.allowHosts[%d]", i),
				Expected: "a host name, *.domain, an IP address or a CIDR prefix", Got: err.Error()})
		}
	}

	errs = append(errs, c.validateMcp()...)
	if c.McpToolSearch.ThresholdPct < 0 || c.McpToolSearch.ThresholdPct > 1 {
		errs = append(errs, FieldError{Key: "mcpToolSearch.thresholdPct", Expected: "a fraction between 0 and 1 (0.15 is 15%)", Got: c.McpToolSearch.ThresholdPct})
	}
	return errs
}

// McpServerSeparator joins a server's name and a tool's name (SERVER__TOOL),
// so a server's name never holds it.
const McpServerSeparator = "__"

// validateMcp checks mcpServers, the agents' mcpServers allowlists and
// mcpToolSearch. Keys are reported in a fixed order.
func (c *Config) validateMcp() []FieldError {
	var errs []FieldError
	add := func(key, expected string, got any) {
		errs = append(errs, FieldError{Key: key, Expected: expected, Got: got})
	}
	names := make([]string, 0, len(c.McpServers))
	for name := range c.McpServers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		s, key := c.McpServers[name], "mcpServers."+name
		if !validServerName(name) {
			add(key, "a server name of letters, digits, - and _ (no __, which separates SERVER__TOOL), starting with a letter or digit", fmt.Sprintf("%q", name))
		}
		switch {
		case s.Command == "" && s.URL == "":
			add(key, "command (a stdio server) or url (a streamable HTTP server)", "neither")
		case s.Command != "" && s.URL != "":
			add(key, "either command (stdio) or url (HTTP), not both", "both")
		case s.URL != "":
			if !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") {
				add(key+".url", "an http:// or https:// URL", fmt.Sprintf("%q", s.URL))
			}
			if len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" {
				add(key, "args, env and cwd only with command (they start a stdio server)", "url with args, env or cwd")
			}
		case len(s.Headers) > 0:
			add(key+".headers", "headers only with url (an HTTP server)", "command with headers")
		}
		if s.Timeout < 0 {
			add(key+".timeout", "a duration of 0 (the default) or more", s.Timeout)
		}
		if s.Tier != "" && !slices.Contains(Tiers, s.Tier) {
			add(key+".tier", "one of "+strings.Join(Tiers, ", "), fmt.Sprintf("%q", s.Tier))
		}
		errs = append(errs, s.Sandbox.validate(key+".sandbox")...)
	}
	agents := make([]string, 0, len(c.Agents))
	for a := range c.Agents {
		agents = append(agents, a)
	}
	slices.Sort(agents)
	for _, a := range agents {
		for i, server := range c.Agents[a].McpServers {
			found := false
			for name := range c.McpServers {
				found = found || strings.EqualFold(name, server)
			}
			if !found {
				add(fmt.Sprintf("agents.%s.mcpServers[%d]", a, i), "the name of a server in mcpServers ("+strings.Join(names, ", ")+")", fmt.Sprintf("%q", server))
			}
		}
	}
	if c.McpToolSearch.MinDeferCount < 0 {
		add("mcpToolSearch.minDeferCount", "a number >= 0", c.McpToolSearch.MinDeferCount)
	}
	if c.McpToolSearch.ContextWindow < 1 {
		add("mcpToolSearch.contextWindow", "a number of tokens >= 1", c.McpToolSearch.ContextWindow)
	}
	return errs
}

func validServerName(name string) bool {
	if name == "" || strings.Contains(name, McpServerSeparator) {
		return false
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || (i > 0 && (r == '-' || r == '_'))
		if !ok {
			return false
		}
	}
	return true
}

// ParseDuration reads bare seconds ("90", "1.5") or a Go duration ("90s", "2m").
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs < 0 || math.IsInf(secs, 0) || math.IsNaN(secs) || secs > math.MaxInt64/float64(time.Second) {
			return 0, fmt.Errorf("duration %q out of range", s)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: use seconds (90) or a Go duration (90s, 2m)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %q is negative", s)
	}
	return d, nil
}
