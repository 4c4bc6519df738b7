// Package tmpl fills the templates of tool descriptions, schemas and the
// skill guide with the code's constants.
//
// It reads the subset of text/template's syntax those files use: fields
// ({{.Name}}, {{.A.B}}, {{$}}, {{$var}}), {{if}} with not, and, or,
// {{else}}, {{range}} with {{range $i, $e := …}}, {{end}}, and the
// {{- -}} trim markers; a missing field or key is an error, as with
// missingkey=error. It is not text/template because that package's
// executor calls reflect.Value.MethodByName: once it is reachable, the Go
// linker keeps every exported method of every type that is ever stored
// in an interface, which made the binary 3 MB bigger and every mcode
// start about 0.9 ms slower (heap maps of libraries included). This
// package reads fields only and so keeps the linker's dead-code
// elimination.
package tmpl

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// maxDepth bounds the nesting of if and range blocks.
const maxDepth = 100

// Template is a parsed template.
type Template struct {
	name  string
	nodes []node
}

type nodeKind int

const (
	textNode nodeKind = iota
	printNode
	ifNode
	rangeNode
)

type node struct {
	kind        nodeKind
	text        string
	pipe        pipe
	body, other []node // if: then and else; range: the body
	key, elem   string // range's variables, without the $
}

// pipe is a value, or a function (not, and, or) of values.
type pipe struct {
	fn   string
	args []operand
}

// operand is ".", ".A.B", "$", "$x" or "$x.A".
type operand struct {
	root   string // "." or a variable name with its $
	fields []string
}

// Parse reads src.
func Parse(name, src string) (*Template, error) {
	p := &parser{name: name, src: src}
	nodes, end, err := p.list(0)
	if err != nil {
		return nil, err
	}
	if end != "" {
		return nil, p.errorf("unexpected {{%s}}", end)
	}
	return &Template{name: name, nodes: nodes}, nil
}

// Render parses src and executes it with data.
func Render(name, src string, data any) (string, error) {
	t, err := Parse(name, src)
	if err != nil {
		return "", err
	}
	return t.Execute(data)
}

type parser struct {
	name   string
	src    string
	pos    int
	trimLn bool // the last action ended with -}}
}

func (p *parser) errorf(format string, args ...any) error {
	line := 1 + strings.Count(p.src[:p.pos], "\n")
	return fmt.Errorf("template %s:%d: %s", p.name, line, fmt.Sprintf(format, args...))
}

// list reads nodes up to an {{end}} or {{else}}, which it returns.
func (p *parser) list(depth int) ([]node, string, error) {
	if depth > maxDepth {
		return nil, "", p.errorf("blocks nested more than %d deep", maxDepth)
	}
	var nodes []node
	for p.pos < len(p.src) {
		open := strings.Index(p.src[p.pos:], "{{")
		text := p.src[p.pos:]
		if open >= 0 {
			text = text[:open]
		}
		if p.trimLn {
			text = strings.TrimLeft(text, " \t\r\n")
			p.trimLn = false
		}
		if open < 0 {
			p.pos = len(p.src)
			nodes = appendText(nodes, text)
			break
		}
		action, trimLeft, err := p.action(p.pos + open)
		if err != nil {
			return nil, "", err
		}
		if trimLeft {
			text = strings.TrimRight(text, " \t\r\n")
		}
		nodes = appendText(nodes, text)
		word, rest, _ := strings.Cut(action, " ")
		rest = strings.TrimSpace(rest)
		switch word {
		case "end", "else":
			if rest != "" {
				return nil, "", p.errorf("{{%s}} takes nothing, got %q", word, rest)
			}
			return nodes, word, nil
		case "if":
			n, err := p.ifBlock(rest, depth)
			if err != nil {
				return nil, "", err
			}
			nodes = append(nodes, n)
		case "range":
			n, err := p.rangeBlock(rest, depth)
			if err != nil {
				return nil, "", err
			}
			nodes = append(nodes, n)
		default:
			pp, err := p.pipe(action)
			if err != nil {
				return nil, "", err
			}
			nodes = append(nodes, node{kind: printNode, pipe: pp})
		}
	}
	return nodes, "", nil
}

func appendText(nodes []node, text string) []node {
	if text == "" {
		return nodes
	}
	return append(nodes, node{kind: textNode, text: text})
}

// action reads the action that opens at start and moves past it; it says
// whether the action trims the text before it.
func (p *parser) action(start int) (string, bool, error) {
	p.pos = start
	end := strings.Index(p.src[start+2:], "}}")
	if end < 0 {
		return "", false, p.errorf("unclosed action")
	}
	body := p.src[start+2 : start+2+end]
	p.pos = start + 2 + end + 2
	trimLeft := len(body) >= 2 && body[0] == '-' && isSpace(body[1])
	if trimLeft {
		body = body[2:]
	}
	if n := len(body); n >= 2 && body[n-1] == '-' && isSpace(body[n-2]) {
		body = body[:n-2]
		p.trimLn = true
	}
	body = strings.TrimSpace(body)
	if body == "" {
		return "", false, p.errorf("empty action")
	}
	return body, trimLeft, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (p *parser) ifBlock(cond string, depth int) (node, error) {
	pp, err := p.pipe(cond)
	if err != nil {
		return node{}, err
	}
	n := node{kind: ifNode, pipe: pp}
	body, end, err := p.list(depth + 1)
	if err != nil {
		return node{}, err
	}
	n.body = body
	if end == "else" {
		if n.other, end, err = p.list(depth + 1); err != nil {
			return node{}, err
		}
		if end != "end" {
			return node{}, p.errorf("{{if}} has no {{end}}")
		}
	}
	if end != "end" {
		return node{}, p.errorf("{{if}} has no {{end}}")
	}
	return n, nil
}

func (p *parser) rangeBlock(decl string, depth int) (node, error) {
	n := node{kind: rangeNode}
	if vars, expr, ok := strings.Cut(decl, ":="); ok {
		names := strings.Split(vars, ",")
		if len(names) > 2 {
			return node{}, p.errorf("range declares at most two variables: %q", vars)
		}
		for i, v := range names {
			v = strings.TrimSpace(v)
			if len(v) < 2 || v[0] != '$' || !isName(v[1:]) {
				return node{}, p.errorf("bad range variable %q", v)
			}
			names[i] = v
		}
		if len(names) == 2 {
			n.key, n.elem = names[0], names[1]
		} else {
			n.elem = names[0]
		}
		decl = strings.TrimSpace(expr)
	}
	pp, err := p.pipe(decl)
	if err != nil {
		return node{}, err
	}
	if pp.fn != "" {
		return node{}, p.errorf("range over %s: name a field", pp.fn)
	}
	n.pipe = pp
	body, end, err := p.list(depth + 1)
	if err != nil {
		return node{}, err
	}
	if end != "end" {
		return node{}, p.errorf("{{range}} has no {{end}}")
	}
	n.body = body
	return n, nil
}

func (p *parser) pipe(s string) (pipe, error) {
	words := strings.Fields(s)
	var pp pipe
	if len(words) == 0 {
		return pp, p.errorf("missing value")
	}
	switch words[0] {
	case "not", "and", "or":
		pp.fn, words = words[0], words[1:]
		if len(words) == 0 || (pp.fn == "not" && len(words) != 1) {
			return pp, p.errorf("wrong number of arguments to %s", pp.fn)
		}
	default:
		if len(words) != 1 && isName(words[0]) {
			return pp, p.errorf("function %q not defined", words[0])
		}
		if len(words) != 1 {
			return pp, p.errorf("%q: only not, and and or take arguments", s)
		}
	}
	for _, w := range words {
		op, err := p.operand(w)
		if err != nil {
			return pp, err
		}
		pp.args = append(pp.args, op)
	}
	return pp, nil
}

func (p *parser) operand(w string) (operand, error) {
	var op operand
	switch {
	case w == ".":
		op.root = "."
		return op, nil
	case w[0] == '.':
		op.root = "."
		w = w[1:]
	case w[0] == '$':
		root, rest, _ := strings.Cut(w, ".")
		if root != "$" && !isName(root[1:]) {
			return op, p.errorf("bad variable %q", root)
		}
		op.root = root
		if rest == "" {
			if strings.HasSuffix(w, ".") {
				return op, p.errorf("bad field in %q", w)
			}
			return op, nil
		}
		w = rest
	default:
		return op, p.errorf("function %q not defined", w)
	}
	for _, f := range strings.Split(w, ".") {
		if !isName(f) {
			return op, p.errorf("bad field in %q", w)
		}
		op.fields = append(op.fields, f)
	}
	return op, nil
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !('a' <= r && r <= 'z') && !('A' <= r && r <= 'Z') && (i == 0 || !('0' <= r && r <= '9')) {
			return false
		}
	}
	return true
}

// Execute fills the template with data.
func (t *Template) Execute(data any) (string, error) {
	var b strings.Builder
	root := reflect.ValueOf(data)
	s := &state{name: t.name, vars: []variable{{"$", root}}}
	if err := s.walk(&b, root, t.nodes); err != nil {
		return "", err
	}
	return b.String(), nil
}

type variable struct {
	name  string
	value reflect.Value
}

type state struct {
	name string
	vars []variable // a stack: the innermost last
}

func (s *state) errorf(format string, args ...any) error {
	return fmt.Errorf("template %s: %s", s.name, fmt.Sprintf(format, args...))
}

func (s *state) walk(b *strings.Builder, dot reflect.Value, nodes []node) error {
	for i := range nodes {
		n := &nodes[i]
		switch n.kind {
		case textNode:
			b.WriteString(n.text)
		case printNode:
			v, err := s.eval(dot, n.pipe)
			if err != nil {
				return err
			}
			b.WriteString(printed(v))
		case ifNode:
			v, err := s.eval(dot, n.pipe)
			if err != nil {
				return err
			}
			body := n.other
			if truth(v) {
				body = n.body
			}
			if err := s.walk(b, dot, body); err != nil {
				return err
			}
		case rangeNode:
			if err := s.rangeOver(b, dot, n); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *state) rangeOver(b *strings.Builder, dot reflect.Value, n *node) error {
	v, err := s.eval(dot, n.pipe)
	if err != nil {
		return err
	}
	v = indirect(v)
	each := func(key, elem reflect.Value) error {
		mark := len(s.vars)
		if n.key != "" {
			s.vars = append(s.vars, variable{n.key, key})
		}
		if n.elem != "" {
			s.vars = append(s.vars, variable{n.elem, elem})
		}
		err := s.walk(b, elem, n.body)
		s.vars = s.vars[:mark]
		return err
	}
	switch v.Kind() {
	case reflect.Invalid:
		return nil
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := each(reflect.ValueOf(i), v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int {
			return strings.Compare(fmt.Sprint(a.Interface()), fmt.Sprint(b.Interface()))
		})
		for _, k := range keys {
			if err := each(k, v.MapIndex(k)); err != nil {
				return err
			}
		}
	default:
		return s.errorf("range can't iterate over %s", v.Type())
	}
	return nil
}

// eval is a pipe's value: the operand; not of it; and and or as
// text/template has them, the first operand that decides, else the last.
func (s *state) eval(dot reflect.Value, pp pipe) (reflect.Value, error) {
	var v reflect.Value
	for _, a := range pp.args { // the parser gives every pipe an operand
		var err error
		if v, err = s.operand(dot, a); err != nil {
			return reflect.Value{}, err
		}
		switch {
		case pp.fn == "not":
			return reflect.ValueOf(!truth(v)), nil
		case pp.fn == "" || pp.fn == "and" && !truth(v) || pp.fn == "or" && truth(v):
			return v, nil
		}
	}
	return v, nil
}

func (s *state) operand(dot reflect.Value, op operand) (reflect.Value, error) {
	v := dot
	if op.root != "." {
		found := false
		for i := len(s.vars) - 1; i >= 0; i-- {
			if s.vars[i].name == op.root {
				v, found = s.vars[i].value, true
				break
			}
		}
		if !found {
			return reflect.Value{}, s.errorf("undefined variable %s", op.root)
		}
	}
	for _, f := range op.fields {
		var err error
		if v, err = s.field(v, f); err != nil {
			return reflect.Value{}, err
		}
	}
	return v, nil
}

func (s *state) field(v reflect.Value, name string) (reflect.Value, error) {
	v = indirect(v)
	switch v.Kind() {
	case reflect.Struct:
		if sf, ok := v.Type().FieldByName(name); ok && sf.IsExported() {
			return v.FieldByIndex(sf.Index), nil
		}
		return reflect.Value{}, s.errorf("can't evaluate field %s in type %s", name, v.Type())
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return reflect.Value{}, s.errorf("can't index %s with a field name", v.Type())
		}
		e := v.MapIndex(reflect.ValueOf(name).Convert(v.Type().Key()))
		if !e.IsValid() {
			return reflect.Value{}, s.errorf("map has no entry for key %q", name)
		}
		return e, nil
	case reflect.Invalid:
		return reflect.Value{}, s.errorf("nil data; no entry for key %q", name)
	}
	return reflect.Value{}, s.errorf("can't evaluate field %s in type %s", name, v.Type())
}

// indirect goes through pointers and interfaces to the value they hold.
func indirect(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

// truth is text/template's: the zero value, and an empty slice, map or
// string, are false.
func truth(v reflect.Value) bool {
	v = indirect(v)
	if !v.IsValid() {
		return false
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.Array, reflect.String:
		return v.Len() > 0
	case reflect.Struct:
		return true
	}
	return !v.IsZero()
}

func printed(v reflect.Value) string {
	if !v.IsValid() {
		return "<no value>"
	}
	if v.Kind() == reflect.Interface && v.IsNil() {
		return "<no value>"
	}
	// As text/template does: through pointers, unless only the pointer
	// knows how to print itself.
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		e := v.Elem()
		if !printsItself(e.Type()) && printsItself(v.Type()) {
			break
		}
		v = e
	}
	return fmt.Sprint(v.Interface())
}

var (
	stringerType = reflect.TypeFor[fmt.Stringer]()
	errorType    = reflect.TypeFor[error]()
)

func printsItself(t reflect.Type) bool {
	return t.Implements(stringerType) || t.Implements(errorType)
}
