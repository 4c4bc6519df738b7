//go:build linux

package sandbox

import (
	"os"
	"runtime"
	"testing"
)

func BenchmarkNew(b *testing.B) {
	root := b.TempDir()
	for b.Loop() {
		New(Inputs{Root: root, Getenv: os.Getenv, Config: configFor("workspace-write")})
	}
}

func BenchmarkPlan(b *testing.B) {
	root := b.TempDir()
	p := New(Inputs{Root: root, Getenv: os.Getenv, Config: configFor("workspace-write")})
	for b.Loop() {
		p.Plan()
	}
}

func BenchmarkStart(b *testing.B) {
	root := b.TempDir()
	os.MkdirAll(root+"/.git/hooks", 0o755)
	os.WriteFile(root+"/.git/config", nil, 0o644)
	os.WriteFile(root+"/.mcode.yaml", nil, 0o644)
	pl := New(Inputs{Root: root, Getenv: os.Getenv, Config: configFor("workspace-write")}).Plan()
	for b.Loop() {
		_, release, err := Start(pl, func() error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		release()
	}
}

// BenchmarkStartNoMounts is Start with nothing to hold: Landlock and
// seccomp only.
func BenchmarkStartNoMounts(b *testing.B) {
	root := b.TempDir()
	pl := New(Inputs{Root: root, Getenv: os.Getenv, Config: configFor("workspace-write")}).Plan()
	for b.Loop() {
		_, release, err := Start(pl, func() error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		release()
	}
}

// BenchmarkUnconfinedThread is the floor: a locked thread that does
// nothing, as Start makes one.
func BenchmarkUnconfinedThread(b *testing.B) {
	for b.Loop() {
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(done)
		}()
		<-done
	}
}
