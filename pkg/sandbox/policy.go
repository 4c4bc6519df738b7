package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/sensitive"
)

// Inputs are what a policy is computed from.
type Inputs struct {
	// Root is the workspace root (absolute).
	Root string
	// DataDir is MCODE_HOME: its approvals and audit log stay read-only.
	DataDir string
	// Getenv reads the caller's environment: HOME, TMPDIR and the
	// toolchains' cache variables. The caller controls it, so nothing it
	// says can widen the writable set beyond the places Inputs.allowed
	// lists (see envPlace). nil reads nothing.
	Getenv func(string) string
	// Config is the sandbox section, after the trusted layers decided.
	Config config.Sandbox
	// Mode, when set, is the mode of this run instead of Config.Mode: a
	// stricter one the call asked for, or a looser one a person approved.
	Mode Mode
	// TrashDirs stay writable: the rm shim deletes into them.
	TrashDirs []string
	// ReadDeny are more paths the tree must not read (a key of mcode's
	// own, say).
	ReadDeny []string
	// UserHome is the home folder of the user database; "" looks it up
	// (os/user, which does not trust $HOME).
	UserHome string
}

// Place is one writable folder (or file) and what made it writable.
type Place struct {
	Path string `json:"path"`
	Kind Kind   `json:"kind"`
	// Why names the source: /tmp, TMPDIR, GOCACHE, sandbox.writable, …
	Why string `json:"why"`
	// File: a single file, not a folder.
	File bool `json:"file,omitempty"`
}

// Kind sorts the writable places.
type Kind string

const (
	KindWorkspace Kind = "workspace"
	KindGit       Kind = "git"
	KindTemp      Kind = "temp"
	KindDevice    Kind = "device"
	KindCache     Kind = "cache"
	KindTrash     Kind = "trash"
	KindConfig    Kind = "config" // sandbox.writable
)

// Refusal is a place the caller's environment named that the policy did
// not make writable.
type Refusal struct {
	Path string `json:"path"`
	From string `json:"from"`
	Why  string `json:"why"`
}

// Policy is the sandbox as it applies to one workspace and caller.
type Policy struct {
	Mode    Mode
	Network Network
	// Root is the workspace root, resolved.
	Root string
	// Writable is the writable set (resolved paths, existing or not).
	Writable []Place
	// Protected stay read-only inside writable places (resolved paths,
	// existing or not).
	Protected []string
	// Pinned are folders holding protected paths that must not be moved
	// away and replaced (.git): they are made mount points.
	Pinned []string
	// Secrets are hidden from reading (resolved paths, existing or not).
	Secrets []string
	// Refused are places the environment named that stay read-only.
	Refused []Refusal
	// Unhidden are secrets inside a writable place, where no kernel rule
	// can hide them, with why.
	Unhidden []Refusal

	homes      []string // the user database's home, then $HOME when it differs
	userHome   string
	configDirs []string
	dataDir    string
	res        resolver
}

// resolve is Resolve with the policy's memory of folders, for New only:
// a Policy is shared by concurrent calls once made, and its methods
// resolve with a resolver of their own.
func (p *Policy) resolve(path string) string {
	return p.res.real(filepath.Clean(path), 0)
}

// writableDevices are the device files a command may write.
var writableDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm"}

// readableDevices are the devices a command may read besides them: no
// disks (a process running as root could read a secret off the raw
// block device), no kernel memory.
var readableDevices = []string{"/dev/random", "/dev/urandom", "/dev/mqueue", "/dev/hugepages"}

// tempRoots are always writable (besides the workspace): the shared temp
// folders.
var tempRoots = []string{"/tmp"}

// defaultCaches are the per-user build caches under the home folder that
// normal toolchains write: folders, then files.
var (
	defaultCaches = []struct{ rel, why string }{
		{".cache", "XDG cache (~/.cache: go-build, pip, yarn, …)"},
		{"go/pkg", "Go module cache (~/go/pkg)"},
		{".npm", "npm cache (~/.npm)"},
		{".cargo/registry", "cargo registry (~/.cargo/registry)"},
		{".cargo/git", "cargo git checkouts (~/.cargo/git)"},
		{".m2/repository", "Maven repository (~/.m2/repository)"},
		{".gradle/caches", "Gradle caches (~/.gradle/caches)"},
		{".yarn/berry/cache", "Yarn cache (~/.yarn/berry/cache)"},
		{".bun/install/cache", "Bun cache (~/.bun/install/cache)"},
		{".local/share/pnpm/store", "pnpm store (~/.local/share/pnpm/store)"},
	}
	defaultCacheFiles = []struct{ rel, why string }{
		{".cargo/.package-cache", "cargo's cache lock"},
		{".cargo/.package-cache-mutate", "cargo's cache lock"},
		{".cargo/.global-cache", "cargo's cache tracker"},
	}
)

// homeTrash is the FreeDesktop home trash under a home folder.
const homeTrash = ".local/share/Trash"

// cacheVars are the environment variables that name a cache folder, and
// the folder under each that is the cache (GOPATH's pkg, CARGO_HOME's
// registry and git).
var cacheVars = []struct {
	name string
	subs []string
}{
	{"TMPDIR", nil}, {"TMP", nil}, {"TEMP", nil}, {"GOTMPDIR", nil},
	{"XDG_CACHE_HOME", nil}, {"GOCACHE", nil}, {"GOMODCACHE", nil}, {"GOPATH", []string{"pkg"}},
	{"npm_config_cache", nil}, {"NPM_CONFIG_CACHE", nil}, {"YARN_CACHE_FOLDER", nil}, {"PIP_CACHE_DIR", nil},
	{"CARGO_HOME", []string{"registry", "git"}}, {"GRADLE_USER_HOME", []string{"caches"}}, {"BUN_INSTALL_CACHE_DIR", nil},
}

// New computes the policy. It lists no folder: a few stats and symlink
// resolutions.
func New(in Inputs) *Policy {
	getenv := in.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	mode := in.Mode
	if mode == "" {
		mode, _ = ParseMode(in.Config.Mode)
	}
	p := &Policy{Mode: mode, Network: ParseNetwork(in.Config.Network)}
	p.Root = p.res.real(filepath.Clean(in.Root), 0)
	p.userHome = in.UserHome
	if p.userHome == "" {
		p.userHome = userHome()
	}
	if p.userHome != "" {
		p.userHome = p.resolve(p.userHome)
		p.homes = append(p.homes, p.userHome)
	}
	envHome := ""
	if h := getenv("HOME"); filepath.IsAbs(h) {
		envHome = p.resolve(h)
		if envHome != p.userHome {
			p.homes = append(p.homes, envHome)
		}
	}
	for _, h := range p.homes {
		p.configDirs = appendNew(p.configDirs, filepath.Join(h, ".config"))
	}
	if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		p.configDirs = appendNew(p.configDirs, p.resolve(x))
	}
	if in.DataDir != "" {
		p.dataDir = p.resolve(in.DataDir)
	}

	// Secrets first: the writable set is checked against them.
	for _, h := range p.homes {
		for _, rel := range sensitive.HomeSecrets {
			p.Secrets = appendNew(p.Secrets, p.resolve(filepath.Join(h, filepath.FromSlash(rel))))
		}
	}
	// The system's own secrets are unreadable but to root: hidden for root
	// only (each one costs the rules of its whole folder: /etc has ~150).
	if os.Geteuid() == 0 {
		for _, f := range sensitive.SystemSecrets {
			if real := p.resolve(f); exists(real) {
				p.Secrets = appendNew(p.Secrets, real)
			}
		}
	}
	for _, d := range in.Config.ReadDeny {
		p.Secrets = appendNew(p.Secrets, p.resolve(p.expandHome(d)))
	}
	for _, d := range in.ReadDeny {
		p.Secrets = appendNew(p.Secrets, p.resolve(d))
	}
	if p.dataDir != "" {
		p.Secrets = appendNew(p.Secrets, filepath.Join(p.dataDir, "serve"))
	}

	p.protect()
	if mode == DangerFullAccess {
		return p
	}
	if mode == WorkspaceWrite {
		p.add(Place{Path: p.Root, Kind: KindWorkspace, Why: "workspace root"})
		p.gitDirs()
	}
	for _, t := range tempRoots {
		p.add(Place{Path: p.resolve(t), Kind: KindTemp, Why: t})
	}
	for _, d := range writableDevices {
		p.add(Place{Path: d, Kind: KindDevice, Why: "device", File: d != "/dev/pts" && d != "/dev/shm"})
	}
	// The caller's temp folder, then (workspace-write) the caches.
	for _, v := range cacheVars {
		kind := KindCache
		if v.name == "TMPDIR" || v.name == "TMP" || v.name == "TEMP" || v.name == "GOTMPDIR" {
			kind = KindTemp
		}
		if mode == ReadOnly && kind != KindTemp {
			continue
		}
		for _, dir := range filepath.SplitList(getenv(v.name)) {
			if !filepath.IsAbs(dir) {
				continue
			}
			subs := v.subs
			if subs == nil {
				subs = []string{""}
			}
			for _, sub := range subs {
				p.envPlace(filepath.Join(dir, sub), kind, v.name)
			}
			if v.name == "GOPATH" {
				break // Go writes its module cache in the first GOPATH entry only
			}
		}
	}
	if mode == WorkspaceWrite {
		for _, h := range p.homes {
			for _, c := range defaultCaches {
				path := filepath.Join(h, filepath.FromSlash(c.rel))
				if h == p.userHome {
					p.add(Place{Path: p.resolve(path), Kind: KindCache, Why: c.why})
				} else {
					p.envPlace(path, KindCache, "HOME ("+c.why+")")
				}
			}
			for _, c := range defaultCacheFiles {
				path := filepath.Join(h, filepath.FromSlash(c.rel))
				if h == p.userHome {
					p.add(Place{Path: p.resolve(path), Kind: KindCache, Why: c.why, File: true})
				}
			}
		}
		for _, t := range in.TrashDirs {
			if t != "" {
				p.trashPlace(t)
			}
		}
		for _, w := range in.Config.Writable {
			p.add(Place{Path: p.resolve(p.expandHome(w)), Kind: KindConfig, Why: "sandbox.writable"})
		}
	}
	for _, s := range p.Secrets {
		for _, w := range p.Writable {
			if w.Kind != KindDevice && within(s, w.Path) {
				p.Unhidden = append(p.Unhidden, Refusal{Path: s, From: w.Path,
					Why: "it is inside the writable " + w.Path + " (" + w.Why + "), and no rule can hide a path inside one that is granted"})
				break
			}
		}
	}
	return p
}

// userHome is the home folder of the user database: pure Go where cgo is
// off, so the caller's $HOME cannot move it.
func userHome() string {
	u, err := user.Current()
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		return ""
	}
	return u.HomeDir
}

func (p *Policy) expandHome(s string) string {
	switch {
	case s == "~":
		return p.userHome
	case strings.HasPrefix(s, "~/"):
		return filepath.Join(p.userHome, s[2:])
	}
	return s
}

// protect lists the protected paths: the workspace's .mcode.yaml, git's
// hooks and config, and mcode's own approvals and audit log.
func (p *Policy) protect() {
	p.Protected = append(p.Protected, filepath.Join(p.Root, ".mcode.yaml"))
	gitDir := filepath.Join(p.Root, ".git")
	if info, err := os.Lstat(gitDir); err == nil && info.IsDir() {
		p.Pinned = append(p.Pinned, gitDir)
	}
	p.Protected = append(p.Protected, gitProtected(gitDir)...)
	p.Protected = append(p.Protected, submoduleProtected(gitDir)...)
	if p.dataDir != "" {
		p.Protected = append(p.Protected, filepath.Join(p.dataDir, "approvals"), filepath.Join(p.dataDir, "audit.jsonl"))
	}
}

// gitProtected are the files of a git folder that make git run code:
// its hooks and its config (core.hooksPath, filters, aliases).
func gitProtected(gitDir string) []string {
	return []string{filepath.Join(gitDir, "hooks"), filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree")}
}

// maxSubmodules bounds the submodules whose git folders are protected:
// each costs a few read-only mounts per command.
const maxSubmodules = 64

// submoduleProtected are the hooks and configs of the submodules' git
// folders (gitDir/modules/NAME, NAME may hold slashes, and submodules of
// submodules below them): git runs them as it runs the repository's own
// — the superproject's git status runs a submodule's core.fsmonitor.
func submoduleProtected(gitDir string) []string {
	var out []string
	n := 0
	var visit func(dir string, depth int)
	visit = func(dir string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil || depth > 8 {
			return
		}
		for _, e := range entries {
			if !e.IsDir() || n >= maxSubmodules {
				continue
			}
			sub := filepath.Join(dir, e.Name())
			if exists(filepath.Join(sub, "HEAD")) { // a git folder
				n++
				out = append(out, gitProtected(sub)...)
				visit(filepath.Join(sub, "modules"), depth+1)
			} else { // a part of a name with slashes
				visit(sub, depth+1)
			}
		}
	}
	visit(filepath.Join(gitDir, "modules"), 0)
	return out
}

// gitDirs makes the git folders of a linked worktree writable (git commit
// writes there), with their hooks and config protected. The worktree's
// .git is a file the caller can write, so a folder it names is trusted
// only when it points back at this worktree, as git's own link does.
func (p *Policy) gitDirs() {
	dotGit := filepath.Join(p.Root, ".git")
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return // a folder (or none): inside the root already
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(p.Root, target)
	}
	gitDir := p.resolve(target)
	back, err := os.ReadFile(filepath.Join(gitDir, "gitdir"))
	if err != nil || p.resolve(strings.TrimSpace(string(back))) != p.resolve(dotGit) {
		return
	}
	p.add(Place{Path: gitDir, Kind: KindGit, Why: "the worktree's git folder"})
	p.Protected = append(p.Protected, gitProtected(gitDir)...)
	// The links that say where git finds the repository: rewritten
	// (.git, commondir, gitdir) or swapped with their folder, they would
	// point git, run later outside the sandbox, at a config and hooks of
	// the command's making.
	p.Protected = append(p.Protected, p.resolve(dotGit), filepath.Join(gitDir, "commondir"), filepath.Join(gitDir, "gitdir"))
	p.Pinned = append(p.Pinned, gitDir)
	common := gitDir
	if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		rel := strings.TrimSpace(string(c))
		if !filepath.IsAbs(rel) {
			rel = filepath.Join(gitDir, rel)
		}
		common = p.resolve(rel)
	}
	if common != gitDir {
		p.add(Place{Path: common, Kind: KindGit, Why: "the repository's git folder (shared by its worktrees)"})
		p.Protected = append(p.Protected, gitProtected(common)...)
		p.Protected = append(p.Protected, submoduleProtected(common)...)
		p.Pinned = append(p.Pinned, common)
		if wts := filepath.Join(common, "worktrees"); within(gitDir, wts) {
			p.Pinned = append(p.Pinned, wts)
		}
	}
}

// add appends a writable place once. In read-only mode a temp folder that
// is or holds the workspace is left out: the workspace stays read-only
// even where it lies in /tmp.
func (p *Policy) add(pl Place) {
	if pl.Path == "" || pl.Path == "/" {
		return
	}
	if p.Mode == ReadOnly && pl.Kind != KindDevice && (within(p.Root, pl.Path) || within(pl.Path, p.Root)) {
		return
	}
	for _, w := range p.Writable {
		if w.Path == pl.Path {
			return
		}
	}
	p.Writable = append(p.Writable, pl)
}

// allowedRoots are where a place named by the caller's environment may
// lie: the workspace, the temp folders and the user's own cache folder.
// Anywhere else (~/.local/bin, ~/.config, /etc, …) a writable folder
// would let a command plant what runs later outside the sandbox.
func (p *Policy) allowedRoots() []string {
	roots := []string{p.Root, "/tmp", "/var/tmp", "/dev/shm", "/run/user/" + strconv.Itoa(os.Getuid())}
	if p.userHome != "" {
		roots = append(roots, filepath.Join(p.userHome, ".cache"))
	}
	for i, r := range roots {
		roots[i] = p.resolve(r)
	}
	return roots
}

// envPlace makes a folder the caller's environment named writable, unless
// that would widen what the caller may write (see allowedRoots) or open a
// home, a config folder, a secret or mcode's data folder.
func (p *Policy) envPlace(dir string, kind Kind, from string) {
	real := p.resolve(dir)
	if why := p.refuseReason(real); why != "" {
		p.Refused = append(p.Refused, Refusal{Path: real, From: from, Why: why})
		return
	}
	p.add(Place{Path: real, Kind: kind, Why: from})
}

func (p *Policy) refuseReason(real string) string {
	if real == "/" {
		return "it is the whole file system"
	}
	for _, h := range p.homes {
		if within(h, real) {
			return "it is or holds the home folder " + h
		}
	}
	for _, c := range p.configDirs {
		if within(c, real) || within(real, c) {
			return "it is, holds or is inside the config folder " + c
		}
	}
	for _, s := range p.Secrets {
		if within(s, real) || within(real, s) {
			return "it is, holds or is inside the secret " + s
		}
	}
	if p.dataDir != "" && (within(p.dataDir, real) || within(real, p.dataDir)) {
		return "it is, holds or is inside mcode's data folder " + p.dataDir
	}
	// Inside a home folder only its known caches (and the workspace):
	// elsewhere there (~/.local/bin, ~/bin, …) a command could plant what
	// the person runs later.
	for _, h := range p.homes {
		if !within(real, h) || within(real, p.Root) {
			continue
		}
		known := within(real, filepath.Join(h, homeTrash))
		for _, c := range defaultCaches {
			known = known || within(real, filepath.Join(h, filepath.FromSlash(c.rel)))
		}
		if !known {
			return "it is inside the home folder " + h + ", outside its caches"
		}
	}
	for _, r := range p.allowedRoots() {
		if within(real, r) {
			return ""
		}
	}
	return "it is outside the places an environment variable may make writable (the workspace, /tmp, /var/tmp, /dev/shm, /run/user/UID, ~/.cache); a person adds it with sandbox.writable in the user config"
}

// trashPlace makes a trash folder writable: the default home trash, or
// one trash.dir or XDG_DATA_HOME moved, checked as the environment's
// places are (trash.dir may come from the workspace's file).
func (p *Policy) trashPlace(dir string) {
	real := p.resolve(dir)
	if p.userHome != "" && real == p.resolve(filepath.Join(p.userHome, homeTrash)) {
		p.add(Place{Path: real, Kind: KindTrash, Why: "the home trash (the rm shim deletes into it)"})
		return
	}
	p.envPlace(real, KindTrash, "trash.dir or XDG_DATA_HOME (the rm shim deletes into it)")
}

// CanWrite says whether the sandbox lets the tree write path (absolute,
// resolved here), and if not, why, in the words bash's denial uses.
func (p *Policy) CanWrite(path string) (ok bool, why string) {
	return p.canWrite(Resolve(path, false))
}

// CanRemove is CanWrite for removing path itself: a symbolic link there
// is removed, not followed.
func (p *Policy) CanRemove(path string) (ok bool, why string) {
	real := Resolve(path, true)
	if p.Mode != DangerFullAccess {
		// Removing a folder removes what it holds: .git takes its hooks
		// and config with it, as MCODE_HOME its approvals.
		for _, pr := range slices.Concat(p.Protected, p.Pinned) {
			if pr != real && within(pr, real) && exists(pr) {
				return false, real + " holds the protected " + pr + ", which stays in place (sandbox " + string(p.Mode) + ")"
			}
		}
	}
	return p.canWrite(real)
}

func (p *Policy) canWrite(real string) (ok bool, why string) {
	if p.Mode == DangerFullAccess {
		return true, ""
	}
	for _, pr := range p.Protected {
		if within(real, pr) {
			return false, real + " is protected: " + filepath.Base(pr) + " stays read-only inside the workspace (sandbox " + string(p.Mode) + ")"
		}
	}
	for _, w := range p.Writable {
		if w.File && real == w.Path || !w.File && within(real, w.Path) {
			return true, ""
		}
	}
	return false, real + " is outside the sandbox's writable set (" + string(p.Mode) + ": " + p.WritableSummary() + ")"
}

// CanRead says whether the sandbox lets the tree read path.
func (p *Policy) CanRead(path string) (ok bool, why string) {
	if p.Mode == DangerFullAccess {
		return true, ""
	}
	real := Resolve(path, false)
	for _, s := range p.Secrets {
		if within(real, s) {
			return false, real + " is hidden by the sandbox: " + s + " holds secrets (sandbox.readDeny and the built-in list)"
		}
	}
	return true, ""
}

// CallerWritable says whether a caller confined by this policy (or using
// mcode's own tools under the same line) can change path: a file there
// is the caller's, and must not be trusted as the person's (a user
// config that XDG_CONFIG_HOME moved into /tmp, say). Protected paths
// count as writable here unless the kernel holds them, which only the
// status of a run knows, so the answer errs on the side of distrust.
func (p *Policy) CallerWritable(path string) bool {
	real := Resolve(path, false)
	for _, w := range p.Writable {
		if w.Kind == KindDevice {
			continue
		}
		if w.File && real == w.Path || !w.File && within(real, w.Path) {
			return true
		}
	}
	return false
}

// WritableSummary names the writable set in a few words.
func (p *Policy) WritableSummary() string {
	var parts []string
	caches := 0
	for _, w := range p.Writable {
		switch w.Kind {
		case KindDevice:
		case KindWorkspace:
			parts = append(parts, "the workspace "+w.Path)
		case KindCache:
			caches++
		default:
			parts = append(parts, w.Path)
		}
	}
	if caches > 0 {
		parts = append(parts, strconv.Itoa(caches)+" toolchain caches")
	}
	if len(parts) == 0 {
		return "nothing but /dev/null"
	}
	return strings.Join(parts, ", ")
}

// within says whether p is dir or below it.
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

func appendNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// Resolve follows the symlinks of an absolute path as far as it exists:
// the longest existing prefix is resolved and the rest joined to it (a
// dangling link is followed to where writing through it would create
// its target). With keepLast the last element is not followed (rm
// removes a link, not what it points to).
func Resolve(abs string, keepLast bool) string {
	var r resolver
	if keepLast {
		dir, base := filepath.Split(filepath.Clean(abs))
		if base == "" || dir == "" {
			return filepath.Clean(abs)
		}
		return filepath.Join(r.real(filepath.Clean(dir), 0), base)
	}
	return r.real(filepath.Clean(abs), 0)
}

// resolver resolves paths one component at a time, remembering each
// folder: a policy resolves dozens of paths under the same few folders,
// and each component costs one lstat.
type resolver struct {
	seen map[string]string
	// missing holds the resolved paths found absent: nothing below one
	// exists either, so its children need no stat (most of the secrets
	// and caches a policy names are under folders a home does not have).
	missing map[string]bool
}

// maxLinks bounds the symlinks followed for one path, as the kernel's
// ELOOP does.
const maxLinks = 40

func (r *resolver) real(p string, depth int) string {
	if p == "/" || p == "." || !filepath.IsAbs(p) {
		return p
	}
	if got, ok := r.seen[p]; ok {
		return got
	}
	if r.seen == nil {
		r.seen, r.missing = map[string]string{}, map[string]bool{}
	}
	parent := r.real(filepath.Dir(p), depth)
	cand := filepath.Join(parent, filepath.Base(p))
	out := cand
	if r.missing[parent] {
		r.missing[cand] = true
	} else if info, err := os.Lstat(cand); errors.Is(err, fs.ErrNotExist) {
		r.missing[cand] = true
	} else if err == nil && info.Mode()&fs.ModeSymlink != 0 && depth < maxLinks {
		if target, err := os.Readlink(cand); err == nil {
			if !filepath.IsAbs(target) {
				target = filepath.Join(parent, target)
			}
			out = r.real(filepath.Clean(target), depth+1)
		}
	}
	r.seen[p] = out
	return out
}
