package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/sandbox"
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
	abs := target(c.Env, p.Path)
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
	isRoot := false // the workspace root itself, which the tool refuses in its own words
	if p.Delete {   // a deletion
		root := Resolve(c.Env.Root, false)
		isRoot = real == root
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
	// The sandbox's policy decides for mcode's own tools as for a shell
	// command: the same writable set, protected paths and secrets, in the
	// same words.
	pol := policyFor(c.Env)
	if sensitive.MatchPath(filepath.ToSlash(abs), isDir) || sensitive.MatchPath(filepath.ToSlash(real), isDir) ||
		procEnviron(real) || procEnviron(abs) {
		how := "reading"
		if p.Write {
			how = "changing"
		}
		raise(j, dispatch.Verdict(g.cfg.Paths.Sensitive), SourcePath, "guard.paths.sensitive: "+g.cfg.Paths.Sensitive,
			fmt.Sprintf("%s %s, a file that holds secrets (%s)", how, p.Path, real))
	} else if ok, why := pol.CanRead(real); !ok {
		raise(j, dispatch.Verdict(g.cfg.Paths.Sensitive), SourcePath, "guard.paths.sensitive: "+g.cfg.Paths.Sensitive, why)
	}
	if p.Write {
		// guard.paths.outsideRoot is the action for a write outside the
		// sandbox's writable set (the workspace, /tmp, the caches, …) or
		// to a path it keeps read-only: so a write to /tmp is allowed to
		// mcode write as to a command, and .git/hooks held for both.
		check := pol.CanWrite
		if p.Delete && !isRoot { // (rm: "it is the workspace root", or GNU rm's rule for ".")
			check = pol.CanRemove
		}
		if ok, why := check(real); !ok {
			raise(j, dispatch.Verdict(g.cfg.Paths.OutsideRoot), SourcePath, "guard.paths.outsideRoot: "+g.cfg.Paths.OutsideRoot,
				name+": "+why)
		}
	}
}

// target is the absolute path a tool acts on for the path p: the tools
// take \xHH for a byte of a name (fsutil.InputPath), so \x2eenv is .env
// whenever it is what the tool would open, and the guard judges that.
func target(env *tool.Env, p string) string {
	return env.Abs(fsutil.InputPath(env.Abs, p))
}

// policies remembers the sandbox's policy of each environment: a process
// has one, and a call of rm or a batch names many paths.
var policies sync.Map // *tool.Env → *sandbox.Policy

// policyFor is the sandbox's policy for a call's environment.
func policyFor(env *tool.Env) *sandbox.Policy {
	if p, ok := policies.Load(env); ok {
		return p.(*sandbox.Policy)
	}
	p := sandbox.New(sandbox.InputsFor(env, nil))
	policies.Store(env, p)
	return p
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
