package connector

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
)

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
}

// Qualified is the tool's SERVER__TOOL name.
func (t ToolDef) Qualified() string { return QualifiedName(t.Server, t.Name) }

// Listing is one server's tool list as cached.
type Listing struct {
	Server          string    `json:"server"`
	ConfigHash      string    `json:"config_hash"`
	FetchedAt       time.Time `json:"fetched_at"`
	ProtocolVersion string    `json:"protocol_version"`
	Tools           []ToolDef `json:"tools"`
}

func cachePath(dataDir string, s Server) string {
	return filepath.Join(dataDir, CacheDir, s.Name+"-"+s.Hash()+".json")
}

// loadListing reads a server's cached listing; ok is false when there
// is none, it is for another config, or it is older than the TTL.
func loadListing(dataDir string, s Server, now time.Time) (Listing, bool) {
	data, err := os.ReadFile(cachePath(dataDir, s))
	if err != nil {
		return Listing{}, false
	}
	var l Listing
	if json.Unmarshal(data, &l) != nil || l.ConfigHash != s.Hash() || l.Server != s.Name {
		return Listing{}, false
	}
	if age := now.Sub(l.FetchedAt); age < 0 || age > CacheTTL {
		return Listing{}, false
	}
	for i := range l.Tools {
		l.Tools[i].Server = s.Name
	}
	return l, true
}

// saveListing caches a listing that succeeded (a failed one never is).
func saveListing(dataDir string, s Server, l Listing) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	p := cachePath(dataDir, s)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFileAtomicNoSync(p, data, 0o644)
}
