// Package iostreams carries the standard streams and whether each is a
// terminal, so commands can be tested with buffers.
package iostreams

import (
	"bytes"
	"context"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the three standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	InTTY  bool
	OutTTY bool
	ErrTTY bool
}

// System returns the process's own streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY:  isTerminal(os.Stdin),
		OutTTY: isTerminal(os.Stdout),
		ErrTTY: isTerminal(os.Stderr),
	}
}

// Test returns streams backed by buffers: stdin, stdout, stderr.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}

// UntilDone runs read and returns its result, or ctx.Err() as soon as ctx
// is done: a read of a terminal, a pipe or a FIFO without a writer can
// block for ever, and Ctrl-C must still end mcode. A read given up on
// finishes in the background; the process is about to exit.
func UntilDone[T any](ctx context.Context, read func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := read()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// WithContext returns a reader of r whose reads give up with ctx.Err()
// once ctx is done (see UntilDone).
func WithContext(ctx context.Context, r io.Reader) io.Reader {
	return ctxReader{ctx: ctx, r: r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

// Unwrap is the reader underneath, for a caller that reads a long stream
// and ends its reads itself (mcp serve): each Read here costs a goroutine
// and a buffer.
func (c ctxReader) Unwrap() io.Reader { return c.r }

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	buf := make([]byte, len(p)) // the read may outlive this call
	n, err := UntilDone(c.ctx, func() (int, error) { return c.r.Read(buf) })
	copy(p, buf[:n])
	return n, err
}
