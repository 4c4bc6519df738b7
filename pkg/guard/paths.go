package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/sensitive"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// procEnviron says whether p is the environment of a process
// (/proc/self/environ, /proc/123/task/124/environ): every secret the
// process was started with.
func procEnviron(p string) bool {
	parts := strings.Split(p, "/")
	switch {
	case len(parts) == 4:
		return parts[0] == "" && parts[1] == "proc" && parts[2] != "" && parts[3] == "environ"
	case len(parts) == 6:
		return parts[0] == "" && parts[1] == "proc" && parts[2] != "" && parts[3] == "task" && parts[4] != "" && parts[5] == "environ"
	}
	return false
}

// Own records mcode keeps under MCODE_HOME that no tool may change: an
// agent that writes an approval grants it to itself.
var ownRecords = []string{"approvals", "audit.jsonl"}

// pathPolicy applies guard.paths to one path a file tool touches, after
// resolving ~, .. and symlinks.
func (g *Guard) pathPolicy(j *Judgement, name string, p tool.PathUse, c *dispatch.Call) {
	if c.Env == nil {
		return
	}
	abs := c.Env.Abs(p.Path)
	real := Resolve(abs, p.Delete)
	isDir := false
	if fi, err := os.Stat(real); err == nil {
		isDir = fi.IsDir()
	}
	if p.Write && c.Env.DataDir != "" {
		home := Resolve(c.Env.DataDir, false)
		for _, own := range ownRecords {
			if within(real, filepath.Join(home, own)) {
				raise(j, dispatch.Deny, SourcePath, "built-in: mcode's own records",
					fmt.Sprintf("%s is part of mcode's %s under MCODE_HOME: no tool may change it", p.Path, own))
				return
			}
		}
	}
	if p.Delete { // a deletion
		root := Resolve(c.Env.Root, false)
		home := ""
		if c.Env.UserHome != "" {
			home = Resolve(c.Env.UserHome, false)
		}
		if (within(root, real) && real != root) || (home != "" && real == home) {
			raise(j, dispatch.Deny, SourcePath, "built-in: the workspace, the home folder and what holds them",
				fmt.Sprintf("%s would delete %s, which is or holds the workspace root %s or the home folder", name, real, root))
			return
		}
	}
	if sensitive.MatchPath(filepath.ToSlash(abs), isDir) || sensitive.MatchPath(filepath.ToSlash(real), isDir) ||
		procEnviron(real) || procEnviron(abs) {
		how := "reading"
		if p.Write {
			how = "changing"
		}
		raise(j, dispatch.Verdict(g.cfg.Paths.Sensitive), SourcePath, "guard.paths.sensitive: "+g.cfg.Paths.Sensitive,
			fmt.Sprintf("%s %s, a file that holds secrets (%s)", how, p.Path, real))
	}
	if p.Write {
		root := Resolve(c.Env.Root, false)
		if !within(real, root) {
			raise(j, dispatch.Verdict(g.cfg.Paths.OutsideRoot), SourcePath, "guard.paths.outsideRoot: "+g.cfg.Paths.OutsideRoot,
				fmt.Sprintf("%s of %s is outside the workspace root %s", name, real, root))
		}
	}
}

// within says whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Resolve follows the symlinks of an absolute path as far as it exists:
// the longest existing prefix is resolved and the rest joined to it. With
// keepLast the last element is not followed (rm removes a link, not what
// it points to).
func Resolve(abs string, keepLast bool) string {
	abs = filepath.Clean(abs)
	if keepLast {
		dir, base := filepath.Split(abs)
		if base == "" || dir == "" {
			return abs
		}
		return filepath.Join(Resolve(dir, false), base)
	}
	rest := ""
	cur := abs
	for i := 0; i < 256; i++ {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest)
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
			break
		}
		if target, lerr := os.Readlink(cur); lerr == nil { // a dangling link: writing through it creates its target
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			cur, rest = filepath.Join(target, rest), ""
			continue
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			break
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
	return abs
}
