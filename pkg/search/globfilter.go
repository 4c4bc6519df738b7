package search

import (
	"fmt"
	"strings"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// globFilter is grep's --glob: ripgrep's -g semantics. Each glob is a
// gitignore-style pattern (no '/' matches the name at any depth) matched
// against paths relative to the searched folder; "!glob" excludes; the
// last glob that matches decides; when any glob includes, a file must
// match one. Braces expand ("*.{ts,tsx}"). Sensitive files stay out
// whatever the globs say: that rule runs after this one.
type globFilter struct {
	patterns []pattern
	anyPos   bool
}

// maxBraceExpansion bounds "{a,b}{c,d}…" growth.
const maxBraceExpansion = 256

func newGlobFilter(globs []string) (*globFilter, error) {
	if len(globs) == 0 {
		return nil, nil
	}
	f := &globFilter{}
	for _, g := range globs {
		neg := strings.HasPrefix(g, "!")
		body := strings.TrimPrefix(g, "!")
		expanded, err := expandBraces(body)
		if err != nil {
			return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: fmt.Sprintf("glob %q: %v", g, err)}
		}
		for _, e := range expanded {
			p, ok := parsePattern(e)
			if !ok {
				return nil, &tool.Error{Code: tool.CodeInvalidArgs,
					Message: fmt.Sprintf("glob %q matches nothing", g),
					Hint:    `write a file pattern such as "*.go", "src/**/*.ts" or "!*_test.go"`}
			}
			p.negate = neg
			f.patterns = append(f.patterns, p)
			f.anyPos = f.anyPos || !neg
		}
	}
	return f, nil
}

// file reports whether a file passes.
func (f *globFilter) file(rel, name string) bool {
	return f == nil || f.pass(rel, name, false, !f.anyPos)
}

// dir reports whether a folder is entered: only an excluding glob prunes.
func (f *globFilter) dir(rel, name string) bool {
	return f == nil || f.pass(rel, name, true, true)
}

// pass applies the last glob that matches; unmatched is the answer when
// none does.
func (f *globFilter) pass(rel, name string, isDir, unmatched bool) bool {
	for i := len(f.patterns) - 1; i >= 0; i-- {
		if f.patterns[i].match(rel, name, isDir) {
			return !f.patterns[i].negate
		}
	}
	return unmatched
}

// expandBraces expands "{a,b}" alternatives (nested ones too).
func expandBraces(s string) ([]string, error) {
	open := -1
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth > 0 {
				continue
			}
			var alts []string
			start, d := open+1, 0
			for j := open + 1; j < i; j++ {
				switch s[j] {
				case '\\':
					j++
				case '{':
					d++
				case '}':
					d--
				case ',':
					if d == 0 {
						alts = append(alts, s[start:j])
						start = j + 1
					}
				}
			}
			alts = append(alts, s[start:i])
			var out []string
			for _, a := range alts {
				rest, err := expandBraces(s[:open] + a + s[i+1:])
				if err != nil {
					return nil, err
				}
				out = append(out, rest...)
				if len(out) > maxBraceExpansion {
					return nil, fmt.Errorf("braces expand to more than %d patterns", maxBraceExpansion)
				}
			}
			return out, nil
		}
	}
	if depth > 0 {
		return nil, fmt.Errorf("unclosed '{'")
	}
	return []string{s}, nil
}
