package cmd

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Output forms of -o.
const (
	outputJSON = "json"
	outputText = "text"
)

var outputForms = []string{outputJSON, outputText}

// outputForm is -o, else MCODE_OUTPUT; with neither, a person at a
// terminal gets text and a program (a pipe, a model's bash tool, a
// script) gets JSON, as gh does.
func (f *Factory) outputForm() string {
	if o := cmp.Or(f.Global.Output, f.Getenv("MCODE_OUTPUT")); o != "" {
		return o
	}
	if f.IO.OutTTY {
		return outputText
	}
	return outputJSON
}

// printEnvelope writes env in the chosen form and returns the exit status.
// JSON is indented for a person at a terminal, compact for programs.
func printEnvelope(f *Factory, env *tool.Envelope) int {
	if f.outputForm() == outputText {
		return printText(f, env)
	}
	data, err := env.Marshal(f.IO.OutTTY)
	if err != nil {
		fallback := tool.NewEnvelope(env.Tool, nil, fmt.Errorf("encoding the result: %w", err))
		data, _ = fallback.Marshal(false)
		env = fallback
	}
	_, _ = f.IO.Out.Write(data)
	return env.ExitCode()
}

// printText writes the tool's text, and only it, on stdout (so that
// out=$(mcode -o text …) captures what the tool found); its notices, a
// truncation notice and an error go to stderr, once each.
func printText(f *Factory, env *tool.Envelope) int {
	if out := env.Text(); out != "" && !env.Shown {
		fmt.Fprint(f.IO.Out, out)
		if out[len(out)-1] != '\n' {
			fmt.Fprintln(f.IO.Out)
		}
	}
	paint := f.painter()
	notices := strings.Trim(env.Notices, "\n")
	if notices != "" {
		fmt.Fprintln(f.IO.ErrOut, paint(dim, notices))
	}
	// When more follows (a page that stops before the end, a cut
	// output), one line says so: the text alone does not show it.
	if c := env.Continuation; c != nil && c.Hint != "" && (env.Truncated || c.NextOffset > 0) && !strings.Contains(notices, c.Hint) {
		line := "[" + c.Hint + "]"
		if env.Truncated {
			line = "[output was truncated: " + c.Hint + "]"
		}
		fmt.Fprintln(f.IO.ErrOut, paint(dim, line))
	}
	if e := env.Error; e != nil {
		who := "mcode"
		if env.Tool != who {
			who += " " + env.Tool
		}
		fmt.Fprintf(f.IO.ErrOut, "%s: %s: %s\n", who, paint(red, string(e.Code)), e.Message)
		if e.Hint != "" {
			fmt.Fprintf(f.IO.ErrOut, "%s %s\n", paint(dim, "hint:"), e.Hint)
		}
	}
	return env.ExitCode()
}

// ANSI styles of the readable form.
const (
	red = "31"
	dim = "2"
)

// painter colours text on stderr when a person watches it, never with
// NO_COLOR (no-color.org) or TERM=dumb.
func (f *Factory) painter() func(style, s string) string {
	if !f.IO.ErrTTY || f.Getenv("NO_COLOR") != "" || f.Getenv("TERM") == "dumb" {
		return func(_, s string) string { return s }
	}
	return func(style, s string) string { return "\x1b[" + style + "m" + s + "\x1b[0m" }
}

// finish prints env and turns its exit status into the error RunE returns.
func finish(f *Factory, env *tool.Envelope) error {
	if code := printEnvelope(f, env); code != tool.ExitOK {
		return &exitError{code: code}
	}
	return nil
}
