package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Text bash evaluates again at run time. Some strings are code though the
// parser sees data: bash expands an array subscript where a name is used
// (read, printf -v, [[ -v ]], unset, declare), the value of a variable
// in arithmetic, ${X@P}, ${!X}, PS4 under set -x, mapfile's callback.
// What is written right there is followed and judged like any command;
// a string that holds code but reaches such a place only through a
// variable cannot be known, and neither can BASH_ENV's script.

// follows records that src is judged as a script: a string that holds
// code is then no secret.
func (a *analyzer) follows(src string) {
	if !holdsCode(src, false) {
		return
	}
	if a.followed == nil {
		a.followed = map[string]bool{}
	}
	a.followed[src] = true
}

// noteCode records a string that holds code (an assignment's value also
// when it holds a lone $: code may be assembled from pieces).
func (a *analyzer) noteCode(str string, assignment bool) {
	if !holdsCode(str, assignment) || a.codeSeen[str] {
		return
	}
	if a.codeSeen == nil {
		a.codeSeen = map[string]bool{}
	}
	a.codeSeen[str] = true
	a.code = append(a.code, str)
}

// codeEscapes are printf and echo -e escapes of $ and `, lower-cased.
var codeEscapes = [...]string{`\x24`, `\x60`, `\044`, `\140`, `\u0024`, `\u0060`, `\u00000024`, `\u00000060`}

// holdsCode says whether bash would run a command if it expanded s: a
// $(…) or `…`, or escapes a printf can turn into them.
func holdsCode(s string, assignment bool) bool {
	if strings.Contains(s, "$(") || strings.IndexByte(s, '`') >= 0 || (assignment && strings.IndexByte(s, '$') >= 0) {
		return true
	}
	if strings.IndexByte(s, '\\') < 0 {
		return false
	}
	lower := strings.ToLower(s)
	for _, e := range codeEscapes {
		if strings.Contains(lower, e) {
			return true
		}
	}
	return false
}

// evaluates records a construct that evaluates strings at run time.
func (a *analyzer) evaluates(what string) {
	if a.evaluator == "" {
		a.evaluator = what
	}
}

// settle: a string that holds code and a construct that evaluates text
// at run time, in one command, cannot be judged: the code may reach it.
func (a *analyzer) settle() {
	if a.evaluator == "" {
		return
	}
	for _, c := range a.code {
		if !a.followed[c] {
			if len(c) > 60 {
				c = c[:57] + "..."
			}
			a.unjudgeable("%s evaluates text at run time, and %q holds code that bash may run there", a.evaluator, c)
			return
		}
	}
}

// document judges text bash expands as it expands a double-quoted
// string (a subscript, a prompt): the commands of its $(…) and `…`.
func (a *analyzer) document(src string, via []string, depth int) {
	a.follows(src)
	if strings.IndexByte(src, '$') < 0 && strings.IndexByte(src, '`') < 0 {
		return
	}
	if depth > MaxDepth {
		a.unjudgeable("scripts nest more than %d deep", MaxDepth)
		return
	}
	w, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Document(strings.NewReader(src))
	if err != nil {
		a.unjudgeable("%s: text bash expands at run time does not parse (%v): %s", strings.Join(via, ", "), err, src)
		return
	}
	s := &scope{a: a, src: src, via: via, depth: depth}
	syntax.Walk(w, s.visit)
}

// varName judges word i used as a variable name: a subscript in it
// (a[$(…)]) is expanded when bash assigns or tests the name.
func (s *scope) varName(v argv, i int, label string, via []string) {
	w := v.words[i]
	if !v.static[i] {
		s.a.unjudgeable("%s gets a variable name only known at run time (a subscript in it runs code): %s", label, w)
		return
	}
	s.subscript(w, label, via)
}

// subscript follows the subscript of NAME[SUB] (or NAME[SUB]=value).
func (s *scope) subscript(w, label string, via []string) {
	name, _, _ := strings.Cut(w, "=")
	open := strings.IndexByte(name, '[')
	if open < 0 {
		return
	}
	s.a.follows(w)
	s.a.document(strings.TrimSuffix(name[open+1:], "]"), appendVia(via, label+" subscript"), s.depth+1)
}

// builtin judges the builtins that take variable names, scripts or
// programs in their arguments; false for any other command.
func (s *scope) builtin(v argv, name string, via []string, hops int) bool {
	words := v.words
	switch name {
	case "read", "mapfile", "readarray", "getopts", "unset", "printf", "wait":
	case "test", "[":
		for i := 1; i+1 < len(words); i++ {
			if words[i] == "-v" {
				s.varName(v, i+1, name+" -v", via)
			}
		}
		return true
	case "declare", "typeset", "local", "export", "readonly":
		for i := 1; i < len(words); i++ {
			if !strings.HasPrefix(words[i], "-") && !strings.HasPrefix(words[i], "+") {
				s.varName(v, i, name, via)
				if k, val, ok := strings.Cut(words[i], "="); ok {
					s.environ(k, val, v.static[i], via)
				}
			}
		}
		return true
	case "let":
		for i := 1; i < len(words); i++ {
			s.a.evaluates("let")
			if v.static[i] {
				s.a.document(words[i], appendVia(via, "let"), s.depth+1)
			}
		}
		return true
	case "hash":
		s.hash(v, via, hops)
		return true
	case "enable":
		for _, w := range words[1:] {
			if strings.HasPrefix(w, "-") && strings.Contains(w, "f") {
				s.a.unjudgeable("enable -f loads a builtin from a shared object: %s", strings.Join(words, " "))
			}
		}
		return true
	default:
		return false
	}
	// Builtins whose operands (and some options' values) are names.
	valued := ""
	switch name {
	case "read":
		valued = "adinNptu"
	case "mapfile", "readarray":
		valued = "CcdnOsu"
	case "printf":
		valued = "v"
	case "wait":
		valued = "p"
	}
	var operands []int
	for i := 1; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			for j := i + 1; j < len(words); j++ {
				operands = append(operands, j)
			}
			break
		}
		if len(w) < 2 || w[0] != '-' || name == "getopts" {
			operands = append(operands, i)
			if name == "printf" {
				break // the format: what follows is data
			}
			continue
		}
		for j := 1; j < len(w); j++ {
			letter := w[j]
			if strings.IndexByte(valued, letter) < 0 {
				continue
			}
			val, at := w[j+1:], i
			if val == "" && i+1 < len(words) {
				val, at = words[i+1], i+1
				i++
			}
			switch {
			case letter == 'C' && (name == "mapfile" || name == "readarray"):
				s.nestedScript(argv{words: []string{val}, static: []bool{v.static[at]}}, 0, via, name+" -C")
			case letter == 'v' || letter == 'p' && name == "wait" || letter == 'a' && name == "read":
				s.varName(argv{words: []string{val}, static: []bool{v.static[at]}}, 0, name+" -"+string(letter), via)
			}
			break
		}
	}
	switch name {
	case "printf", "wait":
		return true
	case "getopts":
		if len(operands) > 1 {
			s.varName(v, operands[1], name, via)
		}
		return true
	}
	for _, i := range operands {
		s.varName(v, i, name, via)
	}
	return true
}

// hash -p PATH NAME makes NAME run PATH: PATH is judged here, and
// every later NAME as PATH.
func (s *scope) hash(v argv, via []string, hops int) {
	words := v.words
	prog, from := "", -1
	var names []string
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-p" && i+1 < len(words):
			prog, from = words[i+1], i+1
			i++
		case strings.HasPrefix(w, "-p") && len(w) > 2:
			prog, from = w[2:], i
		case strings.HasPrefix(w, "-") && w != "-":
		default:
			names = append(names, w)
		}
	}
	if from < 0 {
		return
	}
	b := builder{from: v}
	b.add(prog, from)
	s.inner(b.out, via, "hash -p", hops)
	if !v.static[from] {
		return
	}
	if s.a.hashed == nil {
		s.a.hashed = map[string]string{}
	}
	for _, n := range names {
		s.a.hashed[n] = prog
	}
}

// environ judges NAME=value given to bash or to the commands it starts:
// variables that make bash run code.
func (s *scope) environ(name, value string, static bool, via []string) {
	switch {
	case name == "BASH_ENV" || (name == "ENV" && strings.ContainsAny(value, "/.")):
		s.a.unjudgeable("%s names a script each shell started later runs first: %s=%s", name, name, value)
	case strings.HasPrefix(name, "BASH_FUNC_"):
		s.a.unjudgeable("%s defines a function for each bash started later", name)
	case name == "PROMPT_COMMAND":
		if !static {
			s.a.unjudgeable("PROMPT_COMMAND is set to a script built at run time: %s", value)
		}
		s.a.script(value, appendVia(via, name), s.depth+1)
	case len(name) == 3 && strings.HasPrefix(name, "PS") && name[2] >= '0' && name[2] <= '4':
		if !static {
			s.a.unjudgeable("%s is set to a prompt built at run time (bash expands it again): %s", name, value)
			return
		}
		s.a.document(value, appendVia(via, name), s.depth+1)
	}
}

// assign judges NAME=value, NAME[SUB]=value and NAME=(…) (a prefix of a
// command, a statement of its own, or declare's).
func (s *scope) assign(as *syntax.Assign) {
	if as.Name == nil {
		return // declare's quoted NAME=value: decl
	}
	if as.Index != nil {
		s.arithm(as.Index, "an array subscript")
	}
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			if e.Index != nil {
				s.arithm(e.Index, "an array subscript")
			}
			if lit, ok := s.literal(e.Value); ok {
				s.a.noteCode(lit, true)
			}
		}
		return
	}
	value, static := "", true
	if as.Value != nil {
		value, static = s.literal(as.Value)
		if static {
			s.a.noteCode(value, true)
		} else {
			value = s.text(as.Value)
		}
	}
	s.environ(as.Name.Value, value, static, s.via)
}

// decl judges declare and its kin: -i and -n make later values code;
// a quoted NAME[SUB]=value's subscript is expanded.
func (s *scope) decl(d *syntax.DeclClause) {
	integer, nameref := false, d.Variant.Value == "nameref"
	for _, as := range d.Args {
		if as.Name == nil && as.Value != nil {
			lit, static := s.literal(as.Value)
			if static && len(lit) > 1 && lit[0] == '-' {
				integer = integer || strings.Contains(lit, "i")
				nameref = nameref || strings.Contains(lit, "n")
				continue
			}
			if static && len(lit) > 1 && lit[0] == '+' {
				continue
			}
			label := d.Variant.Value
			if !static {
				if prefix := s.staticPrefix(as.Value); strings.Contains(prefix, "=") {
					s.subscript(prefix, label, s.via)
				} else {
					s.a.unjudgeable("%s gets a variable name only known at run time (a subscript in it runs code): %s", label, s.text(as.Value))
				}
				continue
			}
			s.subscript(lit, label, s.via)
			if k, val, ok := strings.Cut(lit, "="); ok {
				s.a.noteCode(val, true)
				s.environ(k, val, true, s.via)
				s.declValue(val, true, integer, nameref)
			}
			continue
		}
		if as.Value != nil {
			val, static := s.literal(as.Value)
			s.declValue(val, static, integer, nameref)
		}
	}
	if integer {
		s.a.evaluates(d.Variant.Value + " -i")
	}
	if nameref {
		s.a.evaluates(d.Variant.Value + " -n")
	}
}

// declValue judges the value of declare -i (arithmetic) or -n (a name).
func (s *scope) declValue(val string, static, integer, nameref bool) {
	switch {
	case !integer && !nameref:
	case !static:
		// the value is only known at run time: settle judges it
	case nameref:
		s.subscript(val, "declare -n", s.via)
	default:
		s.a.document(val, appendVia(s.via, "declare -i"), s.depth+1)
	}
}

// staticPrefix is the text of a word up to its first part known only at
// run time.
func (s *scope) staticPrefix(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		part := &syntax.Word{Parts: []syntax.WordPart{p}}
		lit, ok := s.literal(part)
		if !ok {
			break
		}
		b.WriteString(lit)
	}
	return b.String()
}

// arithm notes arithmetic that reads a variable: bash evaluates the
// variable's value as arithmetic too, where a[$(…)] runs a command.
func (s *scope) arithm(x syntax.ArithmExpr, what string) {
	if x == nil || s.a.evaluator != "" {
		return
	}
	syntax.Walk(x, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			if lit := w.Lit(); lit == "" || lit[0] < '0' || lit[0] > '9' {
				s.a.evaluates(what)
			}
			return false
		}
		return s.a.evaluator == ""
	})
}

// let follows its quoted expressions (let 'a[$(…)]=1').
func (s *scope) let(l *syntax.LetClause) {
	for _, x := range l.Exprs {
		s.arithm(x, "let")
		if w, ok := x.(*syntax.Word); ok {
			if lit, static := s.literal(w); static {
				s.a.document(lit, appendVia(s.via, "let"), s.depth+1)
			}
		}
	}
}

// paramExp notes the expansions that evaluate a value: ${!X}, ${X@P},
// a subscript or an offset.
func (s *scope) paramExp(p *syntax.ParamExp) {
	switch {
	case p.Excl && p.Names == 0 && !allIndex(p.Index):
		s.a.evaluates("${!…} (indirection)")
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && p.Exp.Word.Lit() == "P":
		s.a.evaluates("${…@P} (prompt expansion)")
	}
	if p.Index != nil && !allIndex(p.Index) {
		s.arithm(p.Index, "an array subscript")
	}
	if p.Slice != nil {
		s.arithm(p.Slice.Offset, "${…:offset}")
		s.arithm(p.Slice.Length, "${…:offset:length}")
	}
}

// allIndex is [@] or [*].
func allIndex(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && (w.Lit() == "@" || w.Lit() == "*")
}

// test judges [[ -v NAME ]] and notes [[ A -eq B ]] (arithmetic).
func (s *scope) test(t *syntax.TestClause) {
	syntax.Walk(t.X, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.UnaryTest:
			if w, ok := n.X.(*syntax.Word); ok && n.Op == syntax.TsVarSet {
				lit, static := s.literal(w)
				if !static {
					lit = s.text(w)
				}
				s.varName(argv{words: []string{lit}, static: []bool{static}}, 0, "[[ -v ]]", s.via)
			}
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				for _, x := range []syntax.TestExpr{n.X, n.Y} {
					if w, ok := x.(*syntax.Word); ok {
						if lit := w.Lit(); lit == "" || lit[0] < '0' || lit[0] > '9' {
							s.a.evaluates("[[ … " + n.Op.String() + " … ]]")
						}
					}
				}
			}
		}
		return true
	})
}
