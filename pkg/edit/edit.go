// Package edit holds the tools that change files: write (a whole file)
// and edit (replacements of exact or fuzzily located text). Both keep
// every byte they were not asked to change: encoding, byte-order mark,
// line breaks, mode; both hold an advisory lock across their
// read-modify-write and replace the file atomically.
package edit

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/textedit"
	"github.com/mcode-dev/mcode/pkg/textenc"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// EditName is the edit tool's name.
const EditName = "edit"

// MaxEdits caps the edits of one call.
const MaxEdits = 100

// Timeout is the default time limit of write and edit, mostly spent
// waiting for another process's lock.
const Timeout = 60 * time.Second

// Params are the edit tool's parameters: one edit (old_string,
// new_string, replace_all, expect_count) or several (edits).
type Params struct {
	FilePath    string  `json:"file_path"`
	OldString   *string `json:"old_string,omitempty"`
	NewString   *string `json:"new_string,omitempty"`
	ReplaceAll  bool    `json:"replace_all,omitempty"`
	ExpectCount *int    `json:"expect_count,omitempty"`
	Edits       []Edit  `json:"edits,omitempty"`
	IfMatch     string  `json:"if_match,omitempty"`
	DryRun      bool    `json:"dry_run,omitempty"`
}

// Result is what an edit did.
type Result struct {
	FilePath string `json:"file_path"`
	// Target is the file written when file_path is a symlink.
	Target string `json:"target,omitempty"`
	// Match is fuzzy when any edit matched fuzzily, else exact.
	Match string `json:"match"`
	// LineStart and LineEnd span every replaced text, in the lines of the
	// file before the edit.
	LineStart    int          `json:"line_start"`
	LineEnd      int          `json:"line_end"`
	Replacements int          `json:"replacements"`
	Edits        []EditReport `json:"edits"`
	// LineNumbersStripped says some old_string matched only once read's
	// line-number prefixes were taken off it.
	LineNumbersStripped bool `json:"line_numbers_stripped"`
	// NewLineNumbersStripped says some new_string alone carried read's
	// prefixes, which were taken off before writing.
	NewLineNumbersStripped bool `json:"new_line_numbers_stripped,omitempty"`
	// Notes say what mcode changed in what it was given (a final newline
	// dropped from --new-file).
	Notes []string `json:"notes,omitempty"`
	textedit.Changes
	BytesBefore int `json:"bytes_before"`
	BytesAfter  int `json:"bytes_after"`
	// SHA256 is the stamp of the file's new bytes (what they would be,
	// under dry_run), for the next call's if_match.
	SHA256     string `json:"sha256"`
	Encoding   string `json:"encoding"`
	LineEnding string `json:"line_ending"`
	DryRun     bool   `json:"dry_run"`
}

var (
	//go:embed edit.md
	editDescription string
	//go:embed edit.schema.json
	editSchema string
)

// limits are the constants the descriptions and schemas quote.
var limits = map[string]any{
	"MaxEdits":        MaxEdits,
	"MaxReplacements": MaxReplacements,
	"MaxFileMiB":      textedit.MaxFileMiB,
	"MaxDiffKiB":      textedit.MaxDiffBytes >> 10,
	"DiffContext":     textedit.DiffContext,
	"FuzzySpanFactor": textedit.FuzzySpanFactor,
	"FuzzySpanSlack":  textedit.FuzzySpanSlack,
}

// EditTool is the registry entry of edit.
func EditTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: EditName, Mode: tool.Sequential, Timeout: Timeout,
		Positional: []string{"file_path"},
		Facts:      tool.Facts{Destructive: true},
		// --old and --new are what people type; path is read's name.
		Aliases:     map[string]tool.Alias{"path": {Param: "file_path"}, "old": {Param: "old_string"}, "new": {Param: "new_string"}},
		Paths:       tool.PathParams(tool.PathParam{Field: "file_path", Write: true}),
		Description: editDescription, Schema: editSchema, Data: limits,
	}, Run)
}

// edits returns the call's edits in one list.
func (p Params) edits() ([]Edit, error) {
	single := p.OldString != nil || p.NewString != nil || p.ReplaceAll || p.ExpectCount != nil
	switch {
	case len(p.Edits) > 0 && single:
		return nil, &tool.Error{Code: tool.CodeUsage,
			Message: "give either old_string/new_string (with replace_all, expect_count) or edits, not both",
			Hint:    "put every replacement in edits, each with its own old_string, new_string and replace_all"}
	case len(p.Edits) > MaxEdits:
		return nil, &tool.Error{Code: tool.CodeUsage,
			Message: fmt.Sprintf("%d edits in one call, more than %d", len(p.Edits), MaxEdits),
			Hint:    "split them over several calls"}
	case len(p.Edits) > 0:
		return p.Edits, nil
	case p.OldString == nil || p.NewString == nil:
		missing := "old_string"
		if p.OldString != nil {
			missing = "new_string"
		}
		return nil, &tool.Error{Code: tool.CodeUsage,
			Message: missing + " is missing",
			Hint:    "pass old_string (--old) and new_string (--new), or edits; to write a whole file use write"}
	}
	return []Edit{{OldString: *p.OldString, NewString: *p.NewString, ReplaceAll: p.ReplaceAll, ExpectCount: p.ExpectCount}}, nil
}

// Run applies an edit call to its file.
func Run(ctx context.Context, env *tool.Env, p Params) (*tool.Response, error) {
	edits, err := p.edits()
	if err != nil {
		return nil, err
	}
	abs := env.Abs(fsutil.InputPath(env.Abs, p.FilePath))
	display := textedit.DisplayPath(env.Root, abs)
	target, err := textedit.Resolve(display, abs)
	if err != nil {
		return nil, err
	}
	info, err := textedit.StatTarget(display, target)
	if err != nil {
		return nil, err
	}
	if err := fsutil.CheckFolderSuffix(p.FilePath, info, false); err != nil {
		return nil, err
	}
	if info == nil {
		if e := edits[0]; len(edits) == 1 && e.OldString == "" && !e.ReplaceAll && e.ExpectCount == nil && p.IfMatch == "" {
			return createByEdit(ctx, env, p.FilePath, e.NewString, p.DryRun)
		}
		return nil, fsutil.NotFound(display, abs)
	}
	unlock, err := textedit.LockFile(ctx, display, target)
	if err != nil {
		return nil, err
	}
	defer unlock()
	data, err := os.ReadFile(target)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", display, err)
	}
	if err := textedit.CheckIfMatch(display, data, p.IfMatch); err != nil {
		return nil, err
	}
	c, err := textedit.DecodeContent(display, data)
	if err != nil {
		return nil, err
	}
	pieces, reports, f := applyEdits(display, c.Text, edits, c.ByteWise)
	if f != nil {
		f.info.FilePath = fsutil.DisplayPath(abs)
		return &tool.Response{Result: f.info}, f.err
	}
	ix := textedit.NewLineIndex(c.Text)
	diff := textedit.NewDiffWriter(display, ix, c.Display(), textedit.MaxDiffBytes)
	textedit.PieceChanges(ix, pieces, diff.Add)
	res := &Result{
		FilePath: fsutil.DisplayPath(abs), Match: textedit.MatchExact, Edits: reports,
		Changes:     diff.Finish(),
		BytesBefore: len(data), Encoding: string(c.Enc), LineEnding: c.LineEnding(), DryRun: p.DryRun,
	}
	if target != abs {
		res.Target = target
	}
	for _, r := range reports {
		if r.Match == textedit.MatchFuzzy {
			res.Match = textedit.MatchFuzzy
		}
		res.LineNumbersStripped = res.LineNumbersStripped || r.LineNumbersStripped
		res.NewLineNumbersStripped = res.NewLineNumbersStripped || r.NewLineNumbersStripped
		res.Replacements += r.Count
	}
	res.LineStart, res.LineEnd = lineSpan(c.Text, pieces)
	if c.Reencode {
		if _, err := textenc.Encode(string(textedit.Render(c.Text, pieces)), c.Enc); err != nil {
			return nil, &tool.Error{Code: tool.CodeEncoding,
				Message: fmt.Sprintf("%s is %s, which cannot hold every character of new_string: %v", display, c.Enc, err),
				Hint:    "use characters the file's encoding has, or convert the file to UTF-8 first (write converts it when the content needs it); nothing was written"}
		}
	}

	// The stamp of the new bytes is hashed beside the write, not in it:
	// the two passes over a large file then take one core each.
	hashed := make(chan *textedit.HashingWriter, 1)
	go func() {
		hw := textedit.NewHashingWriter(io.Discard)
		_ = textedit.WriteEdited(hw, c, pieces)
		hashed <- hw
	}()
	if !p.DryRun {
		err := textedit.Commit(ctx, target, func(w io.Writer) error { return textedit.WriteEdited(w, c, pieces) })
		if err != nil {
			<-hashed
			return nil, textedit.WriteErr(display, err)
		}
	}
	hw := <-hashed
	res.BytesAfter, res.SHA256 = hw.N, hw.Sum()
	return &tool.Response{Output: editOutput(display, res), Result: res}, nil
}

// createByEdit creates a missing file from an edit whose old_string is
// empty, as Claude Code's Edit does, through write (never over a file
// that appeared meanwhile), and says so.
func createByEdit(ctx context.Context, env *tool.Env, path, content string, dryRun bool) (*tool.Response, error) {
	resp, err := Write(ctx, env, WriteParams{FilePath: path, Content: content, CreateOnly: true, DryRun: dryRun})
	if err != nil {
		return resp, err
	}
	const note = "the file did not exist and old_string was empty: created it with new_string, as write does"
	if res, ok := resp.Result.(*WriteResult); ok {
		res.Note = strings.TrimPrefix(res.Note+"; "+note, "; ")
	}
	first, rest, _ := strings.Cut(resp.Output, "\n")
	resp.Output = first + " (" + note + ")\n" + rest
	return resp, nil
}

// lineSpan is the range of lines (1-based, before the edit) that the
// pieces replaced.
func lineSpan(text []byte, pieces []textedit.Piece) (int, int) {
	if len(pieces) == 0 {
		return 0, 0
	}
	first := pieces[0]
	last := pieces[len(pieces)-1]
	return textedit.LineAt(text, first.Start), textedit.LineAt(text, max(last.End-1, last.Start))
}

// editOutput is the text a model reads: what changed where, then the diff.
func editOutput(display string, r *Result) string {
	var b strings.Builder
	if r.DryRun {
		b.WriteString("Dry run, nothing written: ")
	}
	verb := "Edited"
	if r.DryRun {
		verb = "would edit"
	}
	fmt.Fprintf(&b, "%s %s", verb, display)
	if len(r.Edits) == 1 {
		e := r.Edits[0]
		if e.Count > 1 {
			fmt.Fprintf(&b, ": %d replacements (%s), %s match", e.Count, textedit.LinesPhrase(e.Lines, e.Count), e.Match)
		} else {
			fmt.Fprintf(&b, ": %s, %s match", rangePhrase(e.LineStart, e.LineEnd), e.Match)
		}
	} else {
		fmt.Fprintf(&b, " with %d edits:", len(r.Edits))
		for i, e := range r.Edits {
			if i > 0 {
				b.WriteString(";")
			}
			if e.Count > 1 {
				fmt.Fprintf(&b, " [%d] %d× at %s, %s", i, e.Count, textedit.LinesPhrase(e.Lines, e.Count), e.Match)
			} else {
				fmt.Fprintf(&b, " [%d] %s, %s", i, rangePhrase(e.LineStart, e.LineEnd), e.Match)
			}
		}
	}
	fmt.Fprintf(&b, "; +%d -%d lines", r.Additions, r.Removals)
	if r.LineNumbersStripped {
		b.WriteString(" (read's line-number prefixes were stripped from old_string to match)")
	}
	if r.NewLineNumbersStripped {
		b.WriteString(" (read's line-number prefixes were stripped from new_string, which had one on every line while old_string had none)")
	}
	b.WriteString("\n")
	b.WriteString(r.Diff)
	return b.String()
}

func rangePhrase(a, z int) string {
	if a == z {
		return fmt.Sprintf("line %d", a)
	}
	return fmt.Sprintf("lines %d-%d", a, z)
}
