package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// BenchmarkScan200 is the catalogue of 200 skills (bench.sh X2 runs it
// through the CLI).
func BenchmarkScan200(b *testing.B) {
	root := b.TempDir()
	for i := range 200 {
		dir := filepath.Join(root, "skills", fmt.Sprintf("s%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		text := fmt.Sprintf("---\nname: s%d\ndescription: Skill number %d, for benchmarks.\n---\n# Body\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cfg := config.Defaults()
	cfg.Skills.Dirs = []string{"skills"}
	env := &tool.Env{Root: root, Config: &cfg, Getenv: func(string) string { return "" }}
	b.ResetTimer()
	for range b.N {
		if n := len(Scan(env).Skills); n != 200 {
			b.Fatalf("%d skills", n)
		}
	}
}
