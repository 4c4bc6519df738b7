package artifact

import (
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// zstdMaxWindow bounds the memory a zstd frame may ask for (zstd -19
// uses 8 MiB, --long=27 128 MiB).
const zstdMaxWindow = 128 << 20

// zstdReader decodes a tar.zst stream with klauspost/compress/zstd: frame
// after frame (skippable ones skipped), in the reading goroutine (the
// archive is hashed on another core already), with at most zstdMaxWindow
// of history, each frame's checksum checked. Its errors say what went
// wrong in words a person can act on.
type zstdReader struct{ d *zstd.Decoder }

func newZstdReader(r io.Reader) (*zstdReader, error) {
	d, err := zstd.NewReader(r,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(zstdMaxWindow))
	if err != nil {
		return nil, zstdError(err)
	}
	return &zstdReader{d: d}, nil
}

func (z *zstdReader) Read(p []byte) (int, error) {
	n, err := z.d.Read(p)
	if err != nil && err != io.EOF {
		err = zstdError(err)
	}
	return n, err
}

func (z *zstdReader) Close() { z.d.Close() }

func zstdError(err error) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("zstd: the stream ends inside a frame: %w", err)
	case errors.Is(err, zstd.ErrWindowSizeExceeded):
		return fmt.Errorf("zstd: a frame asks for a window over the %d MiB allowed (zstd --long=28 and up): %w", zstdMaxWindow>>20, err)
	case errors.Is(err, zstd.ErrUnknownDictionary):
		return fmt.Errorf("zstd: a frame needs a dictionary, which an archive cannot name: %w", err)
	case errors.Is(err, zstd.ErrCRCMismatch):
		return fmt.Errorf("zstd: a frame's content does not match its checksum: %w", err)
	}
	return fmt.Errorf("zstd: %w", err)
}
