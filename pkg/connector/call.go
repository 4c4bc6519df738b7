package connector

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// ToolErrorMaxMessage bounds the server's text quoted in a tool_error's
// message; the whole text stays in output.
const ToolErrorMaxMessage = 2000

// Validate checks args against a tool's inputSchema, locally: nothing is
// started. A tool whose schema cannot be used cannot be called safely
// and is refused as the tool's fault (tool_error).
func Validate(def ToolDef, args json.RawMessage) error {
	_, err := normalizeValidate(def, args)
	return err
}

// normalizeValidate rewrites the tool's aliases (as its server would),
// then validates; it returns the arguments to send.
func normalizeValidate(def ToolDef, args json.RawMessage) (json.RawMessage, error) {
	args, err := tool.NormalizeArgs(def.Qualified(), def.Aliases, args)
	if err != nil {
		return nil, err
	}
	return args, validate(def, args)
}

func validate(def ToolDef, args json.RawMessage) error {
	schema, err := tool.CompileSchema(def.Qualified(), def.InputSchema)
	if err != nil {
		return &tool.Error{Code: tool.CodeToolError,
			Message: fmt.Sprintf("the inputSchema of %s is not a usable JSON Schema: %v", def.Qualified(), err),
			Hint:    fmt.Sprintf("the MCP server %s must fix its tool definition; `mcode connector tool %s` shows it", def.Server, def.Qualified())}
	}
	if err := schema.ValidateArgs(args); err != nil {
		if te, ok := err.(*tool.Error); ok && te.Code == tool.CodeUsage {
			te.Hint = fmt.Sprintf("`mcode connector tool %s` shows its parameters", def.Qualified())
		}
		return err
	}
	return nil
}

// Call validates args against the tool's inputSchema (from the cache
// when it is there: a bad argument then starts no server), then starts
// or reaches the server and calls the tool. ctx bounds start-up and the
// call; when it ends first, notifications/cancelled is sent before the
// connection closes.
func (c *Connector) Call(ctx context.Context, name string, args json.RawMessage) (*tool.Response, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	start := time.Now()
	s, toolName, err := c.resolve(name)
	if err != nil {
		return nil, err
	}
	def, known := ToolDef{}, false
	if l, ok := loadListing(c.DataDir, s, c.now()); ok && !c.Refresh {
		def, err = findIn(l, s, toolName)
		var sent json.RawMessage
		if err == nil {
			sent, err = normalizeValidate(def, args)
		}
		// A miss is looked up again in a fresh listing, and so is a
		// refusal by a listing old enough that the tool may have changed.
		switch {
		case err == nil:
			known, args = true, sent
		case isMiss(err):
		case c.now().Sub(l.FetchedAt) >= CacheRecheckAge && isRefusal(err):
		default:
			return nil, err
		}
	}
	sess := c.unpark(s)
	if sess == nil {
		if sess, err = c.connect(ctx, s); err != nil {
			if ctx.Err() != nil {
				return nil, ended(ctx, name, start, "; its server was still starting")
			}
			return nil, err
		}
	}
	defer sess.close()
	if !known {
		l, err := c.list(ctx, sess)
		if err != nil {
			return nil, err
		}
		if def, err = findIn(l, s, toolName); err != nil {
			return nil, err
		}
		if args, err = normalizeValidate(def, args); err != nil {
			return nil, err
		}
	}
	res, err := sess.cs.CallTool(ctx, &mcp.CallToolParams{Name: def.Name, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			what := "; the server was told to cancel the call (notifications/cancelled) and stopped"
			if !sess.awaitCancelNotice() {
				what = "; the server was stopped (the cancellation notice could not be sent in time)"
			}
			return nil, ended(ctx, name, start, what)
		}
		return nil, sess.protocolError("tools/call "+def.Name, err)
	}
	return callResponse(def, res)
}

// isRefusal says whether the listing refused the call: the tool's schema
// refused the arguments, or the tool was left out of the listing.
func isRefusal(err error) bool {
	var te *tool.Error
	return errors.As(err, &te) && (te.Code == tool.CodeUsage || te.Code == tool.CodeToolError)
}

// ended is the error of a call whose context ended: a timeout that says
// how far it got, or the plain context error of an interruption (the
// call path turns it into interrupted).
func ended(ctx context.Context, name string, start time.Time, what string) error {
	deadline, ok := ctx.Deadline()
	if !ok || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ctx.Err()
	}
	limit := deadline.Sub(start).Round(10 * time.Millisecond)
	return &tool.Error{Code: tool.CodeTimeout,
		Message: fmt.Sprintf("%s did not answer within %s (start-up of its server included)%s", name, limit, what),
		Hint:    "raise the limit with --timeout (or the server's mcpServers.NAME.timeout), or ask for less"}
}

// callResponse keeps the server's content blocks, structuredContent and
// isError; output is the text a model reads.
func callResponse(def ToolDef, res *mcp.CallToolResult) (*tool.Response, error) {
	blocks := make([]json.RawMessage, 0, len(res.Content))
	var text []string
	var media []tool.Media
	for _, c := range res.Content {
		raw, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, raw)
		switch c := c.(type) {
		case *mcp.TextContent:
			text = append(text, c.Text)
		case *mcp.ImageContent:
			media = append(media, tool.Media{Type: "image", MIMEType: c.MIMEType, Data: base64.StdEncoding.EncodeToString(c.Data)})
			text = append(text, fmt.Sprintf("[image %s, %s]", c.MIMEType, fsutil.HumanBytes(int64(len(c.Data)))))
		case *mcp.AudioContent:
			text = append(text, fmt.Sprintf("[audio %s, %s]", c.MIMEType, fsutil.HumanBytes(int64(len(c.Data)))))
		case *mcp.ResourceLink:
			text = append(text, fmt.Sprintf("[resource link %s %s]", c.Name, c.URI))
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				text = append(text, c.Resource.Text)
			} else if c.Resource != nil {
				text = append(text, fmt.Sprintf("[resource %s]", c.Resource.URI))
			}
		}
	}
	result := map[string]any{
		"server": def.Server, "tool": def.Name, "content": blocks,
		"structuredContent": res.StructuredContent, "isError": res.IsError,
	}
	out := strings.Join(text, "\n")
	if out == "" && res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		out = string(data)
	}
	resp := &tool.Response{Output: out, Result: result, Media: media}
	if notices, _ := res.Meta[tool.NoticesMetaKey].(string); notices != "" && strings.Count(out, notices) == 1 {
		// The server is mcode: its summary goes where a direct call's
		// does (stderr in -o text), after whatever note followed it.
		resp.Output = strings.Replace(out, notices, "", 1) + notices
		resp.Notices = notices
	}
	if res.IsError {
		msg := strings.TrimSpace(out)
		if msg == "" {
			msg = "(no text)"
		}
		if r := []rune(msg); len(r) > ToolErrorMaxMessage {
			msg = string(r[:ToolErrorMaxMessage]) + "…"
		}
		return resp, &tool.Error{Code: tool.CodeToolError,
			Message: fmt.Sprintf("%s reported an error: %s", def.Qualified(), msg),
			Hint:    fmt.Sprintf("read the server's message; `mcode connector tool %s` shows what the tool expects", def.Qualified())}
	}
	if len(def.OutputSchema) > 0 {
		if err := checkStructured(def, res.StructuredContent); err != nil {
			return resp, err
		}
	}
	return resp, nil
}

// checkStructured holds structuredContent to the tool's outputSchema.
func checkStructured(def ToolDef, v any) error {
	fail := func(format string, args ...any) error {
		return &tool.Error{Code: tool.CodeServerError,
			Message: fmt.Sprintf("%s: ", def.Qualified()) + fmt.Sprintf(format, args...),
			Hint:    fmt.Sprintf("the MCP server %s broke its own outputSchema; the result is kept in result.content and result.structuredContent", def.Server)}
	}
	if v == nil {
		return fail("the tool declares an outputSchema but returned no structuredContent")
	}
	schema, err := tool.CompileSchema(def.Qualified(), def.OutputSchema)
	if err != nil {
		return fail("its outputSchema is not a usable JSON Schema: %v", err)
	}
	// Round-trip through JSON: the validator wants plain decoded values.
	data, err := json.Marshal(v)
	if err != nil {
		return fail("structuredContent does not encode: %v", err)
	}
	var plain any
	if err := json.Unmarshal(data, &plain); err != nil {
		return fail("structuredContent does not decode: %v", err)
	}
	if err := schema.ValidateValue(plain); err != nil {
		return fail("structuredContent does not match the outputSchema: %v", err)
	}
	return nil
}
