package shell

import (
	"path"
	"strings"
	"sync"
)

// A wrapper runs the command in its operands. Each entry says which of
// its options take a value (so the value is not taken for the command).
type wrapper struct {
	valued  map[string]bool // options whose value is the next word (when not joined)
	operand int             // plain operands before the command (timeout's DURATION)
	// noCommand lists options after which nothing is run (command -v).
	noCommand map[string]bool
}

// lazySet is set built on first use: package-level word lists then cost
// nothing at start-up, which every mcode command pays.
func lazySet(s ...string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool { return set(s...) })
}

func set(s ...string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, v := range s {
		m[v] = true
	}
	return m
}

var wrappers = sync.OnceValue(func() map[string]wrapper {
	return map[string]wrapper{
		"env":     {valued: set("-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-a", "--argv0")},
		"command": {noCommand: set("-v", "-V")},
		"builtin": {},
		"exec":    {valued: set("-a")},
		"nohup":   {},
		"timeout": {valued: set("-s", "--signal", "-k", "--kill-after"), operand: 1},
		"nice":    {valued: set("-n", "--adjustment")},
		"ionice":  {valued: set("-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"), noCommand: set("-p", "--pid", "-P", "--pgid", "-u", "--uid")},
		"setsid":  {},
		"stdbuf":  {valued: set("-i", "--input", "-o", "--output", "-e", "--error")},
		"time":    {valued: set("-f", "--format", "-o", "--output")},
		"xargs": {valued: set("-a", "--arg-file", "-d", "--delimiter", "-E", "-e", "--eof", "-I", "--replace", "-L", "--max-lines",
			"-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var")},
		"sudo": {valued: set("-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host", "-p", "--prompt",
			"-r", "--role", "-t", "--type", "-T", "--command-timeout", "-U", "--other-user", "-R", "--chroot"),
			noCommand: set("-l", "--list", "-v", "--validate", "-k", "-K", "--remove-timestamp", "-V", "--version", "-e", "--edit")},
		"doas":       {valued: set("-u", "-C")},
		"busybox":    {},
		"chroot":     {valued: set("--userspec", "--groups"), operand: 1},
		"flock":      {valued: set("-w", "--timeout", "-E", "--conflict-exit-code"), operand: 1},
		"strace":     {valued: set("-e", "-o", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X")},
		"unshare":    {valued: set("--setuid", "--setgid", "--root", "--wd", "-S", "-G", "-R", "-w")},
		"caffeinate": {valued: set("-t", "-w")},
		"chrt":       {operand: 1, noCommand: set("-p", "--pid")},
		"taskset":    {operand: 1, noCommand: set("-p", "--pid")},
		"nsenter":    {valued: set("-t", "--target", "-S", "--setuid", "-G", "--setgid", "-w", "--wd", "-r", "--root")},
		"runuser":    {valued: set("-u", "--user", "-g", "--group", "-G", "--supp-group")},
	}
})

// watchValued are watch's options that take a value.
var watchValued = lazySet("-n", "--interval", "-d", "--differences", "-q", "--equexit", "--shell")

// unwrap strips one wrapper: inner are the command's words it runs (nil
// when words[0] is no wrapper or runs nothing), label names the wrapper,
// split is the command line of env -S (a string to parse).
func unwrap(words []string) (inner []string, label, split string) {
	name := path.Base(words[0])
	w, ok := wrappers()[name]
	if !ok {
		return nil, "", ""
	}
	label = name
	i := 1
	operands := w.operand
	for i < len(words) {
		arg := words[i]
		if name == "env" || name == "sudo" {
			if strings.Contains(arg, "=") && !strings.HasPrefix(arg, "-") {
				i++ // NAME=value
				continue
			}
		}
		if arg == "--" {
			i++
			break
		}
		if len(arg) > 1 && arg[0] == '-' {
			if w.noCommand[arg] {
				return nil, "", ""
			}
			opt, val, joined := strings.Cut(arg, "=")
			if name == "env" && (opt == "-S" || opt == "--split-string") {
				if joined {
					return []string{}, "env -S", val
				}
				if i+1 < len(words) {
					return []string{}, "env -S", strings.Join(words[i+1:], " ")
				}
				return nil, "", ""
			}
			if name == "env" && strings.HasPrefix(arg, "-S") && len(arg) > 2 && !strings.HasPrefix(arg, "--") {
				return []string{}, "env -S", arg[2:] + " " + strings.Join(words[i+1:], " ")
			}
			if w.valued[opt] && !joined {
				i += 2
				continue
			}
			if name == "nice" && isNumber(arg[1:]) { // nice -10 cmd
				i++
				continue
			}
			i++
			continue
		}
		if operands > 0 {
			operands--
			i++
			continue
		}
		break
	}
	if i >= len(words) {
		if name == "xargs" {
			return []string{"echo"}, label, ""
		}
		return nil, "", ""
	}
	return words[i:], label, ""
}

// findExec is one -exec, -execdir, -ok or -okdir of a find: the command
// is words[start:end], up to its ; or +.
type findExec struct {
	action     string
	start, end int
}

// findExecs lists every -exec command of a find.
func findExecs(words []string) []findExec {
	var out []findExec
	for i := 1; i < len(words); i++ {
		switch words[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(words) && words[j] != ";" && words[j] != "+" {
				j++
			}
			if j > i+1 {
				out = append(out, findExec{words[i], i + 1, j})
			}
			i = j
		}
	}
	return out
}

// unwrapAll strips every wrapper: the innermost command and the
// wrappers' labels, outermost first.
func unwrapAll(words []string) ([]string, []string) {
	var via []string
	for hops := 0; hops <= MaxDepth && len(words) > 0; hops++ {
		inner, label, split := unwrap(words)
		if inner == nil || split != "" || len(inner) == 0 {
			break
		}
		via = append(via, label)
		words = inner
	}
	return words, via
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Shells whose -c takes a script.
var shells = lazySet("bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "yash", "pdksh", "posh", "rbash", "fish")

func isShell(name string) bool { return shells()[name] }

// Interpreters that run a script from stdin when given none.
var interpreters = lazySet("python", "python2", "python3", "perl", "ruby", "node", "php", "lua", "Rscript", "tclsh")

// isSink names what runs code it is fed: shells, interpreters, eval,
// source.
func isSink(name string) bool {
	return shells()[name] || interpreters()[name] || name == "eval" || name == "source" || name == "."
}

// Where a shell takes its script from.
type source int

const (
	fromStdin   source = iota // no -c, no file: stdin
	fromArg                   // -c SCRIPT
	fromFile                  // a script file
	fromMissing               // -c with no script: someone supplies it at run time (xargs)
)

var shellValued = lazySet("-o", "+o", "-O", "+O", "--rcfile", "--init-file")

// shellScript finds where a shell's script comes from, and the index of
// the -c script or the file operand.
func shellScript(words []string) (source, int) {
	hasC := false
	for i := 1; i < len(words); i++ {
		arg := words[i]
		if arg == "--" || arg == "-" {
			switch {
			case hasC && i+1 < len(words):
				return fromArg, i + 1
			case hasC:
				return fromMissing, 0
			case arg == "-" || i+1 >= len(words):
				return fromStdin, 0
			}
			return fromFile, i + 1
		}
		if shellValued()[arg] {
			i++
			continue
		}
		if strings.HasPrefix(arg, "--") {
			continue
		}
		if len(arg) > 1 && (arg[0] == '-' || arg[0] == '+') {
			if arg[0] == '-' && strings.ContainsRune(arg[1:], 'c') {
				hasC = true
			}
			if arg[0] == '-' && strings.ContainsRune(arg[1:], 's') && !hasC {
				return fromStdin, 0
			}
			continue
		}
		if hasC {
			return fromArg, i
		}
		return fromFile, i
	}
	if hasC {
		return fromMissing, 0
	}
	return fromStdin, 0
}

// readsStdin says whether a sink runs whatever arrives on stdin.
func readsStdin(words []string) bool {
	name := path.Base(words[0])
	switch {
	case shells()[name]:
		src, _ := shellScript(words)
		return src == fromStdin
	case interpreters()[name]:
		return len(words) == 1 || words[1] == "-"
	case name == "source" || name == ".":
		return len(words) > 1 && (words[1] == "/dev/stdin" || words[1] == "/proc/self/fd/0" || words[1] == "/dev/fd/0")
	}
	return false
}

// skipOptions drops leading options (and the values of valued ones).
func skipOptions(words []string, valued map[string]bool) []string {
	for i := 0; i < len(words); i++ {
		arg := words[i]
		if arg == "--" {
			return words[i+1:]
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			return words[i:]
		}
		if valued[arg] {
			i++
		}
	}
	return nil
}

// xargsReplace is the string xargs -I (or -i, --replace) replaces in the
// command with each input line, or "".
func xargsReplace(words []string) string {
	for i := 1; i < len(words); i++ {
		arg := words[i]
		switch {
		case arg == "-I" && i+1 < len(words):
			return words[i+1]
		case strings.HasPrefix(arg, "-I") && len(arg) > 2:
			return arg[2:]
		case arg == "-i" || arg == "--replace":
			return "{}"
		case strings.HasPrefix(arg, "-i") && len(arg) > 2:
			return arg[2:]
		case strings.HasPrefix(arg, "--replace="):
			return strings.TrimPrefix(arg, "--replace=")
		case !strings.HasPrefix(arg, "-"):
			return ""
		}
	}
	return ""
}
