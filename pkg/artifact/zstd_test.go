package artifact

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/internal/peer"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// zstdCLI compresses data with the zstd program, reading stdin.
func zstdCLI(t *testing.T, data []byte, args ...string) []byte {
	t.Helper()
	peer.Require(t, "zstd", "zstd")
	cmd := exec.Command("zstd", append([]string{"-q", "-c"}, args...)...)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("zstd %v: %v", args, err)
	}
	return out
}

func zstdMembers() []member {
	var m []member
	for i := range 12 {
		m = append(m, member{name: "d/f" + strings.Repeat("x", i), body: strings.Repeat(string(rune('a'+i))+" zstd ", 30000)})
	}
	return m
}

// TestZstdConcatenatedFrames: a tar.zst made of two frames (as
// `cat a.zst b.zst` makes) extracts whole, as GNU tar reads it.
func TestZstdConcatenatedFrames(t *testing.T) {
	plain := tarBytes(t, zstdMembers()...)
	cut := len(plain) / 3
	data := append(zstdCLI(t, plain[:cut], "-19"), zstdCLI(t, plain[cut:], "-1", "--no-check")...)
	root := t.TempDir()
	archive := writeFile(t, filepath.Join(root, "in"), "two.tar.zst", data)
	dest := filepath.Join(root, "dest")
	r, err := extract(t, ExtractOptions{Archive: archive, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	if r.Format != FormatTarZst || len(tree(t, dest)) != 13 {
		t.Fatalf("%s: %q", r.Format, tree(t, dest))
	}
	peer.Require(t, "tar", "tar")
	gnu, _ := sandbox(t)
	if out, err := runPeer(t, "tar", "--zstd", "-xf", archive, "-C", gnu); err != nil {
		t.Fatalf("GNU tar: %v\n%s", err, out)
	}
	if got, want := tree(t, dest), tree(t, gnu); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("extract made %q, GNU tar %q", got, want)
	}
}

// TestDamagedZstdIsCorruptAndLeavesNothing: a cut, a flipped byte, a
// window over zstdMaxWindow: corrupt_file, and nothing written.
func TestDamagedZstdIsCorruptAndLeavesNothing(t *testing.T) {
	plain := tarBytes(t, zstdMembers()...)
	good := zstdCLI(t, plain, "-3")
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0x10
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)*2/3], "ends inside a frame"},
		{"flipped", flipped, "zstd: "},
		// From stdin the CLI cannot shrink the window to the input: the
		// frame asks for 256 MiB.
		{"window", zstdCLI(t, plain, "--long=28"), "a window over the 128 MiB allowed"},
	} {
		root := t.TempDir()
		archive := writeFile(t, filepath.Join(root, "in"), "x.tar.zst", c.data)
		work := filepath.Join(root, "work")
		os.MkdirAll(work, 0o755)
		_, err := extract(t, ExtractOptions{Archive: archive, Dest: filepath.Join(work, "dest")})
		te := wantCode(t, err, tool.CodeCorruptArchive)
		if !strings.Contains(te.Message, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.name, te.Message, c.want)
		}
		if got := tree(t, work); len(got) != 0 {
			t.Fatalf("%s: left behind %q", c.name, got)
		}
	}
}
