package search

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mcode-dev/mcode/pkg/sensitive"
)

type entryType uint8

const (
	typeFile entryType = iota
	typeDir
	typeSymlink
	typeOther // FIFO, socket, device
	typeUnknown
)

type fileInfo struct {
	typ   entryType
	size  int64
	mtime int64 // Unix nanoseconds
}

// DefaultExcludes are folders of dependencies, build output, caches and
// version control that search skips unless ignore rules are lifted. In a
// git work tree they apply only to what git does not track: a tracked
// build/ full of real sources is searched.
var DefaultExcludes = []string{
	".git", ".hg", ".svn", ".bzr", ".jj",
	"node_modules", "bower_components", "jspm_packages",
	"dist", "build", "target", "out",
	".venv", "venv", "__pycache__", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
	".gradle", ".next", ".nuxt", ".svelte-kit", ".parcel-cache", ".turbo", ".terraform",
}

func isDefaultExcluded(name string) bool {
	return slices.Contains(DefaultExcludes, name)
}

// ignoreFiles are read in every folder, lowest precedence first.
var ignoreFiles = []string{".gitignore", ".ignore", ".mcodeignore"}

// walkStats counts what a walk left out.
type walkStats struct {
	ignored     int // files and folders excluded by ignore rules or default excludes
	sensitive   int
	special     int // FIFOs, sockets, devices
	unreadable  int // folders or files that could not be opened
	ignoredDirs []string
	// unreadableDirs names folders that could not be opened (a few).
	unreadableDirs []string
}

const maxIgnoredExamples = 64

func (s *walkStats) add(o *walkStats) {
	s.ignored += o.ignored
	s.sensitive += o.sensitive
	s.special += o.special
	s.unreadable += o.unreadable
	s.ignoredDirs = append(s.ignoredDirs, o.ignoredDirs...)
	s.unreadableDirs = append(s.unreadableDirs, o.unreadableDirs...)
}

// topIgnoredDirs names a few excluded folders, shallowest first.
func (s *walkStats) topIgnoredDirs(n int) []string {
	dirs := slices.Clone(s.ignoredDirs)
	slices.SortFunc(dirs, func(a, b string) int {
		if da, db := strings.Count(a, "/"), strings.Count(b, "/"); da != db {
			return da - db
		}
		return strings.Compare(a, b)
	})
	return dirs[:min(n, len(dirs))]
}

// visitor receives what the walk finds. Calls come from several workers
// at once; each worker passes its own *worker. Paths are relative to the
// walk's base. The rel and name strings passed are valid only during the
// call (they point into the worker's scratch buffers, which the next
// entry or folder overwrites): a visitor clones what it keeps.
type visitor interface {
	// wantFile is asked before the sensitive and ignore rules are, so
	// that only files the caller wants count as skipped.
	wantFile(rel, name string) bool
	// enterDir prunes folders the caller can have no use for.
	enterDir(rel, name string) bool
	// file is called for regular files and symlinks (never followed).
	file(w *worker, d dirHandle, rel, name string, typ entryType)
	// dir is called for every folder found (when wantDirs).
	dir(w *worker, d dirHandle, rel, name string)
}

type worker struct {
	id      int
	stats   walkStats
	dirBuf  []byte // getdents scratch
	fileBuf []byte // file contents scratch
	ruleBuf []byte // ignore files scratch: small, as they are
	// One folder's entries: their names one after another in nameBuf,
	// viewed as strings (no allocation per entry) while it is read.
	nameBuf []byte
	names   []dirent
	relBuf  []byte // the path of the entry being judged
	pathBuf []byte // the absolute path of the folder opened, NUL-terminated
	subdirs []dirJob
}

type dirent struct {
	start, end uint32 // where the name is in nameBuf
	typ        entryType
}

// name is an entry's name, valid while the worker reads its folder.
func (wk *worker) name(e dirent) string { return view(wk.nameBuf[e.start:e.end]) }

// view is b as a string, without a copy: valid while b's bytes are not
// changed (appending to b beyond its length leaves them as they are).
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

type dirJob struct {
	rel     string // relative to the walk's base, slash-separated
	rules   *rules
	tracked bool     // inside an excluded folder that git tracks files in: only tracked paths pass
	repo    *gitRepo // the work tree this folder belongs to, if any
	repoRel string   // that work tree's top, relative to the walk's base
}

// walker is a parallel walk of one tree: workers take folders from a
// shared stack, read each once, push its subfolders and hand its files to
// the visitor in the same worker, so no goroutine or allocation is spent
// per file.
type walker struct {
	base      string // absolute; every rel path is relative to it
	git       gitEnv
	useIgnore bool // ignore files and default excludes apply
	skipGit   bool // .git folders are never entered
	wantDirs  bool
	hidden    map[string]bool // paths (relative to base) never listed nor read
	visit     visitor
	workers   []*worker

	stop atomic.Bool

	mu    sync.Mutex
	cond  *sync.Cond
	stack []dirJob
	busy  int
}

func newWalker(t *target, n int, v visitor) *walker {
	w := &walker{base: t.base, git: t.git, hidden: t.hidden, useIgnore: true, skipGit: true, visit: v}
	w.cond = sync.NewCond(&w.mu)
	for i := range n {
		w.workers = append(w.workers, &worker{id: i})
	}
	return w
}

// run walks from the given folder (relative to base) until done or ctx
// ends; it reports whether the walk was complete.
func (w *walker) run(ctx context.Context, start dirJob) bool {
	w.stack = append(w.stack, start)
	return w.within(ctx, w.work)
}

// within runs fn, setting w.stop when ctx ends; it reports whether fn
// ran to its end unstopped.
func (w *walker) within(ctx context.Context, fn func()) bool {
	// AfterFunc runs in a goroutine of its own even when ctx is already
	// done, which a small walk can outrun: a spent ctx stops it here.
	w.stop.Store(ctx.Err() != nil)
	stopWatch := context.AfterFunc(ctx, func() {
		w.stop.Store(true)
		w.mu.Lock()
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	defer stopWatch()
	fn()
	return !w.stop.Load()
}

// work runs the workers until the stack is empty or the walk stops.
func (w *walker) work() {
	var wg sync.WaitGroup
	for _, wk := range w.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				job, ok := w.pop()
				if !ok {
					return
				}
				w.readDir(wk, job)
				w.done()
			}
		}()
	}
	wg.Wait()
}

func (w *walker) pop() (dirJob, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.stack) == 0 && w.busy > 0 && !w.stop.Load() {
		w.cond.Wait()
	}
	if len(w.stack) == 0 || w.stop.Load() {
		return dirJob{}, false
	}
	job := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	w.busy++
	return job, true
}

func (w *walker) done() {
	w.mu.Lock()
	w.busy--
	if w.busy == 0 && len(w.stack) == 0 {
		w.cond.Broadcast()
	}
	w.mu.Unlock()
}

func (w *walker) push(jobs []dirJob) {
	if len(jobs) == 0 {
		return
	}
	w.mu.Lock()
	w.stack = append(w.stack, jobs...)
	w.mu.Unlock()
	if len(jobs) == 1 {
		w.cond.Signal()
	} else {
		w.cond.Broadcast()
	}
}

func (w *walker) abs(rel string) string {
	if rel == "" {
		return w.base
	}
	return w.base + string(filepath.Separator) + filepath.FromSlash(rel)
}

func (w *walker) readDir(wk *worker, job dirJob) {
	if w.stop.Load() {
		return
	}
	wk.pathBuf = append(wk.pathBuf[:0], w.base...)
	if job.rel != "" {
		wk.pathBuf = append(append(wk.pathBuf, filepath.Separator), filepath.FromSlash(job.rel)...)
	}
	wk.pathBuf = append(wk.pathBuf, 0)
	d, err := openDirPath(wk.pathBuf)
	if err != nil {
		wk.stats.unreadable++
		if len(wk.stats.unreadableDirs) < maxIgnoredExamples {
			wk.stats.unreadableDirs = append(wk.stats.unreadableDirs, job.rel)
		}
		return
	}
	defer d.close()
	wk.names, wk.nameBuf = wk.names[:0], wk.nameBuf[:0]
	wk.dirBuf, err = d.readEntries(wk.dirBuf, func(name []byte, typ entryType) {
		start := len(wk.nameBuf)
		wk.nameBuf = append(wk.nameBuf, name...)
		wk.names = append(wk.names, dirent{start: uint32(start), end: uint32(len(wk.nameBuf)), typ: typ})
	})
	if err != nil {
		wk.stats.unreadable++
	}
	prefix := ""
	if job.rel != "" {
		prefix = job.rel + "/"
	}
	rs := job.rules
	if w.useIgnore && job.rel != "" && (job.repo == nil || job.repoRel != job.rel) {
		// A work tree inside the walk (another repository, a submodule):
		// its index decides what is tracked below here.
		for _, e := range wk.names {
			if wk.name(e) == ".git" {
				abs := w.abs(job.rel)
				if r := openRepo(abs, filepath.Join(abs, ".git"), e.typ == typeDir, w.git); r != nil {
					job.repo, job.repoRel, job.tracked = r, job.rel, false
					rs = r.baseRules(rs, job.rel)
				}
				break
			}
		}
	}
	if w.useIgnore {
		for _, f := range ignoreFiles {
			for _, e := range wk.names {
				if wk.name(e) == f && e.typ != typeDir {
					rs = rs.push(w.readRules(wk, d, job.rel, prefix+f, f))
				}
			}
		}
	}
	subdirs := wk.subdirs[:0]
	for _, e := range wk.names {
		name := wk.name(e)
		typ := e.typ
		if typ == typeUnknown {
			typ, _, _, _ = d.lstat(name)
		}
		isDir := typ == typeDir
		if name == ".git" && w.skipGit {
			continue
		}
		wk.relBuf = append(append(wk.relBuf[:0], prefix...), name...)
		rel := view(wk.relBuf)
		if isDir && !w.visit.enterDir(rel, name) && !w.wantDirs {
			continue
		}
		if !isDir && (typ == typeFile || typ == typeSymlink) && !w.visit.wantFile(rel, name) {
			continue
		}
		if sensitive.MatchName(name, isDir) || w.hidden[rel] {
			wk.stats.sensitive++
			continue
		}
		if w.useIgnore {
			excluded, tracked := job.exclusion(rs, rel, name, isDir)
			if excluded {
				wk.stats.ignored++
				if isDir && len(wk.stats.ignoredDirs) < maxIgnoredExamples {
					wk.stats.ignoredDirs = append(wk.stats.ignoredDirs, rel+"/")
				}
				continue
			}
			if tracked && isDir {
				subdirs = w.addDir(wk, d, subdirs, dirJob{rel: strings.Clone(rel), rules: rs, tracked: true, repo: job.repo, repoRel: job.repoRel}, name)
				continue
			}
		}
		switch typ {
		case typeDir:
			subdirs = w.addDir(wk, d, subdirs, dirJob{rel: strings.Clone(rel), rules: rs, repo: job.repo, repoRel: job.repoRel}, name)
		case typeFile, typeSymlink:
			w.visit.file(wk, d, rel, name, typ)
		default:
			wk.stats.special++
		}
		if w.stop.Load() {
			return
		}
	}
	w.push(subdirs)
	wk.subdirs = subdirs[:0] // push copied them
}

// addDir reports a folder to the visitor and queues it unless pruned.
func (w *walker) addDir(wk *worker, d dirHandle, subdirs []dirJob, job dirJob, name string) []dirJob {
	if w.wantDirs {
		w.visit.dir(wk, d, job.rel, name)
	}
	if w.visit.enterDir(job.rel, name) {
		subdirs = append(subdirs, job)
	}
	return subdirs
}

// exclusion decides a path met in job's folder: left out, or kept only
// because git tracks it (a folder is then entered for its tracked files
// alone). Git's rules and the default excludes give way to what git
// tracks; .ignore and .mcodeignore do not. Inside a folder entered for
// its tracked files, nothing else passes.
func (job *dirJob) exclusion(rs *rules, rel, name string, isDir bool) (excluded, tracked bool) {
	ignored, byGit := rs.ignored(rel, name, isDir)
	if !ignored && !job.tracked && !(isDir && isDefaultExcluded(name)) {
		return false, false
	}
	if (ignored && !byGit) || !job.trackedPath(rel, isDir) {
		return true, false
	}
	return false, true
}

// trackedPath reports whether git tracks the file, or something inside
// the folder, at rel (relative to the walk's base). It reads the index on
// first use only: most walks never meet an excluded path.
func (job *dirJob) trackedPath(rel string, isDir bool) bool {
	if job.repo == nil {
		return false
	}
	if job.repoRel != "" {
		rel = rel[len(job.repoRel)+1:]
	}
	if isDir {
		return job.repo.tracksUnder(rel)
	}
	return job.repo.isTracked(rel)
}

// maxIgnoreFileSize bounds the ignore files read; bigger ones are not rules.
const maxIgnoreFileSize = 4 << 20

// ignoreReadSize is the first buffer for ignore files (most are a few
// hundred bytes): a glob reads nothing else, and a file buffer's 256 KiB
// per worker would bring a garbage collection forward.
const ignoreReadSize = 8 << 10

func (w *walker) readRules(wk *worker, d dirHandle, base, source, name string) *ruleSet {
	if wk.ruleBuf == nil {
		wk.ruleBuf = make([]byte, ignoreReadSize)
	}
	data, buf, _, err := d.readFile(name, wk.ruleBuf, maxIgnoreFileSize, false)
	wk.ruleBuf = buf
	if err != nil || data == nil {
		return nil
	}
	return parseRules(base, source, data, name == ".gitignore")
}

// ancestorRules loads the ignore files of the folders from base down to
// (not including) path, the walk's start folder (which the walk reads
// itself) or the file searched. It also reports whether a walk from base
// would have left path out, as an ancestor or itself.
func ancestorRules(base, path string, isDir bool, repo *gitRepo, rs *rules) (*rules, bool) {
	if path == "" {
		return rs, false
	}
	excluded := false
	job := dirJob{repo: repo}
	parts := strings.Split(path, "/")
	for i := range parts {
		dirRel := strings.Join(parts[:i], "/")
		abs := base
		if dirRel != "" {
			abs = filepath.Join(base, filepath.FromSlash(dirRel))
		}
		for _, f := range ignoreFiles {
			data, err := os.ReadFile(filepath.Join(abs, f))
			if err == nil && len(data) <= maxIgnoreFileSize {
				source := f
				if dirRel != "" {
					source = dirRel + "/" + f
				}
				rs = rs.push(parseRules(dirRel, source, data, f == ".gitignore"))
			}
		}
		if !excluded {
			excluded, job.tracked = job.exclusion(rs, strings.Join(parts[:i+1], "/"), parts[i], isDir || i < len(parts)-1)
		}
	}
	return rs, excluded
}
