package search

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// The git index (.git/index) lists the tracked paths. Search needs only
// the names, so this is a small reader of the documented on-disk format
// (gitformat-index(5), versions 2 to 4, SHA-1 and SHA-256, split index)
// rather than a git library: go-git's index package would bring its
// object model, hashing and config packages into every mcode start-up to
// read one sorted list of names.

const (
	indexStatSize = 40 // ctime, mtime, dev, ino, mode, uid, gid, size
	flagExtended  = 0x4000
	flagNameMask  = 0x0fff
)

var errIndex = errors.New("unsupported or corrupt git index")

// readIndexFile reads the tracked paths of an index file, following a
// split index to its shared part. A missing index means nothing is tracked.
func readIndexFile(path, gitDir string, hashSize int) ([]string, error) {
	names, shared, err := parseIndexFile(path, hashSize)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if shared != "" {
		// A split index: this file holds the changes, the shared file
		// the rest. Their union over-counts only entries deleted since
		// the split, which are then searched if present: never hidden.
		more, _, err := parseIndexFile(filepath.Join(gitDir, "sharedindex."+shared), hashSize)
		if errors.Is(err, os.ErrNotExist) {
			err = errIndex
		}
		if err != nil {
			return nil, fmt.Errorf("shared index of %s: %w", path, err)
		}
		names = append(names, more...)
		slices.Sort(names)
		names = slices.Compact(names)
		// Entries the split part replaces carry an empty name.
		names = slices.DeleteFunc(names, func(s string) bool { return s == "" })
	}
	return names, nil
}

// parseIndexFile parses the index file at path as it is read: only the
// names are kept (about a third of an index), never the whole file.
func parseIndexFile(path string, hashSize int) (names []string, shared string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, "", err
	}
	names, shared, err = parseIndexFrom(bufio.NewReaderSize(f, indexReadSize), fi.Size(), hashSize)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return names, shared, nil
}

// indexReadSize is the read buffer of an index: a few reads of a large
// one, and room to look at any entry's fixed part and a name of up to
// 0xFFE bytes at once.
const indexReadSize = 16 << 10

// parseIndex returns the path names of an index in index order (sorted),
// and the hex name of the shared index when the index is split.
func parseIndex(data []byte, hashSize int) (names []string, shared string, err error) {
	return parseIndexFrom(bufio.NewReaderSize(bytes.NewReader(data), indexReadSize), int64(len(data)), hashSize)
}

// indexReader reads an index of a known size, counting its offset so
// that nothing is read from the trailing checksum.
type indexReader struct {
	r   *bufio.Reader
	off int64
	end int64 // where the checksum starts
}

// take returns the next n bytes (valid until the next read).
func (ir *indexReader) take(n int) ([]byte, error) {
	if ir.off+int64(n) > ir.end {
		return nil, errIndex
	}
	b, err := ir.r.Peek(n)
	if err != nil {
		return nil, errIndex
	}
	_, _ = ir.r.Discard(n)
	ir.off += int64(n)
	return b, nil
}

func (ir *indexReader) skip(n int64) error {
	if n < 0 || ir.off+n > ir.end {
		return errIndex
	}
	for n > 0 {
		step := int(min(n, indexReadSize))
		if d, err := ir.r.Discard(step); err != nil || d != step {
			return errIndex
		}
		n -= int64(step)
		ir.off += int64(step)
	}
	return nil
}

// appendName appends the bytes up to the next NUL to arena, consuming the NUL.
func (ir *indexReader) appendName(arena []byte) ([]byte, error) {
	for {
		chunk, err := ir.r.ReadSlice(0)
		ir.off += int64(len(chunk))
		if ir.off > ir.end {
			return nil, errIndex
		}
		switch err {
		case nil:
			return append(arena, chunk[:len(chunk)-1]...), nil
		case bufio.ErrBufferFull:
			arena = append(arena, chunk...)
		default:
			return nil, errIndex
		}
	}
}

// parseIndexFrom parses an index of size bytes from r. The names are
// copied into one buffer and sliced from one string made of it: an index
// of 100,000 entries costs a handful of allocations.
func parseIndexFrom(r *bufio.Reader, size int64, hashSize int) (names []string, shared string, err error) {
	ir := &indexReader{r: r, end: size - int64(hashSize)}
	if size < int64(12+hashSize) {
		return nil, "", errIndex
	}
	head, err := ir.take(12)
	if err != nil || !bytes.Equal(head[:4], []byte("DIRC")) {
		return nil, "", errIndex
	}
	version := binary.BigEndian.Uint32(head[4:8])
	if version < 2 || version > 4 {
		return nil, "", fmt.Errorf("%w: version %d", errIndex, version)
	}
	count := binary.BigEndian.Uint32(head[8:12])
	fixed := indexStatSize + hashSize + 2
	if uint64(count) > uint64(ir.end)/uint64(indexStatSize) {
		return nil, "", errIndex
	}
	// The names take what the fixed parts and the padding (at least one
	// NUL each) leave; version 4's prefix compression can make them more.
	arenaCap := ir.end - 12 - int64(count)*int64(fixed+1)
	if version == 4 {
		arenaCap = int64(count) * 48
	}
	arena := make([]byte, 0, max(0, min(arenaCap, ir.end)))
	names = make([]string, 0, count)
	prevLen := 0 // v4: the length of the previous name, the last in arena
	for n := uint32(0); n < count; n++ {
		start, nameStart := ir.off, len(arena)
		b, err := ir.take(fixed)
		if err != nil {
			return nil, "", err
		}
		flags := binary.BigEndian.Uint16(b[indexStatSize+hashSize:])
		if flags&flagExtended != 0 {
			if version < 3 {
				return nil, "", errIndex
			}
			if _, err := ir.take(2); err != nil {
				return nil, "", err
			}
		}
		if version == 4 {
			peek, _ := ir.r.Peek(10)
			strip, w := decodeVarint(peek)
			if w == 0 || strip > uint64(prevLen) {
				return nil, "", errIndex
			}
			if _, err := ir.take(w); err != nil {
				return nil, "", err
			}
			// The name is the previous one less its last strip bytes,
			// then these: built at the arena's end from the one before.
			last := len(arena)
			arena = append(arena, arena[last-prevLen:last-int(strip)]...)
			if arena, err = ir.appendName(arena); err != nil {
				return nil, "", err
			}
			prevLen = len(arena) - last
		} else {
			nlen := int(flags & flagNameMask)
			if nlen == flagNameMask {
				if arena, err = ir.appendName(arena); err != nil {
					return nil, "", err
				}
				// The NUL read is the first of the padding.
				if err := ir.skip(start + ((ir.off - 1 - start + 8) &^ 7) - ir.off); err != nil {
					return nil, "", err
				}
			} else {
				name, err := ir.take(nlen)
				if err != nil {
					return nil, "", err
				}
				arena = append(arena, name...)
				// Entries are padded with 1 to 8 NULs to a multiple of 8.
				if err := ir.skip(start + ((ir.off - start + 8) &^ 7) - ir.off); err != nil {
					return nil, "", err
				}
			}
		}
		// A view, not a copy: arena is only ever appended to, so the
		// bytes a name sees never change (a grown arena leaves them in
		// the old array, which the name keeps alive).
		names = append(names, view(arena[nameStart:]))
	}
	// Extensions: a 4-byte signature and a 4-byte size each.
	for ir.off+8 <= ir.end {
		h, err := ir.take(8)
		if err != nil {
			return nil, "", err
		}
		sig := string(h[:4])
		size := int64(binary.BigEndian.Uint32(h[4:8]))
		if size > ir.end-ir.off {
			return nil, "", errIndex
		}
		if sig == "link" && size >= int64(hashSize) {
			id, err := ir.take(hashSize)
			if err != nil {
				return nil, "", err
			}
			shared = hex.EncodeToString(id)
			size -= int64(hashSize)
		}
		if err := ir.skip(size); err != nil {
			return nil, "", err
		}
	}
	return names, shared, nil
}

// decodeVarint reads git's offset varint (varint.c); w is 0 on error.
func decodeVarint(b []byte) (v uint64, w int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v = uint64(c & 127)
	w = 1
	for c&128 != 0 {
		if w >= len(b) || w > 9 {
			return 0, 0
		}
		v++
		c = b[w]
		v = v<<7 + uint64(c&127)
		w++
	}
	return v, w
}
