//go:build linux

package sandbox

import (
	"os"
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
	pl := New(Inputs{Root: root, Getenv: os.Getenv, Config: configFor("workspace-write")}).Plan()
	for b.Loop() {
		_, release, err := Start(pl, func() error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		release()
	}
}
