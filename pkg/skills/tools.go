package skills

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Tool names.
const (
	ListName = "skill_list"
	LoadName = "skill_load"
)

// Timeout is each call's default limit (a catalogue on a slow network
// folder, a large file paged by read).
const Timeout = 60 * time.Second

// MaxListedFiles is how many of a skill's files skill_load names.
const MaxListedFiles = 50

// ReadFunc reads a file the way the read tool does (numbered lines,
// paging, limits, encodings); the composition root passes read's own.
type ReadFunc func(ctx context.Context, env *tool.Env, path string, offset, limit int) (*tool.Response, error)

// ListParams are skill_list's parameters: none.
type ListParams struct{}

// LoadParams are skill_load's parameters.
type LoadParams struct {
	Name   string `json:"name"`
	File   string `json:"file,omitempty"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// LoadResult is skill_load's structured answer.
type LoadResult struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Dir         string         `json:"dir"`
	Source      string         `json:"source"`
	FrontMatter map[string]any `json:"front_matter"`
	// File is the relative path loaded ("SKILL.md" for the body).
	File string `json:"file"`
	// Files are the skill's other files, relative, for later loads.
	Files []string `json:"files"`
	// Read is the read tool's result when the text went through it (a
	// file, or a body too long for one answer).
	Read any `json:"read,omitempty"`
}

var (
	//go:embed skill_list.md
	listDescription string
	//go:embed skill_list.schema.json
	listSchema string
	//go:embed skill_load.md
	loadDescription string
	//go:embed skill_load.schema.json
	loadSchema string
)

// limits are the constants the description and schema quote (a func:
// a package-level map would be built at every start).
func limits() map[string]any {
	return map[string]any{
		"FileName": FileName, "ListDescriptionChars": ListDescriptionChars, "MaxListedFiles": MaxListedFiles,
	}
}

// ListTool is skill_list's registry entry.
func ListTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: ListName, Mode: tool.Parallel, Timeout: Timeout,
		Facts:       tool.Facts{ReadOnly: true, Idempotent: true},
		Description: listDescription, Schema: listSchema, Data: limits(),
	}, func(ctx context.Context, env *tool.Env, _ ListParams) (*tool.Response, error) {
		cat := Scan(env)
		return &tool.Response{Output: renderList(cat), Result: cat}, nil
	})
}

// LoadTool is skill_load's registry entry; read pages its files.
func LoadTool(read ReadFunc) *tool.Tool {
	return tool.New(tool.Spec{
		Name: LoadName, Mode: tool.Parallel, Timeout: Timeout,
		Positional: []string{"name", "file"},
		// Claude Code's Skill tool takes skill; the seed's load_skill
		// takes skillName and filePath.
		Aliases:     map[string]tool.Alias{"skill": {Param: "name"}, "skillName": {Param: "name"}, "filePath": {Param: "file"}, "file_path": {Param: "file"}},
		Facts:       tool.Facts{ReadOnly: true, Idempotent: true},
		Description: loadDescription, Schema: loadSchema, Data: limits(),
	}, func(ctx context.Context, env *tool.Env, p LoadParams) (*tool.Response, error) {
		return Load(ctx, env, read, p)
	})
}

func renderList(cat *Catalogue) string {
	var b strings.Builder
	switch len(cat.Skills) {
	case 0:
		b.WriteString("No skills found.")
	default:
		fmt.Fprintf(&b, "%d %s (load one with skill_load NAME):", len(cat.Skills), plural(len(cat.Skills), "skill"))
	}
	for _, s := range cat.Skills {
		fmt.Fprintf(&b, "\n- %s: %s (%s)", s.Name, oneLine(s.Description), s.Source)
	}
	if len(cat.Broken) > 0 {
		b.WriteString("\nBroken (fix their " + FileName + "):")
		for _, s := range cat.Broken {
			fmt.Fprintf(&b, "\n- %s (%s): %s", s.Name, filepath.Join(s.Dir, FileName), s.Error)
		}
	}
	if len(cat.Duplicates) > 0 {
		b.WriteString("\nDuplicates (the first dir wins):")
		for _, d := range cat.Duplicates {
			fmt.Fprintf(&b, "\n- %s in %s is hidden by %s", d.Name, d.Dir, d.ShadowedBy)
		}
	}
	if len(cat.Skills) == 0 && len(cat.Broken) == 0 {
		var where []string
		for _, d := range cat.Dirs {
			where = append(where, d.Path)
		}
		fmt.Fprintf(&b, "\nSearched: %s. A skill is a folder there holding a %s with name: and description: in its front matter.", strings.Join(where, ", "), FileName)
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Load gives a skill's body, or one of its files by relative path.
func Load(ctx context.Context, env *tool.Env, read ReadFunc, p LoadParams) (*tool.Response, error) {
	cat := Scan(env)
	s, ok := cat.Find(p.Name)
	if !ok {
		hint := "no skill is installed; `mcode skills list` says where skills are looked for"
		if names := cat.names(); len(names) > 0 {
			hint = "skills: " + strings.Join(names, ", ")
		}
		return nil, tool.Errorf(tool.CodeNotFound, "no skill named %q", p.Name).WithHint("%s", hint)
	}
	if s.Error != "" {
		return nil, tool.Errorf(tool.CodeCorruptFile, "skill %s (%s) is broken: %s", s.Name, filepath.Join(s.Dir, FileName), s.Error).
			WithHint("fix the front matter of its %s: a --- line, name: and description:, a --- line, then the body", FileName)
	}
	res := &LoadResult{Name: s.Name, Description: s.Description, Dir: s.Dir, Source: s.Source,
		FrontMatter: s.frontMatter, File: FileName, Files: listFiles(s.Dir)}
	if p.File != "" && filepath.Clean(p.File) != FileName {
		return loadFile(ctx, env, read, s, res, p)
	}
	return loadBody(ctx, env, read, s, res, p)
}

// loadBody returns the body whole when it fits one answer; else, or when
// a page was asked for, it is read like a file from the body's first line.
func loadBody(ctx context.Context, env *tool.Env, read ReadFunc, s Skill, res *LoadResult, p LoadParams) (*tool.Response, error) {
	path := filepath.Join(s.Dir, FileName)
	header := fmt.Sprintf("Skill %s. Base directory: %s (paths in it are relative to that folder).", s.Name, s.Dir)
	if p.Offset == 0 && p.Limit == 0 {
		if body, ok := smallBody(path, s.bodyLine); ok {
			return &tool.Response{Output: header + "\n\n" + body, Result: res}, nil
		}
	}
	p.Offset = max(p.Offset, s.bodyLine)
	resp, err := readContained(ctx, env, read, s, path, FileName, p)
	if err != nil {
		return nil, err
	}
	res.Read = resp.Result
	resp.Result = res
	resp.Output = header + "\n\n" + resp.Output
	return resp, nil
}

// smallBodyBytes is the largest body returned as plain text; a longer one
// goes through read's paging.
const smallBodyBytes = 24 << 10

// smallBody is the body after the front matter, when it is short.
func smallBody(path string, bodyLine int) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() > smallBodyBytes+MaxFrontMatterBytes {
		return "", false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	lines := strings.SplitAfter(strings.TrimPrefix(string(data), "\ufeff"), "\n")
	if bodyLine-1 > len(lines) {
		return "", true
	}
	body := strings.TrimSpace(strings.ReplaceAll(strings.Join(lines[bodyLine-1:], ""), "\r\n", "\n"))
	if len(body) > smallBodyBytes || !isText(body) {
		return "", false
	}
	if body == "" {
		body = "(the skill has no body: its description is all of it)"
	}
	return body, true
}

func isText(s string) bool {
	return !strings.ContainsRune(s, 0) && strings.ToValidUTF8(s, "\uFFFD") == s
}

// loadFile reads one of the skill's files.
func loadFile(ctx context.Context, env *tool.Env, read ReadFunc, s Skill, res *LoadResult, p LoadParams) (*tool.Response, error) {
	abs, err := inside(s, p.File)
	if err != nil {
		return nil, err
	}
	res.File = filepath.ToSlash(filepath.Clean(p.File))
	resp, err := readContained(ctx, env, read, s, abs, res.File, p)
	if err != nil {
		return nil, err
	}
	res.Read = resp.Result
	resp.Result = res
	return resp, nil
}

// readContained reads through read, and rewrites the continuation so that
// the next page is asked of skill_load, not of a path outside the skill.
func readContained(ctx context.Context, env *tool.Env, read ReadFunc, s Skill, abs, rel string, p LoadParams) (*tool.Response, error) {
	resp, err := read(ctx, env, abs, p.Offset, p.Limit)
	if err != nil {
		return nil, err
	}
	if c := resp.Continuation; c != nil && c.NextOffset > 0 {
		next := fmt.Sprintf("read on with: mcode skills load %s %s --offset %d", fsutil.ShellQuote(s.Name), fsutil.ShellQuote(rel), c.NextOffset)
		if p.Limit != 0 {
			next += fmt.Sprintf(" --limit %d", p.Limit)
		}
		prefix, _, found := strings.Cut(c.Hint, "read on with:")
		if !found {
			prefix = ""
		}
		c.Hint = prefix + next
	}
	return resp, nil
}

// inside resolves rel in the skill's folder, refusing any path that
// leaves it: absolute, climbing with .., or through a symlink out.
func inside(s Skill, rel string) (string, error) {
	deny := func(why string) error {
		return tool.Errorf(tool.CodeDenied, "skill %s: file %q %s; a skill's files are read only inside its folder %s", s.Name, rel, why, s.Dir).
			WithHint("pass a path relative to the skill's folder, e.g. %s; skill_load lists its files in result.files", exampleFile(s.Dir))
	}
	if strings.ContainsRune(rel, 0) {
		return "", tool.Errorf(tool.CodeInvalidArgs, "file contains a NUL byte").WithHint("pass the file's relative path as it is")
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "~") {
		return "", deny("is absolute")
	}
	clean := filepath.Clean(rel)
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", deny("climbs out with ..")
	}
	root, err := filepath.EvalSymlinks(s.Dir)
	if err != nil {
		return "", fmt.Errorf("skill folder %s: %w", s.Dir, err)
	}
	abs := filepath.Join(s.Dir, clean)
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(abs); lerr == nil {
			return "", deny("is a symlink to a missing file")
		}
		e := fsutil.NotFound(rel, abs)
		e.Hint = fmt.Sprintf("the skill's files are in result.files of skill_load %s; %s", s.Name, e.Hint)
		return "", e
	}
	if err != nil {
		return "", tool.Errorf(tool.CodePermission, "skill %s: %s: %v", s.Name, rel, unwrapPath(err)).WithHint("check the permissions of the skill's folder")
	}
	if real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
		return "", deny("is a symlink that leads out of the skill (to " + real + ")")
	}
	return real, nil
}

func exampleFile(dir string) string {
	if files := listFiles(dir); len(files) > 0 {
		return files[0]
	}
	return "scripts/run.sh"
}

// listFiles names the skill's files (not SKILL.md), relative, sorted,
// skipping hidden ones, at most MaxListedFiles.
func listFiles(dir string) []string {
	files := []string{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if len(files) >= MaxListedFiles {
			return filepath.SkipAll
		}
		if err != nil {
			return filepath.SkipDir
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel != FileName {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files
}
