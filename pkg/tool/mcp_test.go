package tool

import (
	"encoding/json"
	"testing"
)

// The four facts MCP knows go out as hints and come back as the same
// facts; hints a server leaves out take the protocol's defaults.
func TestMCPAnnotationsBothWays(t *testing.T) {
	for i := range 16 {
		f := Facts{ReadOnly: i&1 != 0, Destructive: i&2 != 0, Idempotent: i&4 != 0, OpenWorld: i&8 != 0}
		if f.ReadOnly && f.Destructive {
			continue // no tool is both
		}
		raw, err := json.Marshal(f.MCPAnnotations())
		if err != nil {
			t.Fatal(err)
		}
		if back := FactsOfMCPAnnotations(raw); back != f {
			t.Errorf("%+v went out as %s and came back as %+v", f, raw, back)
		}
	}
	if got := FactsOfMCPAnnotations(json.RawMessage(`{}`)); got != (Facts{Destructive: true, OpenWorld: true}) {
		t.Errorf("no hints: %+v, want destructive and open world", got)
	}
	if got := FactsOfMCPAnnotations(json.RawMessage(`{"readOnlyHint": true}`)); got.Destructive {
		t.Errorf("a read-only tool is never destructive: %+v", got)
	}
}
