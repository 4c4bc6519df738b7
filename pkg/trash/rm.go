package trash

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Prompting is rm's -i / -I / -f setting (the last one given wins).
type Prompting int

const (
	// PromptWriteProtected is rm's default: ask only about a
	// write-protected file, and only when a person is there to answer.
	PromptWriteProtected Prompting = iota
	// PromptNever is -f and --interactive=never.
	PromptNever
	// PromptOnce is -I: one question before a recursive removal or more
	// than three operands.
	PromptOnce
	// PromptAlways is -i: a question for every operand.
	PromptAlways
)

// promptOnceOver is how many operands -I takes without asking (GNU's 3).
const promptOnceOver = 3

// Asker puts a yes/no question to a person. cmd/ supplies one when
// standard input is a terminal; nil means nobody can answer.
type Asker func(question string) (bool, error)

// Protected is a directory rm refuses to remove, along with every
// ancestor of it, whatever the flags.
type Protected struct {
	Path string // absolute
	What string // "the home directory", "the workspace root"
}

// RmOptions are rm's switches and what it needs from its caller.
type RmOptions struct {
	Force          bool // -f: missing operands are no error
	Recursive      bool // -r, -R
	Dir            bool // -d: remove empty directories
	Prompt         Prompting
	NoPreserveRoot bool // accepted so scripts run; / is refused anyway
	Verbose        bool // collect rm -v's lines
	Ask            Asker
	// Protected lists directories refused with their ancestors; / and the
	// trash are always refused.
	Protected []Protected
	// Quote renders a name in messages (QuoteRm for rm's own style).
	Quote func(string) string
}

// RmResult is what happened to one operand.
type RmResult struct {
	// Path is the operand as given; bytes that are not UTF-8 show as \xHH.
	Path string `json:"path"`
	// Operand is the operand's exact bytes.
	Operand string `json:"-"`
	// Entry is set when the operand went to the trash.
	Entry *Entry `json:"entry,omitempty"`
	// Entries are set instead when rm -r LINK/ emptied the directory a
	// symlink points to (GNU's behaviour), one per child.
	Entries []*Entry `json:"entries,omitempty"`
	// Skipped says why nothing happened without an error: "missing"
	// (-f met a path that does not exist) or "declined" (answered no).
	Skipped string `json:"skipped,omitempty"`
	// Verbose are rm -v's lines for this operand.
	Verbose []string `json:"-"`
	Err     *RmError `json:"error,omitempty"`
}

// RmError is a failure for one operand, worded as rm words it.
type RmError struct {
	// Lines are rm's message lines, without the "rm: " prefix.
	Lines []string  `json:"-"`
	Code  tool.Code `json:"code"`
	Hint  string    `json:"hint,omitempty"`
}

// Message is the lines joined, for the JSON form.
func (e *RmError) Message() string { return strings.Join(e.Lines, "; ") }

// MarshalJSON writes the error as the contract's {code, message, hint}.
func (e *RmError) MarshalJSON() ([]byte, error) {
	return json.Marshal(tool.Error{Code: e.Code, Message: e.Message(), Hint: e.Hint})
}

// ErrCannotAsk is Rm's answer when -i or -I needs a question answered and
// nobody can answer: nothing is removed.
var ErrCannotAsk = errors.New("cannot ask: standard input is not a terminal")

// Rm trashes each operand with rm's rules (directories need -r, or -d when
// empty; -f ignores missing operands; '.' and '..' are skipped; / and the
// protected directories with their ancestors are refused). Relative
// operands are resolved against cwd. It stops early only when -I's one
// question is declined (no results) or cannot be asked (ErrCannotAsk).
func (c *Can) Rm(ctx context.Context, opts RmOptions, cwd string, operands []string) ([]RmResult, error) {
	if opts.Quote == nil {
		opts.Quote = func(s string) string { return QuoteRm(s, true) }
	}
	if opts.Prompt == PromptOnce && (opts.Recursive || len(operands) > promptOnceOver) {
		if opts.Ask == nil {
			return nil, ErrCannotAsk
		}
		q := fmt.Sprintf("remove %d argument%s", len(operands), plural(len(operands)))
		if opts.Recursive {
			q += " recursively"
		}
		ok, err := opts.Ask(q + "? ")
		if err != nil || !ok {
			return nil, err
		}
	}
	if opts.Prompt == PromptAlways && opts.Ask == nil && len(operands) > 0 {
		return nil, ErrCannotAsk
	}
	results := make([]RmResult, 0, len(operands))
	for _, op := range operands {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		results = append(results, c.rmOne(ctx, opts, cwd, op))
	}
	return results, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (c *Can) rmOne(ctx context.Context, opts RmOptions, cwd, op string) RmResult {
	q := opts.Quote(op)
	res := RmResult{Path: fsutil.DisplayPath(op), Operand: op}
	fail := func(code tool.Code, hint string, lines ...string) RmResult {
		res.Err = &RmError{Lines: lines, Code: code, Hint: hint}
		return res
	}
	cannot := func(err error) RmResult {
		code, hint := errnoCode(err)
		return fail(code, hint, fmt.Sprintf("cannot remove %s: %s", q, strerror(err)))
	}
	if op == "" {
		if opts.Force {
			res.Skipped = "missing"
			return res
		}
		return cannot(syscall.ENOENT)
	}
	abs := op
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, op)
	}
	trailing := len(op) > 1 && strings.HasSuffix(op, "/")
	statPath := filepath.Clean(abs)
	if trailing {
		statPath += "/" // as lstat("d/") does, follow a final symlink
	}
	info, err := os.Lstat(statPath)
	dot := isDotOrDotDot(op)
	if dot && err == nil && opts.Recursive {
		return fail(tool.CodeInvalidArgs, "name the directory by its own name",
			fmt.Sprintf("refusing to remove %s or %s directory: skipping %s", opts.Quote("."), opts.Quote(".."), q))
	}
	if err != nil {
		if opts.Force && nonexistent(err) {
			res.Skipped = "missing"
			return res
		}
		r := cannot(err)
		if errors.Is(err, fs.ErrNotExist) {
			if near := fsutil.NearNames(filepath.Clean(abs), 3); len(near) > 0 {
				r.Err.Hint = "did you mean: " + strings.Join(near, ", ") + "?"
			}
		}
		return r
	}
	if info.IsDir() {
		switch {
		case !opts.Recursive && !opts.Dir:
			return fail(tool.CodeIsDirectory, "pass -r to trash a directory with its contents (-d if it is empty)",
				fmt.Sprintf("cannot remove %s: Is a directory", q))
		case !opts.Recursive && !isEmptyDir(statPath):
			return fail(tool.CodeInvalidArgs, "pass -r to trash the directory with its contents",
				fmt.Sprintf("cannot remove %s: Directory not empty", q))
		case dot:
			return fail(tool.CodeInvalidArgs, "name the directory by its own name",
				fmt.Sprintf("refusing to remove %s or %s directory: skipping %s", opts.Quote("."), opts.Quote(".."), q))
		}
	}
	resolved := filepath.Clean(abs)
	if r, err := filepath.EvalSymlinks(statPath); err == nil && (info.IsDir() || trailing) {
		resolved = r
	} else if parent, err := filepath.EvalSymlinks(filepath.Dir(filepath.Clean(abs))); err == nil {
		resolved = filepath.Join(parent, filepath.Base(abs))
	}
	if refusal := c.refuse(opts, op, q, resolved, info.IsDir()); refusal != nil {
		res.Err = refusal
		return res
	}
	linkDir := trailing && info.IsDir() && isSymlink(filepath.Clean(abs))
	if ok, err := c.confirm(opts, q, statPath, info); err != nil {
		return fail(tool.CodeUsage, "run it from a terminal to answer, or drop -i/-I",
			fmt.Sprintf("cannot ask whether to remove %s: %v; nothing removed", q, err))
	} else if !ok {
		res.Skipped = "declined"
		return res
	}
	if opts.Verbose {
		res.Verbose = verboseLines(ctx, op, statPath, info, opts.Quote, linkDir)
	}
	if linkDir {
		// GNU rm -r LINK/ removes what the linked directory holds, then
		// fails on the link itself; the trash does the same, child by child.
		children, err := os.ReadDir(resolved)
		if err != nil {
			return cannot(err)
		}
		for _, ch := range children {
			e, err := c.Put(ctx, filepath.Join(resolved, ch.Name()))
			if err != nil {
				return cannot(err)
			}
			res.Entries = append(res.Entries, e)
		}
		return fail(tool.CodeNotADirectory, "name the link without the trailing slash to trash the link itself",
			fmt.Sprintf("cannot remove %s: Not a directory", q))
	}
	e, err := c.Put(ctx, filepath.Clean(abs))
	if err != nil {
		if e != nil {
			res.Entry = e
		}
		return cannot(err)
	}
	res.Entry = e
	return res
}

// refuse returns the refusal for a path that is /, a protected directory
// or an ancestor of one, or part of the trash; nil when rm may go on.
func (c *Can) refuse(opts RmOptions, op, q, path string, isDir bool) *RmError {
	if isRootPath(path) {
		if opts.Recursive && !opts.NoPreserveRoot {
			first := fmt.Sprintf("it is dangerous to operate recursively on %s", q)
			if op != "/" {
				first = fmt.Sprintf("it is dangerous to operate recursively on %s (same as %s)", q, opts.Quote("/"))
			}
			return &RmError{Code: tool.CodeDenied, Hint: "name what to remove inside it",
				Lines: []string{first, "use --no-preserve-root to override this failsafe"}}
		}
		return &RmError{Code: tool.CodeDenied, Hint: "name what to remove inside it",
			Lines: []string{fmt.Sprintf("refusing to remove %s: it is the root directory", q)}}
	}
	if isDir {
		// "It is X" says more than "it holds X": look for it first.
		for _, ancestor := range []bool{false, true} {
			for _, p := range opts.Protected {
				for _, candidate := range resolvedForms(p.Path) {
					switch {
					case !ancestor && samePath(path, candidate):
						return &RmError{Code: tool.CodeDenied, Hint: "name what to remove inside it",
							Lines: []string{fmt.Sprintf("refusing to remove %s: it is %s", q, p.What)}}
					case ancestor && isBelow(candidate, path):
						return &RmError{Code: tool.CodeDenied, Hint: "name what to remove inside it",
							Lines: []string{fmt.Sprintf("refusing to remove %s: it holds %s (%s)", q, p.What, fsutil.DisplayPath(p.Path))}}
					}
				}
			}
		}
	}
	for _, t := range resolvedForms(c.Home) {
		if samePath(path, t) || isBelow(t, path) {
			return &RmError{Code: tool.CodeDenied, Hint: "`mcode trash empty` erases the trash; name what to remove beside it",
				Lines: []string{fmt.Sprintf("refusing to remove %s: it holds the trash (%s)", q, fsutil.DisplayPath(c.Home))}}
		}
		if isBelow(path, t) {
			return inTrash(q)
		}
	}
	uid := strconv.Itoa(c.UID)
	if strings.Contains(path+"/", "/.Trash-"+uid+"/") || strings.Contains(path+"/", "/.Trash/"+uid+"/") ||
		inPlatformTrash(c.Layout, path) {
		return inTrash(q)
	}
	return nil
}

func inTrash(q string) *RmError {
	return &RmError{Code: tool.CodeDenied, Hint: "use `mcode trash empty` to erase trashed files for good",
		Lines: []string{fmt.Sprintf("refusing to remove %s: it is in the trash", q)}}
}

// resolvedForms is a path as given and with its symlinks resolved.
func resolvedForms(p string) []string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
		return []string{p, r}
	}
	return []string{p}
}

// confirm asks the person when rm would: always under -i; under the
// default and -I only for a write-protected file (not a symlink), and
// only when someone can answer.
func (c *Can) confirm(opts RmOptions, q, path string, info fs.FileInfo) (bool, error) {
	protected := info.Mode()&fs.ModeSymlink == 0 && !writable(path)
	switch opts.Prompt {
	case PromptNever:
		return true, nil
	case PromptAlways:
	default:
		if !protected || opts.Ask == nil {
			return true, nil
		}
	}
	if opts.Ask == nil {
		return false, ErrCannotAsk
	}
	what := fileType(info, path)
	if protected {
		what = "write-protected " + what
	}
	question := fmt.Sprintf("remove %s %s? ", what, q)
	if info.IsDir() && !isEmptyDir(path) {
		question = fmt.Sprintf("remove %s %s and everything in it? ", what, q)
	}
	return opts.Ask(question)
}

// fileType is GNU's file_type() wording.
func fileType(info fs.FileInfo, path string) string {
	m := info.Mode()
	switch {
	case m.IsRegular():
		if info.Size() == 0 {
			return "regular empty file"
		}
		return "regular file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character special file"
	case m&fs.ModeDevice != 0:
		return "block special file"
	}
	return "file"
}

// verboseLines are rm -v's lines: for a directory, everything in it
// children first (a directory after its contents), then the directory.
func verboseLines(ctx context.Context, op, path string, info fs.FileInfo, quote func(string) string, contentsOnly bool) []string {
	var lines []string
	var walk func(dir, shown string)
	walk = func(dir, shown string) {
		entries, err := os.ReadDir(dir)
		if err != nil || ctx.Err() != nil {
			return
		}
		for _, e := range entries {
			child := shown + e.Name()
			if !strings.HasSuffix(shown, "/") {
				child = shown + "/" + e.Name()
			}
			if e.IsDir() {
				walk(filepath.Join(dir, e.Name()), child)
				lines = append(lines, "removed directory "+quote(child))
			} else {
				lines = append(lines, "removed "+quote(child))
			}
		}
	}
	if !info.IsDir() {
		return []string{"removed " + quote(op)}
	}
	walk(path, op)
	if !contentsOnly {
		lines = append(lines, "removed directory "+quote(op))
	}
	return lines
}

// nonexistent is GNU rm's nonexistent_file_errno: the errors -f is
// silent about (a path through a file, "file/", is as missing as any).
func nonexistent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) ||
		errors.Is(err, syscall.EILSEQ) || errors.Is(err, syscall.EINVAL)
}

func isDotOrDotDot(op string) bool {
	base := strings.TrimRight(op, "/")
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	return base == "." || base == ".."
}

func isEmptyDir(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	return errors.Is(err, io.EOF)
}

func isSymlink(path string) bool {
	info, err := os.Lstat(path)
	return err == nil && info.Mode()&fs.ModeSymlink != 0
}

// strerror is the C library's message for err's errno ("No such file or
// directory"), which is what rm prints; other errors print as they are.
func strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		if s != "" {
			return strings.ToUpper(s[:1]) + s[1:]
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// errnoCode maps a file system error to the contract's code and a hint.
func errnoCode(err error) (tool.Code, string) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tool.CodeNotFound, "check the path; use glob to find the file"
	case errors.Is(err, syscall.ENOTDIR):
		return tool.CodeNotADirectory, "a path component is a file, not a directory"
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return tool.CodePermission, "the folder holding it is not writable by you"
	case errors.Is(err, syscall.EBUSY):
		return tool.CodeInvalidArgs, "it is in use (a mount point?); nothing was removed"
	}
	return tool.CodeInternal, "the file system refused; nothing was removed unless the message says so"
}
