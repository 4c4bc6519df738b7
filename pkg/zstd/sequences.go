package zstd

import (
	"encoding/binary"
	"fmt"
)

// decodeSequences reads a compressed block's sequences section and
// writes the block: literals and matches, appended to hist.
func (z *Reader) decodeSequences(in []byte, lits []byte) error {
	if len(in) == 0 {
		return corruptf("a compressed block without a sequences section")
	}
	var nseq, p int
	switch b0 := int(in[0]); {
	case b0 < 128:
		nseq, p = b0, 1
	case b0 < 255:
		if len(in) < 2 {
			return corruptf("a sequences header ends early")
		}
		nseq, p = (b0-128)<<8|int(in[1]), 2
	default:
		if len(in) < 3 {
			return corruptf("a sequences header ends early")
		}
		nseq, p = int(in[1])|int(in[2])<<8+0x7F00, 3
	}
	start := len(z.hist)
	out := z.hist[:cap(z.hist)]
	wlits := lits[:cap(lits)]
	if nseq == 0 {
		if p != len(in) {
			return corruptf("%d bytes after a block's last sequence", len(in)-p)
		}
		if len(lits) > z.blockMax {
			return corruptf("a block decodes past %d bytes", z.blockMax)
		}
		z.hist = append(z.hist, lits...)
		return nil
	}
	if p >= len(in) {
		return corruptf("a sequences header ends early")
	}
	modes := in[p]
	p++
	if modes&3 != 0 {
		return corruptf("the sequences header's reserved bits are set")
	}
	for k := litLen; k <= matchLen; k++ {
		n, err := z.seq.set(k, modes>>(6-2*k)&3, in[p:])
		if err != nil {
			return err
		}
		p += n
	}
	var br backReader
	if err := br.init(in[p:]); err != nil {
		return err
	}
	llT, ofT, mlT := z.seq.cur[litLen], z.seq.cur[offCode], z.seq.cur[matchLen]
	ll, of, ml := llT.e[:1<<llT.log], ofT.e[:1<<ofT.log], mlT.e[:1<<mlT.log]
	sLL := br.read(llT.log)
	sOF := br.read(ofT.log)
	sML := br.read(mlT.log)
	// The bit reader's parts live in locals here: the hot loop.
	bin, pos, cont, used := br.in, br.pos, br.cont, br.used

	op, lp := start, 0
	end := start + z.blockMax
	window := z.window
	rep := z.rep
	for i := 0; i < nseq; i++ {
		lle, ofe, mle := ll[sLL], of[sOF], ml[sML]
		if used <= 64 {
			pos, cont, used = refill(bin, pos, used)
		}
		offv := int(ofe.value) + int((cont<<used)>>(64-ofe.addBits))
		used += uint(ofe.addBits)
		if ofe.addBits > 24 && used <= 64 {
			pos, cont, used = refill(bin, pos, used)
		}
		mlv := int(mle.value) + int((cont<<used)>>(64-mle.addBits))
		used += uint(mle.addBits)
		llv := int(lle.value) + int((cont<<used)>>(64-lle.addBits))
		used += uint(lle.addBits)

		var off int
		if offv > 3 {
			off = offv - 3
			rep[2], rep[1], rep[0] = rep[1], rep[0], off
		} else {
			idx := offv - 1
			if llv == 0 {
				idx++
			}
			switch idx {
			case 0:
				off = rep[0]
			case 1:
				off = rep[1]
				rep[1], rep[0] = rep[0], off
			case 2:
				off = rep[2]
				rep[2], rep[1], rep[0] = rep[1], rep[0], off
			default:
				off = rep[0] - 1
				if off == 0 {
					return corruptf("a repeated offset of zero")
				}
				rep[2], rep[1], rep[0] = rep[1], rep[0], off
			}
		}
		if i < nseq-1 {
			if used <= 64 {
				pos, cont, used = refill(bin, pos, used)
			}
			sLL = uint64(lle.base) + (cont<<used)>>(64-lle.nb)
			used += uint(lle.nb)
			sML = uint64(mle.base) + (cont<<used)>>(64-mle.nb)
			used += uint(mle.nb)
			sOF = uint64(ofe.base) + (cont<<used)>>(64-ofe.nb)
			used += uint(ofe.nb)
		}

		if llv > len(lits)-lp {
			return corruptf("a sequence takes %d literals, %d are left", llv, len(lits)-lp)
		}
		if llv+mlv > end-op {
			return corruptf("a block decodes past %d bytes", z.blockMax)
		}
		// Short copies go 16 bytes at a time, past their end into the
		// slack that buffers keep (wildSlack).
		if llv <= 32 {
			for j := 0; j < llv; j += 16 {
				d, s := out[op+j:op+j+16], wlits[lp+j:lp+j+16]
				binary.LittleEndian.PutUint64(d, binary.LittleEndian.Uint64(s))
				binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(s[8:]))
			}
		} else {
			copy(out[op:op+llv], lits[lp:lp+llv])
		}
		op += llv
		lp += llv
		if off > op || off > window {
			return corruptf("a match %d bytes back, %d are decoded (window %d)", off, op, window)
		}
		src := op - off
		switch {
		case off >= mlv && mlv > 32:
			copy(out[op:op+mlv], out[src:src+mlv])
		case off >= 16:
			for j := 0; j < mlv; j += 16 {
				d, s := out[op+j:op+j+16], out[src+j:src+j+16]
				binary.LittleEndian.PutUint64(d, binary.LittleEndian.Uint64(s))
				binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(s[8:]))
			}
		case off >= 8:
			for j := 0; j < mlv; j += 8 {
				binary.LittleEndian.PutUint64(out[op+j:], binary.LittleEndian.Uint64(out[src+j:]))
			}
		default:
			// Overlapping: the copied part doubles the pattern each time.
			for done := 0; done < mlv; {
				done += copy(out[op+done:op+mlv], out[src:op+done])
			}
		}
		op += mlv
	}
	br.pos, br.cont, br.used = pos, cont, used
	if r := br.remaining(); r != 0 {
		return bitsOff(fmt.Sprintf("a bitstream of %d sequences", nseq), r)
	}
	rest := len(lits) - lp
	if rest > end-op {
		return corruptf("a block decodes past %d bytes", z.blockMax)
	}
	copy(out[op:], lits[lp:])
	z.hist = out[:op+rest]
	z.rep = rep
	return nil
}
