package search

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/textenc"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Limits of grep (docs/search.md).
const (
	GrepDefaultLimit   = 100
	GrepMaxLimit       = 10000
	GrepMaxOutputBytes = 16 << 10 // content mode text cap
	MaxFileSize        = 1 << 20  // larger files are skipped by the walk
	MaxLineChars       = 500      // longer lines are clipped around the match
	MaxContext         = 20
	BinaryProbeBytes   = 64 << 10 // a NUL in this first block makes a file binary
)

// MaxNamedFileSize bounds a file named as the path: the caller asked for
// it, and bash's spooled output (256 MiB by default), which its hint says
// to search with grep, is often far over MaxFileSize.
const MaxNamedFileSize = 256 << 20

// scanChunk is how much of a file is scanned between checks for a stop.
const scanChunk = 4 << 20

// Grep modes and sort orders.
const (
	ModeFiles   = "files"
	ModeContent = "content"
	ModeCount   = "count"

	SortPath     = "path"
	SortModified = "modified"
)

// GrepParams are grep's parameters (the wire contract).
type GrepParams struct {
	Pattern string `json:"pattern"`
	// Path is one folder or file, or several searched as one.
	Path            Globs  `json:"path,omitempty"`
	Glob            Globs  `json:"glob,omitempty"`
	Mode            string `json:"mode,omitempty"`
	CaseInsensitive bool   `json:"case_insensitive,omitempty"`
	FixedStrings    bool   `json:"fixed_strings,omitempty"`
	Context         int    `json:"context,omitempty"`
	Multiline       bool   `json:"multiline,omitempty"`
	Limit           int    `json:"limit,omitempty"`
	Sort            string `json:"sort,omitempty"`
	NoIgnore        bool   `json:"no_ignore,omitempty"`
	// ripgrep's flags.
	AfterContext     int   `json:"after_context,omitempty"`
	BeforeContext    int   `json:"before_context,omitempty"`
	WordRegexp       bool  `json:"word_regexp,omitempty"`
	FilesWithMatches bool  `json:"files_with_matches,omitempty"`
	CountLines       bool  `json:"count,omitempty"`
	Type             Globs `json:"type,omitempty"`
	InvertMatch      bool  `json:"invert_match,omitempty"`
	MaxCount         int   `json:"max_count,omitempty"`
	Quiet            bool  `json:"quiet,omitempty"`
	Offset           int   `json:"offset,omitempty"`
	LineNumber       bool  `json:"line_number,omitempty"` // line numbers are always shown; without mode, content mode
	Recursive        bool  `json:"recursive,omitempty"`   // grep -r: folders always are
}

// Globs is a list of grep's file filters or paths. A single string is a
// list of one: models used to other agents' grep tools send "glob":
// "*.ts", and "path": "src".
type Globs []string

// UnmarshalJSON accepts a string or an array of strings.
func (g *Globs) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*g = nil
		if one != "" {
			*g = Globs{one}
		}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	*g = list
	return nil
}

// Match is one matching line of content mode.
type Match struct {
	Path   string   `json:"path"`
	Line   int      `json:"line"`
	Text   string   `json:"text"`
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`

	// afterMatches marks the after lines that match too: after the last
	// match max_count allows, ripgrep prints them as matches.
	afterMatches []bool
}

// FileCount is one file of count mode.
type FileCount struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// Skipped counts what a search left out, and why.
type Skipped struct {
	Ignored    int `json:"ignored"`    // files and folders excluded by ignore rules or default excludes
	Sensitive  int `json:"sensitive"`  // secrets: never searched
	TooLarge   int `json:"too_large"`  // over MaxFileSize (MaxNamedFileSize for a file named as the path)
	Binary     int `json:"binary"`     // a NUL byte in the first block
	Unreadable int `json:"unreadable"` // permission denied, vanished, special files
	Symlinks   int `json:"symlinks"`   // never followed: their targets are searched where they live
}

// GrepResult is grep's structured answer.
type GrepResult struct {
	Pattern       string      `json:"pattern"`
	Path          string      `json:"path"`
	Paths         []string    `json:"paths,omitempty"` // the paths searched as one, when there are several
	Mode          string      `json:"mode"`
	Count         int         `json:"count"`          // entries in this answer
	Total         int         `json:"total"`          // entries found: files (files, count) or lines (content)
	AtLeast       bool        `json:"at_least"`       // total is a lower bound: the search stopped early
	MatchedLines  int         `json:"matched_lines"`  // content and count modes
	Truncated     bool        `json:"truncated"`      // fewer entries shown than found
	Partial       bool        `json:"partial"`        // the time limit or an interrupt cut the search short
	Files         []string    `json:"files"`          // files mode
	Matches       []Match     `json:"matches"`        // content mode
	Counts        []FileCount `json:"counts"`         // count mode
	FilesSearched int         `json:"files_searched"` // files read and searched
	Skipped       Skipped     `json:"skipped"`
	IgnoredDirs   []string    `json:"ignored_dirs"`          // a few folders skipped by ignore rules
	Offset        int         `json:"offset"`                // entries skipped before these (--offset)
	NextOffset    int         `json:"next_offset,omitempty"` // where the next page starts, when more remain
	Note          string      `json:"note,omitempty"`
	Hint          string      `json:"hint,omitempty"`

	p       GrepParams        // as normalized, for rendering
	maxSize int               // the size over which a file was skipped
	raw     map[string]string // names as they are, for the text output (target.raw)
}

// fileHit is one matching file (or, for glob, one path) while the
// search runs.
type fileHit struct {
	rel   string
	mtime int64
	count int     // matching lines (1 in files mode)
	lines []Match // content mode: the first matches, with context
}

// entries is how many entries of the answer a hit fills: its lines in
// content mode, else one.
func (h *fileHit) entries() int { return max(1, len(h.lines)) }

type grepWorker struct {
	st         *scanState
	top        topHits
	searched   int
	binary     int
	tooLarge   int
	unreadable int
	symlinks   int
	matchLines int
	matchFiles int
}

type grepRun struct {
	p GrepParams
	t *target
	m *matcher
	// decode says to search a file that is not UTF-8 as read decodes it
	// (textenc.LinesToUTF8): needed only when the pattern can tell the
	// decoded text from the bytes, having non-ASCII text or a Unicode
	// class. Otherwise the bytes match the same lines, and only the lines
	// shown are decoded (clipLine).
	decode bool
	globs  *globFilter
	types  *typeFilter
	// found is set at the first match of a quiet search, which then
	// stops: grep -q needs only to know there is one.
	found   atomic.Bool
	workers []grepWorker
	walk    *walker
	// searched holds the files searched so far when several paths are
	// searched as one (nil for one path): a file two of them reach is
	// searched and counted once.
	searched *sync.Map
}

func normalizeGrep(p *GrepParams) error {
	for _, m := range []struct {
		on   bool
		mode string
		flag string
	}{{p.FilesWithMatches, ModeFiles, "files_with_matches (-l)"}, {p.CountLines, ModeCount, "count (-c)"}} {
		if !m.on {
			continue
		}
		if p.Mode != "" && p.Mode != m.mode {
			return (&tool.Error{Code: tool.CodeUsage,
				Message: fmt.Sprintf("%s asks for %s mode, and mode is %s", m.flag, m.mode, p.Mode)}).
				WithHint("pass one of them")
		}
		p.Mode = m.mode
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"context", p.Context}, {"after_context", p.AfterContext}, {"before_context", p.BeforeContext}} {
		if c.n < 0 || c.n > MaxContext {
			return tool.Errorf(tool.CodeInvalidArgs, "%s %d: use 0 to %d lines", c.name, c.n, MaxContext)
		}
	}
	// As ripgrep: -A and -B override -C on their side.
	if p.AfterContext == 0 {
		p.AfterContext = p.Context
	}
	if p.BeforeContext == 0 {
		p.BeforeContext = p.Context
	}
	hasContext := p.AfterContext > 0 || p.BeforeContext > 0
	if p.Mode == "" {
		// rg's -n, -A, -B and -C ask for lines, as they do in rg.
		p.Mode = ModeFiles
		if hasContext || p.LineNumber {
			p.Mode = ModeContent
		}
	}
	switch p.Mode {
	case ModeFiles, ModeContent, ModeCount:
	default:
		return tool.Errorf(tool.CodeInvalidArgs, "mode %q: use files, content or count", p.Mode)
	}
	if hasContext && p.Mode != ModeContent {
		return (&tool.Error{Code: tool.CodeInvalidArgs,
			Message: fmt.Sprintf("context lines need content mode, not %s mode", p.Mode)}).
			WithHint("pass --mode content with --context, -A or -B, or drop them")
	}
	if p.MaxCount < 0 {
		return tool.Errorf(tool.CodeInvalidArgs, "max_count %d: use 1 or more (0: no limit)", p.MaxCount)
	}
	if p.Offset < 0 {
		return tool.Errorf(tool.CodeInvalidArgs, "offset %d: use 0 or more", p.Offset)
	}
	if p.InvertMatch && p.Multiline {
		return (&tool.Error{Code: tool.CodeUsage, Message: "invert_match (-v) works line by line, and multiline is set"}).
			WithHint("drop --multiline or --invert-match")
	}
	return normalizeLimitSort(&p.Limit, GrepDefaultLimit, GrepMaxLimit, &p.Sort)
}

// keep is how many entries the search holds: the page and what it skips.
func (p *GrepParams) keep() int { return p.Offset + p.Limit }

// expression is the pattern as the matcher compiles it: with
// word_regexp, a match must sit between non-word characters or the line's
// ends, as ripgrep's -w.
func (p *GrepParams) expression() (string, bool) {
	if !p.WordRegexp {
		return p.Pattern, p.FixedStrings
	}
	expr := p.Pattern
	if p.FixedStrings {
		expr = regexp.QuoteMeta(expr)
	}
	return `(?:^|\W)(?:` + expr + `)(?:\W|$)`, false
}

// normalizeLimitSort fills in the default limit and order, and checks them.
func normalizeLimitSort(limit *int, def, most int, sort *string) error {
	if *limit == 0 {
		*limit = def
	}
	if *limit < 1 || *limit > most {
		return tool.Errorf(tool.CodeInvalidArgs, "limit %d: use 1 to %d", *limit, most)
	}
	if *sort == "" {
		*sort = SortPath
	}
	if *sort != SortPath && *sort != SortModified {
		return tool.Errorf(tool.CodeInvalidArgs, "sort %q: use path or modified", *sort)
	}
	return nil
}

// Grep searches files for a pattern.
func Grep(ctx context.Context, env *tool.Env, p GrepParams) (*GrepResult, error) {
	if err := normalizeGrep(&p); err != nil {
		return nil, err
	}
	expr, fixed := p.expression()
	m, err := compileMatcher(expr, fixed, p.CaseInsensitive, p.Multiline)
	if err != nil {
		return nil, err
	}
	globs, err := newGlobFilter(p.Glob)
	if err != nil {
		return nil, err
	}
	types, err := newTypeFilter(p.Type)
	if err != nil {
		return nil, err
	}
	paths := p.Path
	if len(paths) == 0 {
		paths = Globs{"."}
	}
	// Every path is checked before any is searched: a missing one fails
	// the call at once, as a wrong one would alone.
	targets := make([]*target, 0, len(paths))
	for _, path := range paths {
		t, err := resolveTarget(env, path, !p.NoIgnore)
		if err != nil {
			return nil, err
		}
		targets = append(targets, t)
	}
	// Several paths are searched one after the other and answered as
	// one search: one page, one order, one count.
	runs := make([]*grepRun, 0, len(targets))
	complete, found := true, false
	var searched *sync.Map
	if len(targets) > 1 {
		searched = &sync.Map{}
	}
	for _, t := range targets {
		g := &grepRun{p: p, t: t, m: m, globs: globs, types: types, decode: needsDecodedText(p.Pattern), searched: searched}
		n := workerCount()
		if t.isFile {
			n = 1
		}
		g.workers = make([]grepWorker, n)
		for i := range g.workers {
			g.workers[i].st = m.newState()
		}
		g.walk = newWalker(t, n, g)
		g.walk.useIgnore = !p.NoIgnore
		if t.isFile {
			complete = g.walk.within(ctx, g.searchOne)
		} else {
			complete = g.walk.run(ctx, dirJob{rel: t.rel, rules: t.rules, repo: t.repo})
		}
		runs = append(runs, g)
		found = g.found.Load()
		if !complete || found {
			break
		}
	}
	res := grepResult(runs, complete || found)
	res.AtLeast = res.AtLeast || found
	return res, nil
}

// searchOne searches the file named as the path (globs do not apply to it).
func (g *grepRun) searchOne() {
	d, err := openDirHandle(g.t.dir)
	wk := g.walk.workers[0]
	if err != nil {
		g.workers[0].unreadable++
		return
	}
	defer d.close()
	g.search(wk, d, joinRel(g.t.rel, g.t.file), g.t.file, MaxNamedFileSize)
}

func (g *grepRun) dir(*worker, dirHandle, string, string) {}

func (g *grepRun) enterDir(rel, name string) bool {
	return g.globs.dir(g.t.fromRoot(rel), name)
}

func (g *grepRun) wantFile(rel, name string) bool {
	return g.types.file(name) && g.globs.file(g.t.fromRoot(rel), name)
}

func (g *grepRun) file(wk *worker, d dirHandle, rel, name string, typ entryType) {
	if typ != typeFile {
		g.workers[wk.id].symlinks++ // not followed, as ripgrep does: their targets are searched where they live
		return
	}
	g.search(wk, d, strings.Clone(rel), name, MaxFileSize) // rel is the walk's scratch; a hit keeps it
}

func (g *grepRun) search(wk *worker, d dirHandle, rel, name string, maxSize int64) {
	if g.searched != nil {
		if _, again := g.searched.LoadOrStore(filepath.Join(g.t.base, rel), true); again {
			return
		}
	}
	gw := &g.workers[wk.id]
	data, buf, info, err := d.readFile(name, wk.fileBuf, maxSize, g.p.Sort == SortModified)
	wk.fileBuf = buf
	switch {
	case err != nil || info.typ != typeFile:
		gw.unreadable++
		return
	case data == nil:
		gw.tooLarge++
		return
	case bytes.IndexByte(data[:min(len(data), BinaryProbeBytes)], 0) >= 0:
		gw.binary++
		return
	}
	gw.searched++
	if g.decode {
		data = textenc.LinesToUTF8(data, "")
	}
	hit := fileHit{rel: rel, mtime: info.mtime}
	store := g.p.Mode != ModeContent || gw.top.wants(&hit, g.p.Sort)
	line, last := 1, 0
	more := true
	onLine := func(ls, le int) bool {
		hit.count++
		if g.p.Mode == ModeFiles || hit.count == g.p.MaxCount {
			more = false
		}
		if g.p.Mode == ModeContent && store && len(hit.lines) < g.p.keep() {
			line += bytes.Count(data[last:ls], []byte{'\n'})
			last = ls
			hit.lines = append(hit.lines, g.matchAt(data, ls, le, line))
			if !more && g.p.Mode == ModeContent && g.p.MaxCount > 0 {
				g.markAfterMatches(&hit.lines[len(hit.lines)-1])
			}
		}
		return more
	}
	var matched []int // with invert_match: where the matching lines start
	// A file is scanned in chunks of whole lines so that a stop (time
	// limit, interrupt) is seen within a named file of MaxNamedFileSize.
	for from := 0; more && from < len(data) && !g.walk.stop.Load(); {
		to := len(data)
		if !g.p.Multiline && to-from > scanChunk {
			if i := bytes.IndexByte(data[from+scanChunk:], '\n'); i >= 0 {
				to = from + scanChunk + i + 1
			}
		}
		g.m.eachLine(data[from:to], gw.st, func(ls, le int) bool {
			if g.p.InvertMatch {
				matched = append(matched, from+ls)
				return true
			}
			return onLine(from+ls, from+le)
		})
		from = to
	}
	if g.p.InvertMatch {
		for ls := 0; more && ls < len(data); {
			le := bytes.IndexByte(data[ls:], '\n')
			if le < 0 {
				le = len(data)
			} else {
				le += ls
			}
			if len(matched) > 0 && matched[0] == ls {
				matched = matched[1:]
			} else {
				onLine(ls, le)
			}
			ls = le + 1
		}
	}
	if hit.count == 0 {
		return
	}
	if g.p.Quiet {
		g.found.Store(true)
		g.walk.stop.Store(true)
	}
	gw.matchFiles++
	gw.matchLines += hit.count
	gw.top.add(hit, g.p.keep(), g.p.Sort)
}

// matchAt renders one matching line and its context.
func (g *grepRun) matchAt(data []byte, ls, le, line int) Match {
	text := data[ls:le]
	var m Match
	if bytes.IndexByte(text, '\n') >= 0 {
		// A multiline match: each of its lines is clipped on its own.
		var lines []string
		for _, l := range bytes.Split(text, []byte{'\n'}) {
			lines = append(lines, clipLine(l, 0, 0))
		}
		m = Match{Line: line, Text: strings.Join(lines, "\n")}
	} else {
		ms, me := g.m.matchSpan(text)
		m = Match{Line: line, Text: clipLine(text, ms, me)}
	}
	if c := g.p.BeforeContext; c > 0 {
		start := ls
		for i := 0; i < c && start > 0; i++ {
			ps := bytes.LastIndexByte(data[:start-1], '\n') + 1
			m.Before = append(m.Before, clipLine(data[ps:start-1], 0, 0))
			start = ps
		}
		slices.Reverse(m.Before)
	}
	if c := g.p.AfterContext; c > 0 {
		end := le
		for i := 0; i < c && end < len(data); i++ {
			ns := end + 1
			if ns >= len(data) {
				break
			}
			ne := bytes.IndexByte(data[ns:], '\n')
			if ne < 0 {
				ne = len(data)
			} else {
				ne += ns
			}
			m.After = append(m.After, clipLine(data[ns:ne], 0, 0))
			end = ne
		}
	}
	return m
}

// markAfterMatches notes which after lines of the last match would match.
func (g *grepRun) markAfterMatches(m *Match) {
	for _, t := range m.After {
		hit := g.m.re.MatchString(t)
		m.afterMatches = append(m.afterMatches, hit != g.p.InvertMatch)
	}
}

// needsDecodedText reports whether a pattern may match the decoded text
// of a file that is not UTF-8 differently from its bytes: ASCII text
// matches the same bytes in UTF-8, Latin-1 and Windows-1252, and a stray
// byte is one character to the regexp as é is; non-ASCII text and the
// Unicode classes \p{…} and \P{…} are not.
func needsDecodedText(pattern string) bool {
	for i := 0; i < len(pattern); i++ {
		if pattern[i] >= utf8.RuneSelf {
			return true
		}
	}
	return strings.Contains(pattern, `\p`) || strings.Contains(pattern, `\P`)
}

// lineText is a line as read shows it: a line that is not UTF-8 decoded
// (textenc.DecodeLegacy), never with U+FFFD for a stray byte.
func lineText(line []byte) string {
	if utf8.Valid(line) {
		return string(line)
	}
	return textenc.DecodeLegacy(line, "")
}

// clipLine shortens a line longer than MaxLineChars to a window around
// the match [ms, me), marking what was cut on each side.
func clipLine(line []byte, ms, me int) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if utf8.RuneCount(line) <= MaxLineChars {
		return lineText(line)
	}
	const lead = MaxLineChars / 5
	start := max(0, ms-lead)
	end := min(len(line), start+MaxLineChars)
	if me > end && me-start <= MaxLineChars*2 {
		end = min(len(line), me)
	}
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end++
	}
	var b strings.Builder
	if start > 0 {
		fmt.Fprintf(&b, "[…%d bytes] ", start)
	}
	b.WriteString(lineText(line[start:end]))
	if end < len(line) {
		fmt.Fprintf(&b, " […%d bytes]", len(line)-end)
	}
	return b.String()
}

// hitLess orders hits: by path, or newest first then path.
func hitLess(a, b *fileHit, sortBy string) int {
	if sortBy == SortModified && a.mtime != b.mtime {
		if a.mtime > b.mtime {
			return -1
		}
		return 1
	}
	return strings.Compare(a.rel, b.rel)
}

// topHits is one worker's hits that can still be among the first limit
// entries of the answer. It is pruned as it grows, so that a worker holds
// only a few times the limit however many files match.
type topHits struct {
	hits   []fileHit
	stored int      // entries held in hits
	cutoff *fileHit // hits that sort after this one can no longer be shown
}

// wants reports whether a hit can still be among the first entries.
func (t *topHits) wants(h *fileHit, sortBy string) bool {
	return t.cutoff == nil || hitLess(h, t.cutoff, sortBy) < 0
}

// add keeps a hit if it can still be shown.
func (t *topHits) add(h fileHit, limit int, sortBy string) {
	if !t.wants(&h, sortBy) {
		return
	}
	t.hits = append(t.hits, h)
	t.stored += h.entries()
	if t.stored <= 4*limit {
		return
	}
	slices.SortFunc(t.hits, func(a, b fileHit) int { return hitLess(&a, &b, sortBy) })
	acc := 0
	for i := range t.hits {
		acc += t.hits[i].entries()
		if acc >= limit {
			t.hits = t.hits[:i+1]
			cut := t.hits[i]
			t.cutoff = &cut
			break
		}
	}
	t.stored = acc
}

// grepResult answers the runs of one search (one per path) as one.
func grepResult(runs []*grepRun, complete bool) *GrepResult {
	p := runs[0].p
	shown := make([]string, len(runs))
	for i, g := range runs {
		shown[i] = g.t.display
	}
	res := &GrepResult{Pattern: p.Pattern, Path: strings.Join(shown, ", "), Mode: p.Mode, Partial: !complete, AtLeast: !complete, p: p, maxSize: MaxFileSize}
	if len(runs) > 1 {
		res.Paths = shown
	}
	if len(runs) == 1 && runs[0].t.isFile {
		res.maxSize = MaxNamedFileSize
	}
	var hits []fileHit
	var stats walkStats
	passed := 0
	seen := map[string]bool{} // a file two paths both reach is one entry
	var notes []string
	for _, g := range runs {
		for i := range g.workers {
			gw := &g.workers[i]
			for _, h := range gw.top.hits {
				h.rel = g.t.show(h.rel)
				if !seen[h.rel] {
					seen[h.rel] = true
					hits = append(hits, h)
				}
			}
			passed += gw.searched + gw.binary + gw.tooLarge + gw.unreadable
			res.FilesSearched += gw.searched
			res.Skipped.Binary += gw.binary
			res.Skipped.TooLarge += gw.tooLarge
			res.Skipped.Unreadable += gw.unreadable
			res.Skipped.Symlinks += gw.symlinks
			res.MatchedLines += gw.matchLines
			if p.Mode == ModeContent {
				res.Total += gw.matchLines
			} else {
				res.Total += gw.matchFiles
			}
		}
		for _, wk := range g.walk.workers {
			stats.add(&wk.stats)
		}
		if g.t.excluded {
			notes = append(notes, fmt.Sprintf("%s is excluded by ignore rules or default excludes; searched because it was named explicitly", g.t.display))
		}
		for k, v := range g.t.raw {
			if res.raw == nil {
				res.raw = map[string]string{}
			}
			res.raw[k] = v
		}
	}
	res.Skipped.Ignored = stats.ignored
	res.Skipped.Sensitive = stats.sensitive
	res.Skipped.Unreadable += stats.unreadable + stats.special
	res.IgnoredDirs = stats.topIgnoredDirs(5)
	if p.Mode == ModeFiles {
		res.MatchedLines = 0 // files mode stops at a file's first match
	}
	slices.SortFunc(hits, func(a, b fileHit) int { return hitLess(&a, &b, p.Sort) })
	page := hits[min(len(hits), p.Offset):min(len(hits), p.keep())]
	switch p.Mode {
	case ModeFiles:
		res.Files = []string{}
		for _, h := range page {
			res.Files = append(res.Files, h.rel)
		}
		res.Count = len(res.Files)
	case ModeCount:
		res.Counts = []FileCount{}
		for _, h := range page {
			res.Counts = append(res.Counts, FileCount{Path: h.rel, Count: h.count})
		}
		res.Count = len(res.Counts)
	case ModeContent:
		res.Matches = []Match{}
		skip := p.Offset
	fill:
		for _, h := range hits {
			for _, m := range h.lines {
				if skip > 0 {
					skip--
					continue
				}
				if len(res.Matches) == p.Limit {
					break fill
				}
				m.Path = h.rel
				res.Matches = append(res.Matches, m)
			}
		}
		res.Count = len(res.Matches)
	}
	res.Offset = p.Offset
	res.Truncated = p.Offset+res.Count < res.Total
	res.Note = strings.Join(notes, "; ")
	res.Hint = runs[0].hint(res, passed, len(runs) == 1 && runs[0].t.isFile)
	return res
}

// hint says how to see more, or why nothing was searched. passed counts
// the files that got through the globs.
func (g *grepRun) hint(res *GrepResult, passed int, oneFile bool) string {
	p := g.p
	var hints []string
	if oneFile && res.Skipped.TooLarge > 0 {
		hints = append(hints, fmt.Sprintf("%s is over %d MiB: read it in ranges with mcode read --offset N --limit M", res.Path, MaxNamedFileSize>>20))
	}
	if passed == 0 && g.globs != nil {
		hints = append(hints, fmt.Sprintf("no file matches --glob %s: globs are relative to the searched folder, and one with a / is anchored there (**/name/** matches at any depth)", strings.Join(p.Glob, " --glob ")))
	}
	if res.Truncated {
		res.NextOffset = p.Offset + res.Count
		hints = append(hints, pageHint(res.Count, p.Offset, res.Total, res.AtLeast, p.Limit, GrepMaxLimit))
	}
	if res.Skipped.Ignored > 0 && !p.NoIgnore {
		hints = append(hints, "pass --no-ignore to also search files excluded by .gitignore and default excludes")
	}
	return strings.Join(hints, "; ")
}

// pageHint says how to see the rest of a cut answer: the next page by
// --offset, a higher --limit, or a narrower search.
func pageHint(count, offset, total int, atLeast bool, limit, most int) string {
	shown := fmt.Sprintf("showing %d of %s", count, totalText(total, atLeast))
	if offset > 0 {
		shown = fmt.Sprintf("showing %d-%d of %s", offset+1, offset+count, totalText(total, atLeast))
	}
	next := fmt.Sprintf("pass --offset %d for the next entries", offset+count)
	if limit < most {
		next += fmt.Sprintf(", --limit %d (up to %d)", min(most, max(limit*2, total-offset)), most)
	}
	return shown + ": " + next + ", or narrow the pattern, path or --glob"
}

// render is the text a model reads: the entries, then the summary of what
// was found, searched and skipped, which is also returned alone (the
// notices that -o text sends to stderr). It may shorten the content-mode
// matches to the output cap, and says so.
func (res *GrepResult) render() (text, notices string, truncated bool) {
	p := res.p
	var b strings.Builder
	capped := false
	switch p.Mode {
	case ModeFiles:
		for _, f := range res.Files {
			b.WriteString(textPath(res.raw, f))
			b.WriteByte('\n')
		}
	case ModeCount:
		for _, c := range res.Counts {
			fmt.Fprintf(&b, "%s:%d\n", textPath(res.raw, c.Path), c.Count)
		}
	case ModeContent:
		shown := 0
		prevPath, prevLine := "", 0
		for i, m := range res.Matches {
			var chunk strings.Builder
			path := textPath(res.raw, m.Path)
			first := m.Line - len(m.Before)
			if p.BeforeContext+p.AfterContext > 0 && shown > 0 && (m.Path != prevPath || first > prevLine+1) {
				chunk.WriteString("--\n")
			}
			for j, t := range m.Before {
				if n := first + j; m.Path != prevPath || n > prevLine {
					fmt.Fprintf(&chunk, "%s-%d-%s\n", path, n, t)
				}
			}
			span := strings.Split(m.Text, "\n")
			for j, t := range span {
				fmt.Fprintf(&chunk, "%s:%d:%s\n", path, m.Line+j, t)
			}
			last := m.Line + len(span) - 1
			for j, t := range m.After {
				n := last + 1
				if i+1 < len(res.Matches) && res.Matches[i+1].Path == m.Path && n >= res.Matches[i+1].Line {
					break // the next match prints this line
				}
				sep := '-'
				if j < len(m.afterMatches) && m.afterMatches[j] {
					sep = ':'
				}
				fmt.Fprintf(&chunk, "%s%c%d%c%s\n", path, sep, n, sep, t)
				last = n
			}
			if b.Len()+chunk.Len() > GrepMaxOutputBytes {
				capped = true
				break
			}
			b.WriteString(chunk.String())
			shown++
			prevPath, prevLine = m.Path, last
		}
		if capped {
			res.Matches = res.Matches[:shown]
			res.Count = shown
			res.Truncated = true
			res.NextOffset = p.Offset + shown
			res.Hint = strings.TrimPrefix(res.Hint+fmt.Sprintf("; content output is capped at %d KiB: pass --offset %d for the next entries, narrow the search or use --mode files", GrepMaxOutputBytes>>10, res.NextOffset), "; ")
		}
	}
	notices = res.summary(p)
	return b.String() + notices, notices, res.Truncated
}

// summary is the closing line: what was found, searched and skipped, so
// that "nothing found" never reads as "not searched".
func (res *GrepResult) summary(p GrepParams) string {
	var b strings.Builder
	unit := map[string]string{ModeFiles: "file", ModeCount: "file", ModeContent: "matching line"}[p.Mode]
	if p.Multiline && p.Mode == ModeContent {
		unit = "match"
	}
	switch {
	case res.Total == 0 && res.FilesSearched == 0:
		fmt.Fprintf(&b, "No file was searched for %q in %s", p.Pattern, res.Path)
	case res.Total == 0:
		fmt.Fprintf(&b, "No matches for %q in %s", p.Pattern, res.Path)
	default:
		fmt.Fprintf(&b, "[%s %s%s", totalText(res.Total, res.AtLeast), unit, plural(res.Total))
		switch {
		case res.Offset > 0:
			fmt.Fprintf(&b, ", showing %d-%d", res.Offset+min(1, res.Count), res.Offset+res.Count)
		case res.Truncated:
			fmt.Fprintf(&b, ", showing %d", res.Count)
		}
		b.WriteString("]")
	}
	var facts []string
	if res.FilesSearched > 0 || res.Total > 0 {
		facts = append(facts, fmt.Sprintf("searched %d file%s", res.FilesSearched, plural(res.FilesSearched)))
	}
	if s := res.Skipped.describe(res.IgnoredDirs, res.maxSize); s != "" {
		facts = append(facts, "skipped "+s)
	}
	if len(facts) > 0 {
		b.WriteString(" (" + strings.Join(facts, "; ") + ")")
	}
	writeTail(&b, "search", res.Partial, res.Note, res.Hint)
	return b.String()
}

// writeTail ends a text answer of grep or glob: whether the work was cut
// short, the note and the hint, each on its own line.
func writeTail(b *strings.Builder, what string, partial bool, note, hint string) {
	if partial {
		b.WriteString("\nThe " + what + " was cut short: results are partial.")
	}
	if note != "" {
		b.WriteString("\nNote: " + note)
	}
	if hint != "" {
		b.WriteString("\nHint: " + hint)
	}
	b.WriteByte('\n')
}

func (s Skipped) describe(dirs []string, maxSize int) string {
	var parts []string
	if s.Ignored > 0 {
		part := fmt.Sprintf("%d ignored", s.Ignored)
		if len(dirs) > 0 {
			part += " (" + strings.Join(dirs, ", ")
			if s.Ignored > len(dirs) {
				part += ", …"
			}
			part += ")"
		}
		parts = append(parts, part)
	}
	for _, x := range []struct {
		n    int
		what string
	}{{s.Sensitive, "sensitive"}, {s.TooLarge, fmt.Sprintf("over %d MiB", maxSize>>20)}, {s.Binary, "binary"}, {s.Unreadable, "unreadable"}, {s.Symlinks, "symlink" + plural(s.Symlinks) + " (not followed)"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	return strings.Join(parts, ", ")
}

// totalText is a total as a hint quotes it: "at least N" when the search
// stopped early.
func totalText(total int, atLeast bool) string {
	if atLeast {
		return fmt.Sprintf("at least %d", total)
	}
	return strconv.Itoa(total)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
