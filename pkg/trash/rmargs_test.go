package trash

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRmArgs(t *testing.T) {
	type want struct {
		force, recursive, dir, verbose bool
		prompt                         Prompting
		operands                       []string
	}
	cases := []struct {
		args []string
		want want
	}{
		{[]string{"-rf", "a"}, want{force: true, recursive: true, prompt: PromptNever, operands: []string{"a"}}},
		{[]string{"a", "-R", "b"}, want{recursive: true, operands: []string{"a", "b"}}},
		{[]string{"-f", "-i", "a"}, want{prompt: PromptAlways, operands: []string{"a"}}},
		{[]string{"-i", "-f", "a"}, want{force: true, prompt: PromptNever, operands: []string{"a"}}},
		{[]string{"-I", "a"}, want{prompt: PromptOnce, operands: []string{"a"}}},
		{[]string{"--interactive=once", "a"}, want{prompt: PromptOnce, operands: []string{"a"}}},
		{[]string{"--interactive", "a"}, want{prompt: PromptAlways, operands: []string{"a"}}},
		{[]string{"-f", "--interactive=never", "a"}, want{force: true, prompt: PromptNever, operands: []string{"a"}}},
		{[]string{"--interactive=al", "a"}, want{prompt: PromptAlways, operands: []string{"a"}}},
		{[]string{"--rec", "--for", "--verb", "--di", "x"}, want{force: true, recursive: true, dir: true, verbose: true, prompt: PromptNever, operands: []string{"x"}}},
		{[]string{"--", "-f", "--", "-"}, want{operands: []string{"-f", "--", "-"}}},
		{[]string{"-", "-v"}, want{verbose: true, operands: []string{"-"}}},
		{[]string{"--one-file-system", "--no-preserve-root", "--preserve-root", "a"}, want{operands: []string{"a"}}},
		{[]string{"--p", "---presume", "a"}, want{operands: []string{"a"}}},
	}
	for _, c := range cases {
		got, err := ParseRmArgs(c.args, true)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		g := want{got.Opts.Force, got.Opts.Recursive, got.Opts.Dir, got.Opts.Verbose, got.Opts.Prompt, got.Operands}
		if diff := cmp.Diff(c.want, g, cmp.AllowUnexported(want{})); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.args, diff)
		}
	}
	for args, msg := range map[string]string{
		"-z":                  "invalid option -- 'z'",
		"-rfx":                "invalid option -- 'x'",
		"--bogus":             "unrecognized option '--bogus'",
		"--force=yes":         "option '--force' doesn't allow an argument",
		"--interactive=maybe": "invalid argument ‘maybe’ for ‘--interactive’",
	} {
		_, err := ParseRmArgs(strings.Fields(args), true)
		var ue *RmUsageError
		if !errors.As(err, &ue) || ue.Lines[0] != msg {
			t.Errorf("%s: %v, want %q", args, err, msg)
		}
	}
}

// FuzzParseRmArgs: any command line is parsed or refused with rm's
// message, never a panic, and whatever follows "--" is operands as given.
func FuzzParseRmArgs(f *testing.F) {
	for _, s := range []string{"-rf a", "--interactive=once b", "--rec --for", "-- -f", "--interactive=", "-", "--=x", "---"} {
		f.Add(s, "x")
	}
	f.Fuzz(func(t *testing.T, line, tail string) {
		args := strings.Split(line, " ")
		got, err := ParseRmArgs(append(args, "--", tail), true)
		if err != nil {
			var ue *RmUsageError
			if !errors.As(err, &ue) || len(ue.Lines) == 0 {
				t.Fatalf("%q: %v is not rm's usage error", args, err)
			}
			return
		}
		if n := len(got.Operands); n == 0 || got.Operands[n-1] != tail {
			t.Fatalf("%q -- %q: operands %q", args, tail, got.Operands)
		}
	})
}
