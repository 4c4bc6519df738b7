package shell

import (
	"path"
	"strconv"
	"strings"
	"sync"
)

// A wrapper runs the command in its operands. Each entry says which of
// its options take a value (so the value is not taken for the command).
type wrapper struct {
	valued    map[string]bool // options whose value is the next word (when not joined)
	operand   int             // plain operands before the command (timeout's DURATION)
	noCommand map[string]bool // options after which nothing is run (command -v)
	// assigns: NAME=value words may come before the command (env, sudo).
	assigns bool
	// bare: with no command it starts a shell that reads its script from
	// stdin; bareWith: only after one of these options (sudo -s, -i).
	bare     bool
	bareWith map[string]bool
	// dashC: after the operands, -c or --command gives a script (flock).
	dashC bool
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
	setarch := wrapper{noCommand: set("--list", "-h", "--help", "-V", "--version"), bare: true}
	m := map[string]wrapper{
		"env":     {valued: set("-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-a", "--argv0"), assigns: true},
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
		"xargs": {valued: set("-a", "--arg-file", "-d", "--delimiter", "-E", "--eof", "-I", "--replace", "-L", "--max-lines",
			"-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var")},
		"sudo": {valued: set("-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host", "-p", "--prompt",
			"-r", "--role", "-t", "--type", "-T", "--command-timeout", "-U", "--other-user", "-R", "--chroot"),
			noCommand: set("-l", "--list", "-v", "--validate", "-k", "-K", "--remove-timestamp", "-V", "--version", "-e", "--edit"),
			assigns:   true, bareWith: set("-s", "--shell", "-i", "--login")},
		"doas":       {valued: set("-u", "-C"), bareWith: set("-s")},
		"busybox":    {},
		"chroot":     {valued: set("--userspec", "--groups"), operand: 1},
		"flock":      {valued: set("-w", "--wait", "--timeout", "-E", "--conflict-exit-code"), operand: 1, dashC: true},
		"strace":     {valued: set("-e", "-o", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X")},
		"unshare":    {valued: set("--setuid", "--setgid", "--root", "--wd", "-S", "-G", "-R", "-w")},
		"caffeinate": {valued: set("-t", "-w")},
		"chrt":       {operand: 1, noCommand: set("-p", "--pid")},
		"taskset":    {operand: 1, noCommand: set("-p", "--pid")},
		"nsenter":    {valued: set("-t", "--target", "-S", "--setuid", "-G", "--setgid", "-w", "--wd", "-r", "--root")},
		// runuser with -u; without it, it is su (unwrapSu).
		"runuser": {valued: set("-u", "--user", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment")},
		"setpriv": {valued: set("--ruid", "--euid", "--reuid", "--rgid", "--egid", "--regid", "--groups", "--inh-caps",
			"--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile",
			"--landlock-access", "--landlock-rule"),
			noCommand: set("-d", "--dump", "--list-caps", "-h", "--help", "-V", "--version")},
		"prlimit":  {valued: set("-o", "--output", "-p", "--pid"), noCommand: set("-p", "--pid", "-h", "--help", "-V", "--version")},
		"setarch":  {operand: 1, noCommand: setarch.noCommand, bare: true},
		"fakeroot": {valued: set("-l", "--lib", "-f", "--faked", "-s", "-i", "-b", "--fd-base"), bare: true},
	}
	for _, alias := range []string{"linux32", "linux64", "i386", "x86_64", "uname26"} {
		m[alias] = setarch
	}
	return m
})

// suLike start a shell: su and runuser (without -u) pass it -c's
// script, sg its command, script its -c; with none it reads stdin.
var suLike = lazySet("su", "runuser", "sg", "newgrp", "script")

// Options of the su family that take a value.
var (
	suValued     = lazySet("-c", "--command", "--session-command", "-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w", "--whitelist-environment")
	scriptValued = lazySet("-c", "--command", "-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing", "-m", "--logging-format", "-o", "--output-limit")
)

// watchValued are watch's options that take a value.
var watchValued = lazySet("-n", "--interval", "-d", "--differences", "-q", "--equexit", "--shell")

// option is one option as getopt reads it: from is the index of the
// word that holds its value (-1: none).
type option struct {
	name, value string
	from        int
}

// readOption reads the option at words[i] (a cluster like -vS'x' gives
// several): the index after it and its value.
func readOption(words []string, i int, valued map[string]bool) ([]option, int) {
	arg := words[i]
	if strings.HasPrefix(arg, "--") {
		name, val, joined := strings.Cut(arg, "=")
		switch {
		case joined:
			return []option{{name, val, i}}, i + 1
		case valued[name] && i+1 < len(words):
			return []option{{name, words[i+1], i + 1}}, i + 2
		}
		return []option{{name, "", -1}}, i + 1
	}
	var out []option
	for j := 1; j < len(arg); j++ {
		name := "-" + arg[j:j+1]
		if !valued[name] {
			out = append(out, option{name, "", -1})
			continue
		}
		switch {
		case j+1 < len(arg):
			return append(out, option{name, arg[j+1:], i}), i + 1
		case i+1 < len(words):
			return append(out, option{name, words[i+1], i + 1}), i + 2
		}
		return append(out, option{name, "", -1}), i + 1
	}
	return out, i + 1
}

// unwrapped is what a wrapper runs.
type unwrapped struct {
	inner argv // its words may be built: su's shell -c SCRIPT, env -S's split
	label string
	// assigns are the indexes of the wrapper's NAME=value words.
	assigns []int
}

// unwrap strips one wrapper; ok is false when v runs no other command
// (no wrapper, or one that runs nothing: command -v, ionice -p).
func unwrap(v argv) (unwrapped, bool) {
	words := v.words
	name := path.Base(words[0])
	if suLike()[name] && (name != "runuser" || !hasUserOption(words)) {
		return unwrapSu(v, name), true
	}
	w, ok := wrappers()[name]
	if !ok {
		return unwrapped{}, false
	}
	out := unwrapped{label: name}
	i := 1
	operands := w.operand
	if name == "setarch" && len(words) > 1 && strings.HasPrefix(words[1], "-") {
		operands = 0 // setarch -R cmd: the architecture is optional
	}
	bare := w.bare
	for i < len(words) {
		arg := words[i]
		if w.assigns && isAssignWord(arg) {
			out.assigns = append(out.assigns, i)
			i++
			continue
		}
		if arg == "--" {
			i++
			break
		}
		if w.dashC && operands == 0 && (arg == "-c" || arg == "--command") {
			break
		}
		if name == "env" && arg == "-" { // env - is env -i
			i++
			continue
		}
		if name == "nice" && len(arg) > 1 && arg[0] == '-' && isNumber(arg[1:]) { // nice -10 cmd
			i++
			continue
		}
		if len(arg) > 1 && arg[0] == '-' {
			opts, next := readOption(words, i, w.valued)
			for _, o := range opts {
				if w.noCommand[o.name] {
					return unwrapped{}, false
				}
				if w.bareWith[o.name] {
					bare = true
				}
				if name == "env" && (o.name == "-S" || o.name == "--split-string") && o.from >= 0 {
					return envSplit(v, o, next), true
				}
			}
			i = next
			continue
		}
		if operands > 0 {
			operands--
			i++
			continue
		}
		break
	}
	if w.dashC && i+1 < len(words) && (words[i] == "-c" || words[i] == "--command") {
		b := builder{from: v}
		b.add("sh", -1)
		b.add("-c", -1)
		b.add(words[i+1], i+1)
		out.inner = b.out
		return out, true
	}
	if i >= len(words) {
		switch {
		case name == "xargs":
			out.inner = plainArgv([]string{"echo"})
			return out, true
		case bare:
			out.inner = plainArgv([]string{"sh"})
			return out, true
		}
		return unwrapped{}, false
	}
	out.inner = v.slice(i, len(words))
	return out, true
}

func hasUserOption(words []string) bool {
	for _, w := range words[1:] {
		if w == "-u" || w == "--user" || strings.HasPrefix(w, "--user=") || (strings.HasPrefix(w, "-u") && !strings.HasPrefix(w, "--")) {
			return true
		}
	}
	return false
}

// isAssignWord is NAME=value.
func isAssignWord(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && name != "" && !strings.HasPrefix(name, "-")
}

// builder builds the words a wrapper runs from pieces of its own.
type builder struct {
	from argv
	out  argv
}

// add appends a word taken from the wrapper's word i (-1: a word of its
// own, known before it runs).
func (b *builder) add(word string, i int) {
	b.out.words = append(b.out.words, word)
	if i < 0 {
		b.out.static = append(b.out.static, true)
		b.out.download = append(b.out.download, false)
		return
	}
	b.out.static = append(b.out.static, b.from.static[i])
	b.out.download = append(b.out.download, b.from.download != nil && b.from.download[i])
}

// unwrapSu is the shell su, runuser, sg, newgrp and script start: with
// its -c script (sg: its command), else one that reads stdin.
func unwrapSu(v argv, name string) unwrapped {
	words := v.words
	valued := suValued()
	if name == "script" {
		valued = scriptValued()
	}
	b := builder{from: v}
	shell, shellFrom := "sh", -1
	script, scriptFrom := "", -1
	var operands []int
	for i := 1; i < len(words); {
		arg := words[i]
		switch {
		case arg == "--":
			for j := i + 1; j < len(words); j++ {
				operands = append(operands, j)
			}
			i = len(words)
		case len(arg) > 1 && arg[0] == '-' && name != "sg" && name != "newgrp":
			opts, next := readOption(words, i, valued)
			for _, o := range opts {
				switch o.name {
				case "-c", "--command", "--session-command":
					script, scriptFrom = o.value, o.from
				case "-s", "--shell":
					shell, shellFrom = o.value, o.from
				}
			}
			i = next
		default:
			operands = append(operands, i)
			i++
		}
	}
	if len(operands) > 0 && words[operands[0]] == "-" {
		operands = operands[1:] // su - USER: a login shell
	}
	var args []int
	switch name {
	case "su", "runuser":
		if len(operands) > 0 {
			args = operands[1:] // after the user: the shell's own arguments
		}
	case "sg":
		if len(operands) > 1 {
			rest := operands[1:]
			if words[rest[0]] == "-c" {
				rest = rest[1:]
			}
			if len(rest) > 0 {
				parts := make([]string, len(rest))
				for k, j := range rest {
					parts[k] = words[j]
				}
				script, scriptFrom = strings.Join(parts, " "), rest[0]
			}
		}
	}
	b.add(shell, shellFrom)
	if scriptFrom >= 0 {
		b.add("-c", -1)
		b.add(script, scriptFrom)
	}
	for _, j := range args {
		b.add(words[j], j)
	}
	return unwrapped{inner: b.out, label: name}
}

// envSplit is what env -S STRING runs: env again, with STRING split into
// words the way env splits it, then the words after it.
func envSplit(v argv, o option, next int) unwrapped {
	b := builder{from: v}
	b.add(v.words[0], 0)
	split, dynamic := splitEnvString(o.value)
	for k, w := range split {
		b.add(w, o.from)
		if dynamic[k] {
			b.out.static[len(b.out.static)-1] = false
		}
	}
	for j := next; j < len(v.words); j++ {
		b.add(v.words[j], j)
	}
	return unwrapped{inner: b.out, label: "env -S"}
}

// splitEnvString splits env -S's string as GNU env does: blanks separate
// words; '…' and "…" quote; backslash escapes (\_ is a separator outside
// quotes, a space inside double quotes; \c ends the string); ${VAR} is
// replaced from the environment (dynamic[i]: word i holds one); # starts
// a comment at the start of a word.
func splitEnvString(s string) (words []string, dynamic []bool) {
	var cur strings.Builder
	inWord, dyn := false, false
	end := func() {
		if inWord {
			words = append(words, cur.String())
			dynamic = append(dynamic, dyn)
		}
		cur.Reset()
		inWord, dyn = false, false
	}
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'):
			end()
		case quote == 0 && c == '#' && !inWord:
			return words, dynamic
		case c == '\'' && quote != '"':
			inWord = true
			if quote == 0 {
				quote = '\''
			} else {
				quote = 0
			}
		case c == '"' && quote != '\'':
			inWord = true
			if quote == 0 {
				quote = '"'
			} else {
				quote = 0
			}
		case c == '\\' && i+1 < len(s) && (quote != '\'' || s[i+1] == '\\' || s[i+1] == '\''):
			i++
			e := s[i]
			switch e {
			case '_':
				if quote == 0 {
					end()
				} else {
					cur.WriteByte(' ')
				}
			case 'c':
				end()
				return words, dynamic
			case 'n':
				cur.WriteByte('\n')
			case 't':
				cur.WriteByte('\t')
			case 'r':
				cur.WriteByte('\r')
			case 'f':
				cur.WriteByte('\f')
			case 'v':
				cur.WriteByte('\v')
			default:
				cur.WriteByte(e)
			}
			if e != '_' || quote != 0 {
				inWord = true
			}
		case c == '$' && quote != '\'' && i+1 < len(s) && s[i+1] == '{':
			j := strings.IndexByte(s[i:], '}')
			if j < 0 {
				cur.WriteString(s[i:])
				i = len(s)
			} else {
				cur.WriteString(s[i : i+j+1])
				i += j
			}
			inWord, dyn = true, true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words, dynamic
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
func unwrapAll(v argv) (argv, []string) {
	var via []string
	for hops := 0; hops <= MaxDepth && len(v.words) > 0; hops++ {
		u, ok := unwrap(v)
		if !ok || len(u.inner.words) == 0 {
			break
		}
		via = append(via, u.label)
		v = u.inner
	}
	return v, via
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

// scriptFD says from which file descriptor a sink reads the script it
// runs: 0 for stdin (no script named, -s, /dev/stdin), N for /dev/fd/N
// or /proc/self/fd/N; ok is false for a script in an argument or a file.
func scriptFD(words []string) (fd int, ok bool) {
	name := path.Base(words[0])
	switch {
	case shells()[name]:
		switch src, i := shellScript(words); src {
		case fromStdin:
			return 0, true
		case fromFile:
			return fdPath(words[i])
		}
	case interpreters()[name]:
		if len(words) == 1 || words[1] == "-" {
			return 0, true
		}
		return fdPath(words[1])
	case name == "source" || name == ".":
		if len(words) > 1 {
			return fdPath(words[1])
		}
	}
	return 0, false
}

// fdPath reads /dev/stdin, /dev/fd/N and /proc/…/fd/N as the file
// descriptor they open.
func fdPath(p string) (int, bool) {
	p = path.Clean(p)
	if p == "/dev/stdin" {
		return 0, true
	}
	dir, n := path.Split(p)
	fd, err := strconv.Atoi(n)
	if err != nil || fd < 0 {
		return 0, false
	}
	if dir == "/dev/fd/" || (strings.HasPrefix(dir, "/proc/") && strings.HasSuffix(dir, "/fd/")) {
		return fd, true
	}
	return 0, false
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
