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
	fuzzOut    = 1 << 20
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
		if cap(z.hist) > fuzzWindow+fuzzWindow/2+wildSlack {
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
	f.Add(mixed(5000, 5), uint8(3))
	f.Add(words(2000, 6), uint8(6))
	// Encoders are costly to make: one per setting, kept.
	var encoders [8]*zstd.Encoder
	f.Fuzz(func(t *testing.T, data []byte, setting uint8) {
		setting %= 8
		lv := zstd.EncoderLevel(1 + setting%4)
		small := setting >= 4 // a 1 KiB window and a checksum, or 8 MiB and none
		e := encoders[setting]
		if e == nil {
			var err error
			window := 8 << 20
			if small {
				window = 1 << 10
			}
			e, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(lv), zstd.WithWindowSize(window), zstd.WithEncoderCRC(small), zstd.WithEncoderConcurrency(1))
			if err != nil {
				t.Fatal(err)
			}
			encoders[setting] = e
		}
		var comp bytes.Buffer
		e.Reset(&comp)
		e.Write(data)
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := decode(comp.Bytes(), testMaxWindow)
		if err != nil {
			t.Fatalf("level %v, small window %v: %v", lv, small, err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("level %v, small window %v: %d bytes back of %d, first difference at %d", lv, small, len(got), len(data), firstDiff(got, data))
		}
	})
}
