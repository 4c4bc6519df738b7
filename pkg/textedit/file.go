package textedit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/gofrs/flock"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/textenc"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// MaxFileMiB is the largest file edit and write read whole.
const MaxFileMiB = 256

// lockRetry is how often a call waiting for another one's lock retries.
const lockRetry = 2 * time.Millisecond

// maxLockAttempts bounds how often a lock is retaken because the file was
// replaced while we waited for it.
const maxLockAttempts = 1000

// Content is a file's bytes and the text that edits work on.
type Content struct {
	Enc  textenc.Encoding // as read reports it
	BOM  []byte           // a UTF-8 byte-order mark, kept aside
	Text []byte           // UTF-8 text without BOM; the raw bytes when ByteWise
	// byteWise means the file is not valid UTF-8: edits are applied to
	// its bytes, and only ASCII ones are allowed.
	ByteWise bool
	// reencode means text is a single-byte file (Latin-1, Windows-1252)
	// decoded as read shows it, to be encoded back as a whole; it was
	// checked to round-trip byte for byte.
	Reencode bool
}

// DecodeContent splits a file's bytes into the text edits work on.
func DecodeContent(display string, data []byte) (*Content, error) {
	c := &Content{Enc: textenc.UTF8, Text: data}
	if len(data) == 0 {
		return c, nil
	}
	// Judge the encoding by the head, as read does; the whole file is
	// then only scanned by the fast checks (a NUL byte, valid UTF-8),
	// and again in full only when it is not UTF-8 after all.
	enc, err := textenc.Detect(data[:min(len(data), textenc.SniffLen)])
	if err == nil && enc == textenc.UTF8 && !utf8.Valid(data) {
		enc, err = textenc.Detect(data)
	}
	if err == nil && (enc == textenc.UTF8 || enc == textenc.UTF8BOM) && bytes.IndexByte(data, 0) >= 0 {
		err = textenc.ErrBinary
	}
	if err != nil {
		return nil, &tool.Error{Code: tool.CodeBinaryFile,
			Message: fmt.Sprintf("%s is a binary file (%d bytes), not text", display, len(data)),
			Hint:    "edit and write change text files; replace a binary file with a command made for its format"}
	}
	c.Enc = enc
	switch enc {
	case textenc.UTF8BOM:
		c.BOM, c.Text = data[:3], data[3:]
		c.ByteWise = !utf8.Valid(c.Text)
	case textenc.UTF16LE, textenc.UTF16BE:
		text, err := textenc.Decode(data, enc)
		if err == nil {
			var back []byte
			if back, err = textenc.Encode(text, enc); err == nil && !bytes.Equal(back, data) {
				err = errors.New("it holds code units that do not round-trip (a lone surrogate or an odd byte)")
			}
		}
		if err != nil {
			return nil, &tool.Error{Code: tool.CodeEncoding,
				Message: fmt.Sprintf("%s is %s but cannot be rewritten byte for byte: %v", display, enc, err),
				Hint:    "repair the file's encoding first (for example with iconv), then edit it"}
		}
		c.Text = []byte(text)
	default:
		c.ByteWise = !utf8.Valid(data)
		if c.ByteWise && (enc == textenc.Latin1 || enc == textenc.Windows1252) {
			// Edited as read and grep show it (café, not caf\xe9), when
			// the whole file is in that encoding (no UTF-8 lines mixed in).
			text := textenc.LinesToUTF8(data, enc)
			if back, err := textenc.Encode(string(text), enc); err == nil && bytes.Equal(back, data) {
				c.Text, c.ByteWise, c.Reencode = text, false, true
			}
		}
	}
	return c, nil
}

// lineEnding names the line breaks of the text.
func (c *Content) LineEnding() string { return string(textenc.LineEndings(c.Text)) }

// display makes a line of the text fit to quote in a diff: the text of a
// single-byte file is decoded; stray bytes never reach the JSON.
func (c *Content) Display() func(string) string {
	if !c.ByteWise {
		return nil
	}
	return func(s string) string {
		if c.Enc == textenc.Latin1 || c.Enc == textenc.Windows1252 {
			if d, err := textenc.Decode([]byte(s), c.Enc); err == nil {
				return d
			}
		}
		return strings.ToValidUTF8(s, "?")
	}
}

// SHA256Hex is the stamp read returns and --if-match compares.
func SHA256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// CheckIfMatch refuses with stale when the file's bytes are not those
// the caller last saw.
func CheckIfMatch(display string, data []byte, want string) error {
	if want == "" {
		return nil
	}
	if got := SHA256Hex(data); !strings.EqualFold(got, want) {
		return &tool.Error{Code: tool.CodeStale,
			Message: fmt.Sprintf("%s changed since it was read: its sha256 is %s, not %s", display, got, strings.ToLower(want)),
			Hint:    "read the file again (mcode read) and redo the change on what it holds now"}
	}
	return nil
}

// Resolve follows abs through symlinks to the file to change.
func Resolve(display, abs string) (string, error) {
	if strings.IndexByte(abs, 0) >= 0 {
		return "", &tool.Error{Code: tool.CodeInvalidArgs,
			Message: fmt.Sprintf("%q holds a NUL byte, which no file name can hold", display),
			Hint:    "check the path; a NUL byte is not part of any name"}
	}
	target, err := fsutil.ResolveLink(abs)
	if err != nil {
		return "", pathErr(display, err)
	}
	return target, nil
}

// nameTooLong is the error of a path with a name longer than the file
// system takes: the caller's to shorten, not a fault of mcode.
func nameTooLong(display string) error {
	return &tool.Error{Code: tool.CodeInvalidArgs,
		Message: fmt.Sprintf("%s: a name in the path is longer than the file system allows (255 bytes on most)", display),
		Hint:    "use a shorter name; nothing was changed"}
}

// pathErr turns a failed look-up of a path into an error the caller can
// act on.
func pathErr(display string, err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return &tool.Error{Code: tool.CodePermission, Message: fmt.Sprintf("%s: permission denied", display),
			Hint: "check the file's permissions and those of its folders"}
	case errors.Is(err, errNotDir):
		return &tool.Error{Code: tool.CodeNotADirectory,
			Message: fmt.Sprintf("%s: a part of the path is a file, not a folder", display),
			Hint:    "check the path"}
	case errors.Is(err, syscall.ENAMETOOLONG):
		return nameTooLong(display)
	case errors.Is(err, errLoop):
		return &tool.Error{Code: tool.CodeInvalidArgs,
			Message: fmt.Sprintf("%s: too many levels of symbolic links (a symlink loop)", display),
			Hint:    "point the symlink at a real file"}
	}
	return fmt.Errorf("%s: %w", display, err)
}

// StatTarget checks that path names a regular file (or may become one)
// before anything opens it: a FIFO or device would block or never end.
// It returns nil info for a file that does not exist.
func StatTarget(display, target string) (fs.FileInfo, error) {
	info, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, pathErr(display, err)
	case info.IsDir():
		return nil, &tool.Error{Code: tool.CodeIsDirectory, Message: fmt.Sprintf("%s is a directory", display),
			Hint: "give the path of a file in it; use glob to list its files"}
	case !info.Mode().IsRegular():
		kind := fsutil.SpecialKind(info.Mode())
		if kind == "" {
			kind = info.Mode().Type().String()
		}
		return nil, &tool.Error{Code: tool.CodeSpecialFile,
			Message: fmt.Sprintf("%s is not a regular file (%s)", display, kind),
			Hint:    "edit and write change regular files only"}
	case info.Size() > MaxFileMiB<<20:
		return nil, &tool.Error{Code: tool.CodeTooLarge,
			Message: fmt.Sprintf("%s is %d MiB, more than the %d MiB edit and write handle", display, info.Size()>>20, MaxFileMiB),
			Hint:    "change a file this large with a streaming command (sed, awk) through bash"}
	}
	return info, nil
}

// LockFile takes the advisory lock (flock) that every edit and write of
// this file holds across its read-modify-write, in any process. A writer
// replaces the file by renaming a new one over it, so the inode locked
// may be gone by the time the lock is ours: then the lock is retaken on
// the file the path names now.
func LockFile(ctx context.Context, display, target string) (unlock func(), err error) {
	for range maxLockAttempts {
		fl := flock.New(target, flock.SetFlag(os.O_RDONLY|openNoBlock))
		ok, err := fl.TryLockContext(ctx, lockRetry)
		if err != nil || !ok {
			fl.Close()
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return nil, fsutil.NotFound(display, target)
			case errors.Is(err, fs.ErrPermission):
				return nil, &tool.Error{Code: tool.CodePermission, Message: fmt.Sprintf("%s: permission denied", display),
					Hint: "check the file's permissions"}
			case errors.Is(ctx.Err(), context.DeadlineExceeded):
				return nil, &tool.Error{Code: tool.CodeTimeout,
					Message: fmt.Sprintf("timed out waiting for the lock on %s: another process is changing it", display),
					Hint:    "retry once the other change is done, or raise --timeout"}
			case err == nil:
				err = ctx.Err()
			}
			return nil, fmt.Errorf("locking %s: %w", display, err)
		}
		locked, err1 := fl.Stat()
		now, err2 := os.Stat(target)
		if err1 == nil && err2 == nil && os.SameFile(locked, now) {
			return func() { fl.Close() }, nil
		}
		fl.Close()
		if errors.Is(err2, fs.ErrNotExist) {
			return nil, fsutil.NotFound(display, target)
		}
	}
	return nil, fmt.Errorf("locking %s: the file kept being replaced", display)
}

// Commit replaces target with what write produces, atomically, unless
// ctx ended meanwhile: a caller that interrupted the call, or whose time
// limit ran out, has given up on it, so nothing may change behind its
// back. The check comes once the new bytes are in the temp file, the last
// moment before the rename.
func Commit(ctx context.Context, target string, write func(io.Writer) error) error {
	return fsutil.WriteAtomic(target, NewFileMode, func(w io.Writer) error {
		if err := write(w); err != nil {
			return err
		}
		return ctx.Err()
	})
}

// HashingWriter counts and hashes what passes through it.
type HashingWriter struct {
	w io.Writer
	h interface {
		io.Writer
		Sum([]byte) []byte
	}
	N int
}

func NewHashingWriter(w io.Writer) *HashingWriter {
	return &HashingWriter{w: w, h: sha256.New()}
}

func (hw *HashingWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	hw.N += n
	return n, err
}

func (hw *HashingWriter) Sum() string { return hex.EncodeToString(hw.h.Sum(nil)) }

// DisplayPath is how messages and diffs name a file: relative to the
// workspace root when inside it.
func DisplayPath(root, abs string) string {
	if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return fsutil.DisplayPath(filepath.ToSlash(rel))
	}
	return fsutil.DisplayPath(abs)
}

// WriteErr turns a failed write into an error the caller can act on.
func WriteErr(display string, err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return &tool.Error{Code: tool.CodePermission,
			Message: fmt.Sprintf("cannot write %s: permission denied (%v)", display, err),
			Hint:    "the file or its folder is not writable; nothing was changed"}
	case errors.Is(err, errNotDir):
		return &tool.Error{Code: tool.CodeNotADirectory,
			Message: fmt.Sprintf("cannot write %s: a part of the path is a file, not a folder", display),
			Hint:    "check the path"}
	case errors.Is(err, syscall.ENAMETOOLONG):
		return nameTooLong(display)
	}
	return fmt.Errorf("writing %s: %w (nothing was changed)", display, err)
}

// EncodeLike encodes content the way the old file c was (nil: no
// text): its BOM, UTF-16, single-byte encoding, and CRLF line breaks when
// Content has only LF ones. It returns the bytes, the text they hold,
// their encoding and a note when the old encoding could not be kept.
func EncodeLike(c *Content, content string) ([]byte, string, textenc.Encoding, string) {
	if c == nil {
		return []byte(content), content, textenc.UTF8, ""
	}
	text := content
	if !strings.Contains(content, "\r") && crlfMajority(c.Text) {
		text = WithEOL(content, eolCRLF)
	}
	switch c.Enc {
	case textenc.UTF8BOM:
		return append([]byte("\uFEFF"), strings.TrimPrefix(text, "\uFEFF")...), text, c.Enc, ""
	case textenc.UTF16LE, textenc.UTF16BE, textenc.Latin1, textenc.Windows1252:
		data, err := textenc.Encode(strings.TrimPrefix(text, "\uFEFF"), c.Enc)
		if err == nil {
			return data, text, c.Enc, ""
		}
		return []byte(text), text, textenc.UTF8,
			fmt.Sprintf("the file was %s, which cannot hold every character of the new content, so it is now UTF-8", c.Enc)
	}
	return []byte(text), text, textenc.UTF8, ""
}

// crlfMajority reports whether most line breaks of text are CRLF.
func crlfMajority(text []byte) bool {
	lf, crlf := countBreaks(text)
	return crlf > 0 && crlf >= lf-crlf
}

// NewFileMode is the mode of a file write creates, before the umask.
const NewFileMode fs.FileMode = 0o644
