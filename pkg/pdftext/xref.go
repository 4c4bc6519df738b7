package pdftext

import (
	"bytes"
	"io"
	"strconv"
)

// MaxXrefSections bounds the /Prev chain of cross-reference sections
// (one per incremental update).
const MaxXrefSections = 10_000

// checkXrefChain follows the /Prev chain of cross-reference sections
// from startxref before the library does: the library follows it without
// remembering where it has been, so a section whose /Prev names itself
// (or an earlier one) loops for ever. Whatever this scan cannot make
// sense of is left for the library to judge.
func checkXrefChain(f io.ReaderAt, size int64) error {
	tail := make([]byte, min(size, 1024))
	n, _ := f.ReadAt(tail, size-int64(len(tail)))
	tail = tail[:n]
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return nil
	}
	off, ok := leadingInt(tail[i+len("startxref"):])
	if !ok {
		return nil
	}
	seen := map[int64]bool{}
	for off >= 0 && off < size {
		if seen[off] {
			return corrupt("malformed PDF: the cross-reference sections loop (/Prev leads back to offset %d)", off)
		}
		if seen[off] = true; len(seen) > MaxXrefSections {
			return corrupt("malformed PDF: more than %d cross-reference sections", MaxXrefSections)
		}
		dict := sectionDict(f, off, size)
		j := bytes.Index(dict, []byte("/Prev"))
		if j < 0 {
			return nil
		}
		if off, ok = leadingInt(dict[j+len("/Prev"):]); !ok {
			return nil
		}
	}
	return nil
}

// sectionDict is the trailer dictionary of the xref table at off, or the
// dictionary of the xref stream there.
func sectionDict(f io.ReaderAt, off, size int64) []byte {
	const window = 4096
	buf := make([]byte, min(window, size-off))
	n, _ := f.ReadAt(buf, off)
	buf = buf[:n]
	if !bytes.HasPrefix(bytes.TrimLeft(buf, " \t\r\n"), []byte("xref")) {
		if k := bytes.Index(buf, []byte("stream")); k >= 0 {
			return buf[:k]
		}
		return buf
	}
	// A table: its entries run to the trailer keyword.
	for pos := off; pos < size; pos += window * 16 {
		chunk := make([]byte, min(window*16+16, size-pos))
		n, _ := f.ReadAt(chunk, pos)
		if k := bytes.Index(chunk[:n], []byte("trailer")); k >= 0 {
			rest := make([]byte, min(window, size-(pos+int64(k))))
			m, _ := f.ReadAt(rest, pos+int64(k))
			rest = rest[:m]
			if e := bytes.Index(rest, []byte("startxref")); e >= 0 {
				rest = rest[:e]
			}
			return rest
		}
	}
	return nil
}

func leadingInt(b []byte) (int64, bool) {
	b = bytes.TrimLeft(b, " \t\r\n")
	end := 0
	for end < len(b) && b[end] >= '0' && b[end] <= '9' {
		end++
	}
	n, err := strconv.ParseInt(string(b[:end]), 10, 64)
	return n, err == nil
}
