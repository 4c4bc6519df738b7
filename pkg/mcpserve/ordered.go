package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK starts each request's handler on its own goroutine, so two calls
// sent back to back may reach their handlers in either order. To keep
// arrival order, a call takes its place in the scheduler when it is read
// off the wire, and carries its ticket to the handler in params._meta.
const ticketKey = "mcode/ticket"

// callParams are what stamp reads of a tools/call's params, decoded the
// way the SDK decodes them (see sdkJSON), so that both see the same name.
type callParams struct {
	Name string          `json:"name"`
	Meta json.RawMessage `json:"_meta"`
}

// stamp queues a tools/call whose params are raw and returns the params
// with the ticket in _meta, and the slot; params that are not a tools/call
// of a known tool come back as they are, with no slot. The params are not
// re-encoded: a second "_meta" member, the caller's members and the
// ticket, goes after the others (a later member wins, in the SDK's decoder
// as in encoding/json), which costs a copy where decoding the params into
// maps and encoding them again cost a tenth of a served read.
func (s *Server) stamp(params json.RawMessage) (json.RawMessage, *slot) {
	var p callParams
	if rest, err := sdkJSON(params, &p); err != nil || len(bytes.TrimSpace(rest)) > 0 {
		return params, nil
	}
	obj := bytes.TrimSpace(params)
	if len(obj) < 2 || obj[0] != '{' {
		return params, nil
	}
	sequential, known := s.modes[p.Name]
	if !known {
		return params, nil
	}
	var members []byte // of the caller's _meta
	switch meta := bytes.TrimSpace(p.Meta); {
	case len(meta) == 0 || string(meta) == "null":
	case meta[0] == '{':
		members = bytes.TrimSpace(meta[1 : len(meta)-1])
	default:
		return params, nil
	}
	sl := s.sched.admit(sequential)
	out := make([]byte, 0, len(obj)+len(members)+len(ticketKey)+40)
	out = append(out, bytes.TrimSpace(obj[:len(obj)-1])...)
	if len(out) > 1 {
		out = append(out, ',')
	}
	out = append(out, `"_meta":{`...)
	if len(members) > 0 {
		out = append(out, members...)
		out = append(out, ',')
	}
	out = strconv.AppendQuote(out, ticketKey)
	out = append(out, ':')
	out = strconv.AppendUint(out, sl.ticket, 10)
	return append(out, "}}"...), sl
}

// ticketOf reads the ticket stamp put in a call's _meta (0: none).
func ticketOf(meta mcp.Meta) uint64 {
	switch v := meta[ticketKey].(type) {
	case float64:
		return uint64(v)
	case json.Number:
		n, _ := v.Int64()
		return uint64(n)
	case int64:
		return uint64(v)
	}
	return 0
}

// orderedTransport stamps every tools/call as it is read. A call whose
// handler never runs (the SDK refused it, or it was cancelled while
// queued) gives up its place when its response is written.
type orderedTransport struct {
	inner mcp.Transport
	s     *Server
}

func (t *orderedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &orderedConn{Connection: c, s: t.s, slots: map[jsonrpc.ID]*slot{}}, nil
}

type orderedConn struct {
	mcp.Connection
	s     *Server
	mu    sync.Mutex
	slots map[jsonrpc.ID]*slot
}

func (c *orderedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.IsCall() && req.Method == "tools/call" {
		var sl *slot
		if req.Params, sl = c.s.stamp(req.Params); sl != nil {
			c.mu.Lock()
			if old := c.slots[req.ID]; old != nil {
				old.abandon() // a reused id: the SDK refuses the second
			}
			c.slots[req.ID] = sl
			c.mu.Unlock()
		}
	}
	return msg, err
}

func (c *orderedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		sl := c.slots[resp.ID]
		delete(c.slots, resp.ID)
		c.mu.Unlock()
		if sl != nil {
			sl.abandon()
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *orderedConn) Close() error {
	c.mu.Lock()
	for id, sl := range c.slots {
		sl.abandon()
		delete(c.slots, id)
	}
	c.mu.Unlock()
	return c.Connection.Close()
}
