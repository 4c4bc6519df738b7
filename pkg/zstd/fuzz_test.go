package zstd

import (
	"bytes"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// fuzzWindow and fuzzOut bound what one fuzz input may cost.
const (
	fuzzWindow = 1 << 20
	fuzzOut    = 8 << 20
)

func fuzzSeeds(f *testing.F) {
	t := &testing.T{}
	for _, d := range [][]byte{nil, []byte("hello, hello, hello"), words(3000, 1), mixed(20000, 2), skewed(2000, 4)} {
		f.Add(enc(t, d))
		f.Add(encStream(t, d, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderCRC(false)))
	}
	f.Add(block(2, 4, []byte{0x00, 0x01, 0x00, 0x80}))
	f.Add(skippable(0x184D2A50, []byte("x")))
}

// FuzzDecode: any bytes decode to data or an error, never a panic or a
// hang, and memory stays within the window; where klauspost's decoder
// also succeeds, both agree.
func FuzzDecode(f *testing.F) {
	fuzzSeeds(f)
	ref, err := zstd.NewReader(nil, zstd.WithDecoderMaxWindow(fuzzWindow), zstd.WithDecoderMaxMemory(fuzzOut), zstd.WithDecoderConcurrency(1))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		z := NewReader(bytes.NewReader(in), fuzzWindow)
		got, err := io.ReadAll(io.LimitReader(z, fuzzOut))
		if err != nil || len(got) == fuzzOut {
			return
		}
		if cap(z.hist) > fuzzWindow+fuzzWindow/2 {
			t.Fatalf("history of %d bytes under a %d-byte window", cap(z.hist), fuzzWindow)
		}
		want, rerr := ref.DecodeAll(in, nil)
		if rerr == nil && !bytes.Equal(got, want) {
			t.Fatalf("decoded %d bytes, klauspost %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
		}
	})
}

// FuzzRoundTrip: whatever klauspost's encoder writes, at any level,
// decodes to what it was given.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("hello, hello, hello"), uint8(1))
	f.Add(mixed(50000, 5), uint8(3))
	f.Add(words(10000, 6), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, level uint8) {
		lv := zstd.EncoderLevel(1 + level%4)
		comp := encStream(t, data, zstd.WithEncoderLevel(lv), zstd.WithEncoderCRC(level&8 != 0), zstd.WithWindowSize(1<<(10+level%8)))
		got, err := decode(comp, testMaxWindow)
		if err != nil {
			t.Fatalf("level %v: %v", lv, err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("level %v: %d bytes back of %d, first difference at %d", lv, len(got), len(data), firstDiff(got, data))
		}
	})
}
