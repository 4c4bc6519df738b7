package zstd

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

// testMaxWindow is what the tests allow a frame (the CLI's --long=27).
const testMaxWindow = 128 << 20

func decode(in []byte, maxWindow int64) ([]byte, error) {
	z := NewReader(bytes.NewReader(in), maxWindow)
	defer z.Close()
	return io.ReadAll(z)
}

// Data of the kinds compressors treat differently.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// words is text-like: a skewed vocabulary, so Huffman and matches both
// pay.
func words(n int, seed uint64) []byte {
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
func mixed(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	b := make([]byte, 0, n)
	for len(b) < n {
		k := 1 + r.IntN(5000)
		switch r.IntN(4) {
		case 0:
			b = append(b, randomBytes(k, r.Uint64())...)
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
func chunks(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 4))
	base := randomBytes(64<<10, seed)
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
func tokens(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 5))
	toks := randomBytes(3*4096, seed)
	b := make([]byte, 0, n+3)
	for len(b) < n {
		k := 3 * r.IntN(4096)
		b = append(b, toks[k:k+3]...)
	}
	return b[:n]
}

// skewed bytes repeat no 4 bytes worth a match, but Huffman shrinks
// them: blocks of literals and no sequences.
func skewed(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 6))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(200)) / byte(1+r.IntN(2))
	}
	return b
}

type sample struct {
	name string
	data []byte
}

const blockSize = 128 << 10

func samples() []sample {
	s := []sample{{"empty", nil}, {"one", []byte{'x'}}}
	for _, n := range []int{blockSize - 1, blockSize, blockSize + 1, 2*blockSize + 7} {
		s = append(s, sample{fmt.Sprintf("words-%d", n), words(n, uint64(n))})
	}
	s = append(s,
		sample{"random-300k", randomBytes(300<<10, 1)},
		sample{"zeros-1m", make([]byte, 1<<20)},
		sample{"mixed-2m", mixed(2<<20, 4)},
		sample{"chunks-400k", chunks(400<<10, 6)},
		sample{"tokens-400k", tokens(400<<10, 7)},
		sample{"skewed-300k", skewed(300<<10, 8)},
	)
	return s
}

func check(t *testing.T, name string, comp, want []byte) {
	t.Helper()
	got, err := decode(comp, testMaxWindow)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: decoded %d bytes, want %d (first difference at %d)", name, len(got), len(want), firstDiff(got, want))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// cli compresses data with the zstd program, from a file (so the frame
// declares its size) or from stdin (so it cannot).
func cli(t *testing.T, data []byte, fromFile bool, args ...string) []byte {
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

func TestAgainstCLI(t *testing.T) {
	peer.Require(t, "zstd", "zstd")
	levels := [][]string{
		{"-1"}, {"-3"}, {"-3", "--no-check"}, {"--fast=5"}, {"-9"},
		{"-19"}, {"--ultra", "-22", "--zstd=wlog=18"},
		{"--long=24", "-5"}, {"-19", "--no-check", "--zstd=wlog=10"}, {"-19", "--zstd=mml=3"},
	}
	for i, s := range samples() {
		for j, lv := range levels {
			slow := lv[0] == "-19" || lv[0] == "--ultra"
			if slow && len(s.data) > 512<<10 {
				continue // the slow levels on the small samples only
			}
			// From a file (the size declared, single-segment frames) or
			// from stdin; -3 both ways.
			for _, fromFile := range []bool{(i+j)%2 == 0, (i+j)%2 == 1} {
				name := fmt.Sprintf("%s %s file=%v", s.name, strings.Join(lv, " "), fromFile)
				check(t, name, cli(t, s.data, fromFile, lv...), s.data)
				if lv[0] != "-3" {
					break
				}
			}
		}
	}
}

// TestCLIMultiFrame: concatenated frames of mixed settings, a
// skippable frame among them, decode to the concatenated inputs.
func TestCLIMultiFrame(t *testing.T) {
	peer.Require(t, "zstd", "zstd")
	var comp, want bytes.Buffer
	parts := []struct {
		data []byte
		args []string
	}{
		{words(200<<10, 7), []string{"-3"}},
		{nil, []string{"-1"}},
		{randomBytes(5000, 8), []string{"--no-check"}},
		{mixed(400<<10, 9), []string{"-19"}},
	}
	for i, p := range parts {
		comp.Write(cli(t, p.data, i%2 == 0, p.args...))
		want.Write(p.data)
		if i == 1 {
			comp.Write(skippable(0x184D2A5E, []byte("skip me, please")))
		}
	}
	check(t, "multi-frame", comp.Bytes(), want.Bytes())
	// The CLI agrees about what the stream holds.
	cmd := exec.Command("zstd", "-d", "-c", "-q")
	cmd.Stdin = bytes.NewReader(comp.Bytes())
	out, err := cmd.Output()
	if err != nil || !bytes.Equal(out, want.Bytes()) {
		t.Fatalf("zstd -d disagrees about the test stream: %v", err)
	}
}

func skippable(magic uint32, payload []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, magic)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

func TestAgainstKlauspost(t *testing.T) {
	opts := map[string][]zstd.EOption{
		"fastest":        {zstd.WithEncoderLevel(zstd.SpeedFastest)},
		"default":        {zstd.WithEncoderLevel(zstd.SpeedDefault)},
		"better":         {zstd.WithEncoderLevel(zstd.SpeedBetterCompression)},
		"best":           {zstd.WithEncoderLevel(zstd.SpeedBestCompression)},
		"no-crc":         {zstd.WithEncoderCRC(false)},
		"single-segment": {zstd.WithSingleSegment(true)},
		"small-window":   {zstd.WithWindowSize(1 << 10), zstd.WithEncoderLevel(zstd.SpeedBetterCompression)},
		"no-entropy":     {zstd.WithNoEntropyCompression(true)},
		"all-lit":        {zstd.WithAllLitEntropyCompression(true)},
		"padded":         {zstd.WithEncoderPadding(1 << 12)},
		"zero-frames":    {zstd.WithZeroFrames(true)},
	}
	for _, s := range samples() {
		for name, o := range opts {
			if len(s.data) > 1<<20 && name != "default" && name != "small-window" && name != "best" {
				continue // the big samples with a few settings only
			}
			enc, err := zstd.NewWriter(nil, o...)
			if err != nil {
				t.Fatal(err)
			}
			check(t, s.name+" "+name, enc.EncodeAll(s.data, nil), s.data)
			check(t, s.name+" "+name+" stream", encStream(t, s.data, o...), s.data)
		}
	}
}

func TestEmptyInput(t *testing.T) {
	got, err := decode(nil, testMaxWindow)
	if err != nil || len(got) != 0 {
		t.Fatalf("empty input: %q, %v", got, err)
	}
	// A stream of only skippable frames holds nothing either.
	got, err = decode(skippable(0x184D2A50, []byte("x")), testMaxWindow)
	if err != nil || len(got) != 0 {
		t.Fatalf("skippable only: %q, %v", got, err)
	}
}

func TestNotZstd(t *testing.T) {
	for _, in := range [][]byte{[]byte("just text, nothing more"), {0x28, 0xb5}, append(enc(t, []byte("abc")), "trailing"...)} {
		_, err := decode(in, testMaxWindow)
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func enc(t testing.TB, data []byte, o ...zstd.EOption) []byte {
	e, err := zstd.NewWriter(nil, o...)
	if err != nil {
		t.Fatal(err)
	}
	return e.EncodeAll(data, nil)
}

// encStream compresses with the streaming writer, which does not know
// the size: no single-segment frame.
func encStream(t testing.TB, data []byte, o ...zstd.EOption) []byte {
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

// TestTruncated: every cut of a stream short of its end is an error.
func TestTruncated(t *testing.T) {
	for _, crc := range []bool{true, false} {
		comp := enc(t, words(300<<10, 11), zstd.WithEncoderCRC(crc))
		for n := 1; n < len(comp); n += 1 + n/50 {
			if _, err := decode(comp[:n], testMaxWindow); !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("crc=%v, cut at %d of %d: %v", crc, n, len(comp), err)
			}
		}
	}
}

// TestFlippedBits: a flipped bit anywhere in a checksummed frame is
// reported, as a checksum mismatch when the damage is in the data.
func TestFlippedBits(t *testing.T) {
	want := mixed(150<<10, 12)
	comp := enc(t, want)
	mismatches := 0
	r := rand.New(rand.NewPCG(13, 13))
	for i := 0; i < 1000; i++ {
		bad := bytes.Clone(comp)
		pos := r.IntN(len(bad))
		bad[pos] ^= 1 << r.IntN(8)
		got, err := decode(bad, testMaxWindow)
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("a flipped bit at byte %d of %d went unnoticed", pos, len(bad))
		}
		if errors.Is(err, ErrChecksum) {
			mismatches++
		}
	}
	if mismatches == 0 {
		t.Fatal("no flipped bit was reported as a checksum mismatch")
	}
	// The checksum's own bytes.
	bad := bytes.Clone(comp)
	bad[len(bad)-1] ^= 0x80
	if _, err := decode(bad, testMaxWindow); !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("flipped checksum: %v", err)
	}
}

func TestWindowLimit(t *testing.T) {
	data := mixed(3<<20, 14)
	comp := encStream(t, data, zstd.WithWindowSize(8<<20))
	if _, err := decode(comp, 1<<20); !errors.Is(err, ErrWindowTooLarge) || !strings.Contains(err.Error(), "8 MiB window, over the 1 MiB allowed") {
		t.Fatalf("8 MiB window under a 1 MiB limit: %v", err)
	}
	check(t, "8 MiB window", comp, data)
	// A single-segment frame's window is its size.
	comp = enc(t, data, zstd.WithSingleSegment(true))
	if _, err := decode(comp, 1<<20); !errors.Is(err, ErrWindowTooLarge) {
		t.Fatalf("3 MiB single segment under a 1 MiB limit: %v", err)
	}
	// The largest window a header can name is refused before any memory
	// is taken.
	hdr := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xff}
	if _, err := decode(hdr, testMaxWindow); !errors.Is(err, ErrWindowTooLarge) {
		t.Fatalf("a 3.75 TiB window: %v", err)
	}
}

// TestMemoryBounded: decoding keeps the window and a block, not the
// stream.
func TestMemoryBounded(t *testing.T) {
	data := words(16<<20, 15)
	comp := enc(t, data, zstd.WithWindowSize(1<<20), zstd.WithEncoderLevel(zstd.SpeedFastest))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	z := NewReader(bytes.NewReader(comp), testMaxWindow)
	n, err := io.Copy(io.Discard, z)
	runtime.ReadMemStats(&after)
	if err != nil || n != int64(len(data)) {
		t.Fatalf("%d bytes, %v", n, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Fatalf("decoding %d MiB with a 1 MiB window allocated %d bytes", len(data)>>20, alloc)
	}
}

func TestDictionaryRefused(t *testing.T) {
	comp := enc(t, []byte("hello hello hello"), zstd.WithEncoderDictRaw(4242, []byte("hello world, a dictionary")))
	_, err := decode(comp, testMaxWindow)
	if !errors.Is(err, ErrDictionary) || !strings.Contains(err.Error(), "dictionary 4242") {
		t.Fatalf("a frame needing a dictionary: %v", err)
	}
}

// block frames one block of the given type and content, with no
// checksum and no declared size.
func block(typ int, size int, content []byte) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00} // 1 KiB window
	h := uint32(size)<<3 | uint32(typ)<<1 | 1
	b = append(b, byte(h), byte(h>>8), byte(h>>16))
	return append(b, content...)
}

func TestBadBlocks(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"reserved block type", block(3, 1, []byte{0}), "reserved type"},
		{"raw block over the window", block(0, 1025, make([]byte, 1025)), "over the frame's 1024-byte limit"},
		{"RLE block over the window", block(1, 2000, []byte{'a'}), "over the frame's 1024-byte limit"},
		// Compressed literals, one stream: five direct weights of 1 add
		// to 5, which no power of two completes.
		{"Huffman weights that do not add up", block(2, 9, []byte{0x42, 0x40, 0x01, 132, 0x11, 0x11, 0x10, 0x01, 0x00}), "weights do not add up"},
		{"treeless literals first", block(2, 5, []byte{0x43, 0x40, 0x00, 0x01, 0x00}), "no block before had one"},
		{"repeat table first", block(2, 4, []byte{0x00, 0x01, 0xfc, 0x01}), "no block before it had one"},
		{"FSE table over its accuracy", block(2, 5, []byte{0x00, 0x01, 0x80, 0x0f, 0x01}), "over the maximum 9"},
		{"match before the start", block(2, 4, []byte{0x00, 0x01, 0x00, 0x80}), "bytes back"},
	} {
		_, err := decode(c.in, testMaxWindow)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestReadSizes: the output is the same whatever size the caller reads.
func TestReadSizes(t *testing.T) {
	data := mixed(500<<10, 16)
	comp := append(enc(t, data[:200<<10]), enc(t, data[200<<10:])...)
	for _, size := range []int{1, 7, 4096, 1 << 20} {
		z := NewReader(bytes.NewReader(comp), testMaxWindow)
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
			t.Fatalf("reads of %d: %d bytes differ at %d", size, len(got), firstDiff(got, data))
		}
	}
}
