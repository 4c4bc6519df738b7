// Package skills is progressive disclosure of skills (skill_list,
// skill_load): folders holding a SKILL.md (YAML front matter with name and
// description, then a Markdown body) found in the configured skill dirs.
// The catalogue is built only when a skills tool runs: no other command
// pays for it.
package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// Limits of the catalogue, quoted in the descriptions.
const (
	// MaxNameChars and MaxDescriptionChars are the Agent Skills limits
	// of the front matter's name and description.
	MaxNameChars        = 64
	MaxDescriptionChars = 1024
	// ListDescriptionChars is how much of a description the compact
	// catalogue shows; skill_load gives the whole of it.
	ListDescriptionChars = 200
	// MaxFrontMatterBytes is the most of a SKILL.md read to find its
	// front matter.
	MaxFrontMatterBytes = 64 << 10
	// MaxSkillsPerDir bounds one folder's scan.
	MaxSkillsPerDir = 1000
)

// Skill is one skill folder as the catalogue sees it.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Dir is the skill's folder, absolute; Source the skill dir it was
	// found in, as configured.
	Dir    string `json:"dir"`
	Source string `json:"source"`
	// Error says why SKILL.md could not be used; the skill is then listed
	// under broken, by its folder name.
	Error string `json:"error,omitempty"`

	frontMatter map[string]any
	bodyLine    int // the file's line where the body starts
	body        string
}

// Duplicate is a skill hidden by one of the same name in an earlier dir.
type Duplicate struct {
	Name       string `json:"name"`
	Dir        string `json:"dir"`
	ShadowedBy string `json:"shadowed_by"`
}

// Dir is one configured skill dir and what it held.
type Dir struct {
	Dir    string `json:"dir"`
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	Skills int    `json:"skills"`
}

// Catalogue is every skill found, in dir order then by name.
type Catalogue struct {
	Skills     []Skill     `json:"skills"`
	Broken     []Skill     `json:"broken"`
	Duplicates []Duplicate `json:"duplicates"`
	Dirs       []Dir       `json:"dirs"`
}

// Dirs are the skill dirs of the configuration, expanded.
func dirs(env *tool.Env) []Dir {
	configured := config.DefaultSkillDirs
	if env.Config != nil && env.Config.Skills.Dirs != nil {
		configured = env.Config.Skills.Dirs
	}
	out := make([]Dir, 0, len(configured))
	for _, d := range configured {
		if strings.TrimSpace(d) == "" {
			continue
		}
		out = append(out, Dir{Dir: d, Path: expand(env, d)})
	}
	return out
}

// expand resolves a configured dir: $VAR and ${VAR} from the caller's
// environment ($XDG_CONFIG_HOME defaults to ~/.config), ~ to the home
// folder, a relative path under the workspace root.
func expand(env *tool.Env, d string) string {
	d = os.Expand(d, func(name string) string {
		v := env.LookupEnv(name)
		if v == "" && name == "XDG_CONFIG_HOME" && env.UserHome != "" {
			v = filepath.Join(env.UserHome, ".config")
		}
		return v
	})
	return env.Abs(d)
}

// Scan builds the catalogue. It never fails: a folder that cannot be read
// counts as absent, a SKILL.md that cannot be used is listed as broken.
func Scan(env *tool.Env) *Catalogue {
	cat := &Catalogue{Skills: []Skill{}, Broken: []Skill{}, Duplicates: []Duplicate{}}
	byName := map[string]int{}
	seenDir := map[string]bool{}
	for _, d := range dirs(env) {
		entries, err := os.ReadDir(d.Path)
		d.Exists = err == nil
		if real, err := filepath.EvalSymlinks(d.Path); err == nil {
			if seenDir[real] {
				// The same folder twice (HOME is the workspace): its skills
				// are not duplicates of themselves.
				cat.Dirs = append(cat.Dirs, d)
				continue
			}
			seenDir[real] = true
		}
		var folders []string
		for _, e := range entries {
			if len(folders) >= MaxSkillsPerDir {
				break
			}
			dir := filepath.Join(d.Path, e.Name())
			if !strings.HasPrefix(e.Name(), ".") && (e.IsDir() || e.Type()&fs.ModeSymlink != 0 && isDir(dir)) {
				folders = append(folders, dir)
			}
		}
		for _, s := range parseAll(folders, d.Dir) {
			d.Skills++
			if s.Error != "" {
				cat.Broken = append(cat.Broken, s)
				continue
			}
			key := tool.NormalizeName(s.Name)
			if i, dup := byName[key]; dup {
				cat.Duplicates = append(cat.Duplicates, Duplicate{Name: s.Name, Dir: s.Dir, ShadowedBy: cat.Skills[i].Dir})
				continue
			}
			byName[key] = len(cat.Skills)
			cat.Skills = append(cat.Skills, s)
		}
		cat.Dirs = append(cat.Dirs, d)
	}
	return cat
}

// parseAll parses the folders' SKILL.md files on every CPU (the YAML
// parse is most of a large catalogue's cost) and returns the skills
// found, in the folders' order.
func parseAll(folders []string, source string) []Skill {
	found := make([]Skill, len(folders))
	ok := make([]bool, len(folders))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(1, len(folders)/8)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(folders); i = int(next.Add(1) - 1) {
				found[i], ok[i] = parseSkill(folders[i], source)
			}
		}()
	}
	wg.Wait()
	out := found[:0]
	for i, s := range found {
		if ok[i] {
			out = append(out, s)
		}
	}
	return out
}

// isDir follows a symlinked skill folder: linking a skill in is how many
// people install one.
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Find returns the skill called name, or the broken one in a folder of
// that name.
func (c *Catalogue) Find(name string) (Skill, bool) {
	key := tool.NormalizeName(name)
	for _, s := range c.Skills {
		if tool.NormalizeName(s.Name) == key {
			return s, true
		}
	}
	for _, s := range c.Broken {
		if tool.NormalizeName(s.Name) == key {
			return s, true
		}
	}
	return Skill{}, false
}

// parseSkill reads the front matter of dir's SKILL.md; ok is false when
// the folder has none.
func parseSkill(dir, source string) (s Skill, ok bool) {
	s = Skill{Name: filepath.Base(dir), Dir: dir, Source: source}
	f, err := os.Open(filepath.Join(dir, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return s, false
	}
	if err != nil {
		s.Error = fmt.Sprintf("%s cannot be read: %v", FileName, unwrapPath(err))
		return s, true
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		s.Error = FileName + " is not a regular file"
		return s, true
	}
	head, err := io.ReadAll(io.LimitReader(f, MaxFrontMatterBytes))
	if err != nil {
		s.Error = fmt.Sprintf("%s cannot be read: %v", FileName, unwrapPath(err))
		return s, true
	}
	fm, bodyLine, err := splitFrontMatter(head)
	if err == nil {
		err = s.setFrontMatter(fm)
	}
	if err != nil {
		s.Error = err.Error()
		return s, true
	}
	s.bodyLine = bodyLine
	return s, true
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// splitFrontMatter finds the YAML between a first line "---" and the next
// "---" line, and the line the body starts on.
func splitFrontMatter(data []byte) (fm []byte, bodyLine int, err error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) == 0 || strings.TrimSpace(string(lines[0])) != "---" {
		return nil, 0, fmt.Errorf("%s does not start with a front matter block: its first line must be --- (then name: and description:, then ---)", FileName)
	}
	for i := 1; i < len(lines); i++ {
		if t := strings.TrimRight(string(lines[i]), "\r\n"); t == "---" || t == "..." {
			return bytes.Join(lines[1:i], nil), i + 2, nil
		}
	}
	if len(data) >= MaxFrontMatterBytes {
		return nil, 0, fmt.Errorf("the front matter is not closed by a --- line in the first %d KiB of %s", MaxFrontMatterBytes>>10, FileName)
	}
	return nil, 0, fmt.Errorf("the front matter opened on line 1 is never closed by a --- line")
}

// setFrontMatter parses the YAML and checks name and description.
func (s *Skill) setFrontMatter(fm []byte) error {
	var m map[string]any
	if err := yaml.Unmarshal(fm, &m); err != nil {
		return fmt.Errorf("front matter is not valid YAML: %s", yamlLineInFile(err.Error(), 1))
	}
	if m == nil {
		m = map[string]any{}
	}
	name, err := textField(m, "name", MaxNameChars)
	if err != nil {
		return err
	}
	desc, err := textField(m, "description", MaxDescriptionChars)
	if err != nil {
		return err
	}
	if strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
		return fmt.Errorf("front matter name %q is not a name: no slashes or dots alone", name)
	}
	s.Name, s.Description, s.frontMatter = name, desc, m
	return nil
}

func textField(m map[string]any, key string, max int) (string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", fmt.Errorf("front matter has no %s: (it needs name: and description:)", key)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("front matter %s is %s, want a text", key, tool.JSONKind(v))
	}
	s = strings.TrimSpace(s)
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		return "", fmt.Errorf("front matter %s is empty", key)
	case n > max:
		return "", fmt.Errorf("front matter %s has %d characters, more than the %d allowed", key, n, max)
	}
	return s, nil
}

// yamlLineInFile renumbers the "line N" of a YAML error from the front
// matter's lines to the file's (the front matter starts after line
// offset).
func yamlLineInFile(msg string, offset int) string {
	const marker = "line "
	i := strings.Index(msg, marker)
	if i < 0 {
		return msg
	}
	j := i + len(marker)
	k := j
	for k < len(msg) && msg[k] >= '0' && msg[k] <= '9' {
		k++
	}
	n, err := strconv.Atoi(msg[j:k])
	if err != nil {
		return msg
	}
	return msg[:j] + strconv.Itoa(n+offset) + msg[k:]
}

// oneLine is a description as the compact catalogue shows it.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= ListDescriptionChars {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:ListDescriptionChars-1]), " ") + "…"
}

// names lists the usable skills' names, for hints.
func (c *Catalogue) names() []string {
	out := make([]string, 0, len(c.Skills))
	for _, s := range c.Skills {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}
