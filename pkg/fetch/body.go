package fetch

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/mcode-dev/mcode/pkg/fsutil"
)

// Decoding limits.
const (
	// MaxEncodings is the most Content-Encoding layers decoded.
	MaxEncodings = 2
	// MaxZstdWindow is the largest zstd window accepted, the bound
	// RFC 8878 sets for HTTP.
	MaxZstdWindow = 8 << 20
)

// AcceptEncoding is what requests offer; DisableCompression keeps Go's
// transport from decoding gzip behind the limits' back.
const AcceptEncoding = "gzip, br, zstd"

// body is a response body as read: data bounded by max_bytes, and why it
// ends early ("" when whole).
type body struct {
	data  []byte
	cut   string
	notes []string
}

// CutBroken: the stream broke off (a reset, a damaged compressed stream);
// what came before is kept.
const CutBroken = "broken"

// readBody reads a response body as it streams, decoding its content
// encodings, until max bytes of content (the rest is left unread: a 50
// MiB body or a gzip bomb costs max bytes), the end, or ctx's deadline
// (a body that trickles or never ends gives what arrived).
func readBody(ctx context.Context, resp *http.Response, max int64) (*body, error) {
	wire := &limitedReader{r: resp.Body, left: max + max/8 + 64<<10}
	r, err := decoders(wire, resp.Header.Values("Content-Encoding"))
	b := &body{}
	if err != nil {
		var unknown *unknownEncoding
		if !errors.As(err, &unknown) {
			return partial(ctx, b, nil, err, max)
		}
		b.notes = append(b.notes, fmt.Sprintf("the content encoding %q is not one mcode decodes (%s): the body is as it came", unknown.name, AcceptEncoding))
		r = wire
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 && len(resp.Header.Values("Content-Encoding")) == 0 {
		buf.Grow(int(min(resp.ContentLength, max) + 1))
	}
	_, err = io.Copy(&buf, io.LimitReader(r, max+1))
	return partial(ctx, b, buf.Bytes(), err, max)
}

// partial finishes a body from what was read and the error that ended
// the read.
func partial(ctx context.Context, b *body, data []byte, err error, max int64) (*body, error) {
	b.data = data
	switch {
	case int64(len(data)) > max:
		b.data, b.cut = data[:max], CutMaxBytes
	case errors.Is(err, errWireLimit):
		b.cut = CutMaxBytes
		b.notes = append(b.notes, fmt.Sprintf("the compressed body alone passed the max_bytes bound (%s) while inflating to %s", fsutil.HumanBytes(max), fsutil.HumanBytes(int64(len(data)))))
	case err == nil:
	case ctx.Err() != nil:
		if len(data) == 0 {
			return nil, ctx.Err()
		}
		b.cut = CutTimeout
	default:
		if len(data) == 0 {
			return nil, err
		}
		b.cut = CutBroken
		b.notes = append(b.notes, fmt.Sprintf("the body broke off after %s: %v", fsutil.HumanBytes(int64(len(data))), err))
	}
	return b, nil
}

var errWireLimit = errors.New("the response is longer than the bound on its bytes")

// limitedReader reads at most left bytes of the wire, then fails: a
// compressed stream that inflates to nothing must not be read for ever.
type limitedReader struct {
	r    io.Reader
	left int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errWireLimit
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

type unknownEncoding struct{ name string }

func (e *unknownEncoding) Error() string { return "unknown content encoding " + e.name }

// decoders undoes the content encodings, last applied first.
func decoders(r io.Reader, headers []string) (io.Reader, error) {
	var names []string
	for _, h := range headers {
		for _, n := range strings.Split(h, ",") {
			if n = strings.ToLower(strings.TrimSpace(n)); n != "" && n != "identity" {
				names = append(names, n)
			}
		}
	}
	if len(names) > MaxEncodings {
		return nil, &unknownEncoding{strings.Join(names, ", ")}
	}
	for i := len(names) - 1; i >= 0; i-- {
		var err error
		switch names[i] {
		case "gzip", "x-gzip":
			r, err = gzip.NewReader(r)
		case "br":
			r = brotli.NewReader(r)
		case "zstd":
			var d *zstd.Decoder
			d, err = zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(MaxZstdWindow))
			if d != nil {
				r = d.IOReadCloser()
			}
		case "deflate":
			r, err = inflater(r)
		default:
			return nil, &unknownEncoding{names[i]}
		}
		if err != nil {
			return nil, fmt.Errorf("the %s stream: %w", names[i], err)
		}
	}
	return r, nil
}

// inflater reads HTTP's deflate, which is zlib, or the raw deflate some
// servers send instead.
func inflater(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(2)
	if err != nil {
		return nil, err
	}
	if head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	return flate.NewReader(br), nil
}
