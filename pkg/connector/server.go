// Package connector finds, describes and calls the tools of MCP servers
// configured in mcpServers: stdio servers it starts in their own process
// group, streamable HTTP servers it reaches by URL. Tool listings are
// cached per server so that a search starts no server at all.
package connector

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Separator joins a server's name and a tool's name into the tool's
// qualified name: valid in every function-calling format.
const Separator = config.McpServerSeparator

// Transports of a server.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// Time limits, unless the server's config sets its own timeout.
const (
	DefaultServerTimeout = 30 * time.Second // start-up and listing of one server
	DefaultCallTimeout   = 60 * time.Second // start-up and one tool call
)

// Server is one configured MCP server.
type Server struct {
	Name   string
	Config config.McpServer
}

// Transport is stdio or http.
func (s Server) Transport() string {
	if s.Config.URL != "" {
		return TransportHTTP
	}
	return TransportStdio
}

// Timeout is the server's own limit for start-up and listing.
func (s Server) Timeout() time.Duration {
	if s.Config.Timeout > 0 {
		return s.Config.Timeout
	}
	return DefaultServerTimeout
}

// Hash names the server's config: a cached listing is valid only for
// the config that produced it. Header values are hashed as written, so
// a secret behind ${VAR} never reaches the cache.
func (s Server) Hash() string {
	data, _ := json.Marshal(struct {
		Name string
		Cfg  config.McpServer
	}{s.Name, s.Config})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// Servers returns the configured servers the agent may use (allow empty:
// every one), sorted by name.
func Servers(cfg *config.Config, allow []string) []Server {
	var out []Server
	for name, sc := range cfg.McpServers {
		if len(allow) > 0 && !slices.ContainsFunc(allow, func(a string) bool { return strings.EqualFold(a, name) }) {
			continue
		}
		out = append(out, Server{Name: name, Config: sc})
	}
	slices.SortFunc(out, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// MaxNameLength is the longest function name every function-calling API
// takes (OpenAI's 64).
const MaxNameLength = 64

// QualifiedName is SERVER__TOOL, in the characters every function-calling
// API takes (letters, digits, _ and -; MCP also allows . and /, which
// become _), at most MaxNameLength long (a longer one ends in a hash of
// the whole).
func QualifiedName(server, toolName string) string {
	name := server + Separator + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, toolName)
	if len(name) <= MaxNameLength {
		return name
	}
	sum := sha256.Sum256([]byte(server + Separator + toolName))
	return name[:MaxNameLength-9] + "_" + hex.EncodeToString(sum[:4])
}

// qualify gives each tool of one server its qualified name, one name
// per tool: QualifiedName maps . / and the like to _, so "a.b", "a/b"
// and "a_b" would share one. In such a group the tool whose name maps to
// itself (then the first by name) keeps the plain name; each other one
// gets a hash of its real name added, so that a name never leads to
// another tool than the one it was listed for.
func qualify(server string, tools []ToolDef) {
	groups := map[string][]int{}
	for i := range tools {
		tools[i].qualified = QualifiedName(server, tools[i].Name)
		key := tool.NormalizeName(tools[i].qualified)
		groups[key] = append(groups[key], i)
	}
	for _, group := range groups {
		if len(group) < 2 {
			continue
		}
		exact := func(i int) bool { return tools[i].qualified == server+Separator+tools[i].Name }
		slices.SortFunc(group, func(a, b int) int {
			if exact(a) != exact(b) {
				if exact(a) {
					return -1
				}
				return 1
			}
			return strings.Compare(tools[a].Name, tools[b].Name)
		})
		for _, i := range group[1:] {
			sum := sha256.Sum256([]byte(server + Separator + tools[i].Name))
			name := tools[i].qualified
			if len(name) > MaxNameLength-9 {
				name = name[:MaxNameLength-9]
			}
			tools[i].qualified = name + "_" + hex.EncodeToString(sum[:4])
		}
	}
}

// SplitName splits SERVER__TOOL (or SERVER/TOOL) into its parts. Server
// names never hold the separator (config validation), so the first one
// splits.
func SplitName(name string) (server, toolName string, ok bool) {
	name = strings.TrimSpace(name)
	i, n := strings.Index(name, Separator), len(Separator)
	if j := strings.IndexByte(name, '/'); j >= 0 && (i < 0 || j < i) {
		i, n = j, 1
	}
	if i <= 0 || i+n >= len(name) {
		return "", "", false
	}
	return name[:i], name[i+n:], true
}

// expand replaces ${VAR} and ${VAR:-default} with the caller's
// environment. A bare $VAR is left alone: it belongs to a shell command
// in args (sh -c '… "$1" …').
func expand(s string, getenv func(string) string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		name, def, hasDef := strings.Cut(s[i+2:i+j], ":-")
		b.WriteString(s[:i])
		if v := getenv(name); v != "" || !hasDef {
			b.WriteString(v)
		} else {
			b.WriteString(def)
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// lookupServer finds a server by name, case-insensitively.
func lookupServer(servers []Server, name string) (Server, error) {
	for _, s := range servers {
		if strings.EqualFold(s.Name, name) {
			return s, nil
		}
	}
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	hint := "no MCP server is configured for this agent: add one under mcpServers in the config (docs/connector.md)"
	if len(names) > 0 {
		hint = "servers this agent may use: " + strings.Join(names, ", ")
	}
	return Server{}, &tool.Error{Code: tool.CodeNotFound, Message: fmt.Sprintf("no MCP server %q", name), Hint: hint}
}
