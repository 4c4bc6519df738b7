package mcpserve

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// An MCP client has no --approval flag. So the server remembers the
// approval id of each call the guard held back, and when the same call
// (same tool, same arguments) comes again, hands the id on: once a person
// has granted it, the call runs, exactly once; until then the guard holds
// it back again. A client may also name the id in params._meta.
const approvalKey = "mcode/approval"

// maxRemembered bounds the approvals the server keeps in mind.
const maxRemembered = 256

type approvals struct {
	mu  sync.Mutex
	ids map[string]string // call key -> approval id
}

// callKey is a call's identity: the tool and its arguments in canonical
// JSON (keys sorted, no spaces).
func callKey(name string, args json.RawMessage) string {
	var v any
	if json.Unmarshal(args, &v) == nil {
		if data, err := json.Marshal(v); err == nil {
			args = data
		}
	}
	return name + "\x00" + string(args)
}

// lookup is the approval id to send with a call, or "".
func (a *approvals) lookup(key string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ids[key]
}

// settle remembers the approval a held-back call needs, and forgets it
// once the call went through (an id is good for one run).
func (a *approvals) settle(key string, env *tool.Envelope) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if id := approvalID(env); id != "" {
		if a.ids == nil {
			a.ids = map[string]string{}
		}
		if len(a.ids) >= maxRemembered {
			clear(a.ids)
		}
		a.ids[key] = id
		return
	}
	delete(a.ids, key)
}

// approvalID is the id of the approval a call is waiting for, or "".
func approvalID(env *tool.Envelope) string {
	if env.Error == nil || env.Error.Code != tool.CodeApprovalRequired {
		return ""
	}
	switch d := env.Result.(type) {
	case dispatch.Decision:
		return d.ApprovalID
	case *dispatch.Decision:
		return d.ApprovalID
	}
	return ""
}

// approvalNote tells an MCP client how to go on after approval_required.
func approvalNote(env *tool.Envelope) string {
	id := approvalID(env)
	if id == "" {
		return ""
	}
	return fmt.Sprintf("approval id: %s. Ask a person to run `mcode approve %s`; then call %s again with the same arguments: this server passes the approval on, and the call runs once.", id, id, env.Tool)
}

// An MCP client that can elicit (ask its user) is asked about a held
// call instead: the server answers the call with an input request (MCP's
// multi round-trip; for clients of older protocols the SDK asks them
// directly and calls again), and the client sends the call again with its
// user's answer. The answer counts only for the call it was asked for,
// once: the request state the server hands out names the call, and the
// server keeps it until it comes back.

// askID names the one input request of a held call.
const askID = "mcode_approval"

type asks struct {
	mu     sync.Mutex
	states map[string]string // request state -> call key
}

// issue hands out the request state of one question about the call key.
func (a *asks) issue(key string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	state := hex.EncodeToString(b[:])
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.states == nil {
		a.states = map[string]string{}
	}
	if len(a.states) >= maxRemembered {
		clear(a.states)
	}
	a.states[state] = key
	return state
}

// answer is the user's answer to the server's question about this very
// call, if the call brings one back: an answer the server did not ask
// for, or asked for another call, is no answer.
func (a *asks) answer(key, state string, responses mcp.InputResponseMap) (yes, ok bool) {
	if state == "" || responses == nil {
		return false, false
	}
	a.mu.Lock()
	asked, issued := a.states[state]
	delete(a.states, state)
	a.mu.Unlock()
	if !issued || asked != key {
		return false, false
	}
	r, isElicit := responses[askID].(*mcp.ElicitResult)
	if !isElicit {
		return false, true
	}
	return r.Action == "accept", true
}

// askingFor is the question to put to the client's user about a held
// call, as an input request.
func askingFor(question string) mcp.InputRequestMap {
	return mcp.InputRequestMap{askID: &mcp.ElicitParams{
		Message:         "mcode guard: " + question,
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
	}}
}
