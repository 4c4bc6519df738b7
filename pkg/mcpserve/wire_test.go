package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzDecodeRequest: every line decodeRequest takes, the SDK's
// DecodeMessage decodes to the same request; the lines it leaves are the
// SDK's to answer.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":"a"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":null,"method":""}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"m","params":[1,2]}`,
		`{"jsonrpc":"2.0","id":{},"method":"m"}`,
		`{"jsonrpc":"1.0","id":1,"method":"m"}`,
		`{"JSONRPC":"2.0","ID":1,"Method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","method":"n"} trailing`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":7}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"\"[[[\\"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, err := decodeRequest(line)
		if err != nil {
			return
		}
		want, werr := jsonrpc.DecodeMessage(line)
		if werr != nil {
			t.Fatalf("decodeRequest took %q, the SDK refuses it: %v", line, werr)
		}
		if !reflect.DeepEqual(any(got), want) {
			t.Fatalf("%q: decodeRequest %+v, the SDK %+v", line, got, want)
		}
	})
}

func TestDecodeRequestLeavesTheRestToTheSDK(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"1.0","id":1,"method":"m"}`,
		`{"JSONRPC":"2.0","id":1,"method":"m"}`,
		`{"jsonrpc":"2.0","id":true,"method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
		`{"jsonrpc":"2.0","id":1,"method":`,
	} {
		if req, err := decodeRequest([]byte(line)); err == nil {
			t.Errorf("decodeRequest took %q: %+v", line, req)
		}
	}
	req, err := decodeRequest([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read"}}`))
	if err != nil || req.Method != "tools/call" || req.ID.Raw() != int64(7) || string(req.Params) != `{"name":"read"}` {
		t.Errorf("a call: %+v, %v", req, err)
	}
}

// FuzzEncodeResult: a response encodeResult writes is the bytes
// EncodeMessage writes.
func FuzzEncodeResult(f *testing.F) {
	f.Add(int64(1), `{"content":[{"type":"text","text":"a <b> & c\u2028"}],"structuredContent":{"n":1}}`)
	f.Add(int64(-3), `[]`)
	f.Add(int64(1<<62), `"x"`)
	f.Fuzz(func(t *testing.T, id int64, result string) {
		var v any
		if json.Unmarshal([]byte(result), &v) != nil {
			return
		}
		// Results reach Write as the SDK encodes them.
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(v) != nil {
			return
		}
		msg := &jsonrpc.Response{ID: intID(id), Result: bytes.TrimRight(b.Bytes(), "\n")}
		got, ok := encodeResult(msg)
		want, err := jsonrpc.EncodeMessage(msg)
		if !ok || err != nil {
			t.Fatalf("ok=%v err=%v", ok, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("encodeResult %s\nEncodeMessage %s", got, want)
		}
	})
}

func TestEncodeResultLeavesTheRestToTheSDK(t *testing.T) {
	sid, _ := jsonrpc.MakeID("s")
	for _, msg := range []jsonrpc.Message{
		&jsonrpc.Response{ID: sid, Result: json.RawMessage(`{}`)},
		&jsonrpc.Response{ID: intID(1), Error: &jsonrpc.Error{Code: 1, Message: "m"}},
		&jsonrpc.Response{ID: intID(1)},
		&jsonrpc.Request{ID: intID(1), Method: "ping"},
	} {
		if data, ok := encodeResult(msg); ok {
			t.Errorf("encodeResult wrote %s for %+v", data, msg)
		}
	}
}

// FuzzStampParams: stamped params decode, as the SDK decodes them, to the
// caller's params with the ticket added to _meta, and nothing else
// changed.
func FuzzStampParams(f *testing.F) {
	for _, s := range []string{
		`{"name":"note","arguments":{"text":"a"}}`,
		`{"name":"note","arguments":{"text":"a"},"_meta":{"k":1,"mcode/ticket":99}}`,
		`{ "_meta" : { } , "name" : "look" }`,
		`{"name":"note","_meta":null}`,
		`{"name":"note","_meta":[]}`,
		`{"name":"note","Name":"look","NAME":"x"}`,
		`{"name":"nope"}`,
		`["note"]`,
	} {
		f.Add([]byte(s))
	}
	c := newTestCaller(f)
	s, err := New(context.Background(), c, Options{})
	if err != nil {
		f.Fatal(err)
	}
	type decoded struct {
		Meta      map[string]any  `json:"_meta"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		out, sl := s.stamp(params)
		if sl == nil {
			if !bytes.Equal(out, params) {
				t.Fatalf("unstamped params changed: %q -> %q", params, out)
			}
			return
		}
		defer sl.abandon()
		var before, after decoded
		if _, err := sdkJSON(params, &before); err != nil {
			t.Fatal(err)
		}
		if _, err := sdkJSON(out, &after); err != nil || !json.Valid(out) {
			t.Fatalf("stamped params %q do not decode: %v", out, err)
		}
		if ticketOf(after.Meta) != sl.ticket {
			t.Fatalf("%q: ticket %v, want %d", out, after.Meta[ticketKey], sl.ticket)
		}
		delete(after.Meta, ticketKey)
		delete(before.Meta, ticketKey)
		if len(before.Meta) == 0 {
			before.Meta = nil
		}
		if len(after.Meta) == 0 {
			after.Meta = nil
		}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("stamping changed %q into %q", params, out)
		}
	})
}

func intID(n int64) jsonrpc.ID {
	id, err := jsonrpc.MakeID(float64(n))
	if err != nil {
		panic(err)
	}
	return id
}

// A server raises the collector's target while it runs, and the last one
// to stop puts the old one back; GOGC set by a person is left alone.
func TestTuneGC(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set")
	}
	before := debug.SetGCPercent(77)
	defer debug.SetGCPercent(before)
	a, b := tuneGC(), tuneGC()
	if got := debug.SetGCPercent(serverGCPercent); got != serverGCPercent {
		t.Errorf("while serving: %d", got)
	}
	a()
	if got := debug.SetGCPercent(serverGCPercent); got != serverGCPercent {
		t.Errorf("while one server still runs: %d", got)
	}
	b()
	if got := debug.SetGCPercent(77); got != 77 {
		t.Errorf("after the servers: %d, want 77", got)
	}
	t.Setenv("GOGC", "100")
	tuneGC()()
	if got := debug.SetGCPercent(77); got != 77 {
		t.Errorf("with GOGC set: %d, want 77", got)
	}
}
