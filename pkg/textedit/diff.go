package textedit

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Limits of the unified diff that write and edit return.
const (
	// DiffContext is the number of unchanged lines shown around a change.
	DiffContext = 3
	// MaxDiffBytes caps the diff text; the counts stay exact past it.
	MaxDiffBytes = 16 << 10
	// maxDiffEdits caps the line edits Myers' algorithm looks for in one
	// region (its cost grows with their number times the region's
	// length); past it, the region is reported as one replaced block,
	// still a correct diff, only not the smallest.
	maxDiffEdits = 1000
	// maxDiffWork caps the lines Myers' algorithm compares in one region.
	maxDiffWork = 20_000_000
)

// Change says that, at line a of the old text (0-based) and line b of the
// new, the lines del were replaced by the lines ins. Lines keep their
// line breaks.
type Change struct {
	a, b     int
	del, ins []string
}

// LineDiff returns the changes that turn a into b, smallest first: the
// common head and tail are cut off, then Myers' O(ND) algorithm runs on
// what remains.
func LineDiff(a, b []string) []Change {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(am) == 0 && len(bm) == 0 {
		return nil
	}
	whole := []Change{{a: pre, b: pre, del: am, ins: bm}}
	if len(am) == 0 || len(bm) == 0 {
		return whole
	}
	ids := make(map[string]int, len(am)+len(bm))
	intern := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	ops, ok := myers(intern(am), intern(bm))
	if !ok {
		return whole
	}
	var out []Change
	for _, op := range ops {
		if n := len(out); n > 0 && out[n-1].a+len(out[n-1].del) == pre+op.x && out[n-1].b+len(out[n-1].ins) == pre+op.y {
			if op.del {
				out[n-1].del = am[out[n-1].a-pre : op.x+1]
			} else {
				out[n-1].ins = bm[out[n-1].b-pre : op.y+1]
			}
			continue
		}
		c := Change{a: pre + op.x, b: pre + op.y}
		if op.del {
			c.del = am[op.x : op.x+1]
		} else {
			c.ins = bm[op.y : op.y+1]
		}
		out = append(out, c)
	}
	return out
}

// editOp deletes a[x] (del) or inserts b[y] (at a's line x).
type editOp struct {
	x, y int
	del  bool
}

// myers finds a shortest edit script from a to b (Myers 1986, the
// forward greedy algorithm with one saved frontier per step). It gives up
// past maxDiffEdits edits or maxDiffWork comparisons.
func myers(a, b []int) ([]editOp, bool) {
	n, m := len(a), len(b)
	maxD := min(n+m, maxDiffEdits)
	off := maxD + 1
	v := make([]int, 2*off+1)
	var trace [][]int
	work := 0
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			x0 := x
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			work += x - x0 + 1
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m, d), true
			}
		}
		if work > maxDiffWork {
			return nil, false
		}
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
	}
	return nil, false
}

// backtrack walks the saved frontiers back from (n, m) to (0, 0).
func backtrack(trace [][]int, n, m, d int) []editOp {
	ops := make([]editOp, 0, d)
	x, y := n, m
	for ; d > 0; d-- {
		prev := trace[d-1] // frontier of step d-1: diagonals -(d-1)..d-1
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1 // reached by a step down: b[py] inserted
		} else {
			pk = k - 1 // reached by a step right: a[px] deleted
		}
		px := at(pk)
		py := px - pk
		ops = append(ops, editOp{x: px, y: py, del: pk == k-1})
		x, y = px, py
	}
	for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
		ops[i], ops[j] = ops[j], ops[i]
	}
	return ops
}

// Changes sums up a diff for a result.
type Changes struct {
	Additions int `json:"additions"`
	Removals  int `json:"removals"`
	// FirstChangedLine is the first changed line of the new text (0 when
	// nothing changed).
	FirstChangedLine int    `json:"first_changed_line"`
	Diff             string `json:"diff"`
	DiffTruncated    bool   `json:"diff_truncated"`
}

// OldLines gives the unchanged lines a diff shows as context.
type OldLines interface {
	Count() int
	Line(i int) string
}

// Summarize counts the changes and renders them as a unified diff.
func Summarize(name string, old OldLines, changes []Change, display func(string) string) Changes {
	d := NewDiffWriter(name, old, display, MaxDiffBytes)
	for _, ch := range changes {
		d.Add(ch)
	}
	return d.Finish()
}

// DiffWriter renders changes, as they come and in order, as a unified
// diff with DiffContext lines of context, cut at maxBytes on a line
// boundary with a note of what was left out. It holds no more than the
// text it shows, however many changes pass through it, and counts every
// one of them.
type DiffWriter struct {
	old     OldLines
	display func(string) string
	max     int
	c       Changes
	out     strings.Builder
	hunk    strings.Builder // lines of the open hunk, until it closes
	cut     bool
	omitted int // lines left out after the cut

	open             bool
	oldStart, delta0 int // the open hunk's first old line, and new minus old there
	pos              int // next old line to render in the open hunk
	added, removed   int // lines added and removed in the open hunk
}

func NewDiffWriter(name string, old OldLines, display func(string) string, maxBytes int) *DiffWriter {
	return NewDiffWriterFor("a/"+name, "b/"+name, old, display, maxBytes)
}

// NewDiffWriterFor is NewDiffWriter for a change whose two sides have
// their own names in the header ("a/old", "b/new", or /dev/null for a
// file created or deleted).
func NewDiffWriterFor(from, to string, old OldLines, display func(string) string, maxBytes int) *DiffWriter {
	if display == nil {
		display = func(s string) string { return s }
	}
	d := &DiffWriter{old: old, display: display, max: maxBytes}
	fmt.Fprintf(&d.out, "--- %s\n+++ %s\n", from, to)
	return d
}

// hunkHeaderRoom is the room kept in the budget for a hunk's header.
const hunkHeaderRoom = 48

func (d *DiffWriter) Add(ch Change) {
	d.c.Additions += len(ch.ins)
	d.c.Removals += len(ch.del)
	if d.c.FirstChangedLine == 0 {
		d.c.FirstChangedLine = ch.b + 1
	}
	if d.open && ch.a-d.pos > 2*DiffContext {
		d.closeHunk()
	}
	if !d.open {
		d.open = true
		d.oldStart = max(ch.a-DiffContext, 0)
		d.delta0 = ch.b - ch.a
		d.pos = d.oldStart
		d.added, d.removed = 0, 0
	}
	for ; d.pos < ch.a; d.pos++ {
		d.context(d.pos)
	}
	for _, l := range ch.del {
		d.line('-', l)
	}
	for _, l := range ch.ins {
		d.line('+', l)
	}
	d.added += len(ch.ins)
	d.removed += len(ch.del)
	d.pos = ch.a + len(ch.del)
}

// context renders old line i as context, fetching it only if shown.
func (d *DiffWriter) context(i int) {
	if d.cut {
		d.omitted++
		return
	}
	d.line(' ', d.old.Line(i))
}

// line renders one line of the open hunk, or counts it once past the cut.
func (d *DiffWriter) line(prefix byte, line string) {
	if d.cut {
		d.omitted++
		return
	}
	text := d.display(strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"))
	n := 2 + len(text)
	noEOL := !strings.HasSuffix(line, "\n")
	if noEOL {
		n += len(noNewline)
	}
	if d.out.Len()+hunkHeaderRoom+d.hunk.Len()+n > d.max {
		d.cut = true
		d.omitted++
		return
	}
	d.hunk.WriteByte(prefix)
	d.hunk.WriteString(text)
	d.hunk.WriteByte('\n')
	if noEOL {
		d.hunk.WriteString(noNewline)
	}
}

const noNewline = "\\ No newline at end of file\n"

// closeHunk renders the trailing context and puts the hunk, under its
// header (whose counts are exact even when its lines were cut), in the
// output.
func (d *DiffWriter) closeHunk() {
	end := min(d.pos+DiffContext, d.old.Count())
	for ; d.pos < end; d.pos++ {
		d.context(d.pos)
	}
	oldLen := end - d.oldStart
	newLen := oldLen + d.added - d.removed
	if d.hunk.Len() > 0 || !d.cut {
		fmt.Fprintf(&d.out, "@@ -%s +%s @@\n", hunkRange(d.oldStart, oldLen), hunkRange(d.oldStart+d.delta0, newLen))
		d.out.WriteString(d.hunk.String())
	}
	d.hunk.Reset()
	d.open = false
}

// finish closes the last hunk and returns the counts and the diff.
func (d *DiffWriter) Finish() Changes {
	if d.open {
		d.closeHunk()
	}
	if d.c.Additions+d.c.Removals == 0 {
		return d.c
	}
	if d.cut {
		fmt.Fprintf(&d.out, "… diff cut at %d KiB: %d more line%s not shown\n", d.max>>10, d.omitted, Plural(d.omitted))
	}
	d.c.Diff, d.c.DiffTruncated = d.out.String(), d.cut
	return d.c
}

// hunkRange renders one side of a hunk header: "start,len", where an
// empty range names the line before it, as diff -u does.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// SplitKeep splits text into lines that keep their line breaks.
func SplitKeep(text []byte) []string {
	var out []string
	for line := range bytes.Lines(text) {
		out = append(out, string(line))
	}
	return out
}

// StringLines serves context from lines already split.
type StringLines []string

func (s StringLines) Count() int        { return len(s) }
func (s StringLines) Line(i int) string { return s[i] }

// LineIndex serves lines of a large text without splitting it: it
// remembers the line starts it has found (marks) and counts line breaks
// from the nearest one, which bytes.Count and bytes.IndexByte do fast.
// An edit touches a few places of a file, so only their neighbourhoods
// are ever scanned line by line.
type LineIndex struct {
	text  []byte
	n     int        // number of lines
	marks []lineMark // known line starts, sorted (by line and by offset alike)
}

type lineMark struct{ line, off int }

func NewLineIndex(text []byte) *LineIndex {
	n := bytes.Count(text, []byte("\n"))
	if len(text) > 0 && text[len(text)-1] != '\n' {
		n++
	}
	return &LineIndex{text: text, n: n, marks: []lineMark{{0, 0}}}
}

func (ix *LineIndex) Count() int { return ix.n }

func (ix *LineIndex) Line(i int) string {
	s := ix.start(i)
	return string(ix.text[s:ix.endAt(s)])
}

// remember records that line starts at off.
func (ix *LineIndex) remember(line, off int) {
	i := sort.Search(len(ix.marks), func(i int) bool { return ix.marks[i].line >= line })
	if i < len(ix.marks) && ix.marks[i].line == line {
		return
	}
	ix.marks = slices.Insert(ix.marks, i, lineMark{line, off})
}

// lineOf is the 0-based line holding offset off (the last line for an
// offset at the very end).
func (ix *LineIndex) lineOf(off int) int {
	m := ix.marks[max(sort.Search(len(ix.marks), func(i int) bool { return ix.marks[i].off > off })-1, 0)]
	line := m.line + bytes.Count(ix.text[m.off:off], []byte("\n"))
	if line >= ix.n { // off at the end, after a final line break
		return max(ix.n-1, 0)
	}
	ix.remember(line, bytes.LastIndexByte(ix.text[:off], '\n')+1)
	return line
}

// start is the offset where line i starts.
func (ix *LineIndex) start(i int) int {
	m := ix.marks[max(sort.Search(len(ix.marks), func(j int) bool { return ix.marks[j].line > i })-1, 0)]
	off := m.off
	for l := m.line; l < i; l++ {
		off = ix.endAt(off)
	}
	if i-m.line > 64 {
		ix.remember(i, off)
	}
	return off
}

// end is the offset after line i's line break.
func (ix *LineIndex) end(i int) int { return ix.endAt(ix.start(i)) }

// endAt is the offset after the line break of the line starting at off.
func (ix *LineIndex) endAt(off int) int {
	if j := bytes.IndexByte(ix.text[off:], '\n'); j >= 0 {
		return off + j + 1
	}
	return len(ix.text)
}

// PieceChanges diffs orig against the text its pieces make, region by
// region: each region is the whole lines the pieces touch, widened until
// the new text of the region also ends on a line break, so that only
// those lines are compared, however large the file.
func PieceChanges(ix *LineIndex, pieces []Piece, emit func(Change)) {
	orig := ix.text
	shift := 0 // new line numbers minus old ones, after the regions so far
	var buf []byte
	for i := 0; i < len(pieces); {
		la := ix.lineOf(pieces[i].Start)
		lb := ix.lineOf(max(pieces[i].End-1, pieces[i].Start))
		j := i
		for {
			for j < len(pieces) && ix.lineOf(pieces[j].Start) <= lb {
				lb = max(lb, ix.lineOf(max(pieces[j].End-1, pieces[j].Start)))
				j++
			}
			buf = buf[:0]
			last := 0
			if ix.Count() > 0 {
				last = ix.start(la)
			}
			for _, p := range pieces[i:j] {
				buf = append(buf, orig[last:p.Start]...)
				buf = append(buf, p.Text...)
				last = p.End
			}
			end := len(orig)
			if ix.Count() > 0 {
				end = ix.end(lb)
			}
			buf = append(buf, orig[min(last, end):end]...)
			if end < len(orig) && (len(buf) == 0 || buf[len(buf)-1] != '\n') {
				lb++ // the new text runs on into the next line
				continue
			}
			var oldText []byte
			if ix.Count() > 0 {
				oldText = orig[ix.start(la):end]
			}
			a, b := SplitKeep(oldText), SplitKeep(buf)
			for _, ch := range LineDiff(a, b) {
				ch.a += la
				ch.b += la + shift
				emit(ch)
			}
			shift += len(b) - len(a)
			break
		}
		i = j
	}
}
