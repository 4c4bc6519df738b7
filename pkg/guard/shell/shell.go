// Package shell judges a bash command line without running it: it parses
// the text with mvdan.cc/sh and lists every simple command that would run,
// across chains, pipes, subshells, substitutions, here-documents, function
// bodies, nested `bash -c` strings, eval, and behind wrappers (env, sudo,
// xargs, find -exec, …), with quoting undone the way bash undoes it. It
// also names the known dangerous forms (rm -rf /, a download piped to a
// shell, mkfs, …) and what it could not judge (a variable as a command
// name, a script that is only known at run time).
package shell

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// MaxDepth bounds nested scripts (bash -c inside eval inside sh -c …).
const MaxDepth = 8

// Command is one simple command as bash would run it.
type Command struct {
	// Words are the command's words with quotes and escapes removed; a
	// word bash only knows at run time ($X, $(…), a glob in the name)
	// keeps its source text.
	Words []string `json:"words"`
	// Text is the words rejoined with the program's base name first
	// (/usr/bin/rm → rm): what a rule's argPattern sees.
	Text string `json:"text"`
	// Source is the simple command as written, quotes and all (a
	// guard.grants pattern may match it).
	Source string `json:"source,omitempty"`
	// Dynamic says the program's name is only known at run time.
	Dynamic bool `json:"dynamic,omitempty"`
	// Via lists what runs it, outermost first: "sudo", "bash -c", "eval",
	// "find -exec", "$(…)".
	Via []string `json:"via,omitempty"`
}

// Name is the program's base name ("" for none).
func (c Command) Name() string {
	if len(c.Words) == 0 {
		return ""
	}
	return path.Base(c.Words[0])
}

// Finding is a known dangerous form.
type Finding struct {
	Form    string `json:"form"`    // a short stable name: rm_root, download_to_shell, …
	Why     string `json:"why"`     // one line for a person
	Command string `json:"command"` // the simple command it was found in
	Source  string `json:"source,omitempty"`
}

// Analysis is what Analyze found.
type Analysis struct {
	Commands  []Command `json:"commands"`
	Dangerous []Finding `json:"dangerous,omitempty"`
	// Unjudgeable says why parts of the command cannot be known before
	// it runs (a variable as a command name, a script built at run time).
	Unjudgeable []string `json:"unjudgeable,omitempty"`
	// ParseError is set when the text is not valid bash.
	ParseError string `json:"parse_error,omitempty"`
	// SelfApproval lists mcode approve and mcode deny commands: an agent
	// must not answer for the person it waits for.
	SelfApproval []string `json:"self_approval,omitempty"`
}

// Options are facts about where the command runs.
type Options struct {
	// Dir is the command's working directory, Home the user's home: `rm
	// -rf *` is dangerous there.
	Dir, Home string
	// ProtectedBranches are the branches a force push to is dangerous.
	ProtectedBranches []string
}

// Analyze parses src as bash and judges every simple command in it.
func Analyze(src string, opts Options) *Analysis {
	a := &analyzer{opts: opts, out: &Analysis{}}
	a.script(src, nil, 0)
	a.settle()
	return a.out
}

type analyzer struct {
	opts Options
	out  *Analysis
	// hashed are the programs hash -p gave a name: NAME → PATH.
	hashed map[string]string
	// code are the strings that hold code but are not judged as a
	// script (followed lists those that are); evaluator names the first
	// construct that evaluates a string at run time (settle).
	code      []string
	codeSeen  map[string]bool
	followed  map[string]bool
	evaluator string
}

func (a *analyzer) unjudgeable(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, m := range a.out.Unjudgeable {
		if m == msg {
			return
		}
	}
	a.out.Unjudgeable = append(a.out.Unjudgeable, msg)
}

func (a *analyzer) danger(form, why string, c Command) {
	a.out.Dangerous = append(a.out.Dangerous, Finding{Form: form, Why: why, Command: c.Text, Source: c.Source})
}

// script parses one script text (the top-level command, a bash -c
// string, an eval's words, a here-document fed to a shell).
func (a *analyzer) script(src string, via []string, depth int) {
	if depth > MaxDepth {
		a.unjudgeable("scripts nest more than %d deep", MaxDepth)
		return
	}
	a.follows(src)
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		if a.out.ParseError == "" {
			a.out.ParseError = err.Error()
		}
		return
	}
	s := &scope{a: a, src: src, via: via, depth: depth}
	syntax.Walk(f, s.visit)
}

// scope is one parsed script: offsets index its own source.
type scope struct {
	a     *analyzer
	src   string
	via   []string
	depth int
}

func (s *scope) text(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(s.src) || start > end {
		return ""
	}
	return s.src[start:end]
}

func (s *scope) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Stmt:
		s.stmt(n)
	case *syntax.CallExpr:
		if len(n.Args) > 0 {
			s.call(n)
		}
	case *syntax.DeclClause:
		words := []string{n.Variant.Value}
		for _, as := range n.Args {
			words = append(words, s.text(as))
		}
		s.a.emit(newCommand(words, false, s.via))
		s.decl(n)
	case *syntax.Assign:
		s.assign(n)
	case *syntax.WordIter:
		for _, w := range n.Items {
			if lit, ok := s.literal(w); ok {
				s.a.noteCode(lit, false)
			}
		}
	case *syntax.ArithmCmd:
		s.arithm(n.X, "(( … ))")
	case *syntax.ArithmExp:
		s.arithm(n.X, "$(( … ))")
	case *syntax.CStyleLoop:
		s.arithm(n.Init, "for (( … ))")
		s.arithm(n.Cond, "for (( … ))")
		s.arithm(n.Post, "for (( … ))")
	case *syntax.LetClause:
		s.let(n)
	case *syntax.ParamExp:
		s.paramExp(n)
	case *syntax.TestClause:
		s.test(n)
	case *syntax.FuncDecl:
		if n.Name != nil && forkBomb(n) {
			s.a.danger("fork_bomb", "a function that starts copies of itself without end exhausts the process table", Command{Text: s.text(n)})
		}
	case *syntax.BinaryCmd:
		if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
			s.pipe(n)
		}
	}
	return true
}

// stmt looks at a statement's redirections: writes to disks, strings
// that hold code, and a here-document or here-string fed to a shell (its
// body is a script).
func (s *scope) stmt(st *syntax.Stmt) {
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut, syntax.RdrInOut:
			if w, ok := s.literal(r.Word); ok && isDisk(w) {
				s.a.danger("disk_write", "writing to a disk device destroys its file systems", Command{Text: s.text(st)})
			}
		case syntax.Hdoc, syntax.DashHdoc:
			if body, static := s.hereDoc(r); static {
				s.a.noteCode(body, false)
			}
		case syntax.WordHdoc:
			if body, ok := s.literal(r.Word); ok {
				s.a.noteCode(body, false)
			}
		}
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return
	}
	words, static := s.words(call.Args)
	inner, via := unwrapAll(argv{words: words, static: static})
	if len(inner.words) == 0 || !isSink(path.Base(inner.words[0])) {
		return
	}
	fd, ok := scriptFD(inner.words)
	if !ok {
		return
	}
	name := path.Base(inner.words[0])
	bash := !interpreters()[name] // an interpreter's script is no bash: only its source is judged
	fed := false
	for _, r := range st.Redirs {
		if redirFD(r) != fd {
			continue
		}
		fed = true
		switch {
		case r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut:
			if hasDownload(s, r.Word) {
				s.a.danger("download_to_shell", "a shell runs a script fetched from the network", Command{Text: s.text(st)})
			}
			if bash {
				// sh < file, sh -s < <(…): the script is what the file or
				// the command holds when it runs, never seen here.
				s.a.unjudgeable("%s reads its script from %s, whose text is only known at run time: %s", name, s.text(r.Word), s.text(st))
			}
		case !bash:
		case r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc:
			body, static := s.hereDoc(r)
			if !static {
				s.a.unjudgeable("a here-document fed to %s is built at run time (what it expands first becomes the script): %s", name, s.text(st))
			}
			s.a.script(body, appendVia(s.via, append(via, name+" <<here-document")...), s.depth+1)
		case r.Op == syntax.WordHdoc:
			body, ok := s.literal(r.Word)
			if !ok {
				s.a.unjudgeable("a shell reads a here-string built at run time: %s", s.text(st))
				body = s.text(r.Word)
			}
			s.a.script(body, appendVia(s.via, append(via, name+" <<<")...), s.depth+1)
		default: // <&N: a copy of a descriptor opened elsewhere
			s.a.unjudgeable("%s reads its script from a file descriptor opened elsewhere: %s", name, s.text(st))
		}
	}
	switch {
	case fed || !bash:
	case fd != 0:
		s.a.unjudgeable("%s reads its script from file descriptor %d, opened elsewhere: %s", name, fd, s.text(st))
	case s.depth > 0 && !interpreters()[name]:
		// Inside bash -c, eval, a here-document…: stdin is the outer
		// command's, which may be the script.
		s.a.unjudgeable("%s reads its script from the input it inherits: %s", name, s.text(st))
	}
}

// redirFD is the file descriptor a redirection sets up.
func redirFD(r *syntax.Redirect) int {
	if r.N != nil {
		if n, err := strconv.Atoi(r.N.Value); err == nil {
			return n
		}
		return -1
	}
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return 0
	}
	return 1
}

// hereDoc is a here-document's text as the command reads it: quoted
// (<<'EOF') it is as written; unquoted, bash first removes the
// backslashes before $ ` \ and newline and runs its expansions, so
// static is false when it holds any (their source text stands in).
func (s *scope) hereDoc(r *syntax.Redirect) (body string, static bool) {
	if r.Hdoc == nil {
		return "", true
	}
	quoted := false
	if r.Word != nil {
		for _, p := range r.Word.Parts {
			if l, ok := p.(*syntax.Lit); !ok || strings.Contains(l.Value, `\`) {
				quoted = true
			}
		}
	}
	var b strings.Builder
	static = true
	for _, p := range r.Hdoc.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if quoted {
				b.WriteString(p.Value)
			} else {
				b.WriteString(unescapeHereDoc(p.Value))
			}
		default:
			static = false
			b.WriteString(s.text(p))
		}
	}
	body = b.String()
	if r.Op == syntax.DashHdoc {
		lines := strings.Split(body, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimLeft(l, "\t")
		}
		body = strings.Join(lines, "\n")
	}
	return body, static
}

// pipe flags a download piped into a shell, and a shell that reads its
// script from a pipe (known only at run time).
func (s *scope) pipe(b *syntax.BinaryCmd) {
	call, ok := b.Y.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return
	}
	words, static := s.words(call.Args)
	inner, _ := unwrapAll(argv{words: words, static: static})
	if len(inner.words) == 0 {
		return
	}
	name := path.Base(inner.words[0])
	if !isSink(name) {
		return
	}
	if fd, ok := scriptFD(inner.words); !ok || fd != 0 {
		return
	}
	if hasDownload(s, b.X) {
		s.a.danger("download_to_shell", "a shell runs a script fetched from the network", Command{Text: s.text(b)})
	}
	s.a.unjudgeable("%s runs a script that arrives through a pipe: %s", name, s.text(b))
}

// call turns a simple command into Commands, following wrappers and
// nested scripts.
func (s *scope) call(c *syntax.CallExpr) {
	words, static := s.words(c.Args)
	dynamic := !static[0] || hasGlob(c.Args[0])
	cmd := newCommand(words, dynamic, s.via)
	cmd.Source = s.text(c)
	s.a.emit(cmd)
	for i, w := range words[1:] {
		if static[i+1] {
			s.a.noteCode(w, false)
		}
	}
	if dynamic {
		s.a.unjudgeable("the command name %s is only known at run time", words[0])
		return
	}
	dl := make([]bool, len(words))
	for i, w := range c.Args {
		dl[i] = hasDownload(s, w)
	}
	s.follow(argv{words: words, static: static, download: dl, source: cmd.Source}, s.via, 0)
}

// argv is a simple command's words with what is known of each.
type argv struct {
	words    []string
	static   []bool // known before the command runs
	download []bool // holds a download's output ($(curl …), <(wget …))
	// fromStdin: xargs adds words read at run time.
	fromStdin bool
	// source is the simple command as written.
	source string
}

// plainArgv is words known before anything runs.
func plainArgv(words []string) argv {
	v := argv{words: words, static: make([]bool, len(words))}
	for i := range v.static {
		v.static[i] = true
	}
	return v
}

// slice is the command a wrapper runs: words[start:end].
func (v argv) slice(start, end int) argv {
	out := argv{words: v.words[start:end], static: slices.Clone(v.static[start:end])}
	if v.download != nil {
		out.download = v.download[start:end]
	}
	return out
}

// follow judges what a command runs in turn: the command behind a
// wrapper, the script of bash -c or eval, find's -exec.
func (s *scope) follow(v argv, via []string, hops int) {
	if hops > MaxDepth {
		s.a.unjudgeable("wrappers nest more than %d deep", MaxDepth)
		return
	}
	words := v.words
	cmd := newCommand(words, false, via)
	cmd.Source = v.source
	s.a.dangerous(cmd, s.a.opts, v.fromStdin)
	if s.a.selfApproval(cmd) {
		return
	}
	name := cmd.Name()
	if isSink(name) {
		for i := 1; i < len(words); i++ {
			if i < len(v.download) && v.download[i] {
				s.a.danger("download_to_shell", "a shell runs a script fetched from the network", cmd)
				break
			}
		}
	}
	if p, ok := s.a.hashed[words[0]]; ok {
		b := builder{from: v}
		b.add(p, -1)
		for i := 1; i < len(words); i++ {
			b.add(words[i], i)
		}
		s.inner(b.out, via, "hash -p "+words[0], hops)
	}
	if s.builtin(v, name, via, hops) {
		return
	}
	nested := func(i int, label string) { s.nestedScript(v, i, via, label) }
	switch {
	case isShell(name):
		switch src, i := shellScript(words); src {
		case fromArg:
			nested(i, name+" -c")
		case fromFile:
			if !v.static[i] || isInputPath(words[i]) {
				s.a.unjudgeable("%s runs a script whose text is only known at run time: %s", name, words[i])
			}
		case fromMissing:
			s.a.unjudgeable("%s -c gets its script at run time", name)
		case fromStdin:
			if v.fromStdin {
				s.a.unjudgeable("%s reads its script from xargs' input", name)
			}
		}
		return
	case name == "source" || name == ".":
		if len(words) > 1 && (!v.static[1] || isInputPath(words[1])) {
			s.a.unjudgeable("%s runs a script whose text is only known at run time: %s", name, words[1])
		}
		return
	case name == "eval":
		first := 1
		if len(words) > 1 && words[1] == "--" {
			first = 2
		}
		if len(words) > first {
			for _, w := range words[first:] {
				s.a.follows(w)
			}
			joined := argv{words: []string{strings.Join(words[first:], " ")}, static: []bool{!slices.Contains(v.static[first:], false)}}
			s.nestedScript(joined, 0, via, "eval")
		}
		return
	case name == "trap":
		first := 1
		switch {
		case len(words) > 1 && words[1] == "--":
			first = 2
		case len(words) > 1 && strings.HasPrefix(words[1], "-") && words[1] != "-":
			return // trap -l, trap -p
		}
		if len(words) > first+1 && words[first] != "-" {
			nested(first, "trap")
		}
		return
	case name == "alias":
		for i := 1; i < len(words); i++ {
			if _, val, ok := strings.Cut(words[i], "="); ok {
				s.nestedScript(argv{words: []string{val}, static: []bool{v.static[i]}}, 0, via, "alias")
			}
		}
		return
	case name == "watch":
		if rest := skipOptions(words[1:], watchValued()); len(rest) > 0 {
			s.a.script(strings.Join(rest, " "), appendVia(via, "watch"), s.depth+1)
		}
		return
	case name == "find":
		for _, ex := range findExecs(words) {
			sub := v.slice(ex.start, ex.end)
			sub.dynamicWith("{}")
			s.inner(sub, via, "find "+ex.action, hops)
		}
		return
	}
	u, ok := unwrap(v)
	if !ok {
		if _, wraps := wrappers()[name]; wraps && v.fromStdin {
			s.a.unjudgeable("xargs supplies the command %s runs at run time", name)
		}
		return
	}
	for _, i := range u.assigns {
		k, val, _ := strings.Cut(words[i], "=")
		s.environ(k, val, v.static[i], via)
	}
	if len(u.inner.words) == 0 {
		return
	}
	sub := u.inner
	if name == "xargs" {
		sub.fromStdin = true
		if r := xargsReplace(words); r != "" {
			sub.dynamicWith(r)
		}
	}
	s.inner(sub, via, u.label, hops)
}

func (s *scope) nestedScript(v argv, i int, via []string, label string) {
	if !v.static[i] {
		s.a.unjudgeable("%s runs a script built at run time: %s", label, v.words[i])
	}
	s.a.script(v.words[i], appendVia(via, label), s.depth+1)
}

// dynamicWith marks the words that hold a placeholder filled at run time
// (find's {}, xargs -I's string).
func (v argv) dynamicWith(placeholder string) {
	for i, w := range v.words {
		if strings.Contains(w, placeholder) {
			v.static[i] = false
		}
	}
}

// inner emits and follows the command a wrapper runs.
func (s *scope) inner(sub argv, via []string, label string, hops int) {
	via = appendVia(via, label)
	s.a.emit(newCommand(sub.words, !sub.static[0], via))
	if !sub.static[0] {
		s.a.unjudgeable("%s runs a command whose name is only known at run time: %s", label, sub.words[0])
		return
	}
	s.follow(sub, via, hops+1)
}

func (a *analyzer) emit(c Command) {
	a.out.Commands = append(a.out.Commands, c)
}

func newCommand(words []string, dynamic bool, via []string) Command {
	c := Command{Words: words, Dynamic: dynamic, Via: via}
	if len(words) > 0 {
		name := words[0]
		if !dynamic {
			name = path.Base(name)
		}
		c.Text = strings.Join(append([]string{name}, words[1:]...), " ")
	}
	return c
}

func appendVia(via []string, more ...string) []string {
	out := make([]string, 0, len(via)+len(more))
	return append(append(out, via...), more...)
}

// words decodes each word; static[i] is false for a word bash only knows
// at run time (its source text is kept).
func (s *scope) words(ws []*syntax.Word) ([]string, []bool) {
	out := make([]string, len(ws))
	static := make([]bool, len(ws))
	for i, w := range ws {
		if lit, ok := s.literal(w); ok {
			out[i], static[i] = lit, true
		} else {
			out[i] = s.text(w)
		}
	}
	return out, static
}

// isInputPath says whether a script path names a descriptor (standard
// input, a pipe, a process substitution): /dev/stdin, /dev/fd/N,
// /proc/self/fd/N, /proc/PID/fd/N. Its text arrives at run time.
func isInputPath(p string) bool {
	p = path.Clean(p)
	if p == "/dev/stdin" || strings.HasPrefix(p, "/dev/fd/") {
		return true
	}
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return false
	}
	_, fd, ok := strings.Cut(rest, "/")
	return ok && strings.HasPrefix(fd, "fd/")
}
