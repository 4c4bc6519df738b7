package edit

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/textedit"
	"github.com/mcode-dev/mcode/pkg/textenc"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// WriteName is the write tool's name.
const WriteName = "write"

// What write did to the file.
const (
	Created   = "created"
	Replaced  = "replaced"
	Unchanged = "unchanged"
)

// WriteParams are the write tool's parameters.
type WriteParams struct {
	FilePath   string `json:"file_path"`
	Content    string `json:"content"`
	CreateOnly bool   `json:"create_only,omitempty"`
	IfMatch    string `json:"if_match,omitempty"`
	DryRun     bool   `json:"dry_run,omitempty"`
}

// WriteResult is what a write did.
type WriteResult struct {
	FilePath string `json:"file_path"`
	// Target is the file written when file_path is a symlink.
	Target string `json:"target,omitempty"`
	// Action is created, replaced, or unchanged (the file already held
	// exactly these bytes and was not touched).
	Action      string `json:"action"`
	BytesBefore int    `json:"bytes_before"`
	BytesAfter  int    `json:"bytes_after"`
	SHA256      string `json:"sha256"`
	Encoding    string `json:"encoding"`
	LineEnding  string `json:"line_ending"`
	Mode        string `json:"mode"`
	textedit.Changes
	// Note says what write kept or could not keep of the old file.
	Note   string `json:"note,omitempty"`
	DryRun bool   `json:"dry_run"`
}

var (
	//go:embed write.md
	writeDescription string
	//go:embed write.schema.json
	writeSchema string
)

// WriteTool is the registry entry of write.
func WriteTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: WriteName, Mode: tool.Sequential, Timeout: Timeout,
		Positional:  []string{"file_path"},
		Facts:       tool.Facts{Destructive: true, Idempotent: true},
		Aliases:     map[string]tool.Alias{"path": {Param: "file_path"}},
		Paths:       tool.PathParams(tool.PathParam{Field: "file_path", Write: true}),
		Description: writeDescription, Schema: writeSchema, Data: limits,
	}, Write)
}

// Write writes a whole file.
func Write(ctx context.Context, env *tool.Env, p WriteParams) (*tool.Response, error) {
	if len(p.Content) > textedit.MaxFileMiB<<20 {
		return nil, &tool.Error{Code: tool.CodeTooLarge,
			Message: fmt.Sprintf("content is %d MiB, more than the %d MiB write handles", len(p.Content)>>20, textedit.MaxFileMiB),
			Hint:    "write a file this large with a command (cp, a redirection) through bash"}
	}
	if textedit.PastedReadOutput(p.Content) {
		return nil, &tool.Error{Code: tool.CodeInvalidArgs,
			Message: "every line of content starts with a line number and → as read prints them (`    12→`), numbered one after another: this is read's output pasted as it is",
			Hint:    "send the file's text without the line-number prefixes"}
	}
	abs := env.Abs(fsutil.InputPath(env.Abs, p.FilePath))
	display := textedit.DisplayPath(env.Root, abs)
	target, err := textedit.Resolve(display, abs)
	if err != nil {
		return nil, err
	}
	// A file created by another process between the check and our link
	// sends us round once more, to replace it under the lock.
	for range 2 {
		info, err := textedit.StatTarget(display, target)
		if err != nil {
			return nil, err
		}
		if err := fsutil.CheckFolderSuffix(p.FilePath, info, true); err != nil {
			return nil, err
		}
		var res *WriteResult
		if info == nil {
			res, err = create(ctx, display, target, p)
			if errors.Is(err, fs.ErrExist) {
				continue
			}
		} else {
			res, err = replace(ctx, display, target, info, p)
		}
		if err != nil {
			return nil, err
		}
		res.FilePath = fsutil.DisplayPath(abs)
		if target != abs {
			res.Target = target
		}
		return &tool.Response{Output: writeOutput(display, res), Result: res}, nil
	}
	return nil, fmt.Errorf("writing %s: the file keeps appearing and disappearing", display)
}

// create writes a new file, never over one that appeared meanwhile (that
// error is fs.ErrExist, for the caller to retry as a replacement).
func create(ctx context.Context, display, target string, p WriteParams) (*WriteResult, error) {
	if p.IfMatch != "" {
		return nil, &tool.Error{Code: tool.CodeStale,
			Message: fmt.Sprintf("%s does not exist, so it cannot have the sha256 %s", display, strings.ToLower(p.IfMatch)),
			Hint:    "drop if_match to create the file, or check the path"}
	}
	data := []byte(p.Content)
	lines := textedit.NewLineIndex(data).Count()
	res := &WriteResult{
		Action: Created, BytesAfter: len(data), SHA256: textedit.SHA256Hex(data),
		Encoding: string(textenc.UTF8), LineEnding: string(textenc.LineEndings(data)),
		Mode:    fmt.Sprintf("%04o", textedit.NewFileMode&^fsutil.Umask()),
		Changes: textedit.Changes{Additions: lines, FirstChangedLine: min(1, lines)},
		DryRun:  p.DryRun,
	}
	if p.DryRun {
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err // given up on, as in commit
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return nil, textedit.WriteErr(display, err)
	}
	if err := fsutil.CreateFileAtomic(target, data, textedit.NewFileMode); err != nil {
		if errors.Is(err, fs.ErrExist) && !p.CreateOnly {
			return nil, err
		}
		if errors.Is(err, fs.ErrExist) {
			return nil, existsError(display)
		}
		return nil, textedit.WriteErr(display, err)
	}
	if info, err := os.Stat(target); err == nil {
		res.Mode = fsutil.OctalMode(info.Mode())
	}
	return res, nil
}

func existsError(display string) error {
	return &tool.Error{Code: tool.CodeInvalidArgs,
		Message: fmt.Sprintf("%s already exists and create_only is set", display),
		Hint:    "drop create_only to replace it, or use edit to change part of it"}
}

// replace writes over an existing file under its lock, keeping its
// encoding, byte-order mark, line breaks and mode.
func replace(ctx context.Context, display, target string, info fs.FileInfo, p WriteParams) (*WriteResult, error) {
	if p.CreateOnly {
		return nil, existsError(display)
	}
	unlock, err := textedit.LockFile(ctx, display, target)
	if err != nil {
		return nil, err
	}
	defer unlock()
	old, err := os.ReadFile(target)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", display, err)
	}
	if err := textedit.CheckIfMatch(display, old, p.IfMatch); err != nil {
		return nil, err
	}
	// c is nil when the old bytes are no text (binary, or UTF-16 that
	// does not round-trip): the content then goes in as UTF-8.
	c, err := textedit.DecodeContent(display, old)
	if err != nil {
		c = nil
	}
	data, text, enc, note := textedit.EncodeLike(c, p.Content)
	res := &WriteResult{
		Action: Replaced, BytesBefore: len(old), BytesAfter: len(data), SHA256: textedit.SHA256Hex(data),
		Encoding: string(enc), LineEnding: string(textenc.LineEndings([]byte(text))),
		Mode: fsutil.OctalMode(info.Mode()), Note: note, DryRun: p.DryRun,
	}
	if c != nil {
		oldText := string(c.Text)
		if d := c.Display(); d != nil {
			oldText = d(oldText)
		}
		a, b := textedit.SplitKeep([]byte(oldText)), textedit.SplitKeep([]byte(text))
		res.Changes = textedit.Summarize(display, textedit.StringLines(a), textedit.LineDiff(a, b), nil)
	} else {
		res.Changes = textedit.Changes{Additions: textedit.NewLineIndex([]byte(text)).Count(), FirstChangedLine: 1}
		res.Note = joinNote(res.Note, "the old content was binary, so no diff is shown")
	}
	if string(old) == string(data) {
		res.Action = Unchanged
		return res, nil
	}
	if p.DryRun {
		return res, nil
	}
	err = textedit.Commit(ctx, target, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return nil, textedit.WriteErr(display, err)
	}
	return res, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// writeOutput is the text a model reads.
func writeOutput(display string, r *WriteResult) string {
	var b strings.Builder
	created, replaced := "Created", "Replaced"
	if r.DryRun {
		b.WriteString("Dry run, nothing written: ")
		created, replaced = "would create", "would replace"
	}
	switch r.Action {
	case Created:
		fmt.Fprintf(&b, "%s %s (%d bytes, %d line%s, mode %s)", created, display, r.BytesAfter, r.Additions, textedit.Plural(r.Additions), r.Mode)
	case Unchanged:
		fmt.Fprintf(&b, "%s already holds exactly this content; nothing written", display)
	default:
		fmt.Fprintf(&b, "%s %s: %d → %d bytes, +%d -%d lines", replaced, display, r.BytesBefore, r.BytesAfter, r.Additions, r.Removals)
		if r.Encoding != string(textenc.UTF8) {
			fmt.Fprintf(&b, ", kept %s", r.Encoding)
		}
		if r.LineEnding == string(textenc.CRLF) {
			b.WriteString(", CRLF line breaks")
		}
	}
	if r.Note != "" {
		fmt.Fprintf(&b, " (%s)", r.Note)
	}
	b.WriteString("\n")
	b.WriteString(r.Diff)
	return b.String()
}
