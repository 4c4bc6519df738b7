package zstd

import (
	"math/bits"
	"sync"
)

// fseEntry is one state of an FSE decoding table. For the sequence
// codes it also carries the code's value: baseline and extra bits.
type fseEntry struct {
	base    uint16 // next state = base + nb bits
	nb      uint8
	sym     uint8
	addBits uint8
	value   uint32
}

// maxTableLog is the largest accuracy any FSE table here has.
const maxTableLog = 9

type fseTable struct {
	log uint8
	e   [1 << maxTableLog]fseEntry
}

// readNCount reads an FSE table description: the accuracy log and the
// normalized counts of symbols 0..nsym-1, and how many bytes it took.
func readNCount(in []byte, norm []int16, maxSym int, maxLog uint8) (log uint8, nsym, used int, err error) {
	if len(in) == 0 {
		return 0, 0, 0, corruptf("an FSE table description is missing")
	}
	log = in[0]&15 + 5
	if log > maxLog {
		return 0, 0, 0, corruptf("an FSE table of accuracy %d, over the maximum %d", log, maxLog)
	}
	for i := range norm {
		norm[i] = 0
	}
	pos := 4
	remaining := 1<<log + 1
	threshold := 1 << log
	nb := int(log) + 1
	sym := 0
	for remaining > 1 {
		if sym > maxSym {
			return 0, 0, 0, corruptf("an FSE table with symbols past %d", maxSym)
		}
		v := int(peekFwd(in, pos, nb))
		most := 2*threshold - 1 - remaining
		var val int
		if low := v & (threshold - 1); low < most {
			val = low
			pos += nb - 1
		} else {
			val = v
			if val >= threshold {
				val -= most
			}
			pos += nb
		}
		count := val - 1
		if count < 0 {
			remaining--
		} else {
			remaining -= count
		}
		norm[sym] = int16(count)
		sym++
		if count == 0 {
			for {
				r := int(peekFwd(in, pos, 2))
				pos += 2
				sym += r
				if r != 3 {
					break
				}
				if pos > len(in)*8 {
					return 0, 0, 0, corruptf("an FSE table description ends early")
				}
			}
		}
		if remaining < 1 {
			return 0, 0, 0, corruptf("an FSE table's counts overflow its size")
		}
		for remaining < threshold {
			nb--
			threshold >>= 1
		}
	}
	if sym > maxSym+1 {
		return 0, 0, 0, corruptf("an FSE table with symbols past %d", maxSym)
	}
	if pos > len(in)*8 {
		return 0, 0, 0, corruptf("an FSE table description ends early")
	}
	return log, sym, (pos + 7) / 8, nil
}

// build spreads the symbols over the table and sets each state's
// transition.
func (t *fseTable) build(norm []int16, log uint8) error {
	size := 1 << log
	high := size - 1
	var next [64]uint16
	e := t.e[:size]
	t.log = log
	for s, c := range norm {
		if c == -1 {
			e[high].sym = uint8(s)
			high--
			next[s] = 1
		} else {
			next[s] = uint16(c)
		}
	}
	pos, step, mask := 0, size>>1+size>>3+3, size-1
	for s, c := range norm {
		for i := 0; i < int(c); i++ {
			e[pos].sym = uint8(s)
			for {
				pos = (pos + step) & mask
				if pos <= high {
					break
				}
			}
		}
	}
	if pos != 0 {
		return corruptf("an FSE table whose counts do not fill it")
	}
	for i := range e {
		s := e[i].sym
		x := next[s]
		next[s]++
		nb := log - uint8(bits.Len16(x)-1)
		e[i].nb = nb
		e[i].base = uint16(int(x)<<nb - size)
	}
	return nil
}

// rle makes the one-state table of a code repeated throughout.
func (t *fseTable) rle(sym uint8) {
	t.log = 0
	t.e[0] = fseEntry{sym: sym}
}

// seqKind names the three sequence codes, in the order of their modes.
type seqKind int

const (
	litLen seqKind = iota
	offCode
	matchLen
)

var (
	kindName   = [3]string{"literal length", "offset", "match length"}
	kindMaxSym = [3]int{35, 31, 52}
	kindMaxLog = [3]uint8{9, 8, 9}

	llBase = [36]uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096,
		8192, 16384, 32768, 65536}
	llBits = [36]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12,
		13, 14, 15, 16}
	mlBase = [53]uint32{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
		19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34,
		35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051,
		4099, 8195, 16387, 32771, 65539}
	mlBits = [53]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11,
		12, 13, 14, 15, 16}

	predefinedNorm = [3][]int16{
		{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1},
		{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1},
		{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1},
	}
	predefinedLog = [3]uint8{6, 5, 6}
)

// setValues fills in what each state's code means for kind k.
func (t *fseTable) setValues(k seqKind) {
	e := t.e[:1<<t.log]
	for i := range e {
		s := e[i].sym
		switch k {
		case litLen:
			e[i].value, e[i].addBits = llBase[s], llBits[s]
		case matchLen:
			e[i].value, e[i].addBits = mlBase[s], mlBits[s]
		case offCode:
			e[i].value, e[i].addBits = 1<<s, s
		}
	}
}

// predefined holds the three default tables, built on first use.
var predefined = sync.OnceValue(func() *[3]fseTable {
	var t [3]fseTable
	for k := range t {
		if err := t[k].build(predefinedNorm[k], predefinedLog[k]); err != nil {
			panic(err) // the tables are constants
		}
		t[k].setValues(seqKind(k))
	}
	return &t
})

// seqTables are a frame's current tables for the three codes, kept for
// blocks that repeat them.
type seqTables struct {
	cur [3]*fseTable
	buf [3]fseTable
}

// set reads kind k's table in the given mode from in, and how many
// bytes it took.
func (s *seqTables) set(k seqKind, mode byte, in []byte) (int, error) {
	switch mode {
	case 0:
		s.cur[k] = &predefined()[k]
		return 0, nil
	case 1:
		if len(in) == 0 {
			return 0, corruptf("the %s code of an RLE table is missing", kindName[k])
		}
		if int(in[0]) > kindMaxSym[k] {
			return 0, corruptf("an RLE %s code %d, over the maximum %d", kindName[k], in[0], kindMaxSym[k])
		}
		s.buf[k].rle(in[0])
		s.buf[k].setValues(k)
		s.cur[k] = &s.buf[k]
		return 1, nil
	case 2:
		var norm [64]int16
		log, nsym, n, err := readNCount(in, norm[:kindMaxSym[k]+1], kindMaxSym[k], kindMaxLog[k])
		if err != nil {
			return 0, err
		}
		if err := s.buf[k].build(norm[:nsym], log); err != nil {
			return 0, err
		}
		s.buf[k].setValues(k)
		s.cur[k] = &s.buf[k]
		return n, nil
	}
	if s.cur[k] == nil {
		return 0, corruptf("a block repeats the %s table, but no block before it had one", kindName[k])
	}
	return 0, nil
}
