package cmd

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// A command built alone is the command of the whole tree: the same name,
// usage, flags and subcommands, all the way down.
func TestRootForBuildsEachCommandAsTheWholeTreeDoes(t *testing.T) {
	f, _ := testFactory(t, nil)
	whole := NewCmdRoot(f)
	if got, want := len(whole.Commands()), len(subcommands); got != want {
		t.Fatalf("the whole tree has %d commands, the table %d", got, want)
	}
	for _, sc := range subcommands {
		g, _ := testFactory(t, nil)
		lazy := NewCmdRootFor(g, []string{"-o", "json", "--root", ".", sc.name, "--help"})
		var names []string
		for _, c := range lazy.Commands() {
			names = append(names, c.Name())
		}
		if sc.wholeTree {
			if len(names) != len(subcommands) {
				t.Errorf("%s reads the other commands, but its tree has only %v", sc.name, names)
			}
			continue
		}
		if len(names) != 1 || names[0] != sc.name {
			t.Errorf("NewCmdRootFor(%s) built %v", sc.name, names)
			continue
		}
		want, _, err := whole.Find([]string{sc.name})
		if err != nil || want.Name() != sc.name {
			t.Fatalf("the whole tree has no %s: %v", sc.name, err)
		}
		sameCommand(t, lazy.Commands()[0], want)
	}
}

func sameCommand(t *testing.T, got, want *cobra.Command) {
	t.Helper()
	if got.UsageString() != want.UsageString() || got.Long != want.Long || got.Example != want.Example {
		t.Errorf("%s differs built alone:\n%s\nin the whole tree:\n%s", want.CommandPath(), got.UsageString(), want.UsageString())
		return
	}
	gc, wc := got.Commands(), want.Commands()
	if len(gc) != len(wc) {
		t.Errorf("%s has %d subcommands built alone, %d in the whole tree", want.CommandPath(), len(gc), len(wc))
		return
	}
	for i := range gc {
		sameCommand(t, gc[i], wc[i])
	}
}

// The global flags that take a value are the ones commandName skips with
// their value: a new one added to the root without it would make the
// value look like the command's name.
func TestGlobalValueFlagsAreTheRootsFlags(t *testing.T) {
	f, _ := testFactory(t, nil)
	root := NewCmdRoot(f)
	var valued []string
	root.PersistentFlags().VisitAll(func(fl *pflag.Flag) {
		if fl.Value.Type() != "bool" {
			valued = append(valued, fl.Name)
			if fl.Shorthand != "" && fl.Shorthand != "o" {
				t.Errorf("-%s takes a value: commandName skips only -o's", fl.Shorthand)
			}
		}
	})
	if strings.Join(valued, " ") != strings.Join(slices.Sorted(slices.Values(globalValueFlags)), " ") {
		t.Errorf("the root's flags with a value are %v, globalValueFlags %v", valued, globalValueFlags)
	}
}

func TestCommandName(t *testing.T) {
	for line, want := range map[string]string{
		"read a.go":                  "read",
		"-o text read a.go":          "read",
		"-otext read":                "read",
		"--output text grep x":       "grep",
		"--output=text grep x":       "grep",
		"--root /r --agent a bash x": "bash",
		"--timeout 5 -v":             "",
		"--version":                  "",
		"-- read":                    "",
		"":                           "",
		"--config c.yaml --role reviewer --approval ap1 --timeout 2m write f": "write",
		"- read": "-",
	} {
		if got := commandName(strings.Fields(line)); got != want {
			t.Errorf("commandName(%q) = %q, want %q", line, got, want)
		}
	}
}

// The command a line names runs, built alone, with the global flags
// before it.
func TestRunBuildsOnlyTheNamedCommand(t *testing.T) {
	f, io := testFactory(t, nil)
	if code := Run(t.Context(), f, []string{"-o", "json", "--timeout", "5", "datetime", "--tz", "UTC"}); code != 0 {
		t.Fatalf("exit %d: %s %s", code, io.out, io.errOut)
	}
	if !strings.Contains(io.out.String(), `"tool":"datetime"`) && !strings.Contains(io.out.String(), `"tool": "datetime"`) {
		t.Fatalf("out = %s", io.out)
	}
	g, io2 := testFactory(t, nil)
	if code := Run(t.Context(), g, []string{"-o", "json", "raed", "x"}); code != 2 {
		t.Fatalf("an unknown command: exit %d", code)
	}
	if !strings.Contains(io2.out.String(), "did you mean: read") {
		t.Errorf("an unknown command gets no suggestion from the whole tree: %s", io2.out)
	}
}
