package artifact

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Limits of extract.
const (
	// DefaultMaxSize caps each entry and the sum of all entries.
	DefaultMaxSize int64 = 1 << 30
	// MaxEntries caps the entries of one archive (an inode bomb is many
	// empty files).
	MaxEntries = 100_000
	// MaxManifestSize caps a JSON file that expect_json reads.
	MaxManifestSize = 16 << 20
)

// StampName is the file sync keeps in each destination: what it synced.
const StampName = ".mcode-artifact.json"

// EntrySpec selects one entry (or a folder of them) of an archive.
type EntrySpec struct {
	Path   string  // the name after strip
	Digest *Digest // the file's expected hash, or nil
	Rename string  // the name to write it under, or ""
}

// Expectation is one field an extracted JSON file must have.
type Expectation struct {
	File  string // the entry's name after strip
	Key   string // a field, dotted for nested ones: build.env
	Value any    // a string, or any JSON value
}

// ExtractOptions is one extraction.
type ExtractOptions struct {
	Archive   string
	Dest      string
	Integrity Integrity // nil: the archive is not pinned
	Entries   []EntrySpec
	Strip     int
	Expect    []Expectation
	MaxSize   int64
	// Progress receives the archive's bytes as they are read (a progress
	// bar); nil: none.
	Progress io.Writer
	// Protected are folders dest may neither be nor hold (the home, the
	// workspace root, MCODE_HOME).
	Protected []string
	// Check, when set, refuses a dest the path policy does not let this
	// call replace (a destination read from a lock file, which the guard
	// did not see).
	Check func(dest string) error
	// Stamp, when set, is written as StampName into the new tree before
	// it replaces dest.
	Stamp func(*ExtractResult) ([]byte, error)
}

// Written is one entry written into the destination.
type Written struct {
	Path   string `json:"path"`
	From   string `json:"from,omitempty"`
	Type   string `json:"type"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256,omitempty"`
	Mode   string `json:"mode"`
	Target string `json:"target,omitempty"`
}

// Check is one check that ran and passed.
type Check struct {
	Check   string `json:"check"`
	Subject string `json:"subject"`
	Detail  string `json:"detail"`
}

// ExtractResult says what an extraction wrote and checked.
type ExtractResult struct {
	Archive     string    `json:"archive"`
	Format      Format    `json:"format"`
	ArchiveSize int64     `json:"archive_size"`
	Dest        string    `json:"dest"`
	Replaced    bool      `json:"replaced"`
	Files       int       `json:"files"`
	Bytes       int64     `json:"bytes"`
	Skipped     int       `json:"skipped"`
	Entries     []Written `json:"entries"`
	Checks      []Check   `json:"checks"`
}

// Extract extracts an archive into a fresh tree and puts it in place of
// dest only when every check passed.
func Extract(ctx context.Context, o ExtractOptions) (*ExtractResult, error) {
	s, err := Stage(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := s.Commit(); err != nil {
		return nil, err
	}
	return s.Result, nil
}

// unsafe is the error of an entry extract refuses.
func unsafe(format string, args ...any) *tool.Error {
	return &tool.Error{Code: tool.CodeUnsafeEntry, Message: fmt.Sprintf(format, args...) + "; nothing was written",
		Hint: "the archive is malformed or hostile: get it from its pinned source, or inspect it with tar -tvf / unzip -l before trusting it"}
}

func corrupt(archive string, err error) *tool.Error {
	return &tool.Error{Code: tool.CodeCorruptArchive,
		Message: fmt.Sprintf("%s is truncated or corrupt: %v; nothing was written", archive, err),
		Hint:    "fetch the archive again (mcode artifact fetch URL --integrity X) and check it with its integrity"}
}

// readError marks a failure reading the archive, as opposed to writing
// the tree.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }
func (e readError) Unwrap() error { return e.err }

var errInflateLimit = errors.New("inflate limit")

// limitedReader fails with errInflateLimit past its budget: a
// decompression bomb stops while it inflates.
type limitedReader struct {
	r    io.Reader
	left int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errInflateLimit
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

type dirMeta struct {
	path  string
	mode  fs.FileMode
	mtime time.Time
}

type selection struct {
	spec    EntrySpec
	matched int
}

type extractor struct {
	ctx       context.Context
	o         ExtractOptions
	root      string
	backslash bool
	nodes     map[string]kind   // written names (implicit folders too)
	links     map[string]string // symlink name → target
	files     map[string]int    // archive name → index in res.Entries, for hard links
	seen      map[string]bool   // archive names after strip
	sel       []*selection
	expect    map[string]*capBuf // JSON files read for expectations
	dirs      []dirMeta
	total     int64
	count     int
	res       *ExtractResult
	buf       []byte
}

func (x *extractor) wantsJSON(name string) bool {
	for _, e := range x.o.Expect {
		if e.File == name {
			return true
		}
	}
	return false
}

// target is where an archive name goes in the tree, if it is taken.
func (x *extractor) target(name string) (string, *selection, bool) {
	if len(x.sel) == 0 {
		return name, nil, true
	}
	for _, s := range x.sel {
		p := s.spec.Path
		if name == p {
			if s.spec.Rename != "" {
				return s.spec.Rename, s, true
			}
			return name, s, true
		}
		if strings.HasPrefix(name, p+"/") {
			if s.spec.Rename != "" {
				return s.spec.Rename + name[len(p):], s, true
			}
			return name, s, true
		}
	}
	return "", nil, false
}

func (x *extractor) process(e *entry) (err error) {
	defer func() {
		if errors.Is(err, syscall.ENAMETOOLONG) {
			err = unsafe("entry %q has a name longer than the file system takes (%d bytes; a name may have at most 255 bytes between slashes)", e.name, len(e.name))
		}
	}()
	if err := x.ctx.Err(); err != nil {
		return err
	}
	if x.count++; x.count > MaxEntries {
		return unsafe("the archive has more than %d entries", MaxEntries)
	}
	if e.special != "" {
		return unsafe("entry %q is a %s: extract writes only files, folders and links", e.name, e.special)
	}
	name, skip, err := CleanName(e.name, x.o.Strip, x.backslash)
	if err != nil {
		return unsafe("%v", err)
	}
	if e.kind == kindSymlink {
		if e.linkname == "" {
			return unsafe("symlink %q has an empty target", e.name)
		}
		if !resolveLink(nil, e.name, e.linkname) {
			return unsafe("symlink %q points to %q, outside the destination", e.name, e.linkname)
		}
	}
	if e.kind == kindHardlink {
		if _, _, err := CleanName(e.linkname, 0, x.backslash); err != nil {
			return unsafe("hard link %q points to %q, outside the destination", e.name, e.linkname)
		}
	}
	if e.kind == kindFile {
		if e.size > x.o.MaxSize {
			return unsafe("entry %q is %d bytes, past the %d-byte cap (max_size)", e.name, e.size, x.o.MaxSize)
		}
		if x.total+e.size > x.o.MaxSize {
			return unsafe("the entries add up to more than the %d-byte cap (max_size) at %q", x.o.MaxSize, e.name)
		}
		x.total += e.size
	}
	if skip {
		return nil
	}
	if x.seen[name] {
		return unsafe("entry %q appears twice in the archive: the second would replace the first", name)
	}
	x.seen[name] = true
	dst, s, ok := x.target(name)
	capture := e.kind == kindFile && x.wantsJSON(name)
	if !ok {
		x.res.Skipped++
		if capture {
			r, err := e.open()
			if err != nil {
				return readError{err}
			}
			defer r.Close()
			_, _, err = x.copyData(x.captureBuf(name), r, e, nil, name)
			return err
		}
		return nil
	}
	if s != nil {
		s.matched++
		if s.spec.Digest != nil && e.kind != kindFile && !(e.kind == kindDir && name != s.spec.Path) {
			return &tool.Error{Code: tool.CodeChecksumMismatch,
				Message: fmt.Sprintf("entry %q is a %s, not a file, so it has no %s", name, e.kind, s.spec.Digest.Algo),
				Hint:    "list a hash only for a file entry"}
		}
	}
	if err := x.checkParents(dst); err != nil {
		return err
	}
	if k, exists := x.nodes[dst]; exists && !(k == kindDir && e.kind == kindDir) {
		return unsafe("entry %q would be written as %q, which another entry already wrote", name, dst)
	}
	full := filepath.Join(x.root, filepath.FromSlash(dst))
	if err := x.mkdirs(path.Dir(dst)); err != nil {
		return err
	}
	w := Written{Path: dst, Type: string(e.kind), Mode: fmt.Sprintf("%04o", e.mode)}
	if dst != name {
		w.From = name
	}
	switch e.kind {
	case kindDir:
		if _, exists := x.nodes[dst]; !exists {
			if err := os.Mkdir(full, 0o700); err != nil {
				return err
			}
		}
		x.nodes[dst] = kindDir
		x.dirs = append(x.dirs, dirMeta{full, e.mode | 0o700, e.mtime})
	case kindSymlink:
		if !resolveLink(x.links, dst, e.linkname) {
			return unsafe("symlink %q points to %q, outside the destination", name, e.linkname)
		}
		if err := os.Symlink(e.linkname, full); err != nil {
			return err
		}
		x.links[dst] = e.linkname
		x.nodes[dst] = kindSymlink
		w.Target, w.Mode = e.linkname, "0777"
		lchtimes(full, e.mtime)
	case kindHardlink:
		ln, lskip, _ := CleanName(e.linkname, x.o.Strip, x.backslash)
		i, found := x.files[ln]
		if lskip || !found {
			return unsafe("hard link %q points to %q, which is not a file extracted before it (with entries, take that file too)", name, e.linkname)
		}
		to := x.res.Entries[i]
		if err := os.Link(filepath.Join(x.root, filepath.FromSlash(to.Path)), full); err != nil {
			return err
		}
		x.nodes[dst] = kindFile
		w.Size, w.SHA256, w.Mode, w.Target = to.Size, to.SHA256, to.Mode, to.Path
		x.files[name] = len(x.res.Entries)
	case kindFile:
		if err := x.writeFile(full, e, s, name, capture, &w); err != nil {
			return err
		}
		x.nodes[dst] = kindFile
		x.files[name] = len(x.res.Entries)
		x.res.Files++
		x.res.Bytes += w.Size
	}
	x.res.Entries = append(x.res.Entries, w)
	return nil
}

// checkParents refuses a name below something that is not a folder: a
// file, or a link (writing through a link is how archives escape).
func (x *extractor) checkParents(dst string) error {
	for i := 0; i < len(dst); i++ {
		if dst[i] != '/' {
			continue
		}
		p := dst[:i]
		if k, ok := x.nodes[p]; ok && k != kindDir {
			return unsafe("%q would be written below %q, which is a %s in the archive", dst, p, k)
		}
	}
	return nil
}

// mkdirs makes the folders of dir, a clean relative name, that the tree
// lacks, from the top down.
func (x *extractor) mkdirs(dir string) error {
	if dir == "." || dir == "" {
		return nil
	}
	for i := 0; i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		p := dir[:i]
		if _, ok := x.nodes[p]; ok {
			continue
		}
		if err := os.Mkdir(filepath.Join(x.root, filepath.FromSlash(p)), 0o755); err != nil {
			return err
		}
		x.nodes[p] = kindDir
	}
	return nil
}

func (x *extractor) writeFile(full string, e *entry, s *selection, name string, capture bool, w *Written) error {
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		return err
	}
	r, err := e.open()
	if err != nil {
		f.Close()
		return readError{err}
	}
	defer r.Close()
	var extra hash.Hash
	if s != nil && s.spec.Digest != nil && s.spec.Digest.Algo != "sha256" {
		extra = newHash(s.spec.Digest.Algo)
	}
	var sink io.Writer = f
	if capture {
		sink = io.MultiWriter(f, x.captureBuf(name))
	}
	n, sum, err := x.copyData(sink, r, e, extra, name)
	if err == nil {
		err = f.Chmod(e.mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if !e.mtime.IsZero() {
		_ = os.Chtimes(full, e.mtime, e.mtime)
	}
	w.Size, w.SHA256 = n, hex.EncodeToString(sum)
	if s != nil && s.spec.Digest != nil {
		got := sum
		if extra != nil {
			got = extra.Sum(nil)
		}
		want := *s.spec.Digest
		if hex.EncodeToString(got) != hex.EncodeToString(want.Sum) {
			return &tool.Error{Code: tool.CodeChecksumMismatch,
				Message: fmt.Sprintf("entry %q has %s:%s, expected %s; nothing was written", name, want.Algo, hex.EncodeToString(got), want.Hex()),
				Hint:    "the archive holds another version of the file than was pinned: check the archive's integrity and the entry's pin"}
		}
		x.res.Checks = append(x.res.Checks, Check{Check: "entry " + want.Algo, Subject: name, Detail: "matches " + want.Hex()})
	}
	return nil
}

// capBuf keeps a JSON file for expect_json, up to MaxManifestSize.
type capBuf struct {
	data []byte
	over bool
}

func (b *capBuf) Write(p []byte) (int, error) {
	if len(b.data)+len(p) > MaxManifestSize {
		b.over = true
		return len(p), nil
	}
	b.data = append(b.data, p...)
	return len(p), nil
}

func (x *extractor) captureBuf(name string) *capBuf {
	c := &capBuf{}
	x.expect[name] = c
	return c
}

// copyData copies an entry's data, never more than its header says, and
// hashes it (sha256, and extra when set).
func (x *extractor) copyData(w io.Writer, r io.Reader, e *entry, extra hash.Hash, name string) (int64, []byte, error) {
	sink := w
	h := sha256.New()
	var n int64
	for {
		if err := x.ctx.Err(); err != nil {
			return n, nil, err
		}
		k, rerr := r.Read(x.buf)
		if k > 0 {
			n += int64(k)
			if n > e.size {
				return n, nil, unsafe("entry %q inflates past the %d bytes its header declares: a decompression bomb, stopped there", name, e.size)
			}
			h.Write(x.buf[:k])
			if extra != nil {
				extra.Write(x.buf[:k])
			}
			if _, err := sink.Write(x.buf[:k]); err != nil {
				return n, nil, err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			if errors.Is(rerr, zip.ErrFormat) {
				// archive/zip's own check: more data than declared.
				return n, nil, unsafe("entry %q inflates past the %d bytes its header declares: a decompression bomb, stopped there", name, e.size)
			}
			return n, nil, readError{rerr}
		}
	}
	if n < e.size {
		return n, nil, corrupt(x.o.Archive, fmt.Errorf("entry %q ends after %d of its %d bytes", name, n, e.size))
	}
	return n, h.Sum(nil), nil
}
