package zstd

import (
	"archive/tar"
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// benchTar is a tar of Go's own sources, cut at 100 MiB: what an
// artifact looks like.
var benchTar = sync.OnceValues(func() ([]byte, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	root := filepath.Join(runtime.GOROOT(), "src")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || b.Len() > 100<<20 {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		tw.WriteHeader(&tar.Header{Name: rel, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		_, err = tw.Write(data)
		return err
	})
	tw.Close()
	return b.Bytes()[:min(b.Len(), 100<<20)], err
})

// BenchmarkDecode decodes 100 MiB of tar, compressed by the zstd CLI at
// -3 (or klauspost's encoder without it), with this package and with
// klauspost's single-threaded decoder.
func BenchmarkDecode(b *testing.B) {
	plain, err := benchTar()
	if err != nil {
		b.Fatal(err)
	}
	var comp []byte
	if _, err := exec.LookPath("zstd"); err == nil {
		cmd := exec.Command("zstd", "-3", "-c", "-q")
		cmd.Stdin = bytes.NewReader(plain)
		if comp, err = cmd.Output(); err != nil {
			b.Fatal(err)
		}
	} else {
		comp = encStream(b, plain)
	}
	b.Run("ours", func(b *testing.B) {
		b.SetBytes(int64(len(plain)))
		for b.Loop() {
			n, err := io.Copy(io.Discard, NewReader(bytes.NewReader(comp), testMaxWindow))
			if err != nil || n != int64(len(plain)) {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("klauspost", func(b *testing.B) {
		b.SetBytes(int64(len(plain)))
		for b.Loop() {
			z, _ := zstd.NewReader(bytes.NewReader(comp), zstd.WithDecoderMaxWindow(testMaxWindow), zstd.WithDecoderConcurrency(1))
			n, err := io.Copy(io.Discard, z)
			z.Close()
			if err != nil || n != int64(len(plain)) {
				b.Fatal(n, err)
			}
		}
	})
}
