package read

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// openRegular opens a file that stat called regular, and checks again on
// the open descriptor, so that a path swapped for a FIFO or a directory
// in between is refused rather than read.
func openRegular(display, abs string) (*os.File, error) {
	f, err := os.OpenFile(abs, openFlags, 0)
	if err != nil {
		return nil, readError(display, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, readError(display, err)
	}
	if err := checkFileType(display, abs, info); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func hexSum(sum []byte) *string {
	s := hex.EncodeToString(sum)
	return &s
}

// hashSmall sets the result's sha256 by reading the file, when it is no
// larger than FullScanMaxBytes.
func (r *reading) hashSmall() error {
	if r.size > FullScanMaxBytes {
		r.noteNoHash()
		return nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(r.file, 0, FullScanMaxBytes+1)); err != nil {
		return readError(r.display, err)
	}
	r.result.SHA256 = hexSum(h.Sum(nil))
	return nil
}

// hashBytes sets the result's sha256 from the file's bytes in memory.
func (r *reading) hashBytes(data []byte) {
	sum := sha256.Sum256(data)
	r.result.SHA256 = hexSum(sum[:])
}

func (r *reading) noteNoHash() {
	r.note("sha256 is not computed for files over %d MiB (this one is %s)", FullScanMaxBytes>>20, fsutil.HumanBytes(r.size))
}

// readAll loads a file of at most limit bytes, or says it is too large.
func (r *reading) readAll(what string, limit int64) ([]byte, error) {
	if r.size > limit {
		return nil, &tool.Error{Code: tool.CodeTooLarge,
			Message: fmt.Sprintf("%s is %s, over the %d MiB that read loads for a %s", r.display, fsutil.HumanBytes(r.size), limit>>20, what),
			Hint:    "inspect it with bash instead, e.g. head -c 4096"}
	}
	data, err := io.ReadAll(io.NewSectionReader(r.file, 0, limit+1))
	if err != nil {
		return nil, readError(r.display, err)
	}
	if int64(len(data)) > limit {
		return nil, &tool.Error{Code: tool.CodeTooLarge,
			Message: fmt.Sprintf("%s grew past the %d MiB that read loads for a %s", r.display, limit>>20, what),
			Hint:    "inspect it with bash instead, e.g. head -c 4096"}
	}
	r.size = int64(len(data))
	r.result.Bytes = r.size
	r.hashBytes(data)
	return data, nil
}
