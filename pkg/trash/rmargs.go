package trash

import (
	"fmt"
	"strings"
)

// RmArgs is a parsed rm command line.
type RmArgs struct {
	Opts     RmOptions
	Operands []string
	Help     bool
	Version  bool
}

// RmUsageError is a command line rm rejects: rm prints its lines, then
// "Try 'rm --help' for more information.", and exits 1.
type RmUsageError struct{ Lines []string }

func (e *RmUsageError) Error() string { return strings.Join(e.Lines, "\n") }

var rmLongOptions = []string{
	"force", "interactive", "one-file-system", "no-preserve-root", "preserve-root",
	"recursive", "dir", "verbose", "help", "version", "-presume-input-tty",
}

// ParseRmArgs reads rm's command line as GNU rm's getopt_long does:
// bundled short options, options after operands (permutation), "--",
// unambiguous prefixes of long options, --interactive[=WHEN].
func ParseRmArgs(args []string, utf8Locale bool) (*RmArgs, error) {
	a := &RmArgs{}
	lq, rq := "'", "'"
	if utf8Locale {
		lq, rq = "\u2018", "\u2019"
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			a.Operands = append(a.Operands, args[i+1:]...)
			return a, nil
		case strings.HasPrefix(arg, "--"):
			name, value, hasValue := strings.Cut(arg[2:], "=")
			full, err := matchLong(name)
			if err != nil {
				return nil, err
			}
			if hasValue && full != "interactive" && full != "preserve-root" {
				return nil, &RmUsageError{[]string{fmt.Sprintf("option '--%s' doesn't allow an argument", full)}}
			}
			switch full {
			case "force":
				a.Opts.Prompt, a.Opts.Force = PromptNever, true
			case "interactive":
				when := "always"
				if hasValue {
					w, ok := matchWhen(value)
					if !ok {
						return nil, &RmUsageError{[]string{
							fmt.Sprintf("invalid argument %s%s%s for %s--interactive%s", lq, value, rq, lq, rq),
							"Valid arguments are:",
							fmt.Sprintf("  - %snever%s, %sno%s, %snone%s", lq, rq, lq, rq, lq, rq),
							fmt.Sprintf("  - %sonce%s", lq, rq),
							fmt.Sprintf("  - %salways%s, %syes%s", lq, rq, lq, rq),
						}}
					}
					when = w
				}
				switch when {
				case "never":
					a.Opts.Prompt = PromptNever
				case "once":
					a.Opts.Prompt, a.Opts.Force = PromptOnce, false
				default:
					a.Opts.Prompt, a.Opts.Force = PromptAlways, false
				}
			case "recursive":
				a.Opts.Recursive = true
			case "dir":
				a.Opts.Dir = true
			case "verbose":
				a.Opts.Verbose = true
			case "no-preserve-root":
				a.Opts.NoPreserveRoot = true
			case "preserve-root":
				a.Opts.NoPreserveRoot = false
			case "help":
				a.Help = true
			case "version":
				a.Version = true
			}
		case len(arg) > 1 && arg[0] == '-':
			for _, ch := range arg[1:] {
				switch ch {
				case 'f':
					a.Opts.Prompt, a.Opts.Force = PromptNever, true
				case 'i':
					a.Opts.Prompt, a.Opts.Force = PromptAlways, false
				case 'I':
					a.Opts.Prompt, a.Opts.Force = PromptOnce, false
				case 'r', 'R':
					a.Opts.Recursive = true
				case 'd':
					a.Opts.Dir = true
				case 'v':
					a.Opts.Verbose = true
				default:
					return nil, &RmUsageError{[]string{fmt.Sprintf("invalid option -- '%c'", ch)}}
				}
			}
		default:
			a.Operands = append(a.Operands, arg)
		}
	}
	return a, nil
}

func matchLong(name string) (string, error) {
	var found []string
	for _, o := range rmLongOptions {
		if o == name {
			return o, nil
		}
		if strings.HasPrefix(o, name) && name != "" {
			found = append(found, o)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", &RmUsageError{[]string{fmt.Sprintf("unrecognized option '--%s'", name)}}
	}
	quoted := make([]string, len(found))
	for i, o := range found {
		quoted[i] = "'--" + o + "'"
	}
	return "", &RmUsageError{[]string{fmt.Sprintf("option '--%s' is ambiguous; possibilities: %s", name, strings.Join(quoted, " "))}}
}

// matchWhen reads --interactive's argument, abbreviations allowed as
// argmatch allows them.
func matchWhen(v string) (string, bool) {
	words := map[string]string{"never": "never", "no": "never", "none": "never", "once": "once", "always": "always", "yes": "always"}
	if w, ok := words[v]; ok {
		return w, true
	}
	match := ""
	for k, w := range words {
		if v != "" && strings.HasPrefix(k, v) {
			if match != "" && match != w {
				return "", false
			}
			match = w
		}
	}
	return match, match != ""
}
