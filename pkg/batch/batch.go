// Package batch runs many tool calls in one process: JSON lines
// {id, tool, args} in, one line out per call ({"id"} with the call's whole
// envelope) in input order. When every call's tool is parallel the calls
// run concurrently (bounded); if any is sequential, all run one by one in
// order. Every call goes through the caller's one call path.
package batch

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// MaxLineBytes is the longest input line: one call with its arguments.
const MaxLineBytes = 16 << 20

// Caller is the one call path (a *dispatch.Dispatcher), and its lookup of
// a tool this agent and role may call (an error when there is none).
type Caller interface {
	Do(ctx context.Context, r dispatch.Request) *tool.Envelope
	Lookup(ctx context.Context, name string) (*tool.Tool, error)
}

// Call is one input line.
type Call struct {
	Line int
	ID   json.RawMessage
	Tool string
	Args json.RawMessage
	// Approval is the id of an approval a person granted for this call.
	Approval string
	// Err is why the line is not a call (a usage error), else nil.
	Err *tool.Error
}

// Summary is what a batch did.
type Summary struct {
	Calls, OK, Failed int
	Concurrent        bool
}

// Parse reads JSON lines. Blank lines are skipped; a line that is not a
// call becomes a Call with Err set, so that it gets its own answer.
func Parse(r io.Reader) ([]Call, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var calls []Call
	for n := 1; ; n++ {
		line, tooLong, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return calls, err
		}
		if tooLong {
			calls = append(calls, Call{Line: n, Err: usage(n, fmt.Sprintf("the line is longer than %d MiB", MaxLineBytes>>20),
				"put large contents in a file and pass its path (write --content-file is not a batch field; use mcode write directly)")})
		} else if len(bytes.TrimSpace(line)) > 0 {
			calls = append(calls, parseLine(n, line))
		}
		if errors.Is(err, io.EOF) {
			return calls, nil
		}
	}
}

// readLine reads one line without its newline; a line over MaxLineBytes
// is consumed and reported as too long.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLineBytes+1 {
			tooLong = true
			line = nil
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

const lineHint = `each line is one JSON object: {"id": 1, "tool": "read", "args": {"path": "main.go"}}`

func usage(line int, msg, hint string) *tool.Error {
	return &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("line %d: %s", line, msg), Hint: hint}
}

func parseLine(n int, line []byte) Call {
	c := Call{Line: n}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		c.Err = usage(n, "not a JSON object: "+err.Error(), lineHint)
		return c
	}
	c.ID = raw["id"]
	for k := range raw {
		if k != "id" && k != "tool" && k != "args" && k != "approval" {
			c.Err = usage(n, fmt.Sprintf("unknown key %q", k), lineHint)
			return c
		}
	}
	if c.ID == nil {
		c.Err = usage(n, `no "id"`, lineHint+`; the id (a string or a number) is copied to the answer`)
		return c
	}
	if json.Unmarshal(raw["tool"], &c.Tool) != nil || c.Tool == "" {
		c.Err = usage(n, `"tool" must be a tool name`, lineHint+"; `mcode tools list` shows the tools")
		return c
	}
	if a, ok := raw["approval"]; ok && json.Unmarshal(a, &c.Approval) != nil {
		c.Err = usage(n, `"approval" must be an approval id (a string)`, lineHint)
		return c
	}
	c.Args = raw["args"]
	if trimmed := bytes.TrimSpace(c.Args); len(trimmed) == 0 || string(trimmed) == "null" {
		c.Args = json.RawMessage("{}")
	} else if trimmed[0] != '{' {
		c.Err = usage(n, `"args" must be a JSON object`, lineHint)
	}
	return c
}

// Run runs the calls and writes one line per call to out, in input order,
// each as soon as it and every call before it are done. maxParallel bounds
// the concurrent calls (at least 1).
func Run(ctx context.Context, caller Caller, calls []Call, maxParallel int, out io.Writer) (Summary, error) {
	return RunEach(ctx, caller, calls, maxParallel, func(c Call, env *tool.Envelope) error { return WriteLine(out, c, env) })
}

// RunEach is Run with the answers handed to write, in input order, each
// as soon as it and every call before it are done.
func RunEach(ctx context.Context, caller Caller, calls []Call, maxParallel int, write func(Call, *tool.Envelope) error) (Summary, error) {
	sum := Summary{Calls: len(calls), Concurrent: maxParallel > 1}
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Tool
		if c.Err != nil {
			continue
		}
		// A tool that is unknown or not permitted fails on its own line.
		if t, err := caller.Lookup(ctx, c.Tool); err == nil {
			names[i] = t.Name
			if t.Mode != tool.Parallel {
				sum.Concurrent = false
			}
		}
	}
	if !sum.Concurrent {
		maxParallel = 1
	}
	results := make([]chan *tool.Envelope, len(calls))
	for i := range results {
		results[i] = make(chan *tool.Envelope, 1)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxParallel)
	go func() {
		for i, c := range calls {
			if c.Err != nil {
				results[i] <- tool.NewEnvelope(cmp.Or(names[i], "batch"), nil, c.Err)
				continue
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i] <- tool.NewEnvelope(names[i], nil, notStarted(c.Line))
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				results[i] <- caller.Do(ctx, dispatch.Request{Tool: c.Tool, Args: c.Args, Approval: c.Approval})
			}()
		}
		wg.Wait()
	}()
	for i, c := range calls {
		env := <-results[i]
		if env.OK {
			sum.OK++
		} else {
			sum.Failed++
		}
		if err := write(c, env); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// notStarted is the answer of a call a signal kept from starting.
func notStarted(line int) *tool.Error {
	return &tool.Error{Code: tool.CodeInterrupted, Message: fmt.Sprintf("line %d: not started: the batch was interrupted by a signal", line),
		Hint: "run the batch again with the calls that did not run"}
}

// WriteText writes one answer in text form: a header line
// "== ID: TOOL ok" (or the error code instead of ok), then the call's
// text, then its error and hint and where more follows, if any.
func WriteText(out io.Writer, c Call, env *tool.Envelope) error {
	id := "null"
	if c.ID != nil && json.Valid(c.ID) {
		id = string(bytes.TrimSpace(c.ID))
		var s string
		if json.Unmarshal(c.ID, &s) == nil {
			id = s
		}
	}
	status := "ok"
	if env.Error != nil {
		status = string(env.Error.Code)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "== %s: %s %s\n", id, env.Tool, status)
	if text := env.OutputText(); text != "" {
		b.WriteString(text)
		if !strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
	}
	if e := env.Error; e != nil {
		fmt.Fprintf(&b, "error: %s: %s\n", e.Code, e.Message)
		if e.Hint != "" {
			fmt.Fprintf(&b, "hint: %s\n", e.Hint)
		}
	}
	if k := env.Continuation; k != nil && k.Hint != "" && (env.Truncated || k.NextOffset > 0) {
		fmt.Fprintf(&b, "[%s]\n", k.Hint)
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// WriteLine writes {"id": …} merged with the envelope, as one line.
func WriteLine(out io.Writer, c Call, env *tool.Envelope) error {
	data, err := env.Marshal(false)
	if err != nil {
		data, _ = tool.NewEnvelope(env.Tool, nil, fmt.Errorf("encoding the result: %w", err)).Marshal(false)
	}
	id := c.ID
	if id == nil || !json.Valid(id) {
		id = json.RawMessage("null")
	}
	var line bytes.Buffer
	line.Grow(len(id) + len(data) + 8)
	line.WriteString(`{"id":`)
	line.Write(bytes.TrimSpace(id))
	line.WriteByte(',')
	line.Write(data[1:])
	_, err = out.Write(line.Bytes())
	return err
}
