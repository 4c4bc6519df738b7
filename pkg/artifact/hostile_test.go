package artifact

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"

	"github.com/mcode-dev/mcode/internal/peer"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// pythonTrusting is what Python's tarfile does when told to trust an
// archive (the only behaviour before 3.12 and the default until 3.14).
const pythonTrusting = `
import sys, tarfile
kw = {"filter": "fully_trusted"} if hasattr(tarfile, "fully_trusted_filter") else {}
with tarfile.open(sys.argv[1]) as t:
    t.extractall(sys.argv[2], **kw)
`

// sandbox is a scratch folder for a peer: peer/dest is where it extracts
// to, peer/outside/secret a file it must not reach.
func sandbox(t *testing.T) (dest, outside string) {
	t.Helper()
	root := t.TempDir()
	dest, outside = filepath.Join(root, "dest"), filepath.Join(root, "outside")
	os.MkdirAll(dest, 0o755)
	writeFile(t, outside, "secret", []byte("secret"))
	return dest, outside
}

func runPeer(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}

// hostileCase is an archive extract must refuse; proof shows, with a
// real peer, what the archive would do to a trusting extractor.
type hostileCase struct {
	name    string
	archive func(t *testing.T, outside string) []byte
	zip     bool
	want    string // in the message
	proof   func(t *testing.T, archive string)
}

func hostileCases() []hostileCase {
	return []hostileCase{{
		name: "zip-slip in a tar",
		archive: func(t *testing.T, _ string) []byte {
			return gz(t, tarBytes(t, member{name: "ok.txt", body: "ok"}, member{name: "../evil", body: "pwned"}))
		},
		want: "climbs out",
		proof: func(t *testing.T, archive string) {
			peer.Require(t, "python3", "python3")
			dest, _ := sandbox(t)
			if out, err := runPeer(t, "python3", "-c", pythonTrusting, archive, dest); err != nil {
				t.Fatalf("python3: %v\n%s", err, out)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dest), "evil")); err != nil {
				t.Fatalf("python's trusting tarfile did not write ../evil outside dest: the case proves nothing (%v)", err)
			}
			peer.Require(t, "tar", "tar")
			dest, _ = sandbox(t)
			out, err := runPeer(t, "tar", "-xzf", archive, "-C", dest)
			if err == nil || !strings.Contains(out, "..") {
				t.Fatalf("GNU tar accepted ../evil: %v\n%s", err, out)
			}
		},
	}, {
		name: "zip-slip in a zip",
		zip:  true,
		archive: func(t *testing.T, _ string) []byte {
			return zipBytes(t, member{name: "ok.txt", body: "ok"}, member{name: "../../evil", body: "pwned"})
		},
		want: "climbs out",
		proof: func(t *testing.T, archive string) {
			peer.Require(t, "python3", "python3")
			out, err := runPeer(t, "python3", "-c", "import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).namelist())", archive)
			if err != nil || !strings.Contains(out, "'../../evil'") {
				t.Fatalf("python's zipfile does not list ../../evil: %v\n%s", err, out)
			}
		},
	}, {
		name: "zip-slip with backslashes in a zip",
		zip:  true,
		archive: func(t *testing.T, _ string) []byte {
			return zipBytes(t, member{name: `..\..\evil`, body: "pwned"})
		},
		want: "climbs out",
	}, {
		name: "absolute name",
		archive: func(t *testing.T, outside string) []byte {
			return gz(t, tarBytes(t, member{name: filepath.Join(outside, "abs.txt"), body: "pwned"}))
		},
		want: "absolute",
		proof: func(t *testing.T, archive string) {
			peer.Require(t, "tar", "tar")
			dest, _ := sandbox(t)
			out, _ := runPeer(t, "tar", "-xzf", archive, "-C", dest)
			if !strings.Contains(out, "Removing leading") {
				t.Fatalf("GNU tar did not strip the absolute name:\n%s", out)
			}
		},
	}, {
		name: "symlink out, then a file through it",
		archive: func(t *testing.T, outside string) []byte {
			return gz(t, tarBytes(t, member{name: "link", typ: tar.TypeSymlink, link: "../outside"}, member{name: "link/pwned", body: "pwned"}))
		},
		want: "outside the destination",
		proof: func(t *testing.T, archive string) {
			peer.Require(t, "python3", "python3")
			dest, outside := sandbox(t)
			if out, err := runPeer(t, "python3", "-c", pythonTrusting, archive, dest); err != nil {
				t.Fatalf("python3: %v\n%s", err, out)
			}
			if _, err := os.Stat(filepath.Join(outside, "pwned")); err != nil {
				t.Fatalf("python's trusting tarfile did not write through the link: %v", err)
			}
		},
	}, {
		name: "a link chain that is lexically inside",
		archive: func(t *testing.T, _ string) []byte {
			return gz(t, tarBytes(t,
				member{name: "a", typ: tar.TypeSymlink, link: "."},
				member{name: "b", typ: tar.TypeSymlink, link: "a/.."},
				member{name: "b/outside/pwned", body: "pwned"}))
		},
		want: "symlink",
		proof: func(t *testing.T, archive string) {
			peer.Require(t, "python3", "python3")
			dest, outside := sandbox(t)
			if out, err := runPeer(t, "python3", "-c", pythonTrusting, archive, dest); err != nil {
				t.Fatalf("python3: %v\n%s", err, out)
			}
			if _, err := os.Stat(filepath.Join(outside, "pwned")); err != nil {
				t.Fatalf("python's trusting tarfile did not write through a/..: %v", err)
			}
		},
	}, {
		name: "hard link to a file outside",
		archive: func(t *testing.T, _ string) []byte {
			return gz(t, tarBytes(t, member{name: "h", typ: tar.TypeLink, link: "../outside/secret"}))
		},
		want: "hard link",
		proof: func(t *testing.T, archive string) {
			peer.Require(t, "python3", "python3")
			dest, outside := sandbox(t)
			if out, err := runPeer(t, "python3", "-c", pythonTrusting, archive, dest); err != nil {
				t.Fatalf("python3: %v\n%s", err, out)
			}
			a, _ := os.Stat(filepath.Join(dest, "h"))
			b, _ := os.Stat(filepath.Join(outside, "secret"))
			if a == nil || b == nil || !os.SameFile(a, b) {
				t.Fatalf("python's trusting tarfile did not link the outside file into dest")
			}
		},
	}, {
		name: "character device",
		archive: func(t *testing.T, _ string) []byte {
			var b bytes.Buffer
			tw := tar.NewWriter(&b)
			tw.WriteHeader(&tar.Header{Name: "null", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3, Mode: 0o666})
			tw.Close()
			return gz(t, b.Bytes())
		},
		want: "character device",
		proof: func(t *testing.T, archive string) {
			if os.Geteuid() != 0 {
				t.Log("not root: a peer could not make the device to show it")
				return
			}
			peer.Require(t, "tar", "tar")
			dest, _ := sandbox(t)
			if out, err := runPeer(t, "tar", "-xzf", archive, "-C", dest); err != nil {
				t.Fatalf("tar: %v\n%s", err, out)
			}
			if st, err := os.Lstat(filepath.Join(dest, "null")); err != nil || st.Mode()&os.ModeCharDevice == 0 {
				t.Fatalf("GNU tar made no device: %v", err)
			}
		},
	}, {
		name: "FIFO",
		archive: func(t *testing.T, _ string) []byte {
			return gz(t, tarBytes(t, member{name: "fifo", typ: tar.TypeFifo}))
		},
		want: "FIFO",
		proof: func(t *testing.T, archive string) {
			peer.Require(t, "tar", "tar")
			dest, _ := sandbox(t)
			if out, err := runPeer(t, "tar", "-xzf", archive, "-C", dest); err != nil {
				t.Fatalf("tar: %v\n%s", err, out)
			}
			if st, err := os.Lstat(filepath.Join(dest, "fifo")); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
				t.Fatalf("GNU tar made no FIFO: %v", err)
			}
		},
	}, {
		name: "duplicate names",
		archive: func(t *testing.T, _ string) []byte {
			return gz(t, tarBytes(t, member{name: "a.txt", body: "first"}, member{name: "./a.txt", body: "second"}))
		},
		want: "appears twice",
		proof: func(t *testing.T, archive string) {
			peer.Require(t, "tar", "tar")
			dest, _ := sandbox(t)
			if out, err := runPeer(t, "tar", "-xzf", archive, "-C", dest); err != nil {
				t.Fatalf("tar: %v\n%s", err, out)
			}
			if data, _ := os.ReadFile(filepath.Join(dest, "a.txt")); string(data) != "second" {
				t.Fatalf("GNU tar kept %q: the second entry did not silently replace the first", data)
			}
		},
	}, {
		name:    "a small file that inflates to 10 GiB",
		archive: tenGiBBomb,
		want:    "past the",
		proof: func(t *testing.T, archive string) {
			peer.Require(t, "python3", "python3")
			out, err := runPeer(t, "python3", "-c", "import sys, tarfile; print(tarfile.open(sys.argv[1]).next().size)", archive)
			if err != nil || strings.TrimSpace(out) != "10737418240" {
				t.Fatalf("python's tarfile does not see a 10 GiB member: %v\n%s", err, out)
			}
		},
	}, {
		name: "zip entry that inflates past its declared size",
		zip:  true,
		archive: func(t *testing.T, _ string) []byte {
			var raw bytes.Buffer
			fw, _ := flate.NewWriter(&raw, flate.BestCompression)
			fw.Write(make([]byte, 16<<20))
			fw.Close()
			var b bytes.Buffer
			zw := zip.NewWriter(&b)
			w, err := zw.CreateRaw(&zip.FileHeader{Name: "small.txt", Method: zip.Deflate, CompressedSize64: uint64(raw.Len()), UncompressedSize64: 1024})
			if err != nil {
				t.Fatal(err)
			}
			w.Write(raw.Bytes())
			zw.Close()
			return b.Bytes()
		},
		want: "decompression bomb",
	}}
}

// tenGiBBomb is a 10 MiB tar.gz whose one member declares, and holds,
// 10 GiB of zeros: gzip members of 8 MiB of zeros, concatenated.
func tenGiBBomb(t *testing.T, _ string) []byte {
	var hdr bytes.Buffer
	tw := tar.NewWriter(&hdr)
	tw.WriteHeader(&tar.Header{Name: "bomb", Typeflag: tar.TypeReg, Size: 10 << 30, Mode: 0o644})
	var b bytes.Buffer
	b.Write(gz(t, hdr.Bytes()))
	var chunk bytes.Buffer
	w, _ := gzip.NewWriterLevel(&chunk, gzip.BestCompression)
	w.Write(make([]byte, 8<<20))
	w.Close()
	for i := 0; i < (10<<30)/(8<<20); i++ {
		b.Write(chunk.Bytes())
	}
	return b.Bytes()
}

func TestHostileArchivesAreRefusedWithNothingWritten(t *testing.T) {
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			outside := filepath.Join(root, "outside")
			writeFile(t, outside, "secret", []byte("secret"))
			data := c.archive(t, outside)
			ext := "x.tgz"
			if c.zip {
				ext = "x.zip"
			}
			archive := writeFile(t, filepath.Join(root, "in"), ext, data)
			work := filepath.Join(root, "work")
			writeFile(t, filepath.Join(work, "dest"), "keep.txt", []byte("old"))
			before := tree(t, root)

			_, err := extract(t, ExtractOptions{Archive: archive, Dest: filepath.Join(work, "dest")})
			te := wantCode(t, err, tool.CodeUnsafeEntry)
			if !strings.Contains(te.Message, c.want) || !strings.Contains(te.Message, "nothing was written") {
				t.Errorf("message %q lacks %q", te.Message, c.want)
			}
			if after := tree(t, root); !slices.Equal(before, after) {
				t.Fatalf("the tree changed:\nbefore %q\nafter  %q", before, after)
			}
			// The same archive, wrong pin: the mismatch is what is reported.
			_, err = extract(t, ExtractOptions{Archive: archive, Dest: filepath.Join(work, "dest"), Integrity: mustIntegrity(t, sri512([]byte("x")))})
			wantCode(t, err, tool.CodeChecksumMismatch)
			if after := tree(t, root); !slices.Equal(before, after) {
				t.Fatalf("the tree changed:\nbefore %q\nafter  %q", before, after)
			}
			// The proofs run peers (python3, tar) to show what the archive
			// does to a trusting extractor: in the full loop only
			// (scripts/test.sh); the refusal is checked in both.
			if c.proof != nil && !testing.Short() {
				c.proof(t, archive)
			}
		})
	}
}

func TestTotalSizeCap(t *testing.T) {
	root := t.TempDir()
	body := strings.Repeat("x", 600)
	archive := writeFile(t, root, "x.tgz", gz(t, tarBytes(t, member{name: "a", body: body}, member{name: "b", body: body})))
	_, err := extract(t, ExtractOptions{Archive: archive, Dest: filepath.Join(root, "dest"), MaxSize: 1000})
	te := wantCode(t, err, tool.CodeUnsafeEntry)
	if !strings.Contains(te.Message, "add up to more than the 1000-byte cap") {
		t.Errorf("message %q", te.Message)
	}
	if _, err := os.Stat(filepath.Join(root, "dest")); !os.IsNotExist(err) {
		t.Errorf("dest exists: %v", err)
	}
}

func TestTruncatedGzipIsCorruptAndLeavesNothing(t *testing.T) {
	root := t.TempDir()
	var members []member
	for i := range 20 {
		members = append(members, member{name: "f" + strings.Repeat("x", i), body: strings.Repeat(string(rune('a'+i)), 50000)})
	}
	full := gz(t, tarBytes(t, members...))
	archive := writeFile(t, filepath.Join(root, "in"), "x.tgz", full[:len(full)*6/10])
	work := filepath.Join(root, "work")
	os.MkdirAll(work, 0o755)
	_, err := extract(t, ExtractOptions{Archive: archive, Dest: filepath.Join(work, "dest")})
	wantCode(t, err, tool.CodeCorruptArchive)
	if got := tree(t, work); len(got) != 0 {
		t.Fatalf("left behind: %q", got)
	}
	// GNU tar, by contrast, leaves the files it got to.
	peer.Require(t, "tar", "tar")
	dest, _ := sandbox(t)
	out, err := runPeer(t, "tar", "-xzf", archive, "-C", dest)
	if err == nil {
		t.Fatalf("GNU tar took the truncated archive:\n%s", out)
	}
	if got := tree(t, dest); len(got) == 0 {
		t.Fatalf("GNU tar left nothing: the truncation is not where the test means it")
	}
}
