package search

import (
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
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names, shared, err := parseIndex(data, hashSize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if shared != "" {
		// A split index: this file holds the changes, the shared file
		// the rest. Their union over-counts only entries deleted since
		// the split, which are then searched if present: never hidden.
		more, _, err := parseIndex(mustRead(filepath.Join(gitDir, "sharedindex."+shared)), hashSize)
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

func mustRead(path string) []byte {
	data, _ := os.ReadFile(path)
	return data
}

// parseIndex returns the path names of an index in index order (sorted),
// and the hex name of the shared index when the index is split.
func parseIndex(data []byte, hashSize int) (names []string, shared string, err error) {
	if len(data) < 12+hashSize || !bytes.Equal(data[:4], []byte("DIRC")) {
		return nil, "", errIndex
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, "", fmt.Errorf("%w: version %d", errIndex, version)
	}
	count := binary.BigEndian.Uint32(data[8:12])
	end := len(data) - hashSize
	if uint64(count) > uint64(end)/uint64(indexStatSize) {
		return nil, "", errIndex
	}
	// The names go into one buffer, then one string that every name is a
	// slice of: an index of 100,000 entries costs a handful of
	// allocations, not one per entry.
	arena := make([]byte, 0, min(len(data), int(count)*48))
	ends := make([]int, 0, count)
	off := 12
	prevLen := 0 // v4: the length of the previous name, the last in arena
	for n := uint32(0); n < count; n++ {
		start := off
		fixed := indexStatSize + hashSize + 2
		if off+fixed > end {
			return nil, "", errIndex
		}
		flags := binary.BigEndian.Uint16(data[off+indexStatSize+hashSize:])
		off += fixed
		if flags&flagExtended != 0 {
			if version < 3 || off+2 > end {
				return nil, "", errIndex
			}
			off += 2
		}
		if version == 4 {
			strip, w := decodeVarint(data[off:end])
			if w == 0 || strip > uint64(prevLen) {
				return nil, "", errIndex
			}
			off += w
			nul := bytes.IndexByte(data[off:end], 0)
			if nul < 0 {
				return nil, "", errIndex
			}
			// The name is the previous one less its last strip bytes,
			// then these: built at the arena's end from the one before.
			last := len(arena)
			arena = append(arena, arena[last-prevLen:last-int(strip)]...)
			arena = append(arena, data[off:off+nul]...)
			prevLen = len(arena) - last
			off += nul + 1
		} else {
			nlen := int(flags & flagNameMask)
			if nlen == flagNameMask {
				nlen = bytes.IndexByte(data[off:end], 0)
			}
			if nlen < 0 || off+nlen > end {
				return nil, "", errIndex
			}
			arena = append(arena, data[off:off+nlen]...)
			// Entries are padded with 1 to 8 NULs to a multiple of 8.
			off = start + ((off - start + nlen + 8) &^ 7)
			if off > end {
				return nil, "", errIndex
			}
		}
		ends = append(ends, len(arena))
	}
	all := string(arena)
	names = make([]string, len(ends))
	from := 0
	for i, e := range ends {
		names[i] = all[from:e]
		from = e
	}
	// Extensions: a 4-byte signature and a 4-byte size each.
	for off+8 <= end {
		sig := string(data[off : off+4])
		size := int(binary.BigEndian.Uint32(data[off+4 : off+8]))
		off += 8
		if size < 0 || size > end-off {
			return nil, "", errIndex
		}
		if sig == "link" && size >= hashSize {
			shared = hex.EncodeToString(data[off : off+hashSize])
		}
		off += size
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
