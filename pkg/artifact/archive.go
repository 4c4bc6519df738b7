package artifact

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/ulikunitz/xz"
)

// Format is an archive format, told from the file's first bytes, not its
// name.
type Format string

const (
	FormatTar    Format = "tar"
	FormatTarGz  Format = "tar.gz"
	FormatTarXz  Format = "tar.xz"
	FormatTarZst Format = "tar.zst"
	FormatTarBz2 Format = "tar.bz2"
	FormatZip    Format = "zip"
)

// Formats are the formats extract reads, for messages and help.
var Formats = []Format{FormatTar, FormatTarGz, FormatTarXz, FormatTarZst, FormatTarBz2, FormatZip}

// sniffLen is how much of a file DetectFormat reads.
const sniffLen = 512

// DetectFormat tells the format from the first bytes of a file.
func DetectFormat(head []byte) (Format, bool) {
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return FormatTarGz, true
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return FormatTarXz, true
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}), zstdSkippable(head):
		return FormatTarZst, true
	case bytes.HasPrefix(head, []byte("BZh")):
		return FormatTarBz2, true
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return FormatZip, true
	case len(head) >= 263 && (bytes.Equal(head[257:262], []byte("ustar"))):
		return FormatTar, true
	case len(head) >= 512 && tarChecksumOK(head[:512]):
		return FormatTar, true // a v7 tar without the ustar magic
	}
	return "", false
}

// zstdSkippable says whether head starts with a zstd skippable frame
// (magic 0x184D2A50 to 0x184D2A5F, little-endian), which a zstd stream may
// begin with (pzstd writes one; any tool may add metadata so): only a
// zstd stream starts so, and its decoder skips the frame.
func zstdSkippable(head []byte) bool {
	return len(head) >= 8 && head[0]&0xf0 == 0x50 && head[1] == 0x2a && head[2] == 0x4d && head[3] == 0x18
}

// tarChecksumOK checks a tar header block's checksum field.
func tarChecksumOK(b []byte) bool {
	var sum int64
	for i, c := range b {
		if i >= 148 && i < 156 {
			c = ' '
		}
		sum += int64(c)
	}
	var want int64
	digits := 0
	for _, c := range b[148:156] {
		if c >= '0' && c <= '7' {
			want = want*8 + int64(c-'0')
			digits++
		} else if digits > 0 {
			break
		}
	}
	return digits > 0 && sum == want && sum != 8*' '
}

// decompressor wraps the compressed stream of a tar format.
func decompressor(f Format, r io.Reader) (io.Reader, func(), error) {
	switch f {
	case FormatTarGz:
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, err
		}
		return z, func() { z.Close() }, nil
	case FormatTarXz:
		z, err := xz.NewReader(r)
		return z, func() {}, err
	case FormatTarZst:
		z, err := newZstdReader(r)
		if err != nil {
			return nil, nil, err
		}
		return z, z.Close, nil
	case FormatTarBz2:
		return bzip2.NewReader(r), func() {}, nil
	}
	return r, func() {}, nil
}

// kind is what an entry makes.
type kind string

const (
	kindFile     kind = "file"
	kindDir      kind = "dir"
	kindSymlink  kind = "symlink"
	kindHardlink kind = "hardlink"
)

// entry is one member of an archive, whatever the format.
type entry struct {
	name     string
	kind     kind
	special  string // set for what extract refuses: device, fifo, …
	linkname string
	size     int64
	mode     fs.FileMode
	mtime    time.Time
	open     func() (io.ReadCloser, error)
}

// walker yields an archive's entries in order; io.EOF ends them.
type walker interface {
	next() (*entry, error)
	backslash() bool
}

type tarWalker struct{ r *tar.Reader }

func (w *tarWalker) backslash() bool { return false }

func (w *tarWalker) next() (*entry, error) {
	h, err := w.r.Next()
	if err != nil {
		return nil, err
	}
	e := &entry{name: h.Name, linkname: h.Linkname, size: h.Size, mode: fs.FileMode(h.Mode).Perm(), mtime: h.ModTime,
		open: func() (io.ReadCloser, error) { return io.NopCloser(w.r), nil }}
	switch h.Typeflag {
	case tar.TypeReg, tar.TypeRegA, tar.TypeCont, tar.TypeGNUSparse:
		// A GNU sparse file (tar --sparse) reads as its whole data, holes
		// as zeros; Size is that whole size.
		e.kind = kindFile
	case tar.TypeDir:
		e.kind = kindDir
	case tar.TypeSymlink:
		e.kind = kindSymlink
	case tar.TypeLink:
		e.kind = kindHardlink
	case tar.TypeChar:
		e.special = "character device"
	case tar.TypeBlock:
		e.special = "block device"
	case tar.TypeFifo:
		e.special = "FIFO"
	default:
		e.special = fmt.Sprintf("entry of tar type %q", h.Typeflag)
	}
	return e, nil
}

type zipWalker struct {
	files []*zip.File
	i     int
}

func newZipWalker(r io.ReaderAt, size int64) (*zipWalker, error) {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return nil, err
	}
	z.RegisterDecompressor(zip.Deflate, func(r io.Reader) io.ReadCloser { return flate.NewReader(r) })
	return &zipWalker{files: z.File}, nil
}

func (w *zipWalker) backslash() bool { return true }

func (w *zipWalker) next() (*entry, error) {
	if w.i >= len(w.files) {
		return nil, io.EOF
	}
	f := w.files[w.i]
	w.i++
	m := f.Mode()
	e := &entry{name: f.Name, size: int64(f.UncompressedSize64), mode: m.Perm(), mtime: f.Modified, open: f.Open}
	if f.UncompressedSize64 > 1<<62 {
		e.size = 1 << 62
	}
	switch {
	case m.IsDir():
		e.kind = kindDir
	case m&fs.ModeSymlink != 0:
		e.kind = kindSymlink
		target, err := readZipLink(f)
		if err != nil {
			return nil, err
		}
		e.linkname = target
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		e.special = "device"
	case m&fs.ModeNamedPipe != 0:
		e.special = "FIFO"
	case m&fs.ModeSocket != 0:
		e.special = "socket"
	case m&fs.ModeIrregular != 0:
		e.special = "irregular file"
	default:
		e.kind = kindFile
	}
	return e, nil
}

// maxLinkTarget bounds a zip symlink's target (its data is the target).
const maxLinkTarget = 4096

func readZipLink(f *zip.File) (string, error) {
	if f.UncompressedSize64 > maxLinkTarget {
		return "", fmt.Errorf("symlink %q has a %d-byte target", f.Name, f.UncompressedSize64)
	}
	r, err := f.Open()
	if err != nil {
		return "", err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxLinkTarget+1))
	if err != nil {
		return "", err
	}
	return string(b), nil
}
