package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcode-dev/mcode/pkg/nearest"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// NotFound is the not_found error for a path, suggesting up to three names
// that do exist near it.
func NotFound(display, abs string) *tool.Error {
	if target, err := os.Readlink(abs); err == nil {
		return &tool.Error{Code: tool.CodeNotFound,
			Message: fmt.Sprintf("%s is a symlink to %s, which does not exist", display, target),
			Hint:    "the link is dangling: point it at an existing file, or use the path it should name"}
	}
	e := &tool.Error{Code: tool.CodeNotFound, Message: fmt.Sprintf("%s does not exist", display)}
	if near := NearNames(abs, 3); len(near) > 0 {
		e.Hint = "did you mean: " + strings.Join(near, ", ") + "?"
	} else if parent := filepath.Dir(abs); !exists(parent) {
		e.Hint = fmt.Sprintf("the folder %s does not exist either; use glob to find the file", parent)
	} else {
		e.Hint = "check the path; use glob to find the file"
	}
	return e
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// NearNames returns up to n existing paths in abs's folder (or the nearest
// existing ancestor's) whose names are closest to abs's base name.
func NearNames(abs string, n int) []string {
	dir, base := filepath.Dir(abs), filepath.Base(abs)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	type cand struct {
		name  string
		score int
	}
	var cands []cand
	lb := strings.ToLower(base)
	for _, e := range entries {
		name := e.Name()
		ln := strings.ToLower(name)
		score := nearest.Distance(lb, ln)
		switch {
		case ln == lb:
			score = 0
		case strings.HasPrefix(ln, lb) || strings.HasPrefix(lb, ln):
			score = min(score, 1)
		case stem(ln) == stem(lb):
			score = min(score, 1)
		case strings.Contains(ln, lb) || strings.Contains(lb, ln):
			score = min(score, 2)
		}
		limit := max(2, len([]rune(lb))/3)
		if score <= limit {
			cands = append(cands, cand{name, score})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score < cands[j].score
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i := 0; i < len(cands) && i < n; i++ {
		out = append(out, filepath.Join(dir, cands[i].name))
	}
	return out
}

func stem(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return name
}
