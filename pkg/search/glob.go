package search

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Limits of glob.
const (
	GlobDefaultLimit = 200
	GlobMaxLimit     = 10000
)

// Glob entry types.
const (
	TypeFile = "file"
	TypeDir  = "dir"
)

// GlobParams are glob's parameters (the wire contract).
type GlobParams struct {
	Pattern        string `json:"pattern"`
	Path           string `json:"path,omitempty"`
	IncludeIgnored bool   `json:"include_ignored,omitempty"`
	Sort           string `json:"sort,omitempty"`
	Limit          int    `json:"limit,omitempty"`
	Type           string `json:"type,omitempty"`
	// fd's flags.
	Exclude   []string `json:"exclude,omitempty"`
	Extension []string `json:"extension,omitempty"`
	MaxDepth  int      `json:"max_depth,omitempty"`
}

// GlobSkipped counts what glob left out.
type GlobSkipped struct {
	Ignored    int `json:"ignored"`
	Sensitive  int `json:"sensitive"`
	Unreadable int `json:"unreadable"` // folders that could not be opened (permission denied, vanished)
}

// GlobResult is glob's structured answer.
type GlobResult struct {
	Pattern        string      `json:"pattern"`
	Path           string      `json:"path"`
	Type           string      `json:"type"`
	Paths          []string    `json:"paths"`
	Count          int         `json:"count"`
	Total          int         `json:"total"`
	AtLeast        bool        `json:"at_least"`
	Truncated      bool        `json:"truncated"`
	Partial        bool        `json:"partial"`
	IncludeIgnored bool        `json:"include_ignored"` // whether ignore rules were lifted
	Skipped        GlobSkipped `json:"skipped"`
	IgnoredDirs    []string    `json:"ignored_dirs"`
	Note           string      `json:"note,omitempty"`
	Hint           string      `json:"hint,omitempty"`

	raw map[string]string // names as they are, for the text output (target.raw)
}

type globWorker struct {
	top   topHits
	total int
}

type globRun struct {
	p       GlobParams
	t       *target
	prefix  string // the pattern's literal folder part ("" for none)
	depth   int    // path segments the pattern spans; -1 with "**"
	exclude *globFilter
	exts    []string // ".go": lower case, as fd matches them
	// suffix is set for the commonest pattern, "**/*" and a plain ending
	// ("**/*.go"): it matches exactly the paths whose name ends so.
	suffix  string
	workers []globWorker
	walk    *walker
}

func normalizeGlob(p *GlobParams) error {
	pat := strings.TrimPrefix(p.Pattern, "./")
	if pat == "" {
		return (&tool.Error{Code: tool.CodeInvalidArgs, Message: "empty pattern"}).WithHint(`pass a pattern such as "**/*.go"`)
	}
	if strings.HasPrefix(pat, "/") || slices.Contains(strings.Split(pat, "/"), "..") {
		return (&tool.Error{Code: tool.CodeInvalidArgs,
			Message: fmt.Sprintf("pattern %q must be relative to the search folder, without \"..\"", p.Pattern)}).
			WithHint("pass the folder as path and a relative pattern, e.g. path: /abs/dir, pattern: **/*.go")
	}
	if !doublestar.ValidatePattern(pat) {
		return (&tool.Error{Code: tool.CodeInvalidArgs, Message: fmt.Sprintf("invalid glob pattern %q: unclosed [ or {, or a trailing \\", p.Pattern)}).
			WithHint(`use doublestar syntax: * within a folder, ** across folders, ? one character, [abc], {a,b}`)
	}
	switch p.Type {
	case "", "f":
		p.Type = TypeFile
	case "d":
		p.Type = TypeDir
	}
	if p.MaxDepth < 0 {
		return tool.Errorf(tool.CodeInvalidArgs, "max_depth %d: use 1 or more (0: no limit)", p.MaxDepth)
	}
	for _, e := range p.Extension {
		if strings.TrimPrefix(e, ".") == "" || strings.Contains(e, "/") {
			return (&tool.Error{Code: tool.CodeInvalidArgs, Message: fmt.Sprintf("extension %q is not a file extension", e)}).
				WithHint(`pass the extension alone, e.g. --extension go`)
		}
	}
	if p.Type != TypeFile && p.Type != TypeDir {
		return tool.Errorf(tool.CodeInvalidArgs, "type %q: use file (f) or dir (d)", p.Type)
	}
	if strings.HasSuffix(pat, "/") {
		folder := strings.TrimRight(pat, "/")
		if p.Type == TypeFile {
			return (&tool.Error{Code: tool.CodeInvalidArgs,
				Message: fmt.Sprintf("pattern %q ends in /, which only a folder can match, and type is file", p.Pattern)}).
				WithHint("pass %q for the files inside, or type dir to list the folders", folder+"/**")
		}
		pat = folder
	}
	p.Pattern = pat
	return normalizeLimitSort(&p.Limit, GlobDefaultLimit, GlobMaxLimit, &p.Sort)
}

// specific reports whether a pattern names a folder or file beyond wildcards:
// some segment is a plain name ("node_modules/**", "**/go.sum").
func specific(pattern string) bool {
	for _, seg := range strings.Split(pattern, "/") {
		if seg != "" && !strings.ContainsAny(seg, "*?[{\\") {
			return true
		}
	}
	return false
}

// Glob lists the files (or folders) whose paths match a pattern.
func Glob(ctx context.Context, env *tool.Env, p GlobParams) (*GlobResult, error) {
	if err := normalizeGlob(&p); err != nil {
		return nil, err
	}
	lift := p.IncludeIgnored && specific(p.Pattern)
	t, err := resolveTarget(env, p.Path, !lift)
	if err != nil {
		return nil, err
	}
	if t.isFile {
		return nil, (&tool.Error{Code: tool.CodeNotADirectory, Message: fmt.Sprintf("%s is a file, not a folder", t.display)}).
			WithHint("pass the folder to search as path")
	}
	g := &globRun{p: p, t: t, depth: -1}
	var excludes []string
	for _, e := range p.Exclude {
		excludes = append(excludes, "!"+strings.TrimPrefix(e, "!"))
	}
	if g.exclude, err = newGlobFilter(excludes); err != nil {
		return nil, err
	}
	for _, e := range p.Extension {
		g.exts = append(g.exts, "."+strings.ToLower(strings.TrimPrefix(e, ".")))
	}
	if base, _ := doublestar.SplitPattern(p.Pattern); base != "." && !strings.Contains(base, "\\") {
		g.prefix = base
	}
	if !strings.Contains(p.Pattern, "**") {
		g.depth = strings.Count(p.Pattern, "/") + 1
	}
	g.suffix = anyNameEnding(p.Pattern)
	n := workerCount()
	g.workers = make([]globWorker, n)
	g.walk = newWalker(t, n, g)
	g.walk.useIgnore = !lift
	g.walk.wantDirs = p.Type == TypeDir
	g.walk.skipGit = !lift || !slices.Contains(strings.Split(p.Pattern, "/"), ".git")
	complete := g.walk.run(ctx, dirJob{rel: t.rel, rules: t.rules, repo: t.repo})
	return g.result(complete, lift), nil
}

// enterDir prunes folders off the pattern's literal prefix and below its depth.
func (g *globRun) enterDir(rel, name string) bool {
	r := g.t.fromRoot(rel)
	if g.prefix != "" && !(strings.HasPrefix(g.prefix+"/", r+"/") || strings.HasPrefix(r, g.prefix+"/")) {
		return false
	}
	if g.depth >= 0 && strings.Count(r, "/")+1 >= g.depth {
		return false
	}
	if g.p.MaxDepth > 0 && strings.Count(r, "/")+1 >= g.p.MaxDepth {
		return false
	}
	return g.exclude.dir(r, name)
}

// anyNameEnding is LIT for a pattern "**/*LIT" whose LIT has no wildcard
// or separator, else "". Such a pattern matches a path, at any depth, iff
// its last name ends in LIT: a suffix test stands in for doublestar.
func anyNameEnding(pattern string) string {
	lit, ok := strings.CutPrefix(pattern, "**/*")
	if !ok || lit == "" || strings.ContainsAny(lit, "*?[]{}\\/") {
		return ""
	}
	return lit
}

func (g *globRun) wantFile(rel, name string) bool {
	if g.p.Type != TypeFile {
		return false
	}
	if g.suffix != "" {
		return strings.HasSuffix(name, g.suffix) && g.fdFilters(rel, name, false)
	}
	return doublestar.MatchUnvalidated(g.p.Pattern, g.t.fromRoot(rel)) && g.fdFilters(rel, name, false)
}

// fdFilters are fd's --extension, --max-depth and --exclude.
func (g *globRun) fdFilters(rel, name string, dir bool) bool {
	if g.p.MaxDepth == 0 && g.exclude == nil && len(g.exts) == 0 {
		return true
	}
	r := g.t.fromRoot(rel)
	if g.p.MaxDepth > 0 && strings.Count(r, "/")+1 > g.p.MaxDepth {
		return false
	}
	if len(g.exts) > 0 {
		lower := strings.ToLower(name)
		if !slices.ContainsFunc(g.exts, func(e string) bool { return strings.HasSuffix(lower, e) && len(lower) > len(e) }) {
			return false
		}
	}
	if dir {
		return g.exclude.dir(r, name)
	}
	return g.exclude.file(r, name)
}

func (g *globRun) file(wk *worker, d dirHandle, rel, name string, typ entryType) {
	g.add(wk, d, rel, name)
}

func (g *globRun) dir(wk *worker, d dirHandle, rel, name string) {
	if doublestar.MatchUnvalidated(g.p.Pattern, g.t.fromRoot(rel)) && g.fdFilters(rel, name, true) {
		g.add(wk, d, rel, name)
	}
}

func (g *globRun) add(wk *worker, d dirHandle, rel, name string) {
	gw := &g.workers[wk.id]
	gw.total++
	h := fileHit{rel: rel}
	if g.p.Sort == SortModified {
		_, h.mtime, _, _ = d.lstat(name)
	}
	if gw.top.wants(&h, g.p.Sort) {
		h.rel = strings.Clone(rel) // rel is the walk's scratch
		if gw.top.hits == nil {
			// Room for what add holds before it trims (4 × limit): a
			// large tree fills it anyway, and growing it by doubling
			// would leave twice that as garbage.
			gw.top.hits = make([]fileHit, 0, min(4*g.p.Limit+1, 1024))
		}
		gw.top.add(h, g.p.Limit, g.p.Sort)
	}
}

func (g *globRun) result(complete, lift bool) *GlobResult {
	p := g.p
	res := &GlobResult{Pattern: p.Pattern, Path: g.t.display, Type: p.Type, Partial: !complete, AtLeast: !complete, IncludeIgnored: lift}
	var hits []fileHit
	for i := range g.workers {
		hits = append(hits, g.workers[i].top.hits...)
		res.Total += g.workers[i].total
	}
	var stats walkStats
	for _, wk := range g.walk.workers {
		stats.add(&wk.stats)
	}
	res.Skipped = GlobSkipped{Ignored: stats.ignored, Sensitive: stats.sensitive, Unreadable: stats.unreadable}
	res.IgnoredDirs = stats.topIgnoredDirs(5)
	slices.SortFunc(hits, func(a, b fileHit) int { return hitLess(&a, &b, p.Sort) })
	res.Paths = []string{}
	for _, h := range hits[:min(len(hits), p.Limit)] {
		res.Paths = append(res.Paths, g.t.show(h.rel))
	}
	res.Count = len(res.Paths)
	res.Truncated = res.Count < res.Total
	var notes, hints []string
	if g.t.excluded {
		notes = append(notes, fmt.Sprintf("%s is excluded by ignore rules or default excludes; listed because it was named explicitly", g.t.display))
	}
	if p.IncludeIgnored && !lift {
		notes = append(notes, fmt.Sprintf("include_ignored applies only to a pattern that names a folder or file (such as node_modules/**/*.js or **/debug.log); ignore rules were kept for %q", p.Pattern))
	}
	if res.Skipped.Unreadable > 0 {
		dirs := slices.Clone(stats.unreadableDirs)
		for i, d := range dirs {
			dirs[i] = g.t.show(d)
		}
		slices.Sort(dirs)
		hints = append(hints, fmt.Sprintf("%d folder%s could not be read, so %s contents are not listed (%s): check the permissions with ls -ld",
			res.Skipped.Unreadable, plural(res.Skipped.Unreadable), itsTheir(res.Skipped.Unreadable), strings.Join(dirs[:min(len(dirs), 5)], ", ")))
	} else if res.Total == 0 && !strings.HasPrefix(p.Pattern, "**") {
		hints = append(hints, fmt.Sprintf("the pattern is anchored at the searched folder (%s): %q matches at any depth", res.Path, "**/"+p.Pattern))
	}
	if res.Truncated {
		hints = append(hints, fmt.Sprintf("showing %d of %s: pass --limit (up to %d) or a narrower pattern or path", res.Count, totalText(res.Total, res.AtLeast), GlobMaxLimit))
	}
	if res.Skipped.Ignored > 0 && !lift {
		hints = append(hints, "ignored paths are not listed: pass --include-ignored with a pattern that names the folder (e.g. "+ignoredExample(res.IgnoredDirs)+") to list them")
	}
	res.Note = strings.Join(notes, "; ")
	res.Hint = strings.Join(hints, "; ")
	res.raw = g.t.raw
	return res
}

func itsTheir(n int) string {
	if n == 1 {
		return "its"
	}
	return "their"
}

func ignoredExample(dirs []string) string {
	if len(dirs) == 0 {
		return "dist/**"
	}
	return path.Clean(dirs[0]) + "/**"
}

// render is the text a model reads: the paths, then the summary, which
// is also returned alone (the notices of -o text).
func (res *GlobResult) render() (text, notices string) {
	var b strings.Builder
	for _, p := range res.Paths {
		b.WriteString(textPath(res.raw, p))
		b.WriteByte('\n')
	}
	body := b.Len()
	kind := "file"
	if res.Type == TypeDir {
		kind = "folder"
	}
	if res.Total == 0 {
		fmt.Fprintf(&b, "No %ss match %q in %s", kind, res.Pattern, res.Path)
	} else {
		fmt.Fprintf(&b, "[%s %s%s", totalText(res.Total, res.AtLeast), kind, plural(res.Total))
		if res.Truncated {
			fmt.Fprintf(&b, ", showing %d", res.Count)
		}
		b.WriteString("]")
	}
	if s := (Skipped{Ignored: res.Skipped.Ignored, Sensitive: res.Skipped.Sensitive, Unreadable: res.Skipped.Unreadable}).describe(res.IgnoredDirs, MaxFileSize); s != "" {
		b.WriteString(" (skipped " + s + ")")
	}
	writeTail(&b, "walk", res.Partial, res.Note, res.Hint)
	return b.String(), b.String()[body:]
}
