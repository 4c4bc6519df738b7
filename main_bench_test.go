package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkStartup is P1 and P18 as whole processes: the release binary
// reading a 20-line file beside the floor binary (scripts/floor: cobra +
// viper, the config, the file, numbered lines as JSON) doing the same,
// and the ratio of the two (x_floor; the target is at most 2.5), with
// cat -n for context (x_cat). It runs the built binaries, as a model's
// bash tool does, so every package init and page fault counts:
//
//	go test -run '^$' -bench Startup -benchtime 200x .
func BenchmarkStartup(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "mcode")
	build := exec.Command("scripts/build.sh", bin)
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	floor := filepath.Join(dir, "floor")
	build = exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", floor, "./scripts/floor")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build the floor: %v\n%s", err, out)
	}
	small := filepath.Join(dir, "small.go")
	if err := os.WriteFile(small, []byte(strings.Repeat("// a line of code\n", 20)), 0o644); err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), "MCODE_HOME="+filepath.Join(dir, "home"), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	run := func(name string, args ...string) time.Duration {
		c := exec.Command(name, args...)
		c.Env, c.Dir = env, dir
		start := time.Now()
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return time.Since(start)
	}
	for range 5 { // warm the page cache
		run(bin, "read", small)
		run(floor, "read", small)
		run("cat", "-n", small)
	}
	var mcode, base, cat time.Duration
	b.ResetTimer()
	for range b.N {
		mcode += run(bin, "read", small)
		b.StopTimer()
		base += run(floor, "read", small)
		cat += run("cat", "-n", small)
		b.StartTimer()
	}
	b.ReportMetric(float64(base.Microseconds())/float64(b.N), "floor_µs/op")
	b.ReportMetric(float64(mcode)/float64(base), "x_floor")
	b.ReportMetric(float64(mcode)/float64(cat), "x_cat")
}
