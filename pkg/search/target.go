package search

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/sandbox"
	"github.com/mcode-dev/mcode/pkg/sensitive"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// MaxWorkers caps the walk's parallelism. On the 2-core machines this
// was measured on, two workers saturate the CPU and more only add
// contention; bigger machines get up to this many.
const MaxWorkers = 8

func workerCount() int {
	if s := os.Getenv("MCODE_SEARCH_WORKERS"); s != "" {
		var n int
		if _, err := fmt.Sscan(s, &n); err == nil && n > 0 {
			return min(n, 64)
		}
	}
	return max(1, min(runtime.GOMAXPROCS(0), MaxWorkers))
}

// target is where a search runs.
type target struct {
	abs     string // the path as given, absolute
	display string // as results show it: relative to the workspace root when inside it
	isFile  bool
	file    string // for a file: its name in dir (symlinks resolved)
	dir     string // the folder searched (the file's folder for a file)
	base    string // folder every walk path is relative to: the work tree's top, else dir
	rel     string // dir relative to base, slash-separated ("" when equal)
	repo    *gitRepo
	git     gitEnv
	rules   *rules // the rules in force above and at dir
	// excluded is set when a walk would have left the path out (it is
	// searched anyway, being named).
	excluded bool
	// hidden are the sandbox's secret paths below base (slash-separated,
	// relative to it): a walk passes them by as it passes sensitive names.
	hidden map[string]bool
	// raw maps a shown path that DisplayPath changed to the name itself.
	raw   map[string]string
	rawMu sync.Mutex
}

// resolveTarget checks the path a call names and finds its work tree and
// the ignore rules above it.
func resolveTarget(env *tool.Env, path string, useIgnore bool) (*target, error) {
	if path == "" {
		path = "."
	}
	path = fsutil.InputPath(env.Abs, path)
	abs := env.Abs(path)
	t := &target{abs: abs, display: displayPath(env.Root, abs)}
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fsutil.NotFound(path, abs)
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, &tool.Error{Code: tool.CodePermission, Message: fmt.Sprintf("%s: permission denied", path)}
		}
		return nil, err
	}
	if err := fsutil.CheckFolderSuffix(path, fi, false); err != nil {
		return nil, err
	}
	t.isFile = !fi.IsDir()
	// A path named explicitly is followed if it is a symlink, so the
	// target is checked too: "notes.txt -> ~/.ssh/id_rsa" is a secret.
	// The whole absolute path is checked: a workspace inside ~/.ssh/ is
	// inside a secret folder, as the walk from above would judge it.
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	for _, p := range []string{abs, real} {
		if sensitive.MatchPath(filepath.ToSlash(p), !t.isFile) {
			return nil, &tool.Error{Code: tool.CodeDenied,
				Message: fmt.Sprintf("%s is a sensitive path (keys, credentials or tokens): search never reads it", path),
				Hint:    "search another path; the list of sensitive names is in mcode's docs/safety.md (\"Sensitive files\")"}
		}
	}
	// What the sandbox hides from a command (~/.config/gh, sandbox.readDeny,
	// …) a search does not read either: grep and rg in bash would be refused.
	pol := sandbox.New(sandbox.InputsFor(env, nil))
	if ok, why := pol.CanRead(real); !ok {
		return nil, &tool.Error{Code: tool.CodeDenied, Message: why,
			Hint: "search another path; a person can read it with their own tools"}
	}
	if t.isFile && !fi.Mode().IsRegular() {
		kind := fsutil.SpecialKind(fi.Mode())
		if kind == "" {
			kind = "not a regular file"
		}
		return nil, &tool.Error{Code: tool.CodeSpecialFile,
			Message: fmt.Sprintf("%s is %s, not a regular file or folder: reading it could block or never end", path, kind),
			Hint:    "search regular files and folders; to search what a program writes, run it through mcode bash with a timeout and pipe it to grep"}
	}
	t.dir = real
	if t.isFile {
		t.dir, t.file = filepath.Dir(real), filepath.Base(real)
	}
	t.base = t.dir
	if useIgnore {
		t.git = gitEnv{Home: env.UserHome, XDGConfigHome: os.Getenv("XDG_CONFIG_HOME")}
		t.repo = findRepo(t.dir, t.git)
		if t.repo != nil {
			t.base = t.repo.top
		}
	}
	if r, err := filepath.Rel(t.base, t.dir); err == nil && r != "." {
		t.rel = filepath.ToSlash(r)
	}
	// The walk judges names; the secrets the sandbox hides by place
	// (~/.config/gh, ~/.docker/config.json, sandbox.readDeny) are judged by
	// their path below the folder walked.
	for _, s := range pol.Secrets {
		if r, err := filepath.Rel(t.base, s); err == nil && r != "." && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r) {
			if t.hidden == nil {
				t.hidden = map[string]bool{}
			}
			t.hidden[filepath.ToSlash(r)] = true
		}
	}
	if useIgnore {
		var rs *rules
		if t.repo != nil {
			rs = t.repo.baseRules(nil, "")
		}
		path := t.rel
		if t.isFile {
			path = joinRel(t.rel, t.file)
		}
		t.rules, t.excluded = ancestorRules(t.base, path, !t.isFile, t.repo, rs)
	}
	return t, nil
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// displayPath is abs relative to the workspace root when inside it, else abs.
func displayPath(root, abs string) string {
	if r, err := filepath.Rel(root, abs); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return fsutil.DisplayPath(r)
	}
	return fsutil.DisplayPath(abs)
}

// show turns a walk path (relative to base) into the path results show.
// A name that is not UTF-8 is shown with \xHH for its stray bytes
// (fsutil.DisplayPath), which every tool takes back; the name itself is
// kept in t.raw for the text output.
func (t *target) show(rel string) string {
	raw := t.showRaw(rel)
	shown := fsutil.DisplayPath(raw)
	if shown != raw {
		t.rawMu.Lock()
		if t.raw == nil {
			t.raw = map[string]string{}
		}
		t.raw[shown] = raw
		t.rawMu.Unlock()
	}
	return shown
}

func (t *target) showRaw(rel string) string {
	r := rel
	if t.rel != "" {
		r = strings.TrimPrefix(rel, t.rel+"/")
	}
	if t.isFile {
		return t.display
	}
	if t.display == "." {
		return r
	}
	return filepath.ToSlash(t.display) + "/" + r
}

// textPath is a path as the text output shows it: quoted, Go style, when
// it holds a control character or bytes that are not UTF-8, so that one
// line is always one path (git's core.quotePath does the same).
func textPath(raw map[string]string, p string) string {
	if r, ok := raw[p]; ok {
		p = r
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f {
			return strconv.Quote(p)
		}
	}
	if !utf8.ValidString(p) {
		return strconv.Quote(p)
	}
	return p
}

// fromRoot is a walk path relative to the searched folder.
func (t *target) fromRoot(rel string) string {
	if t.rel == "" {
		return rel
	}
	return rel[len(t.rel)+1:]
}
