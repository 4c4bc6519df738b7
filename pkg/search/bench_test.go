package search

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Benchmarks over a real tree: MCODE_BENCH_CORPUS names it (scripts/bench.sh
// builds one from the Go toolchain; any source tree will do).
func benchCorpus(b *testing.B) *tool.Env {
	dir := os.Getenv("MCODE_BENCH_CORPUS")
	if dir == "" {
		b.Skip("set MCODE_BENCH_CORPUS to a source tree to run search benchmarks")
	}
	home, _ := os.UserHomeDir()
	return &tool.Env{Root: dir, UserHome: home}
}

func BenchmarkGrep(b *testing.B) {
	env := benchCorpus(b)
	for _, c := range []struct {
		name string
		p    GrepParams
	}{
		{"literal-rare", GrepParams{Pattern: "xyzzyNotHere", FixedStrings: true}},
		{"literal-common", GrepParams{Pattern: "return err", FixedStrings: true}},
		{"fold", GrepParams{Pattern: "deadline", CaseInsensitive: true}},
		{"regex-literal", GrepParams{Pattern: `func \w+Context\(`}},
		{"regex-noliteral-count", GrepParams{Pattern: `\w+_\w+\(`, Mode: ModeCount}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Grep(context.Background(), env, c.p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGlob(b *testing.B) {
	env := benchCorpus(b)
	for b.Loop() {
		if _, err := Glob(context.Background(), env, GlobParams{Pattern: "**/*.go"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFinder(b *testing.B) {
	env := benchCorpus(b)
	var buf []byte
	_ = filepathWalk(env.Root+"/src", func(data []byte) bool {
		buf = append(buf, data...)
		return len(buf) < 64<<20
	})
	for _, l := range []lit{{s: "xyzzyNotHere"}, {s: "return err"}, {s: "errors.New("}, {s: " Context("}, {s: "deadline", fold: true}, {s: "context(", fold: true}} {
		f := newFinder(l)
		b.Run(l.s, func(b *testing.B) {
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				var st finderState
				st.reset()
				n := 0
				for from := 0; ; {
					i := f.index(buf, from, &st)
					if i < 0 {
						break
					}
					n++
					from = i + 1
				}
			}
		})
		b.Run(l.s+"/bytes.Index", func(b *testing.B) {
			if l.fold {
				b.Skip()
			}
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				for from := 0; ; {
					i := bytes.Index(buf[from:], []byte(l.s))
					if i < 0 {
						break
					}
					from += i + 1
				}
			}
		})
	}
}

func BenchmarkReadIndex(b *testing.B) {
	env := benchCorpus(b)
	repo := findRepo(env.Root, gitEnv{})
	if repo == nil {
		b.Skip("the corpus is not a git work tree")
	}
	for b.Loop() {
		names, err := readIndexFile(repo.gitDir+"/index", repo.gitDir, repo.hashSize)
		if err != nil || len(names) == 0 {
			b.Fatal(err)
		}
	}
}
