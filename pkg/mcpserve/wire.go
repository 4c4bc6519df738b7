package mcpserve

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"
)

// The SDK decodes every message with segmentio's JSON decoder, struct
// fields matched by exact name, after a nesting check; it reads through a
// streaming Decoder that allocates a 32 KiB buffer for each message, the
// larger part of what a served call allocates. Decoding requests here with
// the same decoder on the line already in memory gives the same message
// without the buffer; anything else goes to the SDK's own decoder, so its
// answers and errors stay its own.

// maxDepth is the nesting the SDK accepts in a message.
const maxDepth = 1000

// sdkJSON decodes data into v as the SDK's decoder does (exact field
// names) and returns what follows the first value, which the SDK ignores.
func sdkJSON(data []byte, v any) ([]byte, error) {
	return segjson.Parse(data, v, segjson.DontMatchCaseInsensitiveStructFields)
}

// wireRequest is what decodeRequest reads of a message.
type wireRequest struct {
	Version string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
}

var errNotRequest = errors.New("not a request")

// decodeRequest decodes a line holding a JSON-RPC request (a call or a
// notification) as jsonrpc.DecodeMessage would; a line it cannot vouch
// for (a response, a bad version, an error of any kind) is errNotRequest,
// for DecodeMessage to read.
func decodeRequest(line []byte) (*jsonrpc.Request, error) {
	if deeperThan(line, maxDepth) {
		return nil, errNotRequest
	}
	var w wireRequest
	if _, err := sdkJSON(line, &w); err != nil || w.Version != "2.0" || len(w.Method) == 0 {
		return nil, errNotRequest
	}
	var method string
	if _, err := sdkJSON(w.Method, &method); err != nil {
		return nil, errNotRequest
	}
	id, err := jsonrpc.MakeID(w.ID)
	if err != nil {
		return nil, errNotRequest
	}
	return &jsonrpc.Request{ID: id, Method: method, Params: w.Params}, nil
}

// deeperThan says whether data nests objects and arrays more than max
// deep (strings skipped).
func deeperThan(data []byte, max int) bool {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			if depth++; depth > max {
				return true
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
}

// encodeResult is the wire form of a successful response with a numeric
// id, as jsonrpc.EncodeMessage writes it; ok is false for any other
// message. The SDK already encoded the result compactly (without HTML
// escapes); EncodeMessage would only scan and copy it again.
func encodeResult(msg jsonrpc.Message) (data []byte, ok bool) {
	resp, isResp := msg.(*jsonrpc.Response)
	if !isResp || resp.Error != nil || len(resp.Result) == 0 {
		return nil, false
	}
	id, isInt := resp.ID.Raw().(int64)
	if !isInt {
		return nil, false
	}
	result := bytes.TrimSpace(resp.Result)
	data = make([]byte, 0, len(result)+64) // room for the newline writeLine adds
	data = append(data, `{"jsonrpc":"2.0","id":`...)
	data = strconv.AppendInt(data, id, 10)
	data = append(data, `,"result":`...)
	data = append(data, result...)
	return append(data, '}'), true
}
