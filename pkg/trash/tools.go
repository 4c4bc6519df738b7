// Package trash is recoverable deletion: rm's semantics and the trash_*
// tools over the FreeDesktop.org Trash specification, so that what mcode
// trashes, trash-cli and file managers list and restore, and the other
// way round. The rm shim (mcode under the name rm) runs the same code.
package trash

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Tool names.
const (
	RmName      = "rm"
	PutName     = "trash_put"
	ListName    = "trash_list"
	RestoreName = "trash_restore"
	EmptyName   = "trash_empty"
)

// Default time limits: a move across file systems copies the whole tree
// (and restore copies it back); a copy cut short leaves nothing behind.
const (
	Timeout     = 10 * time.Minute
	ListTimeout = time.Minute
)

// Limits of trash_list.
const (
	ListLimit    = 100
	MaxListLimit = 10000
)

var (
	//go:embed rm.md
	rmDescription string
	//go:embed rm.schema.json
	rmSchema string
	//go:embed trash_put.md
	putDescription string
	//go:embed trash_put.schema.json
	putSchema string
	//go:embed trash_list.md
	listDescription string
	//go:embed trash_list.schema.json
	listSchema string
	//go:embed trash_restore.md
	restoreDescription string
	//go:embed trash_restore.schema.json
	restoreSchema string
	//go:embed trash_empty.md
	emptyDescription string
	//go:embed trash_empty.schema.json
	emptySchema string
)

// specData feeds the description and schema templates.
var specData = map[string]any{"ListLimit": ListLimit, "MaxListLimit": MaxListLimit}

// RmParams are rm's parameters.
type RmParams struct {
	Paths       []string `json:"paths"`
	Force       bool     `json:"force,omitempty"`
	Recursive   bool     `json:"recursive,omitempty"`
	Dir         bool     `json:"dir,omitempty"`
	Interactive bool     `json:"interactive,omitempty"`
}

// PutParams are trash_put's parameters.
type PutParams struct {
	Paths []string `json:"paths"`
}

// RemoveResult is the answer of rm and trash_put.
type RemoveResult struct {
	Trashed int        `json:"trashed"`
	Failed  int        `json:"failed"`
	Items   []RmResult `json:"items"`
}

// RmTool is `rm`. asker returns, at each call, who can answer -i's
// questions: nil when nobody can (then interactive is refused).
func RmTool(asker func() Asker) *tool.Tool {
	return tool.New(tool.Spec{
		Name: RmName, Mode: tool.Sequential, Timeout: Timeout,
		// rm's own letters, on the command line and in arguments alike.
		Aliases:     map[string]tool.Alias{"-f": {Param: "force"}, "-r": {Param: "recursive"}, "-R": {Param: "recursive"}, "-d": {Param: "dir"}, "-i": {Param: "interactive"}},
		Positional:  []string{"paths"},
		Facts:       tool.Facts{Destructive: true},
		Paths:       tool.PathParams(tool.PathParam{Field: "paths", Delete: true}),
		Description: rmDescription, Schema: rmSchema, Data: specData,
	}, func(ctx context.Context, env *tool.Env, p RmParams) (*tool.Response, error) {
		if len(p.Paths) == 0 && !p.Force {
			return nil, &tool.Error{Code: tool.CodeUsage, Message: "rm: missing operand",
				Hint: "name the files or directories to trash (force accepts an empty list, as rm -f does)"}
		}
		opts := RmOptions{Force: p.Force, Recursive: p.Recursive, Dir: p.Dir}
		if asker != nil {
			opts.Ask = asker()
		}
		if p.Interactive {
			opts.Prompt = PromptAlways
		} else if p.Force {
			opts.Prompt = PromptNever
		}
		return remove(ctx, env, opts, p.Paths)
	})
}

// PutTool is `trash_put`.
func PutTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: PutName, Mode: tool.Sequential, Timeout: Timeout,
		Positional:  []string{"paths"},
		Facts:       tool.Facts{Destructive: true},
		Paths:       tool.PathParams(tool.PathParam{Field: "paths", Delete: true}),
		Description: putDescription, Schema: putSchema, Data: specData,
	}, func(ctx context.Context, env *tool.Env, p PutParams) (*tool.Response, error) {
		return remove(ctx, env, RmOptions{Recursive: true, Dir: true, Prompt: PromptNever}, p.Paths)
	})
}

// ProtectedDirs are the directories rm refuses, with their ancestors, for
// a caller: the home directory and the workspace root (/ always is).
func ProtectedDirs(env *tool.Env) []Protected {
	var p []Protected
	if env.UserHome != "" {
		p = append(p, Protected{Path: env.UserHome, What: "the home directory"})
	}
	if env.Root != "" {
		p = append(p, Protected{Path: env.Root, What: "the workspace root"})
	}
	return p
}

func remove(ctx context.Context, env *tool.Env, opts RmOptions, paths []string) (*tool.Response, error) {
	can := New(env)
	opts.Protected = ProtectedDirs(env)
	opts.Quote = func(s string) string { return QuoteRm(s, true) }
	operands := make([]string, len(paths))
	for i, p := range paths {
		operands[i] = fsutil.InputPath(env.Abs, expandHome(env, p))
	}
	results, err := can.Rm(ctx, opts, env.Root, operands)
	if errors.Is(err, ErrCannotAsk) {
		return nil, &tool.Error{Code: tool.CodeUsage,
			Message: "interactive needs a person at a terminal to answer, and there is none: nothing was removed",
			Hint:    "drop interactive (everything goes to the trash and can be restored)"}
	}
	res := RemoveResult{Items: results}
	var b strings.Builder
	var firstErr *RmError
	for i := range results {
		r := &results[i]
		for _, e := range append([]*Entry{r.Entry}, r.Entries...) {
			if e == nil {
				continue
			}
			res.Trashed++
			fmt.Fprintf(&b, "trashed %s (%s) as id %s\n", QuoteRm(r.Operand, true), describe(e), e.ID)
		}
		switch r.Skipped {
		case "missing":
			fmt.Fprintf(&b, "nothing to remove at %s (force)\n", QuoteRm(r.Operand, true))
		case "declined":
			fmt.Fprintf(&b, "kept %s (answered no)\n", QuoteRm(r.Operand, true))
		}
		if r.Err != nil {
			res.Failed++
			if firstErr == nil {
				firstErr = r.Err
			}
			for _, l := range r.Err.Lines {
				b.WriteString("rm: " + l + "\n")
			}
		}
	}
	if res.Trashed > 0 {
		b.WriteString("restore with: mcode trash restore ID (or the original path)\n")
	}
	if len(paths) == 0 {
		b.WriteString("nothing to remove: no paths (force)\n")
	}
	resp := &tool.Response{Output: b.String(), Result: res}
	if err != nil {
		return resp, err
	}
	if firstErr != nil {
		msg := firstErr.Message()
		if res.Failed > 1 {
			msg += fmt.Sprintf(" (and %d more failure%s)", res.Failed-1, plural(res.Failed-1))
		}
		return resp, &tool.Error{Code: firstErr.Code, Message: msg, Hint: firstErr.Hint}
	}
	return resp, nil
}

// expandHome resolves ~ like the other tools (Env.Abs) while keeping
// relative operands relative, so messages show them as given.
func expandHome(env *tool.Env, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		return env.Abs(p)
	}
	return p
}

func describe(e *Entry) string {
	if e.Kind == "directory" {
		return "directory, " + fsutil.HumanBytes(e.Size)
	}
	if e.Kind == "file" {
		return fsutil.HumanBytes(e.Size)
	}
	return e.Kind
}

// ListParams are trash_list's parameters.
type ListParams struct {
	Path  string `json:"path,omitempty"`
	Since string `json:"since,omitempty"`
	Limit int    `json:"limit,omitempty"`
}

// ListResult is trash_list's answer.
type ListResult struct {
	Count     int       `json:"count"`
	Total     int       `json:"total"`
	Entries   []*Entry  `json:"entries"`
	Problems  []Problem `json:"problems"`
	TrashDirs []string  `json:"trash_dirs"`
}

// ListTool is `trash_list`.
func ListTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: ListName, Mode: tool.Parallel, Timeout: ListTimeout,
		Positional:  []string{"path"},
		Facts:       tool.Facts{ReadOnly: true, Idempotent: true},
		Description: listDescription, Schema: listSchema, Data: specData,
	}, func(ctx context.Context, env *tool.Env, p ListParams) (*tool.Response, error) {
		can := New(env)
		opts := ListOptions{Sizes: true, Dirs: can.Dirs()}
		if p.Path != "" {
			opts.Prefix = env.Abs(p.Path)
		}
		if p.Since != "" {
			since, err := ParseSince(p.Since, can.Now())
			if err != nil {
				return nil, &tool.Error{Code: tool.CodeUsage, Message: "since: " + err.Error(),
					Hint: "give a time (2026-01-31, 2026-01-31T15:04:05) or an age (90m, 2h, 3d, 1w)"}
			}
			opts.Since = since
		}
		limit := p.Limit
		if limit == 0 {
			limit = ListLimit
		}
		entries, problems, err := can.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		res := ListResult{Total: len(entries), Entries: entries, Problems: problems}
		for _, d := range opts.Dirs {
			res.TrashDirs = append(res.TrashDirs, d.Path)
		}
		resp := &tool.Response{Result: &res}
		if len(entries) > limit {
			res.Entries = entries[:limit]
			resp.Truncated = true
			resp.Continuation = &tool.Continuation{Hint: fmt.Sprintf(
				"%d of %d entries shown, newest first; pass limit (up to %d), path or since to see the others",
				limit, len(entries), MaxListLimit)}
		}
		res.Count = len(res.Entries)
		if res.Entries == nil {
			res.Entries = []*Entry{}
		}
		if res.Problems == nil {
			res.Problems = []Problem{}
		}
		var filters []string
		if p.Path != "" {
			filters = append(filters, "path "+lineSafe(fsutil.DisplayPath(opts.Prefix)))
		}
		if p.Since != "" {
			filters = append(filters, "since "+lineSafe(p.Since))
		}
		resp.Output = formatList(&res, filters)
		return resp, nil
	})
}

// formatList renders a listing; filters name what narrowed it, so that
// an empty answer says whether the trash is empty or nothing matched.
func formatList(res *ListResult, filters []string) string {
	var b strings.Builder
	switch {
	case res.Total == 0 && len(filters) > 0:
		b.WriteString("nothing in the trash matches " + strings.Join(filters, ", ") + "\n")
	case res.Total == 0:
		b.WriteString("the trash is empty")
		if len(res.TrashDirs) > 0 {
			b.WriteString(" (" + strings.Join(res.TrashDirs, ", ") + ")")
		}
		b.WriteString("\n")
	}
	for _, e := range res.Entries {
		when := e.DeletedAt
		if when == "" {
			when = "????-??-??T??:??:??"
		}
		fmt.Fprintf(&b, "%s  %s  %s  (%s)\n", when, lineSafe(e.ID), lineSafe(e.OriginalPath), describe(e))
	}
	if res.Count < res.Total {
		fmt.Fprintf(&b, "[%d more not shown]\n", res.Total-res.Count)
	}
	for _, p := range res.Problems {
		fmt.Fprintf(&b, "%s: %s: %s\n", p.Kind, lineSafe(p.Path), p.Message)
	}
	return b.String()
}

// lineSafe keeps one entry on one line: a name with a control character
// is shown Go-quoted.
func lineSafe(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return strconv.Quote(s)
		}
	}
	return s
}

// ParseSince reads a point in time: a date or date-time (local time, or
// RFC 3339 with a zone), or an age counted back from now.
func ParseSince(s string, now time.Time) (time.Time, error) {
	for _, layout := range []string{time.DateOnly, DateLayout, "2006-01-02 15:04:05", time.RFC3339} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	age, err := ParseAge(s)
	if err != nil {
		return time.Time{}, err
	}
	return now.Add(-age), nil
}

// ParseAge reads an age: a Go duration (90m, 2h30m) or days and weeks
// (3d, 1w, 1.5d). A bare number is refused: days (trash-empty) and
// seconds (mcode's timeouts) would both be plausible readings.
func ParseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty age")
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return 0, fmt.Errorf("%q has no unit: write %sd for days or %sh for hours", s, s, s)
	}
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if num, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil || v < 0 || v > 1e5 {
				return 0, fmt.Errorf("%q is not an age like 30d or 1w", s)
			}
			return time.Duration(v * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not an age like 90m, 12h, 30d or 1w", s)
	}
	return d, nil
}

// RestoreParams are trash_restore's parameters.
type RestoreParams struct {
	Targets []string `json:"targets"`
	To      string   `json:"to,omitempty"`
	Force   bool     `json:"force,omitempty"`
}

// Restored is one entry brought back.
type Restored struct {
	Target     string `json:"target"`
	Entry      *Entry `json:"entry"`
	RestoredTo string `json:"restored_to"`
	// Replaced is what was at the destination, now in the trash (force).
	Replaced *Entry `json:"replaced"`
	// Older counts other entries of the same original path left in the
	// trash (restore by path takes the newest).
	Older int `json:"older"`
	// Inside is the path within the trashed folder Entry that was
	// restored alone (the rest of the folder stays in the trash); empty
	// when the whole entry was.
	Inside string `json:"inside,omitempty"`
}

// RestoreResult is trash_restore's answer.
type RestoreResult struct {
	Restored []Restored `json:"restored"`
}

// RestoreTool is `trash_restore`.
func RestoreTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: RestoreName, Mode: tool.Sequential, Timeout: Timeout,
		Positional: []string{"targets"},
		Facts:      tool.Facts{},
		// Where it restores to: the folder given, or the original path a
		// target names (an id names none the guard can see; restore checks
		// the place it writes when it knows it).
		Paths:       tool.PathParams(tool.PathParam{Field: "to", Write: true}, tool.PathParam{Field: "targets", Write: true}),
		Description: restoreDescription, Schema: restoreSchema, Data: specData,
	}, func(ctx context.Context, env *tool.Env, p RestoreParams) (*tool.Response, error) {
		can := New(env)
		entries, _, err := can.List(ctx, ListOptions{})
		if err != nil {
			return nil, err
		}
		res := RestoreResult{Restored: []Restored{}}
		var b strings.Builder
		resp := &tool.Response{Result: &res}
		for _, target := range p.Targets {
			e, older, terr := Find(entries, target, env.Abs)
			if terr != nil {
				// A path inside a trashed folder comes back alone.
				if folder, rel, ok := FindInside(entries, target, env.Abs); ok {
					r, err := restoreInside(ctx, can, env, folder, rel, target, p)
					if err != nil {
						resp.Output = b.String()
						return resp, err
					}
					res.Restored = append(res.Restored, *r)
					fmt.Fprintf(&b, "restored %s from trashed folder %s (id %s) to %s; the rest of the folder stays in the trash\n",
						lineSafe(rel), lineSafe(folder.OriginalPath), lineSafe(folder.ID), lineSafe(r.RestoredTo))
					if r.Replaced != nil {
						fmt.Fprintf(&b, "  what was there is in the trash as id %s\n", lineSafe(r.Replaced.ID))
					}
					continue
				}
				resp.Output = b.String()
				return resp, terr
			}
			dest := e.original
			if p.To != "" {
				dest = filepath.Join(env.Abs(p.To), filepath.Base(e.original))
			}
			replaced, err := can.Restore(ctx, e, dest, p.Force)
			if err != nil {
				resp.Output = b.String()
				return resp, restoreError(e, dest, err)
			}
			res.Restored = append(res.Restored, Restored{Target: target, Entry: e, RestoredTo: fsutil.DisplayPath(dest), Replaced: replaced, Older: len(older)})
			fmt.Fprintf(&b, "restored %s to %s\n", lineSafe(e.ID), lineSafe(fsutil.DisplayPath(dest)))
			if replaced != nil {
				fmt.Fprintf(&b, "  what was there is in the trash as id %s\n", lineSafe(replaced.ID))
			}
			if len(older) > 0 {
				fmt.Fprintf(&b, "  %s from the same path left in the trash (ids: %s)\n", countEntries(len(older), "older"), joinIDs(older))
			}
			entries = dropEntry(entries, e)
		}
		resp.Output = b.String()
		return resp, nil
	})
}

// restoreInside restores the file rel of the trashed folder e, to where
// it was (the folder's original path joined with rel) or into p.To.
func restoreInside(ctx context.Context, can *Can, env *tool.Env, e *Entry, rel, target string, p RestoreParams) (*Restored, error) {
	dest := filepath.Join(e.original, filepath.FromSlash(rel))
	if p.To != "" {
		dest = filepath.Join(env.Abs(p.To), filepath.Base(filepath.FromSlash(rel)))
	}
	replaced, err := can.RestoreInside(ctx, e, rel, dest, p.Force)
	if errors.Is(err, fs.ErrNotExist) && replaced == nil {
		return nil, &tool.Error{Code: tool.CodeNotFound,
			Message: fmt.Sprintf("%s was inside %s, which is in the trash (id %s), but the trashed folder has no %s", lineSafe(target), lineSafe(e.OriginalPath), lineSafe(e.ID), lineSafe(rel)),
			Hint:    fmt.Sprintf("restore the whole folder with `mcode trash restore %s`, or list it with `mcode bash 'ls -R %s'`", lineSafe(e.ID), fsutil.ShellQuote(e.TrashedPath()))}
	}
	if err != nil {
		return nil, restoreError(e, dest, err)
	}
	return &Restored{Target: target, Entry: e, RestoredTo: fsutil.DisplayPath(dest), Replaced: replaced, Inside: rel}, nil
}

// FindInside finds the newest trashed folder whose original path holds
// target, and target's path below it (slash-separated).
func FindInside(entries []*Entry, target string, abs func(string) string) (*Entry, string, bool) {
	path := filepath.Clean(abs(target))
	for _, e := range entries { // newest first
		if e.Kind != "directory" {
			continue
		}
		for _, orig := range []string{e.original, e.OriginalPath} {
			if rel, err := filepath.Rel(orig, path); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return e, filepath.ToSlash(rel), true
			}
		}
	}
	return nil, "", false
}

// countEntries counts entries in words: "1 entry", "3 older entries".
func countEntries(n int, adjective string) string {
	noun := "entries"
	if n == 1 {
		noun = "entry"
	}
	if adjective != "" {
		noun = adjective + " " + noun
	}
	return strconv.Itoa(n) + " " + noun
}

func joinIDs(es []*Entry) string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = lineSafe(e.ID)
	}
	return strings.Join(ids, ", ")
}

func dropEntry(entries []*Entry, e *Entry) []*Entry {
	out := entries[:0:0]
	for _, x := range entries {
		if x != e {
			out = append(out, x)
		}
	}
	return out
}

func restoreError(e *Entry, dest string, err error) error {
	switch {
	case errors.Is(err, ErrExists):
		return &tool.Error{Code: tool.CodeInvalidArgs,
			Message: fmt.Sprintf("%s exists; refusing to overwrite it with trashed %s", fsutil.DisplayPath(dest), e.ID),
			Hint:    "pass force to move what is there to the trash first and restore over it, or to to restore into another folder"}
	case errors.Is(err, fs.ErrNotExist) && e.Kind == "missing":
		return &tool.Error{Code: tool.CodeNotFound,
			Message: fmt.Sprintf("the trashed copy of %s is gone (its .trashinfo is left)", e.OriginalPath),
			Hint:    "nothing to restore; `mcode trash empty --path` removes the stale entry"}
	}
	code, hint := errnoCode(err)
	return &tool.Error{Code: code, Message: fmt.Sprintf("restoring %s to %s: %s", e.ID, fsutil.DisplayPath(dest), strerror(err)), Hint: hint}
}

// Find picks the entry a target names: an id, or an original path
// (absolutized by abs; the display form with \xHH works too), the newest
// when several entries share it (the others are returned). A target that
// is one entry's id and another's path is ambiguous: an error names both.
func Find(entries []*Entry, target string, abs func(string) string) (*Entry, []*Entry, error) {
	var byID *Entry
	for _, e := range entries {
		if e.ID == target || UnescapeID(target) == e.name && e.dir.Home {
			byID = e
			break
		}
	}
	path := filepath.Clean(abs(target))
	var byPath []*Entry
	for _, e := range entries { // newest first
		if e.original == path || e.OriginalPath == path {
			byPath = append(byPath, e)
		}
	}
	switch {
	case byID != nil && (len(byPath) == 0 || byPath[0] == byID):
		return byID, dropEntry(byPath, byID), nil
	case byID != nil:
		return nil, nil, &tool.Error{Code: tool.CodeNotUnique,
			Message: fmt.Sprintf("%s is the id of an entry trashed %s from %s, and the path of %s, the newest trashed %s (id %s)",
				lineSafe(target), byID.DeletedAt, lineSafe(byID.OriginalPath), countEntries(len(byPath), ""),
				byPath[0].DeletedAt, lineSafe(byPath[0].ID)),
			Hint: fmt.Sprintf("pass the id: %s for the first, %s for the second", lineSafe(byID.ID), lineSafe(byPath[0].ID))}
	case len(byPath) > 0:
		return byPath[0], byPath[1:], nil
	}
	terr := &tool.Error{Code: tool.CodeNotFound,
		Message: fmt.Sprintf("nothing in the trash has id or original path %s", lineSafe(target))}
	if near := nearEntries(entries, target); len(near) > 0 {
		terr.Hint = "did you mean: " + strings.Join(near, ", ") + "?"
	} else {
		terr.Hint = "`mcode trash list` shows the ids and original paths"
	}
	return nil, nil, terr
}

// UnescapeID reverses the id escape (%XX).
func UnescapeID(id string) string { return UnescapePath(id) }

func nearEntries(entries []*Entry, target string) []string {
	base := strings.ToLower(filepath.Base(target))
	var out []string
	for _, e := range entries {
		if strings.Contains(strings.ToLower(filepath.Base(e.OriginalPath)), base) ||
			strings.Contains(strings.ToLower(e.ID), base) {
			out = append(out, lineSafe(e.ID)+" ("+lineSafe(e.OriginalPath)+")")
			if len(out) == 3 {
				break
			}
		}
	}
	return out
}

// EmptyParams are trash_empty's parameters.
type EmptyParams struct {
	OlderThan string `json:"older_than,omitempty"`
	Path      string `json:"path,omitempty"`
	All       bool   `json:"all,omitempty"`
}

// EmptyResult is trash_empty's answer.
type EmptyResult struct {
	Erased        int      `json:"erased"`
	FreedBytes    int64    `json:"freed_bytes"`
	OrphansErased int      `json:"orphans_erased"`
	Kept          int      `json:"kept"`
	Entries       []*Entry `json:"entries"`
}

// EmptyTool is `trash_empty`.
func EmptyTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: EmptyName, Mode: tool.Sequential, Timeout: Timeout,
		Facts:       tool.Facts{Destructive: true, Idempotent: true},
		Description: emptyDescription, Schema: emptySchema, Data: specData,
	}, func(ctx context.Context, env *tool.Env, p EmptyParams) (*tool.Response, error) {
		if p.OlderThan == "" && p.Path == "" && !p.All {
			return nil, &tool.Error{Code: tool.CodeUsage,
				Message: "emptying the whole trash erases for good everything in it, including what was trashed from a file manager",
				Hint:    "pass --all to confirm, or narrow it with --older-than 30d or --path DIR"}
		}
		can := New(env)
		opts := ListOptions{Sizes: true}
		if p.Path != "" {
			opts.Prefix = env.Abs(p.Path)
		}
		var cutoff time.Time
		if p.OlderThan != "" {
			age, err := ParseAge(p.OlderThan)
			if err != nil {
				return nil, &tool.Error{Code: tool.CodeUsage, Message: "older_than: " + err.Error(),
					Hint: "give an age: 30d, 12h, 90m, 1w"}
			}
			cutoff = can.Now().Add(-age)
		}
		entries, problems, err := can.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		var doomed []*Entry
		res := EmptyResult{}
		for _, e := range entries {
			// An entry with no readable date is never "older than" anything.
			if !cutoff.IsZero() && (e.deleted.IsZero() || !e.deleted.Before(cutoff)) {
				res.Kept++
				continue
			}
			doomed = append(doomed, e)
		}
		freed, err := can.Erase(ctx, doomed)
		res.FreedBytes = freed
		res.Erased = len(doomed)
		res.Entries = doomed
		if res.Entries == nil {
			res.Entries = []*Entry{}
		}
		if err == nil && p.All && p.OlderThan == "" && p.Path == "" {
			res.OrphansErased, err = can.EraseOrphans(problems)
		}
		out := fmt.Sprintf("erased %s (%s)", countEntries(res.Erased, ""), fsutil.HumanBytes(freed))
		if res.OrphansErased > 0 {
			out += fmt.Sprintf(" and %d orphan%s", res.OrphansErased, plural(res.OrphansErased))
		}
		if res.Kept > 0 {
			out += fmt.Sprintf("; kept %d newer", res.Kept)
		}
		resp := &tool.Response{Output: out + "\n", Result: &res}
		if err != nil {
			code, hint := errnoCode(err)
			return resp, &tool.Error{Code: code, Message: "emptying the trash: " + strerror(err), Hint: hint}
		}
		return resp, nil
	})
}
