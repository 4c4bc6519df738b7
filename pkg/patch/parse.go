package patch

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// The formats a patch may be written in.
const (
	FormatCodex   = "codex"
	FormatUnified = "unified"
)

// What a file operation does.
const (
	OpAdd     = "add"
	OpDelete  = "delete"
	OpUpdate  = "update"
	OpMove    = "move"
	OpReplace = "replace"
)

// fileOp is one file's part of a patch, in either format.
type fileOp struct {
	op   string // OpAdd, OpDelete or OpUpdate (a move is an update with moveTo)
	path string
	// moveTo is the new path of an update that renames the file.
	moveTo string
	// content is the whole new file of an add (and of a unified copy,
	// filled from the source when the patch is applied).
	content []byte
	hunks   []*hunk
	// line is the patch's line where the operation starts.
	line int
	// Unified diffs only: the modes git names (0 when none), and the
	// source of a copy.
	oldMode, newMode uint32
	copyFrom         string
}

// hunk is one run of changed lines with the context that locates it.
type hunk struct {
	// headers are the context lines (@@ func main) that narrow the search
	// to after them, in order.
	headers []string
	lines   []hunkLine
	// eof anchors the hunk at the end of the file (*** End of File).
	eof bool
	// hint is the line (1-based) where a unified hunk says its old lines
	// start; 0 when the patch gives none. Only a tie-break.
	hint int
	// hasHint distinguishes a hint of line 0 (an insertion at the top of
	// a file, @@ -0,0 +1 @@) from none.
	hasHint bool
	// oldNoEOL and newNoEOL: the unified diff marks the last old or new
	// line "\ No newline at end of file".
	oldNoEOL, newNoEOL bool
	// fromDiff: the hunk comes from a unified diff, whose markers decide
	// the final newline.
	fromDiff bool
	// line is the patch's line of the hunk's first line.
	line int
}

// hunkLine is one line of a hunk: ' ' context, '-' removed, '+' added,
// without its line break.
type hunkLine struct {
	op   byte
	text string
}

// old returns the lines the hunk expects in the file.
func (h *hunk) old() []string {
	var out []string
	for _, l := range h.lines {
		if l.op != '+' {
			out = append(out, l.text)
		}
	}
	return out
}

func (h *hunk) counts() (add, del int) {
	for _, l := range h.lines {
		switch l.op {
		case '+':
			add++
		case '-':
			del++
		}
	}
	return add, del
}

// parsed is a whole patch.
type parsed struct {
	format string
	ops    []*fileOp
}

// parseError is a patch that does not parse: the line and what was
// expected there.
func parseError(line int, format, msg, hint string) *tool.Error {
	name := "the patch"
	switch format {
	case FormatCodex:
		name = "the patch (Codex's format)"
	case FormatUnified:
		name = "the patch (a unified diff)"
	}
	where := ""
	if line > 0 {
		where = fmt.Sprintf(" at line %d", line)
	}
	return &tool.Error{Code: tool.CodeInvalidArgs, Message: fmt.Sprintf("%s does not parse%s: %s", name, where, msg), Hint: hint}
}

const codexHint = "write the patch as *** Begin Patch, then *** Add File: PATH (lines starting with +), *** Delete File: PATH, or *** Update File: PATH (an optional *** Move to: PATH, then hunks opened by @@ with lines starting with space, - or +), then *** End Patch"

// patchLine is a line of the patch and its 1-based number.
type patchLine struct {
	n    int
	text string
	cr   bool // the line ended in CR LF
}

// splitPatch splits the patch into lines, drops a trailing CR from each
// (line breaks come from the file being changed, never from the patch),
// and takes off a fenced code block around the whole patch.
func splitPatch(input string) []patchLine {
	raw := strings.Split(input, "\n")
	if len(raw) > 0 && raw[len(raw)-1] == "" {
		raw = raw[:len(raw)-1]
	}
	lines := make([]patchLine, len(raw))
	for i, l := range raw {
		text, cr := strings.CutSuffix(l, "\r")
		lines[i] = patchLine{n: i + 1, text: text, cr: cr}
	}
	first, last := 0, len(lines)-1
	for first <= last && strings.TrimSpace(lines[first].text) == "" {
		first++
	}
	for last >= first && strings.TrimSpace(lines[last].text) == "" {
		last--
	}
	if first < last && isFence(lines[first].text) && isFence(lines[last].text) && strings.TrimSpace(lines[last].text)[:3] == strings.TrimSpace(lines[first].text)[:3] {
		first++
		last--
	}
	return lines[first : last+1]
}

// isFence says whether a line opens or closes a Markdown code block.
func isFence(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "```") || strings.HasPrefix(s, "~~~")
}

// marker says whether line is the Codex marker m ("*** Begin Patch"),
// tolerating what models emit: padding, runs of spaces, another case,
// stray stars after it ("*** Begin Patch ***"). For a file marker (m ends
// with a colon) it returns what follows the colon: the path.
func marker(line, m string) (string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "***") {
		return "", false
	}
	body := strings.TrimSpace(strings.TrimLeft(t, "*"))
	word := strings.TrimSpace(strings.TrimPrefix(m, "***"))
	if name, ok := strings.CutSuffix(word, ":"); ok {
		before, after, found := strings.Cut(body, ":")
		if !found || !strings.EqualFold(strings.Join(strings.Fields(before), " "), name) {
			return "", false
		}
		return strings.TrimSpace(after), true
	}
	body = strings.TrimSpace(strings.TrimRight(body, "*"))
	return "", strings.EqualFold(strings.Join(strings.Fields(body), " "), word)
}

// The Codex markers.
const (
	mBegin  = "*** Begin Patch"
	mEnd    = "*** End Patch"
	mAdd    = "*** Add File:"
	mDelete = "*** Delete File:"
	mUpdate = "*** Update File:"
	mMove   = "*** Move to:"
	mEOF    = "*** End of File"
)

// isCodex says whether the lines are Codex's format: a begin marker, or
// a file marker (a model that forgot *** Begin Patch).
func isCodex(lines []patchLine) bool {
	for _, l := range lines {
		for _, m := range []string{mBegin, mAdd, mDelete, mUpdate} {
			if _, ok := marker(l.text, m); ok {
				return true
			}
		}
	}
	return false
}

// fileMarker reads a file marker: which operation and its path.
func fileMarker(line string) (op, path string, ok bool) {
	for _, m := range []struct{ m, op string }{{mAdd, OpAdd}, {mDelete, OpDelete}, {mUpdate, OpUpdate}} {
		if p, ok := marker(line, m.m); ok {
			return m.op, p, true
		}
	}
	return "", "", false
}

// unifiedRange reads the old range of a unified hunk header that a
// model put in Codex's format ("@@ -12,5 +12,6 @@"): the first line of
// the hunk's old lines (the line after which an empty range inserts).
func unifiedRange(header string) (start int, empty, ok bool) {
	rest, found := strings.CutPrefix(header, "@@ -")
	if !found {
		return 0, false, false
	}
	old, rest, found := strings.Cut(rest, " +")
	if !found || !strings.Contains(rest, "@@") {
		return 0, false, false
	}
	first, count, hasCount := strings.Cut(old, ",")
	n, err := strconv.Atoi(first)
	if err != nil || n < 0 {
		return 0, false, false
	}
	return n, hasCount && count == "0", true
}

// parseCodex parses Codex's patch format.
func parseCodex(lines []patchLine) (*parsed, error) {
	p := &parsed{format: FormatCodex}
	i := 0
	// Before *** Begin Patch: nothing but a heredoc opener a model may
	// have copied along (apply_patch <<'EOF').
	for i < len(lines) {
		t := strings.TrimSpace(lines[i].text)
		if _, ok := marker(t, mBegin); ok {
			i++
			break
		}
		if _, _, ok := fileMarker(t); ok {
			break // no begin marker: tolerated
		}
		if t == "" || strings.Contains(t, "<<") {
			i++
			continue
		}
		return nil, parseError(lines[i].n, FormatCodex, fmt.Sprintf("expected *** Begin Patch, found %q", clip(t)), codexHint)
	}
	ended := false
	added := map[string]int{} // path: the line of its *** Add File
	for i < len(lines) && !ended {
		l := lines[i]
		t := strings.TrimSpace(l.text)
		if _, ok := marker(t, mEnd); ok {
			ended = true
			i++
			break
		}
		if t == "" {
			i++
			continue
		}
		op, path, ok := fileMarker(t)
		if !ok {
			return nil, parseError(l.n, FormatCodex,
				fmt.Sprintf("expected a file marker (*** Add File:, *** Delete File:, *** Update File:) or *** End Patch, found %q", clip(t)), codexHint)
		}
		if path == "" {
			return nil, parseError(l.n, FormatCodex, fmt.Sprintf("%q names no file", t), "put the file's path after the colon")
		}
		if err := folderPath(l.n, FormatCodex, path); err != nil {
			return nil, err
		}
		key := filepath.ToSlash(filepath.Clean(path))
		switch op {
		case OpAdd:
			if first, ok := added[key]; ok {
				return nil, parseError(l.n, FormatCodex, fmt.Sprintf("%s is added twice, at lines %d and %d", path, first, l.n),
					fmt.Sprintf("give %s's content in one *** Add File, or change it after adding with *** Update File", path))
			}
			added[key] = l.n
		case OpDelete:
			delete(added, key)
		}
		fo := &fileOp{op: op, path: path, line: l.n}
		i++
		var err error
		switch op {
		case OpAdd:
			i, err = parseAddBody(lines, i, fo)
		case OpDelete:
			// A model may list the deleted lines: they are not needed.
			for i < len(lines) && strings.HasPrefix(lines[i].text, "-") && !isMarkerLine(lines[i].text) {
				i++
			}
		case OpUpdate:
			i, err = parseUpdateBody(lines, i, fo)
		}
		if err != nil {
			return nil, err
		}
		p.ops = append(p.ops, fo)
	}
	// After *** End Patch: only blank lines, a heredoc's end or a fence.
	for ; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i].text)
		if t != "" && t != "EOF" && !isFence(t) {
			return nil, parseError(lines[i].n, FormatCodex, fmt.Sprintf("text after *** End Patch: %q", clip(t)),
				"end the patch with *** End Patch; put every file's change before it")
		}
	}
	return p, nil
}

// isMarkerLine says whether the line is any *** marker.
func isMarkerLine(s string) bool {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "***") {
		return false
	}
	if _, _, ok := fileMarker(t); ok {
		return true
	}
	for _, m := range []string{mBegin, mEnd, mMove, mEOF} {
		if _, ok := marker(t, m); ok {
			return true
		}
	}
	return false
}

// parseAddBody reads the lines of an added file, each starting with +.
func parseAddBody(lines []patchLine, i int, fo *fileOp) (int, error) {
	var b strings.Builder
	for i < len(lines) {
		l := lines[i]
		if isMarkerLine(l.text) {
			break
		}
		switch {
		case strings.HasPrefix(l.text, "+"):
			b.WriteString(l.text[1:])
			b.WriteByte('\n')
		case strings.TrimSpace(l.text) == "" && nextIsAddLine(lines, i):
			// A blank line between content lines: an empty line whose +
			// was lost.
			b.WriteByte('\n')
		case strings.TrimSpace(l.text) == "":
		default:
			return i, parseError(l.n, FormatCodex,
				fmt.Sprintf("in *** Add File: %s, expected a line starting with + (the new file's content) or the next *** marker, found %q", fo.path, clip(l.text)),
				"start every line of a new file with +, an empty line with a lone +")
		}
		i++
	}
	fo.content = []byte(b.String())
	return i, nil
}

// nextIsAddLine says whether a line starting with + follows the blank
// lines from i on.
func nextIsAddLine(lines []patchLine, i int) bool {
	for ; i < len(lines); i++ {
		if strings.TrimSpace(lines[i].text) != "" {
			return strings.HasPrefix(lines[i].text, "+")
		}
	}
	return false
}

// parseUpdateBody reads an optional *** Move to: and the hunks of an
// updated file.
func parseUpdateBody(lines []patchLine, i int, fo *fileOp) (int, error) {
	if i < len(lines) {
		if to, ok := marker(lines[i].text, mMove); ok {
			if to == "" {
				return i, parseError(lines[i].n, FormatCodex, "*** Move to: names no file", "put the new path after the colon")
			}
			if err := folderPath(lines[i].n, FormatCodex, to); err != nil {
				return i, err
			}
			fo.moveTo = to
			i++
		}
	}
	var h *hunk
	var headers []string
	for i < len(lines) {
		l := lines[i]
		t := l.text
		// A line that starts with a space is a context line, whatever it
		// holds (" *** End of File", " @@ x", " *** Delete File: a" in a
		// file that says so), as Codex reads it; only the end marker of
		// the whole patch may be indented.
		if strings.HasPrefix(t, " ") && !lastLine(lines, i) {
			if h == nil {
				h = &hunk{line: l.n}
				fo.hunks = append(fo.hunks, h)
			}
			h.lines = append(h.lines, hunkLine{op: ' ', text: t[1:]})
			i++
			continue
		}
		if _, ok := marker(t, mEOF); ok {
			if h == nil || len(h.lines) == 0 {
				return i, parseError(l.n, FormatCodex, "*** End of File follows no hunk lines", "put *** End of File after the last line of a hunk that ends the file")
			}
			h.eof = true
			h = nil
			i++
			continue
		}
		if isMarkerLine(t) {
			break
		}
		trimmed := strings.TrimSpace(t)
		if strings.HasPrefix(trimmed, "@@") {
			if h != nil && len(h.lines) == 0 {
				// @@ lines in a row stack: one hunk under all of them.
				headers = append(headers, h.headers...)
				fo.hunks = fo.hunks[:len(fo.hunks)-1]
			}
			h = &hunk{line: l.n}
			if n, empty, ok := unifiedRange(trimmed); ok {
				h.hint, h.hasHint = n, true
				if empty {
					h.hint++ // an insertion after line n
				}
			} else if header := contextHeader(strings.TrimLeft(t, " \t")); header != "" {
				headers = append(headers, header)
			}
			h.headers, headers = headers, nil
			fo.hunks = append(fo.hunks, h)
			i++
			continue
		}
		var hl hunkLine
		switch {
		case t == "":
			hl = hunkLine{op: ' '} // an empty context line whose space was lost
		case t[0] == ' ' || t[0] == '-' || t[0] == '+':
			hl = hunkLine{op: t[0], text: t[1:]}
		default:
			what := "the first hunk's lines (or @@)"
			if h != nil {
				what = "a hunk line starting with space, - or +, a new @@ hunk, *** End of File, or the next *** marker"
			}
			return i, parseError(l.n, FormatCodex, fmt.Sprintf("in *** Update File: %s, expected %s, found %q", fo.path, what, clip(t)),
				"start each line of a hunk with a space (context), - (removed) or + (added); open each hunk with @@ (optionally @@ and a line above it, such as @@ func main)")
		}
		if h == nil {
			// The first hunk may omit its @@.
			h = &hunk{line: l.n}
			fo.hunks = append(fo.hunks, h)
		}
		h.lines = append(h.lines, hl)
		i++
	}
	// Blank lines at the end of the last hunk are separators, not context.
	for _, h := range fo.hunks {
		for len(h.lines) > 0 && h.lines[len(h.lines)-1] == (hunkLine{op: ' '}) && !h.eof {
			h.lines = h.lines[:len(h.lines)-1]
		}
	}
	for _, h := range fo.hunks {
		if len(h.lines) == 0 {
			return i, parseError(h.line, FormatCodex, fmt.Sprintf("in *** Update File: %s, the hunk at line %d has no lines", fo.path, h.line),
				"give each @@ hunk its lines (space for context, - removed, + added), or drop the empty @@")
		}
		if add, del := h.counts(); add+del == 0 {
			return i, parseError(h.line, FormatCodex, fmt.Sprintf("in *** Update File: %s, the hunk at line %d changes nothing (no - or + line)", fo.path, h.line),
				"mark the lines to remove with - and the lines to add with +")
		}
	}
	if len(fo.hunks) == 0 && fo.moveTo == "" {
		return i, parseError(fo.line, FormatCodex, fmt.Sprintf("*** Update File: %s has no hunks", fo.path),
			"follow it with @@ and the lines to change, or add *** Move to: PATH to rename the file")
	}
	return i, nil
}

// contextHeader is the line an @@ line names (@@ def f(): names
// "def f():"), whole: spaces at its end are the line's own, and the
// exact tier sees them. A closing @@ (@@ def f(): @@) is dropped.
func contextHeader(line string) string {
	h := strings.TrimPrefix(line, "@@")
	h = strings.TrimPrefix(h, " ")
	if strings.TrimSpace(h) == "" {
		return ""
	}
	if rest, ok := strings.CutSuffix(strings.TrimRight(h, " \t"), "@@"); ok && strings.TrimSpace(rest) != "" {
		h = strings.TrimRight(rest, " \t")
	}
	return h
}

// folderPath refuses a path that ends with a slash: it names a folder,
// and apply_patch writes files (dir/ would become a file named dir).
func folderPath(line int, format, path string) error {
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, `\`) {
		return parseError(line, format, fmt.Sprintf("%q ends with a slash: it names a folder, and apply_patch adds, changes and deletes files", path),
			"name a file, such as "+strings.TrimRight(path, `/\`)+"/NAME; folders are made as the files in them need")
	}
	return nil
}

// lastLine says whether line i is the patch's last that is not blank.
func lastLine(lines []patchLine, i int) bool {
	for _, l := range lines[i+1:] {
		if strings.TrimSpace(l.text) != "" {
			return false
		}
	}
	return true
}

// clip shortens a quoted line of the patch.
func clip(s string) string {
	const maxRunes = 120
	r := []rune(s)
	if len(r) <= maxRunes {
		return s
	}
	return string(r[:maxRunes]) + "…"
}

// parsePatch detects the patch's format and parses it.
func parsePatch(input string, strip *int) (*parsed, error) {
	if strings.TrimSpace(input) == "" {
		return nil, &tool.Error{Code: tool.CodeUsage, Message: "the patch is empty",
			Hint: "pass the patch as input: Codex's format (*** Begin Patch … *** End Patch) or a unified diff (git diff, diff -u)"}
	}
	lines := splitPatch(input)
	var p *parsed
	var err error
	switch {
	case isCodex(lines):
		p, err = parseCodex(lines)
	case isUnified(lines):
		p, err = parseUnified(lines, strip)
	default:
		first := ""
		if len(lines) > 0 {
			first = lines[0].text
		}
		return nil, parseError(1, "", fmt.Sprintf("it is neither Codex's format nor a unified diff: expected *** Begin Patch, or --- a/PATH and +++ b/PATH (or diff --git), found %q", clip(first)),
			codexHint+"; or give a unified diff as git diff prints it")
	}
	if err != nil {
		return nil, err
	}
	if len(p.ops) == 0 {
		return nil, parseError(0, p.format, "it names no file to add, delete or update", codexHint)
	}
	return p, nil
}
