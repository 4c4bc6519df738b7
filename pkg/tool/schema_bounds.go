package tool

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// A schema from outside mcode (an MCP server's, a command tool's) is
// hostile input: jsonschema-go follows $ref and the in-place applicators
// (allOf, anyOf, oneOf, not, if/then/else, dependentSchemas) by plain
// recursion, so {"$ref": "#"} overflows the stack, a fatal error no
// recover catches, and a chain of allOf: [A, A] doubles its work at each
// step. Such a schema is mapped here first: a cycle that never moves into
// the value is refused when the schema compiles, and before each
// validation the work it would take on that very value is counted, so
// that it is refused instead of run when it passes the bounds.
const (
	// MaxSchemaNesting bounds how deep subschemas nest in one schema.
	MaxSchemaNesting = 128
	// MaxSchemaSteps bounds the subschema applications of one validation.
	MaxSchemaSteps = 1 << 20
	// MaxSchemaDepth bounds how deep subschema applications nest in one
	// validation.
	MaxSchemaDepth = 512
)

// schemaGraph is where each subschema of a schema applies: to the same
// value (inPlace) or to a part of it.
type schemaGraph struct {
	nodes []schemaNode
	byPtr map[string]int
	ids   map[string]int   // $id (absolute or relative to the root) → node
	named map[string]int   // base#anchor → node
	dyn   map[string][]int // $dynamicAnchor name → nodes
}

type schemaNode struct {
	ptr  string   // JSON pointer from the root, as a fragment: "/properties/a"
	base *url.URL // the base URI refs in it resolve against
	refs []string // $ref and $dynamicRef, resolved in a second pass
	// dynRefs are the names of $dynamicRef "#name": every schema with that
	// $dynamicAnchor may be the target.
	dynRefs []string

	inPlace   []int            // allOf, anyOf, oneOf, not, if, then, else, dependentSchemas, $ref
	props     map[string][]int // properties
	anyKey    []int            // patternProperties, additionalProperties, unevaluatedProperties: counted for every member
	keys      []int            // propertyNames: applied to each member's name
	prefix    [][]int          // prefixItems, or items as an array (draft 7)
	everyItem []int            // items, additionalItems, contains, unevaluatedItems
}

// schemaKeywords are the keywords whose value is one subschema, and
// where it applies.
var (
	inPlaceOne  = []string{"not", "if", "then", "else"}
	inPlaceList = []string{"allOf", "anyOf", "oneOf"}
	inPlaceMap  = []string{"dependentSchemas", "dependencies"}
	anyKeyOne   = []string{"additionalProperties", "unevaluatedProperties"}
	itemOne     = []string{"additionalItems", "contains", "unevaluatedItems"}
	// containerMaps hold subschemas that apply only through a $ref.
	containerMaps = []string{"$defs", "definitions"}
)

// mapSchema maps a decoded schema (from json.Unmarshal into an any). It
// refuses what it cannot follow, nesting past MaxSchemaNesting, and a
// cycle of references and in-place applicators that never moves into
// the value: validating against it would never end.
func mapSchema(doc any) (*schemaGraph, error) {
	g := &schemaGraph{byPtr: map[string]int{}, ids: map[string]int{}, named: map[string]int{}, dyn: map[string][]int{}}
	if _, err := g.visit(doc, "", &url.URL{}, 0); err != nil {
		return nil, err
	}
	for i := range g.nodes {
		n := &g.nodes[i]
		for _, ref := range n.refs {
			to, err := g.follow(n.base, ref)
			if err != nil {
				return nil, fmt.Errorf("at #%s: %w", n.ptr, err)
			}
			n.inPlace = append(n.inPlace, to)
		}
		for _, name := range n.dynRefs {
			n.inPlace = append(n.inPlace, g.dyn[name]...)
		}
	}
	if cycle := g.inPlaceCycle(); cycle != nil {
		path := make([]string, len(cycle))
		for i, n := range cycle {
			path[i] = "#" + g.nodes[n].ptr
		}
		return nil, fmt.Errorf("it refers back to itself without going into the value (%s), so validating against it would never end",
			strings.Join(path, " → "))
	}
	return g, nil
}

// visit adds the subschema v at ptr, and every subschema in it; it
// returns v's node.
func (g *schemaGraph) visit(v any, ptr string, base *url.URL, depth int) (int, error) {
	if depth > MaxSchemaNesting {
		return 0, fmt.Errorf("subschemas nest more than %d deep (at #%s)", MaxSchemaNesting, ptr)
	}
	idx := len(g.nodes)
	g.nodes = append(g.nodes, schemaNode{ptr: ptr, base: base})
	g.byPtr[ptr] = idx
	if idx == 0 {
		g.ids[""] = 0
	}
	m, ok := v.(map[string]any)
	if !ok {
		return idx, nil // true, false, or what Resolve already refused
	}
	if id, ok := m["$id"].(string); ok {
		u, err := url.Parse(id)
		if err != nil {
			return 0, fmt.Errorf("at #%s: $id %q: %v", ptr, id, err)
		}
		u = base.ResolveReference(u)
		if u.Fragment != "" && strings.TrimPrefix(id, "#") == u.Fragment && strings.HasPrefix(id, "#") {
			g.named[baseKey(base)+"#"+u.Fragment] = idx // draft 7's anchor form
		} else {
			u.Fragment = ""
			base = u
			g.ids[u.String()] = idx
			g.nodes[idx].base = base
		}
	}
	for _, k := range []string{"$anchor", "$dynamicAnchor"} {
		if name, ok := m[k].(string); ok {
			g.named[baseKey(base)+"#"+name] = idx
			if k == "$dynamicAnchor" {
				g.dyn[name] = append(g.dyn[name], idx)
			}
		}
	}
	if ref, ok := m["$ref"].(string); ok {
		g.nodes[idx].refs = append(g.nodes[idx].refs, ref)
	}
	if ref, ok := m["$dynamicRef"].(string); ok {
		g.nodes[idx].refs = append(g.nodes[idx].refs, ref)
		if name, ok := strings.CutPrefix(ref, "#"); ok && name != "" && !strings.HasPrefix(name, "/") {
			g.nodes[idx].dynRefs = append(g.nodes[idx].dynRefs, name)
		}
	}
	child := func(k string, sub any, path ...string) (int, error) {
		p := ptr + "/" + escapePointer(k)
		for _, s := range path {
			p += "/" + escapePointer(s)
		}
		return g.visit(sub, p, base, depth+1)
	}
	one := func(k string) ([]int, error) {
		sub, ok := m[k]
		if !ok {
			return nil, nil
		}
		c, err := child(k, sub)
		return []int{c}, err
	}
	list := func(k string) ([]int, error) {
		subs, _ := m[k].([]any)
		var out []int
		for i, sub := range subs {
			c, err := child(k, sub, strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
		return out, nil
	}
	members := func(k string, each func(name string, node int)) error {
		subs, _ := m[k].(map[string]any)
		for name, sub := range subs {
			if _, isList := sub.([]any); isList {
				continue // dependencies' property-list form
			}
			c, err := child(k, sub, name)
			if err != nil {
				return err
			}
			if each != nil {
				each(name, c)
			}
		}
		return nil
	}
	var add []int
	for _, k := range inPlaceOne {
		c, err := one(k)
		if err != nil {
			return 0, err
		}
		add = append(add, c...)
	}
	for _, k := range inPlaceList {
		c, err := list(k)
		if err != nil {
			return 0, err
		}
		add = append(add, c...)
	}
	for _, k := range inPlaceMap {
		if err := members(k, func(_ string, c int) { add = append(add, c) }); err != nil {
			return 0, err
		}
	}
	props := map[string][]int{}
	if err := members("properties", func(name string, c int) { props[name] = append(props[name], c) }); err != nil {
		return 0, err
	}
	var anyKey, keys, everyItem []int
	var prefix [][]int
	if err := members("patternProperties", func(_ string, c int) { anyKey = append(anyKey, c) }); err != nil {
		return 0, err
	}
	for _, k := range anyKeyOne {
		c, err := one(k)
		if err != nil {
			return 0, err
		}
		anyKey = append(anyKey, c...)
	}
	c, err := one("propertyNames")
	if err != nil {
		return 0, err
	}
	keys = append(keys, c...)
	for _, k := range itemOne {
		c, err := one(k)
		if err != nil {
			return 0, err
		}
		everyItem = append(everyItem, c...)
	}
	if _, isList := m["items"].([]any); isList {
		c, err := list("items")
		if err != nil {
			return 0, err
		}
		for _, n := range c {
			prefix = append(prefix, []int{n})
		}
	} else {
		c, err := one("items")
		if err != nil {
			return 0, err
		}
		everyItem = append(everyItem, c...)
	}
	pre, err := list("prefixItems")
	if err != nil {
		return 0, err
	}
	for i, n := range pre {
		if i < len(prefix) {
			prefix[i] = append(prefix[i], n)
		} else {
			prefix = append(prefix, []int{n})
		}
	}
	for _, k := range containerMaps {
		if err := members(k, nil); err != nil {
			return 0, err
		}
	}
	n := &g.nodes[idx]
	n.inPlace, n.props, n.anyKey, n.keys, n.prefix, n.everyItem = add, props, anyKey, keys, prefix, everyItem
	return idx, nil
}

// follow finds the node a $ref names: a JSON pointer, an anchor or an
// $id, resolved against base.
func (g *schemaGraph) follow(base *url.URL, ref string) (int, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return 0, fmt.Errorf("$ref %q: %v", ref, err)
	}
	u := base.ResolveReference(r)
	frag := u.Fragment
	u.Fragment = ""
	doc, ok := g.ids[u.String()]
	if !ok {
		return 0, fmt.Errorf("$ref %q names no schema of this document", ref)
	}
	switch {
	case frag == "":
		return doc, nil
	case strings.HasPrefix(frag, "/"):
		if n, ok := g.byPtr[g.nodes[doc].ptr+strings.TrimSuffix(frag, "/")]; ok {
			return n, nil
		}
		return 0, fmt.Errorf("$ref %q points at no subschema", ref)
	}
	if n, ok := g.named[u.String()+"#"+frag]; ok {
		return n, nil
	}
	return 0, fmt.Errorf("$ref %q names no anchor of this document", ref)
}

func baseKey(u *url.URL) string {
	c := *u
	c.Fragment = ""
	return c.String()
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// inPlaceCycle is a cycle of in-place edges, as the nodes on it (the
// first repeated at the end), or nil. Iterative: the graph is hostile.
func (g *schemaGraph) inPlaceCycle() []int {
	const (
		unseen = iota
		open
		done
	)
	state := make([]int, len(g.nodes))
	type frame struct{ node, next int }
	for start := range g.nodes {
		if state[start] != unseen {
			continue
		}
		stack := []frame{{start, 0}}
		state[start] = open
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			edges := g.nodes[top.node].inPlace
			if top.next == len(edges) {
				state[top.node] = done
				stack = stack[:len(stack)-1]
				continue
			}
			to := edges[top.next]
			top.next++
			switch state[to] {
			case open:
				var cycle []int
				for i := len(stack) - 1; i >= 0; i-- {
					cycle = append([]int{stack[i].node}, cycle...)
					if stack[i].node == to {
						break
					}
				}
				return append(cycle, to)
			case unseen:
				state[to] = open
				stack = append(stack, frame{to, 0})
			}
		}
	}
	return nil
}

// checkCost counts, without validating, the subschema applications a
// validation of inst would make at most (every branch of every
// applicator taken), and refuses a value that would need more than
// MaxSchemaSteps of them, or nest them deeper than MaxSchemaDepth.
func (g *schemaGraph) checkCost(inst any) error {
	type work struct {
		node  int
		v     any
		depth int
	}
	stack := []work{{0, inst, 1}}
	steps := 1
	push := func(nodes []int, v any, depth int) bool {
		steps += len(nodes)
		if steps > MaxSchemaSteps {
			return false
		}
		for _, n := range nodes {
			stack = append(stack, work{n, v, depth})
		}
		return true
	}
	tooMuch := fmt.Errorf("checking this value against the schema would take more than %d steps", MaxSchemaSteps)
	for len(stack) > 0 {
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if w.depth > MaxSchemaDepth {
			return fmt.Errorf("checking this value against the schema nests more than %d subschemas deep", MaxSchemaDepth)
		}
		n := &g.nodes[w.node]
		d := w.depth + 1
		if !push(n.inPlace, w.v, d) {
			return tooMuch
		}
		switch v := w.v.(type) {
		case map[string]any:
			for k, x := range v {
				if !push(n.props[k], x, d) || !push(n.anyKey, x, d) || !push(n.keys, k, d) {
					return tooMuch
				}
			}
		case []any:
			for i, x := range v {
				if i < len(n.prefix) && !push(n.prefix[i], x, d) {
					return tooMuch
				}
				if !push(n.everyItem, x, d) {
					return tooMuch
				}
			}
		}
	}
	return nil
}
