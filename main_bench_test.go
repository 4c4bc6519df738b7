package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkColdStart is a call as the model pays for it: a whole mcode
// process (package init of everything linked, the command tree, config,
// the tool's schema, the envelope), which the in-process benchmarks of
// cmd and pkg/exec amortize away after their first round. bash runs a
// second mcode process, its supervisor. The test binary links a little
// more than mcode does; scripts/bench.sh P1 P10 times the real one
// against cat -n and bash -c true.
func BenchmarkColdStart(b *testing.B) {
	dir := b.TempDir()
	small := filepath.Join(dir, "small.go")
	if err := os.WriteFile(small, []byte(strings.Repeat("// a line of code\n", 20)), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"version", []string{"version"}},
		{"read-small", []string{"read", small}},
		{"bash-true", []string{"bash", "true"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				// argv[0] "mcode" makes the test binary mcode (TestMain).
				cmd := &exec.Cmd{Path: os.Args[0], Args: append([]string{"mcode"}, c.args...), Dir: dir,
					Env: append(os.Environ(), "MCODE_HOME="+filepath.Join(dir, "home"), "MCODE_CONFIG=/dev/null")}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %v\n%s", c.args, err, out)
				}
			}
		})
	}
}
