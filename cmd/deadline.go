package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/iostreams"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// applyDeadline makes --timeout bound the wait for the input of a command
// that runs one tool call (--content-file on a FIFO nobody writes, --args
// @FIFO, --args - on a silent stdin), from the start. The run then gets
// its own full limit (callContext).
func (f *Factory) applyDeadline(c *cobra.Command) {
	if _, oneCall := c.Annotations[annotationTool]; !oneCall && c.Name() != "call" {
		return
	}
	d, err := f.timeout()
	if err != nil || d <= 0 {
		return
	}
	parent := c.Context()
	ctx, cancel := context.WithTimeout(context.WithValue(parent, callCtxKey{}, parent), d)
	f.stopDeadline = cancel
	c.SetContext(ctx)
}

type callCtxKey struct{}

// callContext is the context a tool call runs under: the command's, less
// the deadline of its input (the dispatcher applies the call's limit).
func callContext(ctx context.Context) context.Context {
	if parent, ok := ctx.Value(callCtxKey{}).(context.Context); ok {
		return parent
	}
	return ctx
}

// readInput runs read, which may block for ever on a FIFO or a terminal,
// until ctx ends: a signal returns ctx's error (the caller reports it as
// interrupted), the --timeout deadline a timeout error naming what was
// waited for.
func readInput[T any](ctx context.Context, what string, read func() (T, error)) (T, error) {
	v, err := iostreams.UntilDone(ctx, read)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		return v, &tool.Error{Code: tool.CodeTimeout,
			Message: fmt.Sprintf("--timeout ran out while waiting for %s: nothing came to read", what),
			Hint:    "write the input before mcode reads it (a FIFO needs a writer; stdin needs a pipe or a file), or raise --timeout"}
	}
	return v, err
}
