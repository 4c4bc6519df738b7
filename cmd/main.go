// Package cmd is mcode's command line: it parses flags or --args, runs a
// tool through the registry and prints the one JSON envelope.
package cmd

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcode-dev/mcode/pkg/exec"
	"github.com/mcode-dev/mcode/pkg/iostreams"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// exitError reports an exit status whose envelope is already printed.
type exitError struct{ code int }

func (e *exitError) Error() string { return "exit status" }

// Main runs mcode and returns the process exit status. It is the only
// place that decides one.
func Main() int { return MainWith(nil) }

// MainWith is Main with the factory adjusted first: a test binary points
// the person's trusted files at its own.
func MainWith(adjust func(*Factory)) int {
	if len(os.Args) > 1 {
		if hidden, ok := hiddenCommands[os.Args[1]]; ok {
			return hidden(os.Args[2:])
		}
	}
	if len(os.Args) > 1 && os.Args[1] == exec.Name {
		// The call's supervisor starts now, while this process sets up.
		if exe, err := os.Executable(); err == nil {
			defer exec.StartSpare(exe)()
		}
	}
	f := NewFactory()
	if adjust != nil {
		adjust(f)
	}
	// Not stopped at the end: the process exits, and signal.Stop would
	// wait for the signal goroutine to be scheduled first (a thread start
	// on every call).
	ctx, _ := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// Ctrl-C while mcode waits on stdin (--args -, a prompt) must end it.
	f.IO.In = iostreams.WithContext(ctx, f.IO.In)
	if filepath.Base(os.Args[0]) == ShimName {
		code := RunRm(ctx, f, os.Args[1:])
		if ctx.Err() != nil {
			return tool.ExitInterrupted // as rm killed by SIGINT, whatever it had answered
		}
		return code
	}
	return Run(ctx, f, os.Args[1:])
}

// Run executes one command line with the given factory.
func Run(ctx context.Context, f *Factory, args []string) int {
	start := time.Now()
	root := NewCmdRootFor(f, args)
	root.SetArgs(args)
	c, err := root.ExecuteContextC(ctx)
	f.Close()
	if f.stopDeadline != nil {
		f.stopDeadline()
	}
	if err == nil {
		return tool.ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	// Anything else comes before a tool ran: an unknown command or flag, a
	// bad flag value, a wrong number of arguments, or a signal while the
	// command read its input.
	var failure *tool.Error
	if ctx.Err() != nil {
		failure = interrupted()
	} else {
		failure = usageError(c, err)
	}
	if f.Global.Output == "" {
		f.Global.Output = outputFlag(args) // cobra stopped before parsing it
	}
	env := tool.NewEnvelope(toolName(c), nil, failure)
	env.DurationMS = time.Since(start).Milliseconds()
	return printEnvelope(f, env)
}

func usageError(c *cobra.Command, err error) *tool.Error {
	var te *tool.Error
	if errors.As(err, &te) {
		return te
	}
	msg := err.Error()
	hint := "run `mcode --help` to see the commands"
	if c != nil && c.HasParent() {
		hint = "run `" + c.CommandPath() + " --help` to see its flags and arguments"
	}
	if i := strings.Index(msg, "\n\nDid you mean this?"); i >= 0 {
		suggestions := strings.Fields(msg[i+len("\n\nDid you mean this?"):])
		msg = msg[:i]
		hint = "did you mean: " + strings.Join(suggestions, ", ") + "?"
	}
	return &tool.Error{Code: tool.CodeUsage, Message: strings.TrimSpace(msg), Hint: hint}
}

// toolName is what the envelope's "tool" key says for a command: its tool
// annotation, else its path below the root ("tools list").
func toolName(c *cobra.Command) string {
	if c == nil {
		return "mcode"
	}
	if n, ok := c.Annotations[annotationTool]; ok {
		return n
	}
	if !c.HasParent() {
		return "mcode"
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

// outputFlag finds -o/--output in a command line that cobra could not
// parse, so that a usage error comes in the form asked for.
func outputFlag(args []string) string {
	fs := pflag.NewFlagSet("mcode", pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.SetOutput(io.Discard)
	out := fs.StringP("output", "o", "", "")
	_ = fs.Parse(args)
	return *out
}
