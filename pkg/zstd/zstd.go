// Package zstd decodes Zstandard streams (RFC 8878) with bounded memory:
// one and a half times the frame's window plus a block, for a window no
// larger than the caller allows. It builds no tables at start-up, so
// linking it costs nothing until a stream is read. Dictionaries are not
// supported.
package zstd

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/cespare/xxhash/v2"
)

const (
	frameMagic     = 0xFD2FB528
	skippableMagic = 0x184D2A50 // the low 4 bits are free
	skippableMask  = 0xFFFFFFF0

	// MaxBlockSize is the most a block holds, compressed or not.
	MaxBlockSize = 128 << 10

	// MinWindow is the smallest window a frame header can ask for.
	MinWindow = 1 << 10

	// wildSlack is room past a block's end, so short copies can move 8
	// bytes at a time.
	wildSlack = 32
)

var (
	// ErrCorrupt is wrapped by every error about malformed data.
	ErrCorrupt = errors.New("zstd: corrupt data")
	// ErrWindowTooLarge: a frame asks for more memory than allowed.
	ErrWindowTooLarge = errors.New("zstd: window too large")
	// ErrDictionary: a frame needs a dictionary.
	ErrDictionary = errors.New("zstd: dictionaries are not supported")
	// ErrChecksum: a frame's content does not match its checksum.
	ErrChecksum = errors.New("zstd: checksum mismatch")

	errClosed = errors.New("zstd: reader closed")
)

func corruptf(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, a...)...)
}

// Reader decodes a stream of concatenated frames; skippable frames are
// skipped.
type Reader struct {
	in        *bufio.Reader
	maxWindow int64
	err       error

	// hist holds the frame's recent output: at least the window before
	// the block being decoded, and that block. hist[rd:] is not read yet.
	hist  []byte
	rd    int
	limit int // most bytes hist may hold for this frame

	inFrame  bool
	frames   int
	window   int
	blockMax int
	fcs      uint64 // content size, when known
	hasFCS   bool
	produced uint64
	checksum bool
	digest   *xxhash.Digest

	block    []byte // a compressed block's content
	lits     []byte // decoded literals
	huff     huffTable
	haveHuff bool
	rep      [3]int
	seq      seqTables
}

// NewReader decodes r; a frame asking for a window over maxWindow bytes
// is refused.
func NewReader(r io.Reader, maxWindow int64) *Reader {
	return &Reader{in: bufio.NewReaderSize(r, 32<<10), maxWindow: maxWindow, digest: xxhash.New()}
}

// Read reads decoded bytes.
func (z *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, z.errIfNoData()
	}
	for z.rd == len(z.hist) {
		if z.err != nil {
			return 0, z.err
		}
		z.err = z.step()
	}
	n := copy(p, z.hist[z.rd:])
	z.rd += n
	return n, nil
}

func (z *Reader) errIfNoData() error {
	if z.rd == len(z.hist) && z.err != nil {
		return z.err
	}
	return nil
}

// WriteTo writes the rest of the decoded stream to w.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if z.rd < len(z.hist) {
			n, err := w.Write(z.hist[z.rd:])
			z.rd += n
			total += int64(n)
			if err != nil {
				return total, err
			}
			continue
		}
		if z.err != nil {
			if z.err == io.EOF {
				return total, nil
			}
			return total, z.err
		}
		z.err = z.step()
	}
}

// Close frees the buffers; the Reader reads no more.
func (z *Reader) Close() error {
	z.hist, z.block, z.lits, z.rd = nil, nil, nil, 0
	if z.err == nil || z.err == io.EOF {
		z.err = errClosed
	}
	return nil
}

// step decodes the next frame header or block.
func (z *Reader) step() error {
	if !z.inFrame {
		return z.startFrame()
	}
	return z.decodeBlock()
}

func (z *Reader) readFull(p []byte, what string) error {
	if _, err := io.ReadFull(z.in, p); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return fmt.Errorf("zstd: the stream ends inside %s: %w", what, io.ErrUnexpectedEOF)
		}
		return err
	}
	return nil
}

func (z *Reader) startFrame() error {
	var m [4]byte
	n, err := io.ReadFull(z.in, m[:])
	if n == 0 && err == io.EOF {
		return io.EOF
	}
	if err != nil {
		if err == io.ErrUnexpectedEOF {
			return fmt.Errorf("zstd: the stream ends inside a frame's magic number: %w", err)
		}
		return err
	}
	switch magic := binary.LittleEndian.Uint32(m[:]); {
	case magic == frameMagic:
	case magic&skippableMask == skippableMagic:
		if err := z.readFull(m[:], "a skippable frame's header"); err != nil {
			return err
		}
		size := int64(binary.LittleEndian.Uint32(m[:]))
		if got, err := io.CopyN(io.Discard, z.in, size); err != nil {
			if err == io.EOF {
				return fmt.Errorf("zstd: a skippable frame of %d bytes ends after %d: %w", size, got, io.ErrUnexpectedEOF)
			}
			return err
		}
		return nil
	default:
		if z.frames == 0 {
			return corruptf("not a zstd stream (magic number %#08x)", magic)
		}
		return corruptf("after frame %d: %#08x is not a frame's magic number", z.frames, magic)
	}
	z.frames++
	var hdr [14]byte
	if err := z.readFull(hdr[:1], "a frame header"); err != nil {
		return err
	}
	desc := hdr[0]
	fcsFlag, single, checksum, dictFlag := desc>>6, desc>>5&1 == 1, desc>>2&1 == 1, desc&3
	if desc&0x08 != 0 {
		return corruptf("frame %d: the header's reserved bit is set", z.frames)
	}
	dictSize := [4]int{0, 1, 2, 4}[dictFlag]
	fcsSize := [4]int{0, 2, 4, 8}[fcsFlag]
	if single && fcsFlag == 0 {
		fcsSize = 1
	}
	rest := dictSize + fcsSize
	if !single {
		rest++
	}
	h := hdr[1 : 1+rest]
	if err := z.readFull(h, "a frame header"); err != nil {
		return err
	}
	var window uint64
	if !single {
		wd := h[0]
		h = h[1:]
		base := uint64(1) << (10 + wd>>3)
		window = base + base/8*uint64(wd&7)
	}
	var dict uint64
	for i := dictSize - 1; i >= 0; i-- {
		dict = dict<<8 | uint64(h[i])
	}
	h = h[dictSize:]
	if dict != 0 {
		return fmt.Errorf("%w: frame %d needs dictionary %d", ErrDictionary, z.frames, dict)
	}
	var fcs uint64
	for i := fcsSize - 1; i >= 0; i-- {
		fcs = fcs<<8 | uint64(h[i])
	}
	if fcsSize == 2 {
		fcs += 256
	}
	if single {
		window = fcs
	}
	if window > uint64(z.maxWindow) {
		return fmt.Errorf("%w: frame %d asks for a %s window, over the %s allowed", ErrWindowTooLarge, z.frames, byteSize(window), byteSize(uint64(z.maxWindow)))
	}
	z.inFrame = true
	z.window = int(window)
	z.blockMax = min(z.window, MaxBlockSize)
	z.limit = z.window + max(z.window/2, 4*z.blockMax)
	z.fcs, z.hasFCS = fcs, single || fcsSize > 0
	z.produced = 0
	z.checksum = checksum
	z.digest.Reset()
	z.hist, z.rd = z.hist[:0], 0
	z.haveHuff = false
	z.rep = [3]int{1, 4, 8}
	z.seq = seqTables{}
	return nil
}

// bitsOff tells how a bitstream failed to end where its content did.
func bitsOff(what string, r int) error {
	if r < 0 {
		return corruptf("%s needs %d bits more than it holds", what, -r)
	}
	return corruptf("%s leaves %d bits unread", what, r)
}

func byteSize(n uint64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d-byte", n)
}

// room makes space for one more block in hist, sliding the window to
// the front when the buffer is full. Everything in hist has been read.
func (z *Reader) room() {
	need := len(z.hist) + z.blockMax + wildSlack
	if need <= cap(z.hist) {
		return
	}
	if need > z.limit+wildSlack {
		n := copy(z.hist, z.hist[len(z.hist)-z.window:])
		z.hist = z.hist[:n]
		z.rd = n
		need = n + z.blockMax + wildSlack
		if need <= cap(z.hist) {
			return
		}
	}
	grown := make([]byte, len(z.hist), min(max(2*cap(z.hist), need, 64<<10), z.limit+wildSlack))
	copy(grown, z.hist)
	z.hist = grown
}

func (z *Reader) decodeBlock() error {
	var bh [3]byte
	if err := z.readFull(bh[:], "a block header"); err != nil {
		return err
	}
	v := uint32(bh[0]) | uint32(bh[1])<<8 | uint32(bh[2])<<16
	last, typ, size := v&1 == 1, v>>1&3, int(v>>3)
	if size > z.blockMax {
		return corruptf("a block of %d bytes, over the frame's %d-byte limit", size, z.blockMax)
	}
	z.room()
	start := len(z.hist)
	switch typ {
	case 0:
		out := z.hist[start : start+size]
		if err := z.readFull(out, "a raw block"); err != nil {
			return err
		}
		z.hist = z.hist[:start+size]
	case 1:
		var b [1]byte
		if err := z.readFull(b[:], "an RLE block"); err != nil {
			return err
		}
		out := z.hist[start : start+size]
		for i := range out {
			out[i] = b[0]
		}
		z.hist = z.hist[:start+size]
	case 2:
		if cap(z.block) < size {
			z.block = make([]byte, MaxBlockSize+wildSlack)
		}
		in := z.block[:size]
		if err := z.readFull(in, "a compressed block"); err != nil {
			return err
		}
		if err := z.decodeCompressed(in); err != nil {
			return err
		}
	default:
		return corruptf("a block of the reserved type 3")
	}
	out := z.hist[start:]
	z.produced += uint64(len(out))
	if z.checksum {
		z.digest.Write(out)
	}
	if z.hasFCS && z.produced > z.fcs {
		return corruptf("frame %d decodes past its declared %d bytes", z.frames, z.fcs)
	}
	if last {
		return z.endFrame()
	}
	return nil
}

func (z *Reader) endFrame() error {
	z.inFrame = false
	if z.hasFCS && z.produced != z.fcs {
		return corruptf("frame %d decodes to %d bytes, not its declared %d", z.frames, z.produced, z.fcs)
	}
	if !z.checksum {
		return nil
	}
	var c [4]byte
	if err := z.readFull(c[:], "a frame's checksum"); err != nil {
		return err
	}
	want, got := binary.LittleEndian.Uint32(c[:]), uint32(z.digest.Sum64())
	if want != got {
		return fmt.Errorf("%w: frame %d's content hashes to %08x, its checksum says %08x", ErrChecksum, z.frames, got, want)
	}
	return nil
}

func (z *Reader) decodeCompressed(in []byte) error {
	if z.lits == nil {
		z.lits = make([]byte, MaxBlockSize+wildSlack)
	}
	lits, n, err := z.decodeLiterals(in)
	if err != nil {
		return err
	}
	return z.decodeSequences(in[n:], lits)
}
