package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcode-dev/mcode/pkg/connector"
)

// The mcpServers example that connector --help and the skill show is a
// config mcode reads, with the servers it names.
func TestConnectorConfigExampleLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(connector.ConfigExample+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := loadConfig([]configFile{{layer: "user file", path: path, trusted: true, explicit: true}}, func(string) string { return "" }, nil)
	if err != nil {
		t.Fatalf("the example is not a valid config: %v", err)
	}
	docs, remote := cfg.McpServers["docs"], cfg.McpServers["remote"]
	if docs.Command != "npx" || len(docs.Args) != 2 || docs.Timeout == 0 || remote.URL != "http://127.0.0.1:3001/mcp" || len(remote.Headers) != 1 {
		t.Errorf("servers read from the example: %+v", cfg.McpServers)
	}
}
