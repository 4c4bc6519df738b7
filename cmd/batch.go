package cmd

import (
	"fmt"
	"os"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/mcode-dev/mcode/pkg/batch"
	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/iostreams"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// BatchOptions are the options of batch.
type BatchOptions struct {
	// File holds the JSON lines; "" or "-" is stdin.
	File string
}

// NewCmdBatch builds `mcode batch`.
func NewCmdBatch(f *Factory, runF func(*BatchOptions) error) *cobra.Command {
	opts := &BatchOptions{}
	c := &cobra.Command{
		Use:   "batch [--file FILE]",
		Short: "Run many tool calls in one process: JSON lines {id, tool, args} in, one line per call out",
		Long: fmt.Sprintf(`Reads JSON lines {"id", "tool", "args"} from stdin (or --file) and writes one
line per call, in input order: {"id": …} followed by the call's whole
envelope. With -o text, each call prints a header line "== ID: TOOL ok" (or
its error code instead of ok), then its text. When every call's tool is parallel (read, grep, glob, …) the calls
run concurrently, at most batch.maxParallel at once (default: the CPU count,
at most %d); if any is sequential, all run one by one in order. Each call
goes through the same path as a CLI call, with its own time limit (--timeout
applies to each). A malformed line or an unknown tool gets its own usage
answer and does not stop the others. Exit 0 when every call succeeded, else
1 (130 when a signal stopped the batch).`, config.BatchMaxParallel),
		Example: `  printf '%s\n' '{"id":1,"tool":"read","args":{"path":"go.mod"}}' \
    '{"id":2,"tool":"grep","args":{"pattern":"TODO"}}' | mcode batch
  mcode batch -o text --file calls.jsonl
  mcode batch --file calls.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runBatch(c, f, opts)
		},
	}
	c.Flags().StringVar(&opts.File, "file", "", "read the JSON lines from FILE instead of stdin")
	return c
}

func runBatch(c *cobra.Command, f *Factory, opts *BatchOptions) error {
	const name = "batch"
	ctx := c.Context()
	fail := func(err error) error { return finish(f, tool.NewEnvelope(name, nil, err)) }
	cfg, err := f.Config()
	if err != nil {
		return fail(err)
	}
	in := f.IO.In
	if opts.File != "" && opts.File != "-" {
		file, err := os.Open(opts.File)
		if err != nil {
			return fail(&tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("--file: %v", err),
				Hint: "--file names a file of JSON lines, one call each; or pipe them into mcode batch"})
		}
		defer file.Close()
		in = iostreams.WithContext(ctx, file) // a FIFO blocks until written to
	}
	calls, err := batch.Parse(in)
	if err != nil {
		if ctx.Err() != nil {
			return fail(interrupted())
		}
		return fail(&tool.Error{Code: tool.CodeUsage, Message: "reading the calls: " + err.Error(),
			Hint: "pipe JSON lines into mcode batch, or pass --file FILE"})
	}
	d, err := f.Dispatcher()
	if err != nil {
		return fail(err)
	}
	write := func(c batch.Call, env *tool.Envelope) error { return batch.WriteLine(f.IO.Out, c, env) }
	if f.outputForm() == outputText {
		// -o text: a header line per call, then its text, as three text
		// calls would print it (and readable without jq).
		write = func(c batch.Call, env *tool.Envelope) error { return batch.WriteText(f.IO.Out, c, env) }
	}
	sum, err := batch.RunEach(ctx, d, calls, batchParallel(cfg), write)
	if err != nil {
		return fail(err)
	}
	switch {
	case ctx.Err() != nil:
		return &exitError{code: tool.ExitInterrupted}
	case sum.Failed > 0:
		return &exitError{code: tool.ExitFailure}
	}
	return nil
}

// batchParallel is batch.maxParallel, else the CPU count, at most
// config.BatchMaxParallel.
func batchParallel(cfg *config.Config) int {
	if n := cfg.Batch.MaxParallel; n > 0 {
		return min(n, config.BatchMaxParallel)
	}
	return max(1, min(runtime.NumCPU(), config.BatchMaxParallel))
}
