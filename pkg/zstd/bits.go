package zstd

import (
	"encoding/binary"
	"math/bits"
)

// backReader reads a bitstream from its end towards its start, as
// Huffman and FSE streams are written: the last byte's highest set bit
// marks where the bits begin.
type backReader struct {
	in    []byte // at least 8 bytes; short streams are padded in front
	start int    // where the stream begins in in
	pos   int    // cont holds in[pos:pos+8]
	cont  uint64
	used  uint // bits of cont already read, from the top
	pad   [8]byte
}

func (b *backReader) init(in []byte) error {
	if len(in) == 0 {
		return corruptf("an empty bitstream")
	}
	last := in[len(in)-1]
	if last == 0 {
		return corruptf("a bitstream without its end mark")
	}
	b.start = 0
	if len(in) < 8 {
		b.pad = [8]byte{}
		copy(b.pad[8-len(in):], in)
		b.start = 8 - len(in)
		in = b.pad[:]
	}
	b.in = in
	b.pos = len(in) - 8
	b.cont = binary.LittleEndian.Uint64(in[b.pos:])
	b.used = uint(bits.LeadingZeros8(last)) + 1
	return nil
}

// read takes n bits (n <= 56 after a reload); past the start it yields
// zeros, which remaining reports.
func (b *backReader) read(n uint8) uint64 {
	v := (b.cont << b.used) >> (64 - n)
	b.used += uint(n)
	return v
}

// reload refills cont so that at least 56 bits are ready, unless the
// stream's start is near.
func (b *backReader) reload() {
	if b.used > 64 {
		return
	}
	b.pos, b.cont, b.used = refill(b.in, b.pos, b.used)
}

// refill is reload on the reader's parts, for loops that keep them in
// registers.
func refill(in []byte, pos int, used uint) (int, uint64, uint) {
	nb := int(used >> 3)
	if nb > pos {
		nb = pos
	}
	pos -= nb
	used -= uint(nb) * 8
	return pos, binary.LittleEndian.Uint64(in[pos:]), used
}

// remaining is how many bits are left; negative once read past the start.
func (b *backReader) remaining() int {
	return (b.pos-b.start)*8 + 64 - int(b.used)
}

// peekFwd reads n (<= 24) bits at bit offset pos of a little-endian
// bitstream; bits past its end read as zero.
func peekFwd(in []byte, pos, n int) uint32 {
	i := pos >> 3
	var w uint32
	for k := 0; k < 4 && i+k < len(in); k++ {
		w |= uint32(in[i+k]) << (8 * k)
	}
	return w >> (pos & 7) & (1<<n - 1)
}
