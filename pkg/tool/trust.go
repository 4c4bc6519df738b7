package tool

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Untrusted is code that a config file the caller can write asks mcode
// to run (an MCP server, a command tool, a hook): it runs only once a
// person trusted this exact definition, in this workspace.
type Untrusted struct {
	Kind       string          `json:"kind"` // "mcp server", "command tool", "hook"
	Name       string          `json:"name"`
	Layer      string          `json:"layer"` // the file or variable that defines it
	Digest     string          `json:"digest"`
	Definition json.RawMessage `json:"definition"` // what the person is shown
}

// NewUntrusted describes a definition; the digest covers its kind, name,
// the workspace root (a relative command names another program
// elsewhere) and the definition itself.
func NewUntrusted(kind, name, layer, root string, def any) *Untrusted {
	data, _ := json.Marshal(def)
	h := sha256.New()
	for _, part := range []string{kind, name, root} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	h.Write(data)
	return &Untrusted{Kind: kind, Name: name, Layer: layer, Digest: "sha256:" + hex.EncodeToString(h.Sum(nil)), Definition: data}
}
