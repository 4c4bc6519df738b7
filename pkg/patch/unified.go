package patch

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

const unifiedHint = "give a unified diff as diff -u or git diff print it: --- a/PATH and +++ b/PATH, then hunks opened by @@ -OLD,N +NEW,M @@ whose line counts match their lines"

// isUnified says whether the lines look like a unified or git diff.
func isUnified(lines []patchLine) bool {
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l.text, "diff --git "):
			return true
		case strings.HasPrefix(l.text, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1].text, "+++ "):
			return true
		case strings.HasPrefix(l.text, "@@ -"):
			return true
		}
	}
	return false
}

// parseUnified parses a unified or git diff with go-gitdiff; strip is
// patch -p's count (nil: a/ and b/ prefixes are recognized by
// themselves).
func parseUnified(lines []patchLine, strip *int) (*parsed, error) {
	// go-gitdiff sees the patch as written, CRs included, unless every
	// line had one (a patch carried with CRLF breaks): a CR that only
	// some lines carry belongs to a new file's content.
	allCR := len(lines) > 0
	for _, l := range lines {
		allCR = allCR && l.cr
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text)
		if l.cr && !allCR {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
	}
	offset := 0
	if len(lines) > 0 {
		offset = lines[0].n - 1
	}
	files, _, err := gitdiff.Parse(strings.NewReader(b.String()))
	if err != nil {
		return nil, gitdiffError(err, offset)
	}
	if len(files) == 0 {
		return nil, parseError(0, FormatUnified, "no file header (--- a/PATH and +++ b/PATH, or diff --git) was found", unifiedHint)
	}
	git := false
	for _, l := range lines {
		git = git || strings.HasPrefix(l.text, "diff --git ")
	}
	drop, err := stripCount(lines, strip, git)
	if err != nil {
		return nil, err
	}
	// The patch's line of each hunk header and file header, in order.
	var hunkLines, fileLines []int
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l.text, "@@ -"):
			hunkLines = append(hunkLines, l.n)
		case strings.HasPrefix(l.text, "diff --git "):
			fileLines = append(fileLines, l.n)
		case !git && strings.HasPrefix(l.text, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1].text, "+++ "):
			fileLines = append(fileLines, l.n)
		}
	}
	p := &parsed{format: FormatUnified}
	next := 0
	for k, f := range files {
		line := 0
		if k < len(fileLines) {
			line = fileLines[k]
		}
		name := func(n string) (string, error) {
			p, err := stripName(n, drop, line)
			if err == nil {
				err = folderPath(line, FormatUnified, p)
			}
			return p, err
		}
		if f.IsBinary {
			n := f.NewName
			if n == "" {
				n = f.OldName
			}
			return nil, parseError(line, FormatUnified, fmt.Sprintf("%s is a binary patch, which apply_patch does not apply", n),
				"apply binary changes with git apply through bash, or write the file with write")
		}
		for _, m := range []uint32{uint32(f.OldMode), uint32(f.NewMode)} {
			if err := checkMode(m, f, line); err != nil {
				return nil, err
			}
		}
		fo := &fileOp{op: OpUpdate, line: line, oldMode: uint32(f.OldMode), newMode: uint32(f.NewMode)}
		var err error
		switch {
		case f.IsNew:
			fo.op = OpAdd
			fo.path, err = name(f.NewName)
		case f.IsDelete:
			fo.op = OpDelete
			fo.path, err = name(f.OldName)
		case f.IsCopy:
			fo.op = OpAdd
			if fo.path, err = name(f.NewName); err == nil {
				fo.copyFrom, err = name(f.OldName)
			}
		default:
			if fo.path, err = name(f.OldName); err == nil && f.IsRename {
				fo.moveTo, err = name(f.NewName)
			}
		}
		if err != nil {
			return nil, err
		}
		for _, frag := range f.TextFragments {
			h := fragmentHunk(frag)
			if next < len(hunkLines) {
				h.line = hunkLines[next]
			}
			next++
			fo.hunks = append(fo.hunks, h)
		}
		if fo.op == OpAdd && fo.copyFrom == "" {
			fo.content = newContent(f.TextFragments)
			fo.hunks = nil
		}
		p.ops = append(p.ops, fo)
	}
	return p, nil
}

// Git's file modes: the type bits, and the one type apply_patch writes.
const (
	gitTypeMask = 0o170000
	gitRegular  = 0o100000
)

// checkMode refuses a git mode other than a regular file's: 120000 is a
// symbolic link (its content its target, which could point anywhere) and
// 160000 a submodule, which apply_patch does not create.
func checkMode(m uint32, f *gitdiff.File, line int) error {
	if m == 0 || m&gitTypeMask == gitRegular {
		return nil
	}
	n := f.NewName
	if n == "" {
		n = f.OldName
	}
	what := fmt.Sprintf("mode %o, which is not a regular file's", m)
	switch m & gitTypeMask {
	case 0o120000:
		what = "mode 120000, a symbolic link"
	case 0o160000:
		what = "mode 160000, a submodule (gitlink)"
	}
	return parseError(line, FormatUnified, fmt.Sprintf("%s has %s; apply_patch writes regular files only (100644 or 100755)", n, what),
		"create links and submodules with git or ln through bash; nothing was written")
}

// gitPerm is the permission git apply gives a file of git mode m: only
// the executable bit counts (100755 or 100644), less the umask.
func gitPerm(m uint32) fs.FileMode {
	perm := fs.FileMode(0o644)
	if m&0o111 != 0 {
		perm = 0o755
	}
	return perm &^ fsutil.Umask()
}

// fragmentHunk turns a go-gitdiff fragment into a hunk.
func fragmentHunk(frag *gitdiff.TextFragment) *hunk {
	h := &hunk{hint: int(frag.OldPosition), hasHint: true, fromDiff: true}
	if frag.OldLines == 0 {
		h.hint++ // an empty old range names the line before it
	}
	for _, l := range frag.Lines {
		text := strings.TrimSuffix(strings.TrimSuffix(l.Line, "\n"), "\r")
		var op byte
		switch l.Op {
		case gitdiff.OpContext:
			op = ' '
		case gitdiff.OpDelete:
			op = '-'
		default:
			op = '+'
		}
		h.lines = append(h.lines, hunkLine{op: op, text: text})
		if l.Old() {
			h.oldNoEOL = l.NoEOL()
		}
		if l.New() {
			h.newNoEOL = l.NoEOL()
		}
	}
	// A marker on the old side means the hunk reaches the end of the file.
	h.eof = h.oldNoEOL
	return h
}

// newContent is a new file's content: the added lines as written.
func newContent(frags []*gitdiff.TextFragment) []byte {
	var b strings.Builder
	for _, frag := range frags {
		for _, l := range frag.Lines {
			if l.New() {
				b.WriteString(l.Line)
			}
		}
	}
	return []byte(b.String())
}

// gitdiffError turns go-gitdiff's "gitdiff: line N: what" into a parse
// error at the patch's own line.
func gitdiffError(err error, offset int) error {
	msg := strings.TrimPrefix(err.Error(), "gitdiff: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, what, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				line, msg = n+offset, what
			}
		}
	}
	return parseError(line, FormatUnified, msg, unifiedHint)
}

// stripCount is how many leading path components to drop from the names
// go-gitdiff returns. It drops one itself from a git diff's names.
func stripCount(lines []patchLine, strip *int, git bool) (int, error) {
	if strip != nil && *strip < 0 {
		return 0, &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("strip is %d; it counts path components to drop, 0 or more", *strip),
			Hint: "pass --strip 1 for a/ and b/ prefixes, --strip 0 for none"}
	}
	switch {
	case git && strip == nil:
		return 0, nil
	case git && *strip == 0:
		return 0, &tool.Error{Code: tool.CodeUsage, Message: "strip 0 with a git diff: git diffs name files with a prefix (a/ and b/) that is always dropped",
			Hint: "leave strip out for a git diff, or give 1 or more"}
	case git:
		return *strip - 1, nil
	case strip != nil:
		return *strip, nil
	}
	// A plain unified diff drops a/ and b/ when every file header has them.
	n := 0
	for i := 0; i+1 < len(lines); i++ {
		old, ok1 := strings.CutPrefix(lines[i].text, "--- ")
		nw, ok2 := strings.CutPrefix(lines[i+1].text, "+++ ")
		if !ok1 || !ok2 {
			continue
		}
		n++
		if !prefixed(old, "a/") || !prefixed(nw, "b/") {
			return 0, nil
		}
	}
	if n == 0 {
		return 0, nil
	}
	return 1, nil
}

func prefixed(name, prefix string) bool {
	return strings.HasPrefix(name, prefix) || strings.HasPrefix(name, "/dev/null")
}

// stripName drops n leading components of a path, as patch -p does.
func stripName(name string, n, line int) (string, error) {
	rest := name
	for range n {
		_, after, ok := strings.Cut(rest, "/")
		if !ok {
			return "", parseError(line, FormatUnified, fmt.Sprintf("cannot strip %d leading components from %q", n, name),
				"lower strip (--strip), or check the file header's path")
		}
		rest = strings.TrimLeft(after, "/")
	}
	if rest == "" {
		return "", parseError(line, FormatUnified, fmt.Sprintf("the file header's path %q is empty once stripped", name), "check the file header")
	}
	return rest, nil
}
