package search

import (
	"bytes"
	"strings"
)

// A pattern is one line of a .gitignore-style file, parsed as git's
// dir.c parses it.
type pattern struct {
	text     string // the pattern, without '!', leading '/' and trailing '/'
	negate   bool   // "!pattern": re-include
	dirOnly  bool   // "pattern/": folders only
	basename bool   // no '/' inside: matches the name at any depth
	kind     patKind
	lit      string // for patExact / patSuffix / patPrefix
}

type patKind uint8

const (
	patWild   patKind = iota // run wildmatch
	patExact                 // no wildcard: compare
	patSuffix                // "*literal" on a basename
	patPrefix                // "literal*" on a basename
)

// parsePattern parses one line; ok is false for blank lines and comments.
func parsePattern(line string) (pattern, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return pattern{}, false
	}
	var p pattern
	if line[0] == '!' {
		p.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" {
		return pattern{}, false
	}
	p.basename = !strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	if line == "" {
		return pattern{}, false
	}
	p.text = line
	p.kind = patWild
	switch first := strings.IndexAny(line, "*?[\\"); {
	case first < 0:
		p.kind, p.lit = patExact, line
	case p.basename && first == 0 && line[0] == '*' && !strings.ContainsAny(line[1:], "*?[\\"):
		p.kind, p.lit = patSuffix, line[1:]
	case p.basename && first == len(line)-1 && line[first] == '*':
		p.kind, p.lit = patPrefix, line[:first]
	}
	return p, true
}

// trimTrailingSpaces drops trailing spaces unless quoted with '\\', as
// git's trim_trailing_spaces does.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// match reports whether the pattern matches a path. rel is the path
// relative to the folder of the file that holds the pattern, name its
// last component.
func (p *pattern) match(rel, name string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if p.basename {
		switch p.kind {
		case patExact:
			return name == p.lit
		case patSuffix:
			return strings.HasSuffix(name, p.lit)
		case patPrefix:
			return strings.HasPrefix(name, p.lit)
		}
		return wildmatch(p.text, name, false)
	}
	if p.kind == patExact {
		return rel == p.lit
	}
	return wildmatch(p.text, rel, true)
}

// ruleSet is the patterns of one ignore file (or the patterns of one
// source, such as the global excludes file), anchored at a folder.
type ruleSet struct {
	base     string // folder, relative to the walk's base ("" for the base itself)
	source   string // file the rules came from, for messages
	git      bool   // git's own rules (.gitignore, info/exclude, global): tracked files override them
	patterns []pattern
}

func parseRules(base, source string, data []byte, git bool) *ruleSet {
	rs := &ruleSet{base: base, source: source, git: git}
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if p, ok := parsePattern(string(line)); ok {
			rs.patterns = append(rs.patterns, p)
		}
	}
	if len(rs.patterns) == 0 {
		return nil
	}
	return rs
}

// decide returns +1 (ignored), -1 (re-included) or 0 (no pattern matched)
// for a path relative to the walk's base. The last matching pattern wins.
func (rs *ruleSet) decide(path, name string, isDir bool) int {
	rel := path
	if rs.base != "" {
		if len(path) <= len(rs.base) || path[len(rs.base)] != '/' || path[:len(rs.base)] != rs.base {
			return 0
		}
		rel = path[len(rs.base)+1:]
	}
	for i := len(rs.patterns) - 1; i >= 0; i-- {
		p := &rs.patterns[i]
		if p.match(rel, name, isDir) {
			if p.negate {
				return -1
			}
			return 1
		}
	}
	return 0
}

// rules is a stack of rule sets, lowest precedence first: the global
// excludes file, .git/info/exclude, then for each folder from the top
// down its .gitignore, .ignore and .mcodeignore. It is shared read-only
// by the walk's workers; a folder with ignore files of its own pushes a
// new node.
type rules struct {
	parent *rules
	set    *ruleSet
}

func (r *rules) push(set *ruleSet) *rules {
	if set == nil {
		return r
	}
	return &rules{parent: r, set: set}
}

// ignored reports whether path (relative to the walk's base) is ignored:
// the deepest, latest pattern that matches decides. byGit says the
// deciding rule is git's (so a file git tracks is searched anyway).
func (r *rules) ignored(path, name string, isDir bool) (ignored, byGit bool) {
	for n := r; n != nil; n = n.parent {
		switch n.set.decide(path, name, isDir) {
		case 1:
			return true, n.set.git
		case -1:
			return false, false
		}
	}
	return false, false
}
