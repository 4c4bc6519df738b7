package zstd

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// maxHuffBits is the longest Huffman code a literals table may have.
const maxHuffBits = 11

// huffTable decodes literals: indexed by the next maxBits bits, each
// entry holds the symbol (high byte) and its code length (low byte).
type huffTable struct {
	maxBits uint8
	dt      [1 << maxHuffBits]uint16
	fse     fseTable // for the weights, when they are FSE-compressed
}

// read reads a Huffman tree description and builds the table; it
// returns how many bytes the description took.
func (h *huffTable) read(in []byte) (int, error) {
	if len(in) == 0 {
		return 0, corruptf("a Huffman tree description is missing")
	}
	var w [256]uint8
	var n, used int
	if hb := int(in[0]); hb >= 128 {
		n = hb - 127
		used = 1 + (n+1)/2
		if len(in) < used {
			return 0, corruptf("a Huffman tree description ends early")
		}
		for i := 0; i < n; i++ {
			b := in[1+i/2]
			if i%2 == 0 {
				w[i] = b >> 4
			} else {
				w[i] = b & 15
			}
		}
	} else {
		used = 1 + hb
		if len(in) < used {
			return 0, corruptf("a Huffman tree description ends early")
		}
		var err error
		if n, err = h.fseWeights(in[1:used], w[:255]); err != nil {
			return 0, err
		}
	}
	var sum uint32
	for _, x := range w[:n] {
		if x > maxHuffBits {
			return 0, corruptf("a Huffman weight of %d, over the maximum %d", x, maxHuffBits)
		}
		if x > 0 {
			sum += 1 << (x - 1)
		}
	}
	if sum == 0 {
		return 0, corruptf("a Huffman tree without symbols")
	}
	maxBits := uint8(bits.Len32(sum))
	if maxBits > maxHuffBits {
		return 0, corruptf("a Huffman tree deeper than %d bits", maxHuffBits)
	}
	rest := uint32(1)<<maxBits - sum
	if rest&(rest-1) != 0 {
		return 0, corruptf("a Huffman tree whose weights do not add up")
	}
	w[n] = uint8(bits.Len32(rest))
	n++
	// Codes go to weights in increasing order, symbols in order within one.
	var start [maxHuffBits + 2]uint32
	for _, x := range w[:n] {
		if x > 0 {
			start[x+1] += 1 << (x - 1)
		}
	}
	for x := 1; x <= maxHuffBits+1; x++ {
		start[x] += start[x-1]
	}
	for s, x := range w[:n] {
		if x == 0 {
			continue
		}
		entry := uint16(s)<<8 | uint16(maxBits+1-x)
		lo, hi := start[x], start[x]+1<<(x-1)
		for i := lo; i < hi; i++ {
			h.dt[i] = entry
		}
		start[x] = hi
	}
	h.maxBits = maxBits
	return used, nil
}

// fseWeights decodes FSE-compressed Huffman weights: two states take
// turns over one bitstream until it is read past its start.
func (h *huffTable) fseWeights(in []byte, out []uint8) (int, error) {
	var norm [13]int16
	log, nsym, used, err := readNCount(in, norm[:], 12, 6)
	if err != nil {
		return 0, err
	}
	if err := h.fse.build(norm[:nsym], log); err != nil {
		return 0, err
	}
	var br backReader
	if err := br.init(in[used:]); err != nil {
		return 0, err
	}
	t := h.fse.e[:1<<log]
	s1 := br.read(log)
	s2 := br.read(log)
	n := 0
	for {
		if n+2 > len(out) {
			return 0, corruptf("too many Huffman weights")
		}
		e := t[s1]
		out[n] = e.sym
		n++
		br.reload()
		s1 = uint64(e.base) + br.read(e.nb)
		if br.remaining() < 0 {
			out[n] = t[s2].sym
			return n + 1, nil
		}
		e = t[s2]
		out[n] = e.sym
		n++
		br.reload()
		s2 = uint64(e.base) + br.read(e.nb)
		if br.remaining() < 0 {
			out[n] = t[s1].sym
			return n + 1, nil
		}
	}
}

// decodeLiterals reads a compressed block's literals section: the
// literals and how many bytes of in the section took.
func (z *Reader) decodeLiterals(in []byte) ([]byte, int, error) {
	if len(in) == 0 {
		return nil, 0, corruptf("a compressed block without a literals section")
	}
	b0 := in[0]
	typ, sf := b0&3, b0>>2&3
	if typ < 2 { // raw or RLE
		var size, hl int
		switch sf {
		case 0, 2:
			size, hl = int(b0>>3), 1
		case 1:
			if len(in) < 2 {
				return nil, 0, corruptf("a literals header ends early")
			}
			size, hl = int(b0>>4)|int(in[1])<<4, 2
		case 3:
			if len(in) < 3 {
				return nil, 0, corruptf("a literals header ends early")
			}
			size, hl = int(b0>>4)|int(in[1])<<4|int(in[2])<<12, 3
		}
		if size > z.blockMax {
			return nil, 0, corruptf("%d literals, over the %d-byte block limit", size, z.blockMax)
		}
		if typ == 0 {
			if len(in) < hl+size {
				return nil, 0, corruptf("raw literals end early")
			}
			return in[hl : hl+size], hl + size, nil
		}
		if len(in) < hl+1 {
			return nil, 0, corruptf("RLE literals end early")
		}
		lits := z.lits[:size]
		for i := range lits {
			lits[i] = in[hl]
		}
		return lits, hl + 1, nil
	}
	var regen, comp, hl int
	streams := 4
	switch sf {
	case 0, 1:
		if sf == 0 {
			streams = 1
		}
		if len(in) < 3 {
			return nil, 0, corruptf("a literals header ends early")
		}
		v := uint32(in[0]) | uint32(in[1])<<8 | uint32(in[2])<<16
		regen, comp, hl = int(v>>4&0x3ff), int(v>>14&0x3ff), 3
	case 2:
		if len(in) < 4 {
			return nil, 0, corruptf("a literals header ends early")
		}
		v := binary.LittleEndian.Uint32(in)
		regen, comp, hl = int(v>>4&0x3fff), int(v>>18), 4
	case 3:
		if len(in) < 5 {
			return nil, 0, corruptf("a literals header ends early")
		}
		v := uint64(binary.LittleEndian.Uint32(in)) | uint64(in[4])<<32
		regen, comp, hl = int(v>>4&0x3ffff), int(v>>22), 5
	}
	if regen > z.blockMax {
		return nil, 0, corruptf("%d literals, over the %d-byte block limit", regen, z.blockMax)
	}
	if len(in) < hl+comp {
		return nil, 0, corruptf("compressed literals end early")
	}
	data := in[hl : hl+comp]
	if typ == 2 {
		n, err := z.huff.read(data)
		if err != nil {
			return nil, 0, err
		}
		data = data[n:]
		z.haveHuff = true
	} else if !z.haveHuff {
		return nil, 0, corruptf("literals reuse a Huffman table, but no block before had one")
	}
	lits := z.lits[:regen]
	if streams == 1 {
		if err := z.huff.decode(data, lits); err != nil {
			return nil, 0, err
		}
		return lits, hl + comp, nil
	}
	if len(data) < 6 {
		return nil, 0, corruptf("a literals jump table ends early")
	}
	s1, s2, s3 := int(binary.LittleEndian.Uint16(data)), int(binary.LittleEndian.Uint16(data[2:])), int(binary.LittleEndian.Uint16(data[4:]))
	data = data[6:]
	if s1+s2+s3 > len(data) {
		return nil, 0, corruptf("literal streams longer than their section")
	}
	seg := (regen + 3) / 4
	if 3*seg > regen {
		return nil, 0, corruptf("%d literals cannot fill four streams", regen)
	}
	ins := [4][]byte{data[:s1], data[s1 : s1+s2], data[s1+s2 : s1+s2+s3], data[s1+s2+s3:]}
	for i, in := range ins {
		lo, hi := i*seg, min((i+1)*seg, regen)
		if err := z.huff.decode(in, lits[lo:hi]); err != nil {
			return nil, 0, err
		}
	}
	return lits, hl + comp, nil
}

// decode decodes one Huffman stream into exactly len(out) literals; the
// stream must end there.
func (h *huffTable) decode(in []byte, out []byte) error {
	var br backReader
	if err := br.init(in); err != nil {
		return err
	}
	dt := &h.dt
	shift := 64 - h.maxBits
	i := 0
	for ; i+4 <= len(out); i += 4 {
		br.reload()
		e := dt[(br.cont<<br.used)>>shift&(1<<maxHuffBits-1)]
		br.used += uint(e & 0xff)
		out[i] = byte(e >> 8)
		e = dt[(br.cont<<br.used)>>shift&(1<<maxHuffBits-1)]
		br.used += uint(e & 0xff)
		out[i+1] = byte(e >> 8)
		e = dt[(br.cont<<br.used)>>shift&(1<<maxHuffBits-1)]
		br.used += uint(e & 0xff)
		out[i+2] = byte(e >> 8)
		e = dt[(br.cont<<br.used)>>shift&(1<<maxHuffBits-1)]
		br.used += uint(e & 0xff)
		out[i+3] = byte(e >> 8)
	}
	for ; i < len(out); i++ {
		br.reload()
		e := dt[(br.cont<<br.used)>>shift&(1<<maxHuffBits-1)]
		br.used += uint(e & 0xff)
		out[i] = byte(e >> 8)
	}
	if r := br.remaining(); r != 0 {
		return bitsOff(fmt.Sprintf("a Huffman stream of %d literals", len(out)), r)
	}
	return nil
}
