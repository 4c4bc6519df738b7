package artifact

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/mcode-dev/mcode/internal/peer"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// pkgMembers is an npm-like package: package/ with files, a folder, an
// executable, a setuid file, an inside link and a hard link.
func pkgMembers() []member {
	return []member{
		{name: "package/", typ: tar.TypeDir},
		{name: "package/package.json", body: `{"name":"@scope/demo","version":"1.2.3","build":{"env":"prod"},"private":true}`},
		{name: "package/bin/", typ: tar.TypeDir, mode: 0o750},
		{name: "package/bin/cli.mjs", body: "#!/usr/bin/env node\n", mode: 0o755},
		{name: "package/lib/index.js", body: "module.exports = 1\n"},
		{name: "package/suid", body: "x", mode: 0o4755},
		{name: "package/current", typ: tar.TypeSymlink, link: "lib/index.js"},
		{name: "package/again.js", typ: tar.TypeLink, link: "package/lib/index.js"},
		{name: "package/NOTICES.md", body: "notices\n"},
	}
}

func TestExtractKeepsModesTimesAndLinksAsGNUTarDoes(t *testing.T) {
	root := t.TempDir()
	data := gz(t, tarBytes(t, pkgMembers()...))
	archive := writeFile(t, root, "pkg.tgz", data)
	dest := filepath.Join(root, "out")
	r, err := extract(t, ExtractOptions{Archive: archive, Dest: dest, Integrity: mustIntegrity(t, sri512(data))})
	if err != nil {
		t.Fatal(err)
	}
	if r.Format != FormatTarGz || r.Files != 5 || r.Replaced || r.Checks[0].Check != "integrity" {
		t.Errorf("result %+v", r)
	}
	st, _ := os.Stat(filepath.Join(dest, "package/bin/cli.mjs"))
	if st.Mode().Perm() != 0o755 || !st.ModTime().Equal(testTime) {
		t.Errorf("cli.mjs: mode %v, mtime %v", st.Mode(), st.ModTime())
	}
	if st, _ := os.Stat(filepath.Join(dest, "package/suid")); st.Mode()&os.ModeSetuid != 0 || st.Mode().Perm() != 0o755 {
		t.Errorf("suid kept: %v", st.Mode())
	}
	if st, _ := os.Stat(filepath.Join(dest, "package/bin")); st.Mode().Perm() != 0o750 || !st.ModTime().Equal(testTime) {
		t.Errorf("bin/: mode %v, mtime %v", st.Mode(), st.ModTime())
	}
	for _, w := range r.Entries {
		if w.Path == "package/lib/index.js" && w.SHA256 != hex256([]byte("module.exports = 1\n")) {
			t.Errorf("sha256 of index.js: %s", w.SHA256)
		}
	}
	// GNU tar makes the same tree.
	peer.Require(t, "tar", "tar")
	ref := filepath.Join(root, "ref")
	os.Mkdir(ref, 0o755)
	if out, err := exec.Command("tar", "-xzf", archive, "-C", ref, "--no-same-owner").CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	if a, b := tree(t, dest), tree(t, ref); !slices.Equal(a, b) {
		t.Fatalf("mcode:\n%q\nGNU tar:\n%q", a, b)
	}
	a, _ := os.Stat(filepath.Join(dest, "package/again.js"))
	b, _ := os.Stat(filepath.Join(dest, "package/lib/index.js"))
	if !os.SameFile(a, b) {
		t.Error("the hard link is a copy")
	}
}

func TestExtractEntriesStripRenameAndExpectations(t *testing.T) {
	root := t.TempDir()
	archive := writeFile(t, root, "pkg.tgz", gz(t, tarBytes(t, pkgMembers()...)))
	dest := filepath.Join(root, "out")
	cli := hex256([]byte("#!/usr/bin/env node\n"))
	d, err := parseEntryDigest(cli)
	if err != nil {
		t.Fatal(err)
	}
	r, err := extract(t, ExtractOptions{Archive: archive, Dest: dest, Strip: 1,
		Entries: []EntrySpec{{Path: "bin/cli.mjs", Digest: &d}, {Path: "NOTICES.md", Rename: "THIRD_PARTY.md"}, {Path: "lib"}},
		Expect: []Expectation{{File: "package.json", Key: "name", Value: "@scope/demo"}, {File: "package.json", Key: "build.env", Value: "prod"},
			{File: "package.json", Key: "private", Value: "true"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"THIRD_PARTY.md = notices\n", "bin/", "bin/cli.mjs = #!/usr/bin/env node\n", "lib/", "lib/index.js = module.exports = 1\n"}
	if got := tree(t, dest); !slices.Equal(got, want) {
		t.Fatalf("tree %q, want %q", got, want)
	}
	if r.Skipped == 0 || len(r.Checks) != 4 {
		t.Errorf("skipped %d, checks %+v", r.Skipped, r.Checks)
	}

	// Each failure leaves dest as the first extraction made it.
	before := tree(t, root)
	bad, _ := parseEntryDigest(strings.Repeat("0", 64))
	for _, c := range []struct {
		o    ExtractOptions
		code tool.Code
		msg  string
	}{
		{ExtractOptions{Entries: []EntrySpec{{Path: "bin/cli.mjs", Digest: &bad}}}, tool.CodeChecksumMismatch, "entry \"bin/cli.mjs\" has sha256:" + cli},
		{ExtractOptions{Entries: []EntrySpec{{Path: "nope.js"}}}, tool.CodeNotFound, "names after strip 1: NOTICES.md, again.js"},
		{ExtractOptions{Expect: []Expectation{{File: "package.json", Key: "version", Value: "1.2.4"}}}, tool.CodeManifestMismatch, `version is "1.2.3", expected "1.2.4"`},
		{ExtractOptions{Expect: []Expectation{{File: "package.json", Key: "build.os", Value: "linux"}}}, tool.CodeManifestMismatch, `no field "build.os"`},
		{ExtractOptions{Expect: []Expectation{{File: "NOTICES.md", Key: "a", Value: "b"}}}, tool.CodeManifestMismatch, "not JSON"},
		{ExtractOptions{Expect: []Expectation{{File: "manifest.json", Key: "a", Value: "b"}}}, tool.CodeNotFound, `JSON file "manifest.json"`},
		{ExtractOptions{Integrity: mustIntegrity(t, "sha256:"+strings.Repeat("1", 64))}, tool.CodeChecksumMismatch, "expected sha256:1111"},
	} {
		o := c.o
		o.Archive, o.Dest, o.Strip = archive, dest, 1
		_, err := extract(t, o)
		te := wantCode(t, err, c.code)
		if !strings.Contains(te.Message, c.msg) {
			t.Errorf("message %q lacks %q", te.Message, c.msg)
		}
		if after := tree(t, root); !slices.Equal(before, after) {
			t.Fatalf("%s changed the tree:\n%q\n%q", c.code, before, after)
		}
	}
}

func TestExtractReplacesDestAsAWhole(t *testing.T) {
	root := t.TempDir()
	archive := writeFile(t, root, "a.tar", tarBytes(t, member{name: "new.txt", body: "new"}))
	dest := filepath.Join(root, "dest")
	writeFile(t, dest, "old.txt", []byte("old"))
	writeFile(t, dest, "sub/old.txt", []byte("old"))
	os.Chmod(filepath.Join(dest, "sub"), 0o555) // a read-only folder in the old tree goes too
	r, err := extract(t, ExtractOptions{Archive: archive, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Replaced {
		t.Error("not reported as replaced")
	}
	if got := tree(t, root); !slices.Equal(got, []string{"a.tar = " + string(tarBytes(t, member{name: "new.txt", body: "new"})), "dest/", "dest/new.txt = new"}) {
		t.Fatalf("tree %q", got)
	}
}

func TestExtractRefusesDangerousDestinations(t *testing.T) {
	root := t.TempDir()
	archive := writeFile(t, filepath.Join(root, "ws", "in"), "a.tar", tarBytes(t, member{name: "x", body: "x"}))
	for _, c := range []struct {
		dest string
		code tool.Code
	}{
		{filepath.Join(root, "ws"), tool.CodeDenied},                  // the workspace root
		{root, tool.CodeDenied},                                       // holds it
		{filepath.Join(root, "ws", "in"), tool.CodeUsage},             // holds the archive
		{writeFile(t, root, "file.txt", nil), tool.CodeNotADirectory}, // a file
		{"/", tool.CodeDenied},
	} {
		_, err := extract(t, ExtractOptions{Archive: archive, Dest: c.dest, Protected: []string{filepath.Join(root, "ws")}})
		wantCode(t, err, c.code)
	}
	if got := tree(t, filepath.Join(root, "ws")); len(got) != 2 || len(tree(t, root)) != 4 {
		t.Fatalf("tree %q", got)
	}
}

func TestExtractFormats(t *testing.T) {
	plain := tarBytes(t, member{name: "d/a.txt", body: "alpha"}, member{name: "d/b.txt", body: strings.Repeat("beta", 1000)})
	var xzb, zstb bytes.Buffer
	xw, _ := xz.NewWriter(&xzb)
	xw.Write(plain)
	xw.Close()
	zw, _ := zstd.NewWriter(&zstb)
	zw.Write(plain)
	zw.Close()
	archives := map[string][]byte{"tar": plain, "tar.gz": gz(t, plain), "tar.xz": xzb.Bytes(), "tar.zst": zstb.Bytes(),
		"zip": zipBytes(t, member{name: "d/a.txt", body: "alpha"}, member{name: "d/b.txt", body: strings.Repeat("beta", 1000)})}
	root := t.TempDir()
	// The peers' own compressors too: what xz, zstd and bzip2 write.
	for _, c := range []struct{ prog, pkg, format string }{{"xz", "xz-utils", "tar.xz"}, {"zstd", "zstd", "tar.zst"}, {"bzip2", "bzip2", "tar.bz2"}} {
		peer.Require(t, c.prog, c.pkg)
		cmd := exec.Command(c.prog, "-c")
		cmd.Stdin = bytes.NewReader(plain)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", c.prog, err)
		}
		archives[c.format+" ("+c.prog+")"] = out
	}
	for name, data := range archives {
		archive := writeFile(t, root, strings.ReplaceAll(name, " ", "_")+".bin", data) // the name says nothing
		dest := filepath.Join(root, "out-"+strings.ReplaceAll(name, " ", "_"))
		r, err := extract(t, ExtractOptions{Archive: archive, Dest: dest, Integrity: mustIntegrity(t, sri512(data))})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.HasPrefix(name, string(r.Format)) {
			t.Errorf("%s read as %s", name, r.Format)
		}
		if got := tree(t, dest); len(got) != 3 || got[1] != "d/a.txt = alpha" {
			t.Errorf("%s: %q", name, got)
		}
	}
	_, err := extract(t, ExtractOptions{Archive: writeFile(t, root, "notes.txt", []byte("just text")), Dest: filepath.Join(root, "x")})
	wantCode(t, err, tool.CodeCorruptArchive)
}

func TestExtractStopsOnCancel(t *testing.T) {
	root := t.TempDir()
	archive := writeFile(t, root, "a.tgz", gz(t, tarBytes(t, member{name: "a", body: "a"})))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Extract(ctx, ExtractOptions{Archive: archive, Dest: filepath.Join(root, "d")}); err == nil {
		t.Fatal("a cancelled extraction succeeded")
	}
	if got := tree(t, root); len(got) != 1 {
		t.Fatalf("left %q", got)
	}
}

func TestExtractWatcherNeverSeesAGap(t *testing.T) {
	root := t.TempDir()
	archive := writeFile(t, root, "a.tar", tarBytes(t, member{name: "f", body: "new"}))
	dest := filepath.Join(root, "dest")
	writeFile(t, dest, "f", []byte("old"))
	stop := make(chan struct{})
	gaps := make(chan int, 1)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				gaps <- n
				return
			default:
			}
			if _, err := os.Stat(filepath.Join(dest, "f")); err != nil {
				n++
			}
		}
	}()
	for range 50 {
		if _, err := extract(t, ExtractOptions{Archive: archive, Dest: dest}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	close(stop)
	if n := <-gaps; n > 0 {
		t.Fatalf("dest/f was missing %d times during replacement", n)
	}
}
