//go:build unix

package exec

import (
	"context"
	"encoding/json"
	"testing"
)

// BenchmarkBashTrue is one call of `true` under its supervisor: the cost
// mcode adds around a command, minus the caller's own start (P10 measures
// the whole CLI).
func BenchmarkBashTrue(b *testing.B) {
	env := testEnv(b, nil)
	tl := Tool(Options{})
	args, _ := json.Marshal(map[string]any{"command": "true"})
	for b.Loop() {
		if _, err := tl.Run(context.Background(), env, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRender is the output of a long command, cut and cleaned.
func BenchmarkRender(b *testing.B) {
	v := viewOf(numbered(1_000_000), 1<<30)
	for b.Loop() {
		renderOutput(v, OutputCap)
	}
}
