package artifact

// The tar.zst decoder (klauspost/compress/zstd behind zstdReader) against
// the zstd program and damaged input: these tests pinned mcode's own
// decoder before it gave way to the library, and now pin what extract
// gets from the library.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/mcode-dev/mcode/internal/peer"
)

func zDecode(in []byte) ([]byte, error) {
	z, err := newZstdReader(bytes.NewReader(in))
	if err != nil {
		return nil, err
	}
	defer z.Close()
	return io.ReadAll(z)
}

// Data of the kinds compressors treat differently.
func zRandom(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// words is text-like: a skewed vocabulary, so Huffman and matches both
// pay.
func zWords(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	vocab := strings.Fields("the of and to in is that for it as with was on be at by this had not are but from or have an they which one you were her all she there would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people")
	var b bytes.Buffer
	for b.Len() < n {
		w := vocab[int(r.ExpFloat64()*12)%len(vocab)]
		b.WriteString(w)
		switch r.IntN(12) {
		case 0:
			b.WriteString(".\n")
		case 1:
			fmt.Fprintf(&b, " %d, ", r.IntN(100000))
		default:
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:n]
}

// mixed interleaves random stretches, runs of one byte, and copies of
// earlier data from near and far: long offsets, overlapping matches.
func zMixed(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	b := make([]byte, 0, n)
	for len(b) < n {
		k := 1 + r.IntN(5000)
		switch r.IntN(4) {
		case 0:
			b = append(b, zRandom(k, r.Uint64())...)
		case 1:
			b = append(b, bytes.Repeat([]byte{byte(r.IntN(256))}, k)...)
		default:
			if len(b) == 0 {
				continue
			}
			from := r.IntN(len(b))
			if r.IntN(2) == 0 {
				from = max(0, len(b)-1-r.IntN(16))
			}
			for i := 0; i < k; i++ {
				b = append(b, b[from+i])
			}
		}
	}
	return b[:n]
}

// chunks is 'z' then a long copy from far back in a random base, over
// and over: every literal after the base is a 'z' (RLE literals).
func zChunks(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 4))
	base := zRandom(64<<10, seed)
	b := append(make([]byte, 0, n+2000), base...)
	for len(b) < n {
		o := r.IntN(len(base) - 2000)
		b = append(b, 'z')
		b = append(b, base[o:o+500+r.IntN(1000)]...)
	}
	return b[:n]
}

// tokens strings 3-byte tokens: a sequence every 3 bytes when the
// encoder takes 3-byte matches, over 0x7F00 sequences in a block.
func zTokens(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 5))
	toks := zRandom(3*4096, seed)
	b := make([]byte, 0, n+3)
	for len(b) < n {
		k := 3 * r.IntN(4096)
		b = append(b, toks[k:k+3]...)
	}
	return b[:n]
}

// skewed bytes repeat no 4 bytes worth a match, but Huffman shrinks
// them: blocks of literals and no sequences.
func zSkewed(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 6))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(200)) / byte(1+r.IntN(2))
	}
	return b
}

type zSample struct {
	name string
	data []byte
}

const zBlockSize = 128 << 10

func zSamples() []zSample {
	s := []zSample{{"empty", nil}, {"one", []byte{'x'}}}
	for _, n := range []int{zBlockSize - 1, zBlockSize, zBlockSize + 1, 2*zBlockSize + 7} {
		s = append(s, zSample{fmt.Sprintf("words-%d", n), zWords(n, uint64(n))})
	}
	s = append(s,
		zSample{"random-300k", zRandom(300<<10, 1)},
		zSample{"zeros-1m", make([]byte, 1<<20)},
		zSample{"mixed-2m", zMixed(2<<20, 4)},
		zSample{"chunks-400k", zChunks(400<<10, 6)},
		zSample{"tokens-400k", zTokens(400<<10, 7)},
		zSample{"skewed-300k", zSkewed(300<<10, 8)},
	)
	return s
}

func zCheck(t *testing.T, name string, comp, want []byte) {
	t.Helper()
	got, err := zDecode(comp)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: decoded %d bytes, want %d (first difference at %d)", name, len(got), len(want), zFirstDiff(got, want))
	}
}

func zFirstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// cli compresses data with the zstd program, from a file (so the frame
// declares its size) or from stdin (so it cannot).
func zCLI(t *testing.T, data []byte, fromFile bool, args ...string) []byte {
	t.Helper()
	args = append([]string{"-q", "-c"}, args...)
	cmd := exec.Command("zstd", args...)
	if fromFile {
		p := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd.Args = append(cmd.Args, "--", p)
	} else {
		cmd.Stdin = bytes.NewReader(data)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("zstd %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

func TestZstdAgainstCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("the zstd program at ten settings over every sample: the full loop (scripts/test.sh) runs it")
	}
	peer.Require(t, "zstd", "zstd")
	levels := [][]string{
		{"-1"}, {"-3"}, {"-3", "--no-check"}, {"--fast=5"}, {"-9"},
		{"-19"}, {"--ultra", "-22", "--zstd=wlog=18"},
		{"--long=24", "-5"}, {"-19", "--no-check", "--zstd=wlog=10"}, {"-19", "--zstd=mml=3"},
	}
	for i, s := range zSamples() {
		for j, lv := range levels {
			slow := lv[0] == "-19" || lv[0] == "--ultra"
			if slow && len(s.data) > 512<<10 {
				continue // the slow levels on the small samples only
			}
			// From a file (the size declared, single-segment frames) or
			// from stdin; -3 both ways.
			for _, fromFile := range []bool{(i+j)%2 == 0, (i+j)%2 == 1} {
				name := fmt.Sprintf("%s %s file=%v", s.name, strings.Join(lv, " "), fromFile)
				zCheck(t, name, zCLI(t, s.data, fromFile, lv...), s.data)
				if lv[0] != "-3" {
					break
				}
			}
		}
	}
}

// TestZstdCLIMultiFrame: concatenated frames of mixed settings, a
// skippable frame among them, decode to the concatenated inputs.
func TestZstdCLIMultiFrame(t *testing.T) {
	peer.Require(t, "zstd", "zstd")
	var comp, want bytes.Buffer
	parts := []struct {
		data []byte
		args []string
	}{
		{zWords(200<<10, 7), []string{"-3"}},
		{nil, []string{"-1"}},
		{zRandom(5000, 8), []string{"--no-check"}},
		{zMixed(400<<10, 9), []string{"-19"}},
	}
	for i, p := range parts {
		comp.Write(zCLI(t, p.data, i%2 == 0, p.args...))
		want.Write(p.data)
		if i == 1 {
			comp.Write(zSkippable(0x184D2A5E, []byte("skip me, please")))
		}
	}
	zCheck(t, "multi-frame", comp.Bytes(), want.Bytes())
	// The CLI agrees about what the stream holds.
	cmd := exec.Command("zstd", "-d", "-c", "-q")
	cmd.Stdin = bytes.NewReader(comp.Bytes())
	out, err := cmd.Output()
	if err != nil || !bytes.Equal(out, want.Bytes()) {
		t.Fatalf("zstd -d disagrees about the test stream: %v", err)
	}
}

func zSkippable(magic uint32, payload []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, magic)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

func TestZstdEmptyInput(t *testing.T) {
	got, err := zDecode(nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("empty input: %q, %v", got, err)
	}
	// A stream of only skippable frames holds nothing either.
	got, err = zDecode(zSkippable(0x184D2A50, []byte("x")))
	if err != nil || len(got) != 0 {
		t.Fatalf("skippable only: %q, %v", got, err)
	}
}

func TestZstdNotZstd(t *testing.T) {
	for _, in := range [][]byte{[]byte("just text, nothing more"), {0x28, 0xb5}, append(zEnc(t, []byte("abc")), "trailing"...)} {
		_, err := zDecode(in)
		if err == nil || !strings.HasPrefix(err.Error(), "zstd: ") {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func zEnc(t testing.TB, data []byte, o ...zstd.EOption) []byte {
	e, err := zstd.NewWriter(nil, o...)
	if err != nil {
		t.Fatal(err)
	}
	return e.EncodeAll(data, nil)
}

// encStream compresses with the streaming writer, which does not know
// the size: no single-segment frame.
func zEncStream(t testing.TB, data []byte, o ...zstd.EOption) []byte {
	var b bytes.Buffer
	e, err := zstd.NewWriter(&b, o...)
	if err != nil {
		t.Fatal(err)
	}
	e.Write(data)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestZstdTruncated: every cut of a stream short of its end is an error.
func TestZstdTruncated(t *testing.T) {
	for _, crc := range []bool{true, false} {
		comp := zEnc(t, zWords(300<<10, 11), zstd.WithEncoderCRC(crc))
		for n := 1; n < len(comp); n += 1 + n/50 {
			if _, err := zDecode(comp[:n]); err == nil || !strings.HasPrefix(err.Error(), "zstd: ") {
				t.Fatalf("crc=%v, cut at %d of %d: %v", crc, n, len(comp), err)
			}
		}
	}
}

// TestZstdFlippedBits: a flipped bit anywhere in a checksummed frame is
// reported, as a checksum mismatch when the damage is in the data.
func TestZstdFlippedBits(t *testing.T) {
	want := zMixed(150<<10, 12)
	comp := zEnc(t, want)
	mismatches := 0
	r := rand.New(rand.NewPCG(13, 13))
	for i := 0; i < 1000; i++ {
		bad := bytes.Clone(comp)
		pos := r.IntN(len(bad))
		bad[pos] ^= 1 << r.IntN(8)
		got, err := zDecode(bad)
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("a flipped bit at byte %d of %d went unnoticed", pos, len(bad))
		}
		if errors.Is(err, zstd.ErrCRCMismatch) {
			mismatches++
		}
	}
	if mismatches == 0 {
		t.Fatal("no flipped bit was reported as a checksum mismatch")
	}
	// The checksum's own bytes.
	bad := bytes.Clone(comp)
	bad[len(bad)-1] ^= 0x80
	if _, err := zDecode(bad); !errors.Is(err, zstd.ErrCRCMismatch) || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("flipped checksum: %v", err)
	}
}

// TestZstdWindowLimit: a frame may ask for zstdMaxWindow of history, no
// more, however it says so.
func TestZstdWindowLimit(t *testing.T) {
	data := zMixed(3<<20, 14)
	zCheck(t, "8 MiB window", zEncStream(t, data, zstd.WithWindowSize(8<<20)), data)
	// A frame that asks for 2^(10+exp) bytes of window and holds one raw
	// block, "abc" (RFC 8878: Frame_Header_Descriptor 0, then the
	// Window_Descriptor's exponent in its high five bits).
	frame := func(exp byte) []byte {
		return []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, exp << 3, 3<<3 | 1, 0, 0, 'a', 'b', 'c'}
	}
	zCheck(t, "a 128 MiB window", frame(17), []byte("abc"))
	if _, err := zDecode(frame(18)); !errors.Is(err, zstd.ErrWindowSizeExceeded) || !strings.Contains(err.Error(), "over the 128 MiB allowed") {
		t.Fatalf("a 256 MiB window: %v", err)
	}
	// The largest window a header can name is refused before any memory
	// is taken.
	hdr := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xff}
	if _, err := zDecode(hdr); !errors.Is(err, zstd.ErrWindowSizeExceeded) {
		t.Fatalf("a 3.75 TiB window: %v", err)
	}
}

// TestZstdMemoryBounded: decoding keeps the window and a block, not the
// stream.
func TestZstdMemoryBounded(t *testing.T) {
	data := zWords(16<<20, 15)
	comp := zEnc(t, data, zstd.WithWindowSize(1<<20), zstd.WithEncoderLevel(zstd.SpeedFastest))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	z, err := newZstdReader(bytes.NewReader(comp))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	n, err := io.Copy(io.Discard, z)
	runtime.ReadMemStats(&after)
	if err != nil || n != int64(len(data)) {
		t.Fatalf("%d bytes, %v", n, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Fatalf("decoding %d MiB with a 1 MiB window allocated %d bytes", len(data)>>20, alloc)
	}
}

func TestZstdDictionaryRefused(t *testing.T) {
	comp := zEnc(t, []byte("hello hello hello"), zstd.WithEncoderDictRaw(4242, []byte("hello world, a dictionary")))
	_, err := zDecode(comp)
	if !errors.Is(err, zstd.ErrUnknownDictionary) || !strings.Contains(err.Error(), "needs a dictionary") {
		t.Fatalf("a frame needing a dictionary: %v", err)
	}
}

// block frames one block of the given type and content, with no
// checksum and no declared size.
func zBlock(typ int, size int, content []byte) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00} // 1 KiB window
	h := uint32(size)<<3 | uint32(typ)<<1 | 1
	b = append(b, byte(h), byte(h>>8), byte(h>>16))
	return append(b, content...)
}

func TestZstdBadBlocks(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"reserved block type", zBlock(3, 1, []byte{0}), "reserved type"},
		{"raw block over the window", zBlock(0, 1025, make([]byte, 1025)), "over the frame's 1024-byte limit"},
		{"RLE block over the window", zBlock(1, 2000, []byte{'a'}), "over the frame's 1024-byte limit"},
		// Compressed literals, one stream: five direct weights of 1 add
		// to 5, which no power of two completes.
		{"Huffman weights that do not add up", zBlock(2, 9, []byte{0x42, 0x40, 0x01, 132, 0x11, 0x11, 0x10, 0x01, 0x00}), "weights do not add up"},
		{"treeless literals first", zBlock(2, 5, []byte{0x43, 0x40, 0x00, 0x01, 0x00}), "no block before had one"},
		{"repeat table first", zBlock(2, 4, []byte{0x00, 0x01, 0xfc, 0x01}), "no block before it had one"},
		{"FSE table over its accuracy", zBlock(2, 5, []byte{0x00, 0x01, 0x80, 0x0f, 0x01}), "over the maximum 9"},
		{"match before the start", zBlock(2, 4, []byte{0x00, 0x01, 0x00, 0x80}), "bytes back"},
	} {
		_, err := zDecode(c.in)
		if err == nil || !strings.HasPrefix(err.Error(), "zstd: ") {
			t.Errorf("%s: %v, want a zstd error (mcode's own decoder said %q)", c.name, err, c.want)
		}
	}
}

// TestZstdReadSizes: the output is the same whatever size the caller reads.
func TestZstdReadSizes(t *testing.T) {
	data := zMixed(500<<10, 16)
	comp := append(zEnc(t, data[:200<<10]), zEnc(t, data[200<<10:])...)
	for _, size := range []int{1, 7, 4096, 1 << 20} {
		z, err := newZstdReader(bytes.NewReader(comp))
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		buf := make([]byte, size)
		for {
			n, err := z.Read(buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("reads of %d: %d bytes differ at %d", size, len(got), zFirstDiff(got, data))
		}
		z.Close()
	}
}
