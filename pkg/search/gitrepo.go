package search

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// gitRepo is the git work tree a search runs in: where its ignore rules
// and its index are. Nothing is read until it is needed.
type gitRepo struct {
	top       string // work tree root
	gitDir    string // .git, or the folder a .git file points to (worktrees, submodules)
	commonDir string // the shared .git of a linked worktree
	hashSize  int    // 20 for SHA-1 repositories, 32 for SHA-256

	excludesFile string // core.excludesFile, or git's default

	indexOnce sync.Once
	index     []string // tracked paths, sorted
	indexErr  error
}

// gitEnv is what locating the user's git configuration needs.
type gitEnv struct {
	Home          string
	XDGConfigHome string
}

// findRepo finds the git work tree holding dir, or nil.
func findRepo(dir string, env gitEnv) *gitRepo {
	for d := dir; ; {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			if r := openRepo(d, dotgit, fi.IsDir(), env); r != nil {
				return r
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil
		}
		d = parent
	}
}

func openRepo(top, dotgit string, isDir bool, env gitEnv) *gitRepo {
	gitDir := dotgit
	if !isDir {
		// A linked worktree or submodule: ".git" is a file "gitdir: PATH".
		data, err := os.ReadFile(dotgit)
		if err != nil {
			return nil
		}
		line, _, _ := strings.Cut(string(data), "\n")
		p, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok {
			return nil
		}
		p = strings.TrimSpace(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(top, p)
		}
		gitDir = filepath.Clean(p)
	}
	if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil {
		return nil
	}
	r := &gitRepo{top: top, gitDir: gitDir, commonDir: gitDir, hashSize: 20}
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		p := strings.TrimSpace(string(data))
		if !filepath.IsAbs(p) {
			p = filepath.Join(gitDir, p)
		}
		r.commonDir = filepath.Clean(p)
	}
	r.readConfig(env)
	return r
}

// readConfig reads the two settings search needs from git's config files,
// lowest precedence first: core.excludesFile and extensions.objectFormat.
func (r *gitRepo) readConfig(env gitEnv) {
	xdg := env.XDGConfigHome
	if xdg == "" && env.Home != "" {
		xdg = filepath.Join(env.Home, ".config")
	}
	var files []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		files = append(files, "/etc/gitconfig")
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if env.Home != "" {
		files = append(files, filepath.Join(env.Home, ".gitconfig"))
	}
	files = append(files, filepath.Join(r.commonDir, "config"))
	excludes := ""
	for _, f := range files {
		for _, kv := range readGitConfig(f) {
			switch kv[0] {
			case "core.excludesfile":
				excludes = kv[1]
			case "extensions.objectformat":
				if strings.EqualFold(kv[1], "sha256") {
					r.hashSize = 32
				}
			}
		}
	}
	switch {
	case excludes == "~" || strings.HasPrefix(excludes, "~/"):
		excludes = filepath.Join(env.Home, excludes[1:])
	case excludes == "" && xdg != "":
		excludes = filepath.Join(xdg, "git", "ignore")
	}
	r.excludesFile = excludes
}

// readGitConfig returns the "section.key" = value pairs of one git config
// file, keys lower-cased. It reads the subset of the format that holds
// paths and words: sections, subsections, quoted values, comments.
func readGitConfig(path string) [][2]string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out [][2]string
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			name := strings.TrimSpace(line[1:end])
			if i := strings.IndexAny(name, " \t"); i >= 0 {
				name = name[:i] // the subsection ("remote \"origin\"") is not needed
			}
			section = strings.ToLower(name)
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		key, value, _ := strings.Cut(line, "=")
		out = append(out, [2]string{section + "." + strings.ToLower(strings.TrimSpace(key)), configValue(value)})
	}
	return out
}

// configValue unquotes a git config value and drops a trailing comment.
func configValue(v string) string {
	var b strings.Builder
	inQuote := false
	v = strings.TrimSpace(v)
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			inQuote = !inQuote
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !inQuote:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// baseRules pushes the repository-wide rules onto rs, lowest precedence
// first: the global excludes file, then .git/info/exclude. at is the work
// tree's top relative to the walk's base ("" when it is the base).
func (r *gitRepo) baseRules(rs *rules, at string) *rules {
	if r.excludesFile != "" {
		if data, err := os.ReadFile(r.excludesFile); err == nil {
			rs = rs.push(parseRules(at, r.excludesFile, data, true))
		}
	}
	info := filepath.Join(r.commonDir, "info", "exclude")
	if data, err := os.ReadFile(info); err == nil {
		rs = rs.push(parseRules(at, info, data, true))
	}
	return rs
}

// tracked loads the index once.
func (r *gitRepo) tracked() ([]string, error) {
	r.indexOnce.Do(func() {
		r.index, r.indexErr = readIndexFile(filepath.Join(r.gitDir, "index"), r.gitDir, r.hashSize)
	})
	return r.index, r.indexErr
}

// isTracked reports whether git tracks the file at path (relative to the
// work tree's top).
func (r *gitRepo) isTracked(path string) bool {
	idx, _ := r.tracked()
	i := sort.SearchStrings(idx, path)
	return i < len(idx) && idx[i] == path
}

// tracksUnder reports whether git tracks anything inside folder dir.
func (r *gitRepo) tracksUnder(dir string) bool {
	idx, _ := r.tracked()
	prefix := dir + "/"
	i := sort.SearchStrings(idx, prefix)
	return i < len(idx) && strings.HasPrefix(idx[i], prefix)
}
