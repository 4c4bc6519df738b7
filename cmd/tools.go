package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/nearest"
	"github.com/mcode-dev/mcode/pkg/tiers"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Formats of tools list: each ecosystem's function-calling shape.
const (
	formatJSON      = "json"
	formatOpenAI    = "openai"
	formatAnthropic = "anthropic"
	formatMCP       = "mcp"
)

var toolFormats = []string{formatJSON, formatOpenAI, formatAnthropic, formatMCP}

// openAIMaxDescription is the longest function description OpenAI's API
// accepts; a longer one fails the whole request (string_above_max_length).
const openAIMaxDescription = 1024

// ToolsListOptions are the options of tools list.
type ToolsListOptions struct {
	Format string
	// Names, when given, keep only these tools.
	Names []string
}

// NewCmdTools builds `mcode tools list`.
func NewCmdTools(f *Factory, runF func(*ToolsListOptions) error) *cobra.Command {
	c := &cobra.Command{
		Use:   "tools <command>",
		Short: "The tool registry",
		Args:  cobra.NoArgs,
	}
	opts := &ToolsListOptions{}
	list := &cobra.Command{
		Use:   "list [NAME…] [flags]",
		Short: "List the tools this agent and role may call, with their JSON Schemas",
		Example: `  mcode tools list
  mcode tools list grep edit
  mcode tools list --format openai
  mcode tools list --role explore --format anthropic`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Names = args
			if runF != nil {
				return runF(opts)
			}
			return finish(f, toolsList(c.Context(), f, opts))
		},
	}
	enumFlag(list, &opts.Format, "format", "", formatJSON, toolFormats, "shape of each tool")
	c.AddCommand(list)
	return c
}

func toolsList(ctx context.Context, f *Factory, opts *ToolsListOptions) *tool.Envelope {
	const name = "tools list"
	start := time.Now()
	d, err := f.Dispatcher()
	if err != nil {
		return tool.NewEnvelope(name, nil, err)
	}
	visible, listErr := d.List(ctx)
	if len(opts.Names) > 0 {
		var err error
		if visible, err = pickTools(ctx, d, visible, opts.Names); err != nil {
			return tool.NewEnvelope(name, nil, err)
		}
		listErr = nil
	}
	// Piped, result.tools holds every definition whole: output is a line
	// a tool, so the list is not printed twice (and stays within the
	// output budget as tools are added). A person reading text, or asking
	// for some tools by name, gets their whole documentation.
	fullDocs := f.outputForm() == outputText || len(opts.Names) > 0
	var out strings.Builder
	tools := []any{}
	// Extension-tier tools the session has not enabled are a catalogue
	// of one line each, without their schemas (docs/connector.md, "Extension tier").
	catalogue := []any{}
	var catalogueText strings.Builder
	var problems []string
	if listErr != nil {
		problems = strings.Split(listErr.Error(), "\n")
	}
	for _, t := range visible {
		// One tool that cannot be defined is left out and named; the
		// others are listed.
		def, err := t.Definition()
		if err != nil {
			problems = append(problems, fmt.Sprintf("tool %s left out: %v", t.Name, err))
			continue
		}
		if !tiers.Listed(d.Env(), t) {
			line := tool.FirstLine(def.Description)
			catalogue = append(catalogue, map[string]any{"name": def.Name, "source": def.Source, "description": line})
			fmt.Fprintf(&catalogueText, "  %s (%s): %s\n", def.Name, def.Source, line)
			continue
		}
		tools = append(tools, shapeDefinition(def, opts.Format))
		if fullDocs {
			writeToolDoc(&out, def)
		} else {
			fmt.Fprintf(&out, "%s (%s, %s): %s\n", def.Name, def.Mode, def.Source, tool.FirstLine(def.Description))
		}
	}
	if len(tools) == 0 {
		out.WriteString("no tools are available to this agent and role\n")
	}
	if len(catalogue) > 0 {
		fmt.Fprintf(&out, "## Extension tools (enable one with enable_tool NAME before calling it)\n%s\n", catalogueText.String())
	}
	for _, p := range problems {
		fmt.Fprintf(&out, "note: %s\n", p)
	}
	profile := d.Profile()
	env := tool.NewEnvelope(name, &tool.Response{
		Output: out.String(),
		Result: map[string]any{
			"format": opts.Format, "agent": profile.Agent, "role": profile.Role,
			"count": len(tools), "tools": tools, "catalogue": catalogue, "problems": problems,
		},
	}, nil)
	f.budget(d.Env().Config).Apply(env)
	env.DurationMS = time.Since(start).Milliseconds()
	return env
}

// pickTools keeps the named tools, in the order named. A name the caller
// may not call is refused as a call would be; one that is nowhere is a
// usage error naming the closest tools there are.
func pickTools(ctx context.Context, d *dispatch.Dispatcher, visible []*tool.Tool, names []string) ([]*tool.Tool, error) {
	var picked []*tool.Tool
	for _, n := range names {
		t, err := d.Lookup(ctx, n)
		if err != nil {
			var te *tool.Error
			if errors.As(err, &te) && te.Code == tool.CodeUsage {
				var known []string
				for _, v := range visible {
					known = append(known, v.Name)
				}
				te.Hint = "the closest tools: " + strings.Join(nearest.Names(n, known, 3), ", ") + "; `mcode tools list` lists them all"
			}
			return nil, err
		}
		picked = append(picked, t)
	}
	return picked, nil
}

// writeToolDoc renders one tool for a person: name, mode, tier, the
// description and each parameter.
func writeToolDoc(w *strings.Builder, def tool.Definition) {
	fmt.Fprintf(w, "## %s (%s, %s, %s)\n%s\n", def.Name, def.Mode, def.Tier, def.Source, def.Description)
	tool.WriteParameters(w, def.InputSchema, false)
	w.WriteString("\n")
}

// shapeDefinition renders a definition the way each API expects it.
func shapeDefinition(d tool.Definition, format string) any {
	schema := json.RawMessage(d.InputSchema)
	switch format {
	case formatOpenAI:
		return map[string]any{
			"type": "function",
			"function": map[string]any{
				"name": d.Name, "description": shorten(d.Description, openAIMaxDescription), "parameters": schema,
			},
		}
	case formatAnthropic:
		return map[string]any{"name": d.Name, "description": d.Description, "input_schema": schema}
	case formatMCP:
		m := map[string]any{
			"name": d.Name, "description": d.Description, "inputSchema": schema,
			"annotations": d.Facts.MCPAnnotations(),
		}
		if len(d.Aliases) > 0 {
			m["_meta"] = map[string]any{tool.AliasesMetaKey: d.Aliases} // as mcp serve publishes them
		}
		return m
	}
	return d
}

// shorten cuts a description to at most max characters, at the end of
// the last paragraph, list item or sentence that fits, and says where the
// whole text is.
func shorten(desc string, max int) string {
	if utf8.RuneCountInString(desc) <= max {
		return desc
	}
	const note = "\n\n(Shortened to fit this API; `mcode tools list` has the full description.)"
	room := max - utf8.RuneCountInString(note)
	cut := desc
	for i := range desc {
		if room == 0 {
			cut = desc[:i]
			break
		}
		room--
	}
	for _, sep := range []string{"\n\n", "\n- ", "\n", ". "} {
		if i := strings.LastIndex(cut, sep); i > len(cut)/2 {
			cut = cut[:i+len(sep)-len(strings.TrimLeft(sep, "."))]
			break
		}
	}
	return strings.TrimRight(cut, " \n") + note
}
