package mcpserve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineTransport is MCP's stdio framing, one JSON-RPC message a line,
// read with a reused buffer: the SDK's IOTransport runs a streaming JSON
// decoder that allocated some 180 KB for every message, which a server
// answering thousands of small calls pays in GC. A line that is not JSON-RPC
// gets a JSON-RPC error answer instead of ending the session.
type lineTransport struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{r: t.r, w: t.w, in: make(chan readResult), closed: make(chan struct{})}
	go c.readLoop()
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

type lineConn struct {
	r         io.ReadCloser
	w         io.WriteCloser
	wmu       sync.Mutex
	in        chan readResult
	closed    chan struct{}
	closeOnce sync.Once
}

// readLoop reads lines until the input ends; reads run on their own
// goroutine so that Close can unblock a Read waiting for input.
func (c *lineConn) readLoop() {
	br := bufio.NewReaderSize(c.r, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line := chunk
		if errors.Is(err, bufio.ErrBufferFull) || len(long) > 0 {
			if len(long)+len(chunk) <= mcp.DefaultMaxLineLength {
				long = append(long, chunk...)
			} else if long != nil {
				long = long[:0]
				c.reply(jsonrpc.CodeInvalidRequest, fmt.Sprintf("a message over %d MiB", mcp.DefaultMaxLineLength>>20))
				for errors.Is(err, bufio.ErrBufferFull) { // skip the rest of the line
					_, err = br.ReadSlice('\n')
				}
				long = nil
				if err != nil {
					c.deliver(readResult{err: err})
					return
				}
				continue
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			line = long
			long = nil
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			msg, derr := c.decode(line)
			if derr != nil {
				c.reply(jsonrpc.CodeParseError, derr.Error())
			} else if !c.deliver(readResult{msg: msg}) {
				return
			}
		}
		if err != nil {
			c.deliver(readResult{err: err})
			return
		}
	}
}

func (c *lineConn) decode(line []byte) (jsonrpc.Message, error) {
	if line[0] == '[' {
		return nil, errors.New("JSON-RPC batches are not part of this protocol version; send one message a line")
	}
	if req, err := decodeRequest(line); err == nil {
		return req, nil
	}
	return jsonrpc.DecodeMessage(line)
}

// deliver hands a message to Read; false when the connection closed.
func (c *lineConn) deliver(r readResult) bool {
	select {
	case c.in <- r:
		return true
	case <-c.closed:
		return false
	}
}

// reply answers a line that is no message (id null: none could be read).
func (c *lineConn) reply(code int64, message string) {
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{Error: &jsonrpc.Error{Code: code, Message: message}})
	if err == nil {
		_ = c.writeLine(data)
	}
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case r := <-c.in:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if data, ok := encodeResult(msg); ok {
		return c.writeLine(data)
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(data)
}

func (c *lineConn) writeLine(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.closed:
		return io.ErrClosedPipe
	default:
	}
	_, err := c.w.Write(append(data, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		_ = c.r.Close()
		c.wmu.Lock() // after a write in progress
		_ = c.w.Close()
		c.wmu.Unlock()
	})
	return nil
}

func (c *lineConn) SessionID() string { return "" }
