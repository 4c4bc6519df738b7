package artifact

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/mcode-dev/mcode/pkg/fsutil"
)

// FuzzExtract: whatever bytes an archive holds, extract either fails
// leaving nothing, or writes only below dest, with every link leading
// inside it.
func FuzzExtract(f *testing.F) {
	t := &testing.T{}
	f.Add(gz(t, tarBytes(t, pkgMembers()...)))
	if zw, err := zstd.NewWriter(nil); err == nil {
		f.Add(zw.EncodeAll(tarBytes(t, pkgMembers()...), nil)) // the tar.zst decoder
	}
	f.Add(tarBytes(t, member{name: "a", typ: tar.TypeSymlink, link: "."}, member{name: "b", typ: tar.TypeSymlink, link: "a/.."}))
	f.Add(tarBytes(t, member{name: "../x", body: "x"}))
	f.Add(zipBytes(t, member{name: "d/a.txt", body: "alpha"}, member{name: "l", typ: tar.TypeSymlink, link: "d/a.txt"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		archive := filepath.Join(root, "a.bin")
		if err := os.WriteFile(archive, data, 0o644); err != nil {
			t.Fatal(err)
		}
		work := filepath.Join(root, "work")
		os.Mkdir(work, 0o755)
		dest := filepath.Join(work, "dest")
		_, err := Extract(context.Background(), ExtractOptions{Archive: archive, Dest: dest, MaxSize: 1 << 20})
		entries, _ := os.ReadDir(work)
		if err != nil {
			if len(entries) != 0 {
				t.Fatalf("failed (%v) and left %v", err, entries)
			}
			return
		}
		if len(entries) != 1 || entries[0].Name() != "dest" {
			t.Fatalf("wrote %v beside dest", entries)
		}
		filepath.Walk(dest, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.Mode()&os.ModeSymlink == 0 {
				return nil
			}
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil // dangling, and inside: the target name was checked
			}
			if real != dest && !strings.HasPrefix(real, dest+string(filepath.Separator)) {
				t.Fatalf("link %s leads to %s, outside dest", p, real)
			}
			return nil
		})
	})
}

// FuzzParseSpecs: the strings a caller writes never panic the parsers,
// and what they accept is well formed.
func FuzzParseSpecs(f *testing.F) {
	for _, s := range []string{"sha512-" + strings.Repeat("A", 86) + "==", "sha256:" + strings.Repeat("0", 64), "a/b=sha256:" + strings.Repeat("f", 64) + ":c", "p.json:version=1.2.3", "x:y", "=", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if in, err := ParseIntegrity(s); err == nil {
			for _, d := range in {
				again, err := ParseIntegrity(d.SRI())
				if err != nil || again[0].Hex() != d.Hex() {
					t.Fatalf("%q: %s does not parse back (%v)", s, d.SRI(), err)
				}
			}
		}
		if e, err := ParseEntrySpec(s); err == nil {
			if _, err := CheckRelative(e.Path); err != nil {
				t.Fatalf("%q: accepted path %q: %v", s, e.Path, err)
			}
			if e.Rename != "" {
				if _, err := CheckRelative(e.Rename); err != nil {
					t.Fatalf("%q: accepted rename %q: %v", s, e.Rename, err)
				}
			}
		}
		if x, err := ParseExpectation(s); err == nil && (x.File == "" || x.Key == "") {
			t.Fatalf("%q: accepted %+v", s, x)
		}
		_, _ = fsutil.ParseSize(s)
	})
}

// FuzzZstdReader: any bytes decode to data or an error, never a panic or
// a hang (the output is capped here; extract caps it by --max-size).
func FuzzZstdReader(f *testing.F) {
	t := &testing.T{}
	for _, d := range [][]byte{nil, []byte("hello, hello, hello"), zWords(3000, 1), zMixed(20000, 2), zSkewed(2000, 4)} {
		f.Add(zEnc(t, d))
		f.Add(zEncStream(t, d, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderCRC(false)))
	}
	f.Add(zBlock(2, 4, []byte{0x00, 0x01, 0x00, 0x80}))
	f.Add(zSkippable(0x184D2A50, []byte("x")))
	f.Fuzz(func(t *testing.T, in []byte) {
		z, err := newZstdReader(bytes.NewReader(in))
		if err != nil {
			return
		}
		defer z.Close()
		_, err = io.Copy(io.Discard, io.LimitReader(z, 1<<20))
		if err != nil && !strings.HasPrefix(err.Error(), "zstd: ") {
			t.Fatalf("an error without the zstd: prefix: %v", err)
		}
	})
}
