package patch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/textedit"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// state is what a path holds, on disk or as the patch leaves it so far.
type state struct {
	exists bool
	data   []byte
	mode   fs.FileMode
}

// entry is one path the patch touches: as it was on disk, locked, and as
// the operations so far leave it in memory.
type entry struct {
	abs, display, target string
	// link: abs is a symbolic link (to target), kept as a link when the
	// path is deleted.
	link     bool
	linkDest string
	orig     state
	cur      state
	// created: folders made for it while committing, to remove again if
	// the patch is undone; emptied: folders removed once its removal left
	// them empty (as git apply does), to make again.
	created, emptied []string
}

// plan is a patch worked out in memory, every file read and locked,
// before anything is written.
type plan struct {
	env     *tool.Env
	entries map[string]*entry
	order   []*entry // in the order the patch first names them
	unlock  []func()
	reports []FileReport
	diff    strings.Builder
	diffCut bool
}

func (pl *plan) release() {
	for _, u := range pl.unlock {
		u()
	}
}

// entryFor is the entry of a path as the patch names it.
func (pl *plan) entryFor(p string) *entry {
	return pl.entries[pl.env.Abs(fsutil.InputPath(pl.env.Abs, p))]
}

// prepare resolves, checks and locks every path the patch names, and
// reads every file that exists, in one order (by path) so that two
// patches never wait on each other.
func (pl *plan) prepare(ctx context.Context, ops []*fileOp) error {
	pl.entries = map[string]*entry{}
	deleted := map[string]bool{}
	add := func(p string) error {
		abs := pl.env.Abs(fsutil.InputPath(pl.env.Abs, p))
		if _, ok := pl.entries[abs]; ok {
			return nil
		}
		display := textedit.DisplayPath(pl.env.Root, abs)
		target, err := textedit.Resolve(display, abs)
		if err != nil {
			return err
		}
		e := &entry{abs: abs, display: display, target: target}
		if fi, err := os.Lstat(abs); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			e.link = true
			e.linkDest, _ = os.Readlink(abs)
		}
		pl.entries[abs] = e
		pl.order = append(pl.order, e)
		return nil
	}
	for _, op := range ops {
		for _, p := range []string{op.copyFrom, op.path, op.moveTo} {
			if p == "" {
				continue
			}
			if err := add(p); err != nil {
				return err
			}
		}
		if op.op == OpDelete {
			deleted[pl.entryFor(op.path).abs] = true
		}
	}
	sorted := append([]*entry(nil), pl.order...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].target < sorted[j].target })
	// locked are the files locked so far: a file the patch names through
	// two paths (a link to it, a hard link) is refused, not locked twice,
	// which would wait for itself until the time limit.
	type lockedFile struct {
		e    *entry
		info fs.FileInfo
	}
	var locked []lockedFile
	for _, e := range sorted {
		if e.link && deleted[e.abs] {
			if _, err := os.Stat(e.target); err != nil {
				// A dangling link that the patch deletes: the link itself.
				e.orig = state{exists: true}
				e.cur = e.orig
				continue
			}
		}
		info, err := textedit.StatTarget(e.display, e.target)
		if err != nil {
			if te, ok := err.(*tool.Error); ok && te.Code == tool.CodeIsDirectory && deleted[e.abs] {
				te.Message = fmt.Sprintf("%s is a folder; apply_patch deletes files, never folders", e.display)
				te.Hint = "delete the files in it one by one with *** Delete File, or remove the folder with rm"
			}
			return err
		}
		if info == nil {
			continue
		}
		for _, l := range locked {
			if os.SameFile(l.info, info) {
				return &tool.Error{Code: tool.CodeInvalidArgs,
					Message: fmt.Sprintf("%s and %s are the same file (%s), named twice by the patch through different paths", l.e.display, e.display, e.target),
					Hint:    "name each file by one path in a patch; nothing was written"}
			}
		}
		locked = append(locked, lockedFile{e, info})
		unlock, err := textedit.LockFile(ctx, e.display, e.target)
		if err != nil {
			return err
		}
		pl.unlock = append(pl.unlock, unlock)
		data, err := os.ReadFile(e.target)
		if err != nil {
			return fmt.Errorf("reading %s: %w", e.display, err)
		}
		e.orig = state{exists: true, data: data, mode: info.Mode() & fs.ModePerm}
		e.cur = e.orig
	}
	return nil
}

// run applies the operations in memory, in order.
func (pl *plan) run(ops []*fileOp) error {
	for _, op := range ops {
		var err error
		switch op.op {
		case OpAdd:
			err = pl.add(op)
		case OpDelete:
			err = pl.delete(op)
		default:
			err = pl.update(op)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (pl *plan) add(op *fileOp) error {
	e := pl.entryFor(op.path)
	content := op.content
	if op.copyFrom != "" {
		src := pl.entryFor(op.copyFrom)
		if !src.cur.exists {
			return fsutil.NotFound(src.display, src.abs)
		}
		c, err := textedit.DecodeContent(src.display, src.cur.data)
		if err != nil {
			return err
		}
		a, f := applyHunks(e.display, c, op.hunks, endsWithNewline(c))
		if f != nil {
			return f
		}
		var buf bytes.Buffer
		buf.Grow(len(c.Text) + len(c.BOM) + 4<<10)
		if err := textedit.WriteEdited(&buf, c, a.pieces); err != nil {
			return err
		}
		content = buf.Bytes()
	}
	r := FileReport{Op: OpAdd, Path: e.display, Tiers: []string{}, Hunks: len(op.hunks)}
	mode := textedit.NewFileMode &^ fsutil.Umask()
	if op.newMode != 0 {
		mode = gitPerm(op.newMode)
	}
	var old []byte
	switch {
	case e.cur.exists && bytes.Equal(e.cur.data, content):
		r.Unchanged = true
		old = e.cur.data
	case e.cur.exists:
		return &failure{err: &tool.Error{Code: tool.CodeExists,
			Message: fmt.Sprintf("%s already exists (%d bytes) and holds other content than the patch adds (patch line %d)", e.display, len(e.cur.data), op.line),
			Hint:    fmt.Sprintf("change it with *** Update File: %s, or replace it whole with *** Delete File: %s followed by *** Add File: %s; nothing was written", e.display, e.display, e.display)},
			info: Failure{File: e.display, PatchLine: op.line}}
	case e.orig.exists:
		// Deleted earlier in this patch: a replacement, written as write
		// would write it (the old file's encoding, BOM, CRLF, mode).
		r.Op = OpReplace
		old = e.orig.data
		if c, err := textedit.DecodeContent(e.display, e.orig.data); err == nil {
			content, _, _, _ = textedit.EncodeLike(c, string(content))
		}
		mode = e.orig.mode
		if op.newMode != 0 {
			mode = gitPerm(op.newMode)
		}
		pl.dropDeleteReport(e.display)
	}
	if old != nil {
		s := textedit.SHA256Hex(old)
		r.OldSHA256 = &s
	}
	s := textedit.SHA256Hex(content)
	r.NewSHA256 = &s
	from := "/dev/null"
	if r.Op == OpReplace {
		from = "a/" + e.display
	}
	if !r.Unchanged {
		pl.diffWhole(&r, from, "b/"+e.display, old, content)
	}
	e.cur = state{exists: true, data: content, mode: mode}
	pl.reports = append(pl.reports, r)
	return nil
}

// dropDeleteReport removes the report of a deletion that a later add of
// the same path turns into a replacement.
func (pl *plan) dropDeleteReport(display string) {
	for i := len(pl.reports) - 1; i >= 0; i-- {
		if r := pl.reports[i]; r.Op == OpDelete && r.Path == display {
			pl.reports = append(pl.reports[:i], pl.reports[i+1:]...)
			return
		}
	}
}

func (pl *plan) delete(op *fileOp) error {
	e := pl.entryFor(op.path)
	if !e.cur.exists {
		return &failure{err: fsutil.NotFound(e.display, e.abs), info: Failure{File: e.display, PatchLine: op.line}}
	}
	if len(op.hunks) > 0 {
		// A unified diff's deleted file lists its lines: they must be what
		// the file holds.
		if err := pl.checkDeleted(e, op); err != nil {
			return err
		}
	}
	s := textedit.SHA256Hex(e.cur.data)
	r := FileReport{Op: OpDelete, Path: e.display, Tiers: []string{}, OldSHA256: &s}
	pl.diffWhole(&r, "a/"+e.display, "/dev/null", e.cur.data, nil)
	e.cur = state{}
	pl.reports = append(pl.reports, r)
	return nil
}

// checkDeleted refuses to delete a file whose content is not what the
// unified diff says it deletes.
func (pl *plan) checkDeleted(e *entry, op *fileOp) error {
	c, err := textedit.DecodeContent(e.display, e.cur.data)
	if err != nil {
		return err
	}
	a, f := applyHunks(e.display, c, op.hunks, true)
	if f != nil {
		return f
	}
	var buf bytes.Buffer
	buf.Grow(len(c.Text) + len(c.BOM) + 4<<10)
	if err := textedit.WriteEdited(&buf, c, a.pieces); err != nil {
		return err
	}
	if buf.Len() > len(c.BOM) {
		return &failure{err: &tool.Error{Code: tool.CodeNoMatch,
			Message: fmt.Sprintf("%s: the patch deletes the file, but the lines it lists are not all the file holds (%d bytes would be left)", e.display, buf.Len()),
			Hint:    "read the file again and check that it is the one to delete; nothing was written"},
			info: Failure{File: e.display, PatchLine: op.line}}
	}
	return nil
}

func (pl *plan) update(op *fileOp) error {
	e := pl.entryFor(op.path)
	if !e.cur.exists {
		return &failure{err: fsutil.NotFound(e.display, e.abs), info: Failure{File: e.display, PatchLine: op.line}}
	}
	dest := e
	if op.moveTo != "" {
		dest = pl.entryFor(op.moveTo)
	}
	moving := dest != e
	if moving && e.link {
		return &failure{err: &tool.Error{Code: tool.CodeInvalidArgs,
			Message: fmt.Sprintf("%s is a symbolic link; apply_patch does not move links (patch line %d)", e.display, op.line),
			Hint:    "move it with git mv or mv through bash, then patch the file; nothing was written"},
			info: Failure{File: e.display, PatchLine: op.line}}
	}
	if moving && dest.cur.exists {
		return &failure{err: &tool.Error{Code: tool.CodeExists,
			Message: fmt.Sprintf("%s cannot be moved to %s: %s already exists (%d bytes) (patch line %d)", e.display, dest.display, dest.display, len(dest.cur.data), op.line),
			Hint:    fmt.Sprintf("move it to a path that is free, or delete %s first with *** Delete File in the same patch; nothing was written", dest.display)},
			info: Failure{File: e.display, PatchLine: op.line}}
	}
	c, err := textedit.DecodeContent(e.display, e.cur.data)
	if err != nil {
		return err
	}
	a, f := applyHunks(e.display, c, op.hunks, endsWithNewline(c))
	if f != nil {
		return f
	}
	var buf bytes.Buffer
	buf.Grow(len(c.Text) + len(c.BOM) + 4<<10)
	if err := textedit.WriteEdited(&buf, c, a.pieces); err != nil {
		te := tool.AsError(err)
		te.Message = fmt.Sprintf("%s is %s, which cannot hold every character the patch adds: %s", e.display, c.Enc, te.Message)
		te.Hint = "use characters the file's encoding has, or convert the file to UTF-8 first; nothing was written"
		return te
	}
	data := buf.Bytes()
	mode := e.cur.mode
	if op.newMode != 0 {
		mode = gitPerm(op.newMode)
	}
	r := FileReport{Op: OpUpdate, Path: e.display, Hunks: len(op.hunks), Tiers: a.tiers}
	if r.Tiers == nil {
		r.Tiers = []string{}
	}
	so, sn := textedit.SHA256Hex(e.cur.data), textedit.SHA256Hex(data)
	r.OldSHA256, r.NewSHA256 = &so, &sn
	if mode != e.cur.mode {
		r.Mode = fsutil.OctalMode(mode)
	}
	to := e.display
	if moving {
		r.Op = OpMove
		r.To = &dest.display
		to = dest.display
	}
	ix := textedit.NewLineIndex(c.Text)
	dw := pl.diffWriter("a/"+e.display, "b/"+to, ix, c.Display())
	textedit.PieceChanges(ix, a.pieces, dw.Add)
	pl.finishDiff(&r, dw, moving || r.Mode != "", e.display, to)
	if moving {
		e.cur = state{}
	}
	dest.cur = state{exists: true, data: data, mode: mode}
	pl.reports = append(pl.reports, r)
	return nil
}

// diffWriter starts the diff of one file within what is left of the
// whole diff's budget.
func (pl *plan) diffWriter(from, to string, old textedit.OldLines, display func(string) string) *textedit.DiffWriter {
	room := max(MaxDiffBytes-pl.diff.Len(), 0)
	return textedit.NewDiffWriterFor(from, to, old, display, room)
}

// diffWhole adds the diff of a whole file added, replaced or deleted.
func (pl *plan) diffWhole(r *FileReport, from, to string, old, data []byte) {
	oldText, display := []byte(nil), func(s string) string { return s }
	decode := func(b []byte) []byte {
		if len(b) == 0 {
			return nil
		}
		c, err := textedit.DecodeContent(r.Path, b)
		if err != nil {
			return nil
		}
		if d := c.Display(); d != nil {
			display = d
		}
		return c.Text
	}
	oldText = decode(old)
	newText := decode(data)
	a, b := textedit.SplitKeep(oldText), textedit.SplitKeep(newText)
	dw := pl.diffWriter(from, to, textedit.StringLines(a), display)
	for _, ch := range textedit.LineDiff(a, b) {
		dw.Add(ch)
	}
	pl.finishDiff(r, dw, false, "", "")
}

// finishDiff adds one file's diff to the whole and its counts to r; a
// move or mode change with no line changed still gets its header.
func (pl *plan) finishDiff(r *FileReport, dw *textedit.DiffWriter, header bool, from, to string) {
	ch := dw.Finish()
	r.Additions, r.Removals = ch.Additions, ch.Removals
	pl.diffCut = pl.diffCut || ch.DiffTruncated
	switch {
	case ch.Diff != "":
		pl.diff.WriteString(ch.Diff)
	case header && pl.diff.Len() < MaxDiffBytes:
		fmt.Fprintf(&pl.diff, "--- a/%s\n+++ b/%s\n", from, to)
	}
}

// action is one change to the disk that committing makes.
type action struct {
	e    *entry
	kind string // "write", "create", "remove"
	done bool
}

// actions compares what every path holds now with what the patch leaves:
// writes and creations first, then removals (a file moved is in its new
// place before the old one goes).
func (pl *plan) actions() []*action {
	var writes, removes []*action
	for _, e := range pl.order {
		switch {
		case !e.orig.exists && e.cur.exists:
			writes = append(writes, &action{e: e, kind: "create"})
		case e.orig.exists && !e.cur.exists:
			removes = append(removes, &action{e: e, kind: "remove"})
		case e.orig.exists && (!bytes.Equal(e.orig.data, e.cur.data) || e.orig.mode != e.cur.mode):
			writes = append(writes, &action{e: e, kind: "write"})
		}
	}
	return append(writes, removes...)
}

// beforeAction, when set (by tests), runs before each change to the disk
// (a rename into place, a creation, a removal) and may fail it;
// beforeStage runs before each new content is written beside its file,
// side by side, and may fail that.
var beforeAction, beforeStage func(path string) error

// maxParallelWrites bounds the files staged at once: each waits mostly
// on its fsync, and the file system commits many of those together.
const maxParallelWrites = 16

// commit makes every change, each file atomically; if one fails, those
// already made are undone, newest first, so that the disk is as it was.
// The new content of every file rewritten is first staged beside it
// (written and fsynced, side by side, so their fsyncs overlap): a
// failure there changes nothing. Then, unless the call was given up on,
// folders are made and files created, the staged files are renamed into
// place and each folder they are in is fsynced once; removals follow.
func (pl *plan) commit(ctx context.Context, acts []*action) error {
	var rewrites, creates, removes []*action
	for _, a := range acts {
		switch a.kind {
		case "remove":
			removes = append(removes, a)
		case "create":
			creates = append(creates, a)
		default:
			rewrites = append(rewrites, a)
		}
	}
	fail := func(a *action, err error) error { return commitErr(a, err, pl.undo(acts)) }
	staged := make([]*fsutil.Staged, len(rewrites))
	defer func() {
		for _, st := range staged {
			if st != nil {
				st.Discard()
			}
		}
	}()
	if i, err := pl.stage(rewrites, staged); err != nil {
		return fail(rewrites[i], err)
	}
	if err := ctx.Err(); err != nil {
		return fail(acts[0], err)
	}
	for _, a := range creates {
		created, err := mkdirs(filepath.Dir(a.e.target))
		a.e.created = created
		if err != nil {
			return fail(a, err)
		}
	}
	for _, a := range creates {
		if err := pl.step(ctx, a, nil); err != nil {
			return fail(a, err)
		}
	}
	for i, a := range rewrites {
		if err := pl.step(ctx, a, staged[i]); err != nil {
			return fail(a, err)
		}
	}
	fsutil.SyncDirs(staged)
	for _, a := range removes {
		if err := pl.step(ctx, a, nil); err != nil {
			return fail(a, err)
		}
	}
	return nil
}

// stage writes the new content of every rewritten file beside it, side
// by side, into staged; on a failure it returns the first and the index
// of the rewrite it hit.
func (pl *plan) stage(rewrites []*action, staged []*fsutil.Staged) (int, error) {
	errs := make([]error, len(rewrites))
	var wg sync.WaitGroup
	slots := make(chan struct{}, maxParallelWrites)
	for i, a := range rewrites {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			if beforeStage != nil {
				if errs[i] = beforeStage(a.e.display); errs[i] != nil {
					return
				}
			}
			staged[i], errs[i] = fsutil.Stage(a.e.target, textedit.NewFileMode, func(w io.Writer) error {
				_, err := w.Write(a.e.cur.data)
				return err
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return i, err
		}
	}
	return 0, nil
}

// step makes one change (for a rewrite, puts its staged content in
// place), unless the call was given up on or a test fails it.
func (pl *plan) step(ctx context.Context, a *action, st *fsutil.Staged) error {
	err := ctx.Err()
	if err == nil && beforeAction != nil {
		err = beforeAction(a.e.display)
	}
	if err == nil {
		err = pl.do(a, st)
	}
	return err
}

func (pl *plan) do(a *action, st *fsutil.Staged) error {
	e := a.e
	switch a.kind {
	case "create":
		if err := fsutil.CreateFileAtomic(e.target, e.cur.data, e.cur.mode); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return &tool.Error{Code: tool.CodeExists, Message: fmt.Sprintf("%s appeared while the patch was being applied", e.display),
					Hint: "another process created it; read it and patch again"}
			}
			return err
		}
		a.done = true // from here on, undo removes it
		return os.Chmod(e.target, e.cur.mode)
	case "write":
		if err := st.Place(); err != nil {
			return err
		}
		a.done = true
		if e.cur.mode != e.orig.mode {
			return os.Chmod(e.target, e.cur.mode)
		}
		return nil
	default:
		if err := os.Remove(e.abs); err != nil {
			return err
		}
		a.done = true
		e.emptied = pl.removeEmptyParents(filepath.Dir(e.abs))
		return nil
	}
}

// removeEmptyParents removes dir and the folders above it while they are
// empty, up to the workspace root (kept), and returns those it removed,
// innermost first.
func (pl *plan) removeEmptyParents(dir string) []string {
	var out []string
	root := filepath.Clean(pl.env.Root)
	for d := dir; d != root && strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			break
		}
		out = append(out, d)
	}
	return out
}

// undo puts back what the done actions changed, newest first.
func (pl *plan) undo(acts []*action) error {
	var errs []error
	for i := len(acts) - 1; i >= 0; i-- {
		a := acts[i]
		e := a.e
		if !a.done {
			removeDirs(e.created)
			continue
		}
		var err error
		switch a.kind {
		case "create":
			err = os.Remove(e.target)
			removeDirs(e.created)
		case "write":
			if err = fsutil.WriteFileAtomic(e.target, e.orig.data, e.orig.mode); err == nil {
				err = os.Chmod(e.target, e.orig.mode)
			}
		default:
			for j := len(e.emptied) - 1; j >= 0; j-- {
				os.Mkdir(e.emptied[j], 0o755)
			}
			if e.link {
				err = os.Symlink(e.linkDest, e.abs)
			} else if err = fsutil.CreateFileAtomic(e.abs, e.orig.data, e.orig.mode); err == nil {
				err = os.Chmod(e.abs, e.orig.mode)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.display, err))
		}
	}
	return errors.Join(errs...)
}

// removeDirs removes the folders a patch made, innermost first, each
// only if it is empty.
func removeDirs(made []string) {
	for j := len(made) - 1; j >= 0; j-- {
		os.Remove(made[j])
	}
}

// mkdirs makes dir and the folders above it that are missing, and
// returns those it made, outermost first.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return made, err
		}
		made = append(made, missing[i])
	}
	return made, nil
}

// commitErr says which change failed and that the others were undone.
func commitErr(a *action, err, undoErr error) error {
	te := tool.AsError(err)
	if te.Code == tool.CodeInternal {
		te = tool.AsError(textedit.WriteErr(a.e.display, err))
	}
	if te.Code == tool.CodeInternal {
		switch {
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
			te = &tool.Error{Code: tool.CodeTimeout, Message: fmt.Sprintf("the call ended before %s was changed", a.e.display)}
		default:
			te = &tool.Error{Code: tool.CodeInternal, Message: fmt.Sprintf("changing %s: %v", a.e.display, err)}
		}
	}
	out := *te
	if undoErr != nil {
		out.Message += fmt.Sprintf("; putting back the files already changed failed too: %v", undoErr)
		out.Hint = "check those files by hand (git diff, git status): the patch was applied only in part"
		return &out
	}
	out.Message += "; every file already changed was put back, so nothing changed"
	if out.Hint == "" {
		out.Hint = "fix the cause (permissions, disk space, a file locked by another process) and apply the patch again"
	}
	return &out
}

// endsWithNewline says whether the text ends with a line break (an empty
// one counts as such: what is added to it ends with one).
func endsWithNewline(c *textedit.Content) bool {
	return len(c.Text) == 0 || c.Text[len(c.Text)-1] == '\n'
}
