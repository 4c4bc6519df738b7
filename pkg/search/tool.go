package search

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Tool names.
const (
	GrepName = "grep"
	GlobName = "glob"
)

// Timeout is the default time limit of a grep or glob call.
const Timeout = 30 * time.Second

var (
	//go:embed grep.md
	grepDescription string
	//go:embed grep.schema.json
	grepSchema string
	//go:embed glob.md
	globDescription string
	//go:embed glob.schema.json
	globSchema string
)

// templateData is what the description and schema templates see.
type templateData struct {
	GrepDefaultLimit, GrepMaxLimit, GrepMaxOutputKiB int
	GlobDefaultLimit, GlobMaxLimit                   int
	MaxFileSizeMiB, MaxNamedFileSizeMiB              int
	MaxLineChars, MaxContext                         int
	TimeoutSeconds                                   int
	DefaultExcludes                                  []string
}

func data() templateData {
	return templateData{
		GrepDefaultLimit: GrepDefaultLimit, GrepMaxLimit: GrepMaxLimit, GrepMaxOutputKiB: GrepMaxOutputBytes >> 10,
		GlobDefaultLimit: GlobDefaultLimit, GlobMaxLimit: GlobMaxLimit,
		MaxFileSizeMiB: MaxFileSize >> 20, MaxNamedFileSizeMiB: MaxNamedFileSize >> 20,
		MaxLineChars: MaxLineChars, MaxContext: MaxContext,
		TimeoutSeconds:  int(Timeout / time.Second),
		DefaultExcludes: DefaultExcludes,
	}
}

// GrepTool is grep's registry entry.
func GrepTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: GrepName, Mode: tool.Parallel, Timeout: Timeout,
		Positional:  []string{"pattern", "path"},
		Facts:       tool.Facts{ReadOnly: true, Idempotent: true},
		Aliases:     grepAliases,
		Description: grepDescription, Schema: grepSchema, Data: data(),
	}, func(ctx context.Context, env *tool.Env, p GrepParams) (*tool.Response, error) {
		res, err := Grep(ctx, env, p)
		if err != nil {
			return nil, err
		}
		out, notices, truncated := res.render()
		resp := &tool.Response{Output: out, Notices: notices, Result: res, Truncated: truncated}
		if truncated {
			resp.Continuation = &tool.Continuation{NextOffset: res.NextOffset, Hint: res.Hint}
		}
		return resp, cutShort(ctx, res.Partial, res.FilesSearched, "files searched")
	})
}

// grepAliases are the parameter names of Claude Code's Grep tool, which
// models were trained on, and ripgrep's letters, mapped onto grep's own.
// The letters are also the command's short flags (mcode grep -rn).
var grepAliases = map[string]tool.Alias{
	"output_mode": {Param: "mode", Values: map[string]any{"files_with_matches": ModeFiles, "content": ModeContent, "count": ModeCount}},
	"head_limit":  {Param: "limit"},
	"-i":          {Param: "case_insensitive"},
	"-C":          {Param: "context"},
	"-A":          {Param: "after_context"},
	"-B":          {Param: "before_context"},
	"-n":          {Param: "line_number"},
	"-F":          {Param: "fixed_strings"},
	"-U":          {Param: "multiline"},
	"-w":          {Param: "word_regexp"},
	"-l":          {Param: "files_with_matches"},
	"-c":          {Param: "count"},
	"-t":          {Param: "type"},
	"-v":          {Param: "invert_match"},
	"-m":          {Param: "max_count"},
	"-q":          {Param: "quiet"},
	"-r":          {Param: "recursive"},
	"-R":          {Param: "recursive"},
}

// globAliases are fd's letters for glob's parameters.
var globAliases = map[string]tool.Alias{
	"-t": {Param: "type"},
	"-e": {Param: "extension"},
}

// GlobTool is glob's registry entry.
func GlobTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: GlobName, Mode: tool.Parallel, Timeout: Timeout,
		Aliases:     globAliases,
		Positional:  []string{"pattern", "path"},
		Facts:       tool.Facts{ReadOnly: true, Idempotent: true},
		Description: globDescription, Schema: globSchema, Data: data(),
	}, func(ctx context.Context, env *tool.Env, p GlobParams) (*tool.Response, error) {
		res, err := Glob(ctx, env, p)
		if err != nil {
			return nil, err
		}
		out, notices := res.render()
		resp := &tool.Response{Output: out, Notices: notices, Result: res, Truncated: res.Truncated}
		if res.Truncated {
			resp.Continuation = &tool.Continuation{Hint: res.Hint}
		}
		return resp, cutShort(ctx, res.Partial, res.Total, "paths found")
	})
}

// cutShort is the error that goes with partial results: timeout or
// interrupted, saying how far the search got.
func cutShort(ctx context.Context, partial bool, n int, what string) error {
	if !partial {
		return nil
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &tool.Error{Code: tool.CodeTimeout,
			Message: fmt.Sprintf("the time limit ran out; the results are partial (%d %s so far)", n, what),
			Hint:    "narrow the path, pattern or glob, or raise --timeout"}
	}
	return &tool.Error{Code: tool.CodeInterrupted, Message: fmt.Sprintf("interrupted; the results are partial (%d %s so far)", n, what)}
}
