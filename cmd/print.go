package cmd

import (
	"cmp"
	"fmt"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Output forms of -o.
const (
	outputJSON = "json"
	outputText = "text"
)

var outputForms = []string{outputJSON, outputText}

// outputForm is -o, else MCODE_OUTPUT, else json.
func (f *Factory) outputForm() string {
	if o := cmp.Or(f.Global.Output, f.Getenv("MCODE_OUTPUT")); o == outputText {
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

func printText(f *Factory, env *tool.Envelope) int {
	if out := env.OutputText(); out != "" {
		fmt.Fprint(f.IO.Out, out)
		if out[len(out)-1] != '\n' {
			fmt.Fprintln(f.IO.Out)
		}
	}
	if env.Truncated {
		hint := "output was truncated"
		if env.Continuation != nil && env.Continuation.Hint != "" {
			hint += ": " + env.Continuation.Hint
		}
		fmt.Fprintf(f.IO.Out, "[%s]\n", hint)
	}
	if e := env.Error; e != nil {
		who := "mcode"
		if env.Tool != who {
			who += " " + env.Tool
		}
		fmt.Fprintf(f.IO.ErrOut, "%s: %s: %s\n", who, e.Code, e.Message)
		if e.Hint != "" {
			fmt.Fprintf(f.IO.ErrOut, "hint: %s\n", e.Hint)
		}
	}
	return env.ExitCode()
}

// finish prints env and turns its exit status into the error RunE returns.
func finish(f *Factory, env *tool.Envelope) error {
	if code := printEnvelope(f, env); code != tool.ExitOK {
		return &exitError{code: code}
	}
	return nil
}
