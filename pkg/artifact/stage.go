package artifact

import (
	"archive/tar"
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/proctree"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Staged is an extraction waiting in its temp folder beside dest.
type Staged struct {
	Result  *ExtractResult
	tmp     string // the new tree; after swap, the old one (or "")
	dest    string
	swapped bool
	created string // the first parent folder of dest that Stage made
	mode    fs.FileMode
}

// Discard removes the staged tree (and any parent folders Stage made).
func (s *Staged) Discard() {
	if s.tmp != "" {
		removeAll(s.tmp)
		s.tmp = ""
	}
	if s.created != "" && !s.swapped {
		os.RemoveAll(s.created)
		s.created = ""
	}
}

// swap puts the new tree in place of dest; the old tree waits in tmp
// until finish (or goes back with rollback).
func (s *Staged) swap() error {
	_ = os.Chmod(s.tmp, s.mode)
	replaced, err := exchange(s.tmp, s.dest)
	if err != nil {
		return fmt.Errorf("putting the new tree at %s: %w", s.dest, err)
	}
	s.swapped = true
	s.Result.Replaced = replaced
	if !replaced {
		s.tmp = ""
	}
	return nil
}

// rollback puts the old tree back after swap.
func (s *Staged) rollback() {
	if !s.swapped {
		return
	}
	if s.tmp != "" {
		_, _ = exchange(s.tmp, s.dest)
	} else {
		removeAll(s.dest)
	}
	s.swapped = false
}

// finish removes the old tree after swap.
func (s *Staged) finish() {
	if s.tmp != "" {
		removeAll(s.tmp)
		s.tmp = ""
	}
}

// Commit puts the staged tree in place of dest.
func (s *Staged) Commit() error {
	if err := s.swap(); err != nil {
		s.Discard()
		return err
	}
	s.finish()
	return nil
}

// Stage extracts and checks everything into a temp folder beside dest.
// On error nothing is left anywhere.
func Stage(ctx context.Context, o ExtractOptions) (_ *Staged, err error) {
	if o.MaxSize <= 0 {
		o.MaxSize = DefaultMaxSize
	}
	if o.Entries, err = CheckEntries(o.Entries); err != nil {
		return nil, err
	}
	f, st, err := fsutil.OpenRegular(o.Archive, o.Archive)
	if err != nil {
		var te *tool.Error
		if errors.As(err, &te) && te.Code == tool.CodeIsDirectory {
			te.Message, te.Hint = o.Archive+" is a folder, not an archive", "name an archive file: "+formatList()
		}
		return nil, err
	}
	defer f.Close()
	head := make([]byte, sniffLen)
	n, _ := io.ReadFull(f, head)
	format, ok := DetectFormat(head[:n])
	if !ok {
		if o.Integrity != nil {
			if _, _, err := VerifyFile(o.Archive, o.Integrity); err != nil {
				return nil, err
			}
		}
		return nil, &tool.Error{Code: tool.CodeCorruptArchive,
			Message: fmt.Sprintf("%s is not an archive extract reads (%d bytes; its first bytes match none of %s)", o.Archive, st.Size(), formatList()),
			Hint:    "check that the file is the archive you meant (file " + o.Archive + ")"}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	s := &Staged{dest: o.Dest, mode: 0o755 &^ fsutil.Umask()}
	if err := s.prepareDest(o); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.Discard()
		}
	}()
	x := &extractor{ctx: ctx, o: o, root: s.tmp,
		nodes: map[string]kind{}, links: map[string]string{}, files: map[string]int{}, seen: map[string]bool{},
		expect: map[string]*capBuf{}, buf: make([]byte, 256<<10),
		res: &ExtractResult{Archive: o.Archive, Format: format, ArchiveSize: st.Size(), Dest: o.Dest, Entries: []Written{}, Checks: []Check{}}}
	for _, e := range o.Entries {
		x.sel = append(x.sel, &selection{spec: e})
	}
	s.Result = x.res
	if format == FormatZip {
		err = x.zip(f, st.Size())
	} else {
		err = x.tar(f, format)
	}
	if err != nil {
		return nil, x.classify(err)
	}
	if err := x.finish(); err != nil {
		return nil, x.classify(err)
	}
	if o.Stamp != nil {
		data, err := o.Stamp(x.res)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(s.tmp, StampName), data, 0o644); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func formatList() string {
	s := make([]string, len(Formats))
	for i, f := range Formats {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

func (x *extractor) classify(err error) error {
	var te *tool.Error
	var re readError
	switch {
	case errors.As(err, &te):
		return te
	case errors.Is(err, errInflateLimit):
		return unsafe("%s inflates past the %d-byte cap (max_size): a decompression bomb", x.o.Archive, x.o.MaxSize)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &re):
		return corrupt(x.o.Archive, re.err)
	}
	return err
}

// prepareDest checks dest and makes the temp folder beside it.
func (s *Staged) prepareDest(o ExtractOptions) error {
	if o.Check != nil {
		if err := o.Check(o.Dest); err != nil {
			return err
		}
	}
	dest := filepath.Clean(o.Dest)
	if real, err := filepath.EvalSymlinks(dest); err == nil {
		dest = real
	}
	for _, p := range o.Protected {
		if p == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if within(dest, p) {
			return &tool.Error{Code: tool.CodeDenied,
				Message: fmt.Sprintf("dest %s would replace %s as a whole", o.Dest, p),
				Hint:    "extract into a folder of its own, e.g. --dest vendor/NAME"}
		}
	}
	if dest == filepath.Dir(dest) {
		return &tool.Error{Code: tool.CodeDenied, Message: "dest / would replace the whole file system",
			Hint: "extract into a folder of its own, e.g. --dest vendor/NAME"}
	}
	if archive, err := filepath.Abs(o.Archive); err == nil && within(dest, archive) {
		return &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("the archive %s is inside dest %s, which extract replaces as a whole", o.Archive, o.Dest),
			Hint:    "move the archive out of dest, or extract somewhere else"}
	}
	st, err := os.Lstat(dest)
	switch {
	case err == nil && !st.IsDir():
		return &tool.Error{Code: tool.CodeNotADirectory, Message: fmt.Sprintf("dest %s is a file, not a folder", o.Dest),
			Hint: "name a folder (it is made, or replaced as a whole)"}
	case err == nil:
		s.mode = st.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	parent := filepath.Dir(dest)
	created, err := mkdirAllFirst(parent)
	if err != nil {
		return err
	}
	s.created = created
	s.dest = dest
	sweepStaging(parent, filepath.Base(dest))
	tmp, err := os.MkdirTemp(parent, stagingPrefix(filepath.Base(dest))+stagingOwner()+"-")
	if err != nil {
		if created != "" {
			os.RemoveAll(created)
		}
		return err
	}
	s.tmp = tmp
	return nil
}

// A staging folder beside dest is named after dest and the process that
// made it (its pid and start time), so that a later run can tell one
// left by a process that was killed (SIGKILL leaves it behind, hundreds
// of MB perhaps) from one a running process still fills.
// A long dest name is cut, so that the folder's name stays within the
// 255 bytes a file system takes.
func stagingPrefix(base string) string {
	if len(base) > maxStagingBase {
		base = base[:maxStagingBase]
	}
	return "." + base + ".mcode-"
}

// maxStagingBase leaves room in a staging folder's name for the rest
// (.mcode-PID-START-RANDOM.old).
const maxStagingBase = 192

// stagingOwner is this process as a staging folder names it: PID-START.
func stagingOwner() string {
	pid := os.Getpid()
	var start uint64
	if p, ok := proctree.Read(pid); ok {
		start = p.Start
	}
	return fmt.Sprintf("%d-%d", pid, start)
}

// unownedStagingAge is the age past which a staging folder that names no
// owner is taken for abandoned.
const unownedStagingAge = 24 * time.Hour

// sweepStaging removes the staging folders of dest (in parent) whose
// process is gone.
func sweepStaging(parent, base string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	prefix := stagingPrefix(base)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		f := strings.SplitN(rest, "-", 3)
		if len(f) < 3 {
			// Named by an older mcode, without its owner: swept once a day
			// old, when no extraction can still be filling it.
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > unownedStagingAge {
				removeAll(filepath.Join(parent, e.Name()))
			}
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		start, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil || pid <= 0 {
			continue
		}
		if p, ok := proctree.Read(pid); ok && !p.Dead() && p.Start == start {
			continue // its process still runs
		}
		removeAll(filepath.Join(parent, e.Name()))
	}
}

// within says whether p is dir or below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// mkdirAllFirst is os.MkdirAll that returns the first folder it made.
func mkdirAllFirst(dir string) (string, error) {
	first := ""
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		first = d
		if d == filepath.Dir(d) {
			break
		}
	}
	if first == "" {
		return "", nil
	}
	return first, os.MkdirAll(dir, 0o755)
}

// tar extracts a tar stream. The archive is hashed as it is read, in a
// goroutine of its own, so that hashing and inflating share the work.
func (x *extractor) tar(f *os.File, format Format) error {
	h := NewHasher(x.o.Integrity)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 1<<20)
		var err error
		for {
			n, rerr := f.Read(buf)
			if n > 0 {
				h.Write(buf[:n])
				if x.o.Progress != nil {
					x.o.Progress.Write(buf[:n])
				}
				if _, werr := pw.Write(buf[:n]); werr != nil {
					err = werr
					break
				}
			}
			if rerr == io.EOF {
				break
			}
			if rerr != nil {
				err = rerr
				break
			}
		}
		pw.CloseWithError(err)
		done <- err
	}()
	// drainHash hashes the rest of the file (cheap: nothing is inflated)
	// and says whether the archive is the pinned one.
	drainHash := func() error {
		_, err := io.Copy(io.Discard, pr)
		if werr := <-done; werr != nil && !errors.Is(werr, io.ErrClosedPipe) {
			return werr
		}
		if err != nil {
			return err
		}
		if x.o.Integrity == nil {
			return nil
		}
		d, err := h.Match(x.o.Archive)
		if err != nil {
			return err
		}
		x.res.Checks = append([]Check{{Check: "integrity", Subject: x.o.Archive, Detail: "matches " + d.SRI()}}, x.res.Checks...)
		return nil
	}
	err := x.tarEntries(bufio.NewReaderSize(pr, 256<<10), format)
	if err != nil {
		if x.o.Integrity != nil {
			if herr := drainHash(); herr != nil {
				var te *tool.Error
				if errors.As(herr, &te) && te.Code == tool.CodeChecksumMismatch {
					return herr
				}
			}
		} else {
			pr.CloseWithError(err)
			<-done
		}
		return err
	}
	return drainHash()
}

func (x *extractor) tarEntries(raw io.Reader, format Format) error {
	dec, closeDec, err := decompressor(format, raw)
	if err != nil {
		return readError{err}
	}
	defer closeDec()
	inflated := &limitedReader{r: dec, left: 2*x.o.MaxSize + 64<<20}
	w := &tarWalker{r: tar.NewReader(inflated)}
	for {
		e, err := w.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, errInflateLimit) {
				return err
			}
			return readError{err}
		}
		if err := x.process(e); err != nil {
			return err
		}
	}
	// The rest of the stream: tar's end padding, and the compressor's
	// trailer, whose checksum proves the stream whole.
	if _, err := io.Copy(io.Discard, inflated); err != nil {
		if errors.Is(err, errInflateLimit) {
			return err
		}
		return readError{err}
	}
	return nil
}

// zip extracts a zip archive, which is read from its end (the central
// directory): the whole file is hashed first.
func (x *extractor) zip(f *os.File, size int64) error {
	if x.o.Integrity != nil {
		h := NewHasher(x.o.Integrity)
		var w io.Writer = h
		if x.o.Progress != nil {
			w = io.MultiWriter(h, x.o.Progress)
		}
		if _, err := io.CopyBuffer(w, io.NewSectionReader(f, 0, size), x.buf); err != nil {
			return err
		}
		d, err := h.Match(x.o.Archive)
		if err != nil {
			return err
		}
		x.res.Checks = append(x.res.Checks, Check{Check: "integrity", Subject: x.o.Archive, Detail: "matches " + d.SRI()})
	}
	w, err := newZipWalker(f, size)
	if err != nil {
		return readError{err}
	}
	x.backslash = true
	for {
		e, err := w.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readError{err}
		}
		if err := x.process(e); err != nil {
			return err
		}
	}
}

// finish runs the checks that need the whole tree, then sets the
// folders' modes and times (last, so that read-only folders could be
// filled).
func (x *extractor) finish() error {
	for _, s := range x.sel {
		if s.matched == 0 {
			return x.missing(s.spec.Path, "entry")
		}
	}
	for name, target := range x.links {
		if !resolveLink(x.links, name, target) {
			return unsafe("symlink %q points to %q, which leads outside the destination through other links of the archive", name, target)
		}
	}
	for _, e := range x.o.Expect {
		if err := x.checkJSON(e); err != nil {
			return err
		}
	}
	for i := len(x.dirs) - 1; i >= 0; i-- {
		d := x.dirs[i]
		_ = os.Chmod(d.path, d.mode)
		if !d.mtime.IsZero() {
			_ = os.Chtimes(d.path, d.mtime, d.mtime)
		}
	}
	return nil
}

func (x *extractor) missing(name, what string) error {
	names := make([]string, 0, len(x.seen))
	for n := range x.seen {
		names = append(names, n)
	}
	slices.Sort(names)
	more := ""
	if len(names) > 8 {
		more = fmt.Sprintf(" and %d more", len(names)-8)
		names = names[:8]
	}
	return &tool.Error{Code: tool.CodeNotFound,
		Message: fmt.Sprintf("%s %q is not in %s (names after strip %d: %s%s); nothing was written", what, name, x.o.Archive, x.o.Strip, strings.Join(names, ", "), more),
		Hint:    "name entries as the archive has them after strip (tar -tf ARCHIVE lists them), or change strip"}
}

func (x *extractor) checkJSON(e Expectation) error {
	c, ok := x.expect[e.File]
	if !ok {
		return x.missing(e.File, "JSON file")
	}
	mismatch := func(format string, args ...any) error {
		return &tool.Error{Code: tool.CodeManifestMismatch,
			Message: fmt.Sprintf("%s: ", e.File) + fmt.Sprintf(format, args...) + "; nothing was written",
			Hint:    "the archive is not the build that was expected: check the pinned version, or update the expectation if the new one is right"}
	}
	if c.over {
		return mismatch("it is larger than %d bytes, too large for a manifest", MaxManifestSize)
	}
	var doc any
	if err := json.Unmarshal(c.data, &doc); err != nil {
		return mismatch("it is not JSON: %v", err)
	}
	got, ok := lookupKey(doc, e.Key)
	if !ok {
		return mismatch("it has no field %q (expected %s)", e.Key, showValue(e.Value))
	}
	if !sameValue(got, e.Value) {
		return mismatch("%s is %s, expected %s", e.Key, showValue(got), showValue(e.Value))
	}
	x.res.Checks = append(x.res.Checks, Check{Check: "expect_json", Subject: e.File, Detail: e.Key + " = " + showValue(got)})
	return nil
}

// lookupKey finds a dotted field: the whole key first (npm has keys with
// dots), then its parts.
func lookupKey(doc any, key string) (any, bool) {
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, false
	}
	if v, ok := m[key]; ok {
		return v, true
	}
	for i := 0; i < len(key); i++ {
		if key[i] == '.' {
			if v, ok := m[key[:i]]; ok {
				if got, ok := lookupKey(v, key[i+1:]); ok {
					return got, true
				}
			}
		}
	}
	return nil, false
}

// sameValue compares a JSON value with an expected one: a string with
// the field's string, anything else by its JSON form (true, 3, null).
func sameValue(got, want any) bool {
	if ws, ok := want.(string); ok {
		if gs, ok := got.(string); ok {
			return gs == ws
		}
		return showJSON(got) == ws
	}
	return showJSON(got) == showJSON(want)
}

func showJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func showValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return showJSON(v)
}
