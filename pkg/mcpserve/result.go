package mcpserve

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Result is an envelope as MCP answers a tools/call: the output as text
// (what the model reads, with the truncation note and the error's code,
// message and hint), images as image content, the structured result as
// structuredContent, and isError when the call failed.
func Result(env *tool.Envelope) *mcp.CallToolResult {
	r := &mcp.CallToolResult{IsError: !env.OK}
	if env.Result != nil {
		r.StructuredContent = env.Result
	}
	if env.Notices != "" {
		r.Meta = mcp.Meta{tool.NoticesMetaKey: env.Notices}
	}
	text := Text(env)
	if text == "" && env.Result != nil {
		// A client that ignores structuredContent still gets the result.
		if data, err := json.Marshal(env.Result); err == nil {
			text = string(data)
		}
	}
	images := media(env)
	if text != "" || len(images) == 0 {
		r.Content = append(r.Content, &mcp.TextContent{Text: text})
	}
	r.Content = append(r.Content, images...)
	return r
}

// Text is what a model reads of an envelope: the output, the truncation
// note with its continuation hint, then the error.
func Text(env *tool.Envelope) string {
	var b strings.Builder
	b.WriteString(env.OutputText())
	line := func(format string, args ...any) {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, format, args...)
		b.WriteString("\n")
	}
	if env.Truncated {
		note := "output was truncated"
		if c := env.Continuation; c != nil {
			if c.Hint != "" {
				note += ": " + c.Hint
			}
			if c.NextOffset > 0 {
				note += fmt.Sprintf(" (next_offset %d)", c.NextOffset)
			}
		}
		line("[%s]", note)
	}
	if e := env.Error; e != nil {
		line("error: %s: %s", e.Code, e.Message)
		if e.Hint != "" {
			line("hint: %s", e.Hint)
		}
		if note := approvalNote(env); note != "" {
			line("%s", note)
		}
	}
	return b.String()
}

// media are the images of a response as image content.
func media(env *tool.Envelope) []mcp.Content {
	var out []mcp.Content
	for _, m := range env.Media {
		if m.Type != "image" {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(m.Data)
		if err != nil {
			continue
		}
		out = append(out, &mcp.ImageContent{Data: raw, MIMEType: m.MIMEType})
	}
	return out
}
