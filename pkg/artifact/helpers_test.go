package artifact

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// member is one entry of an archive a test builds.
type member struct {
	name string
	typ  byte // tar type; 0 is a regular file
	body string
	link string
	mode int64
	size int64 // header size when it differs from the body's
}

var testTime = time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)

func tarBytes(t *testing.T, members ...member) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, m := range members {
		h := &tar.Header{Name: m.name, Typeflag: m.typ, Linkname: m.link, Mode: m.mode, ModTime: testTime, Format: tar.FormatPAX}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Mode == 0 {
			h.Mode = 0o644
			if h.Typeflag == tar.TypeDir {
				h.Mode = 0o755
			}
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(m.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(m.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gz(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zipBytes(t *testing.T, members ...member) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, m := range members {
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate, Modified: testTime}
		mode := os.FileMode(0o644)
		if m.typ == tar.TypeSymlink {
			mode = os.ModeSymlink | 0o777
			m.body = m.link
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(m.body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func sri512(data []byte) string {
	s := sha512.Sum512(data)
	return "sha512-" + base64.StdEncoding.EncodeToString(s[:])
}

func hex256(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func mustIntegrity(t *testing.T, s string) Integrity {
	t.Helper()
	in, err := ParseIntegrity(s)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// tree lists every path below dir (relative, sorted), with a / after
// folders and -> after links, to compare whole trees.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		switch {
		case info.IsDir():
			rel += "/"
		case info.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			rel += " -> " + target
		default:
			data, _ := os.ReadFile(p)
			rel += " = " + string(data)
		}
		out = append(out, rel)
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func wantCode(t *testing.T, err error, code tool.Code) *tool.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	var te *tool.Error
	if !errors.As(err, &te) || te.Code != code {
		t.Fatalf("error %v, want code %s", err, code)
	}
	return te
}

func extract(t *testing.T, o ExtractOptions) (*ExtractResult, error) {
	t.Helper()
	return Extract(context.Background(), o)
}
