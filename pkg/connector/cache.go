package connector

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// ConfigExample shows how MCP servers are declared in mcode's config: the
// connector's --help and the skill both print it.
const ConfigExample = `mcpServers:                      # in ./.mcode.yaml or ~/.config/mcode/config.yaml
  docs:                          # stdio: mcode starts the server
    command: npx
    args: ["-y", "@modelcontextprotocol/server-everything"]
    env: {LOG_LEVEL: "0"}
    timeout: 30s
  remote:                        # streamable HTTP
    url: "http://127.0.0.1:3001/mcp"
    headers: {Authorization: "Bearer ${DOCS_TOKEN}"}`

// CacheDir is where tool listings are kept, under MCODE_HOME.
const CacheDir = "cache/connector"

// CacheTTL is how long a listing is trusted before the server is asked
// again (--refresh asks at once).
const CacheTTL = 24 * time.Hour

// ToolDef is one tool as its server lists it, with the server's own keys.
type ToolDef struct {
	Server       string          `json:"-"`
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	// Params are the names of InputSchema's properties, kept for search.
	Params []string `json:"params,omitempty"`
	// Aliases are other names the tool takes for its parameters, from its
	// _meta (mcode's own tools publish them): a call is checked against
	// the input schema after they are rewritten, as the server would.
	Aliases map[string]tool.Alias `json:"aliases,omitempty"`
	// Summary is the description's first line (set by the index).
	Summary string `json:"-"`
	// qualified is its SERVER__TOOL name among its server's tools (see
	// qualify); "" until the listing is qualified.
	qualified string
}

// SkippedTool is a tool a server lists that cannot be offered: it has
// no name, or its schema cannot be used. The server's other tools are.
type SkippedTool struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// summary is the description's first line.
func (t ToolDef) summary() string {
	if t.Summary != "" {
		return t.Summary
	}
	return tool.FirstLine(t.Description)
}

// Qualified is the tool's SERVER__TOOL name.
func (t ToolDef) Qualified() string {
	if t.qualified != "" {
		return t.qualified
	}
	return QualifiedName(t.Server, t.Name)
}

// listingFormat is the version of the cached listing's shape: a listing
// of another one (before tools carried their aliases) is fetched again.
const listingFormat = 2

// Listing is one server's tool list as cached.
type Listing struct {
	Format          int       `json:"format"`
	Server          string    `json:"server"`
	ConfigHash      string    `json:"config_hash"`
	FetchedAt       time.Time `json:"fetched_at"`
	ProtocolVersion string    `json:"protocol_version"`
	Tools           []ToolDef `json:"tools"`
	// Skipped are the tools left out, each with the reason.
	Skipped []SkippedTool `json:"skipped,omitempty"`
}

func cachePath(dataDir string, s Server) string {
	return filepath.Join(dataDir, CacheDir, s.Name+"-"+s.Hash()+".json")
}

// indexPath is the search index beside a listing: one line per tool,
// what ranking needs and nothing else, so that a search over a thousand
// tools parses no JSON at all.
func indexPath(dataDir string, s Server) string {
	return filepath.Join(dataDir, CacheDir, s.Name+"-"+s.Hash()+".idx")
}

const indexMagic = "mcode-connector-index-2"

// flat puts text on one index field: no tab, no line break.
var flat = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

func encodeIndex(l Listing) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", indexMagic, l.Server, l.ConfigHash, l.FetchedAt.UTC().Format(time.RFC3339Nano), flat.Replace(l.ProtocolVersion))
	for _, t := range l.Tools {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", flat.Replace(t.Name), flat.Replace(t.Title),
			flat.Replace(strings.Join(t.Params, " ")), flat.Replace(tool.FirstLine(t.Description)), flat.Replace(t.Description))
	}
	// A skipped tool's line starts with an empty name, which no listed
	// tool has.
	for _, t := range l.Skipped {
		fmt.Fprintf(&b, "\t%s\t%s\t\t\n", flat.Replace(t.Name), flat.Replace(t.Reason))
	}
	return []byte(b.String())
}

// loadIndex reads a server's search index: its tools with names,
// titles, parameter names and descriptions, but no schemas. ok is false
// as for loadListing.
func loadIndex(dataDir string, s Server, now time.Time) (Listing, bool) {
	data, err := os.ReadFile(indexPath(dataDir, s))
	if err != nil {
		return Listing{}, false
	}
	text := string(data)
	head, rest, _ := strings.Cut(text, "\n")
	f := strings.Split(head, "\t")
	if len(f) != 5 || f[0] != indexMagic || f[1] != s.Name || f[2] != s.Hash() {
		return Listing{}, false
	}
	at, err := time.Parse(time.RFC3339Nano, f[3])
	if err != nil {
		return Listing{}, false
	}
	if age := now.Sub(at); age < 0 || age > CacheTTL {
		return Listing{}, false
	}
	l := Listing{Server: s.Name, ConfigHash: f[2], FetchedAt: at, ProtocolVersion: f[4], Tools: make([]ToolDef, 0, strings.Count(rest, "\n"))}
	for line := range strings.Lines(rest) {
		t := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(t) != 5 {
			return Listing{}, false
		}
		if t[0] == "" {
			l.Skipped = append(l.Skipped, SkippedTool{Name: t[1], Reason: t[2]})
			continue
		}
		l.Tools = append(l.Tools, ToolDef{Server: s.Name, Name: t[0], Title: t[1], Params: strings.Fields(t[2]), Summary: t[3], Description: t[4]})
	}
	qualify(s.Name, l.Tools)
	return l, true
}

// loadListing reads a server's cached listing; ok is false when there
// is none, it is for another config, or it is older than the TTL.
func loadListing(dataDir string, s Server, now time.Time) (Listing, bool) {
	data, err := os.ReadFile(cachePath(dataDir, s))
	if err != nil {
		return Listing{}, false
	}
	var l Listing
	if json.Unmarshal(data, &l) != nil || l.Format != listingFormat || l.ConfigHash != s.Hash() || l.Server != s.Name {
		return Listing{}, false
	}
	if age := now.Sub(l.FetchedAt); age < 0 || age > CacheTTL {
		return Listing{}, false
	}
	for i := range l.Tools {
		l.Tools[i].Server = s.Name
	}
	qualify(s.Name, l.Tools)
	return l, true
}

// saveListing caches a listing that succeeded (a failed one never is).
func saveListing(dataDir string, s Server, l Listing) error {
	l.Format = listingFormat
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	p := cachePath(dataDir, s)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomicNoSync(p, data, 0o644); err != nil {
		return err
	}
	return fsutil.WriteFileAtomicNoSync(indexPath(dataDir, s), encodeIndex(l), 0o644)
}
