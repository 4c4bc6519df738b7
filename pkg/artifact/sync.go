package artifact

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Lock is a pin file: the artifacts a project needs, each pinned by its
// integrity, with what to take from it and where to put it.
type Lock struct {
	Artifacts []LockArtifact `yaml:"artifacts" json:"artifacts"`
}

// LockArtifact is one pinned artifact.
type LockArtifact struct {
	Name       string                    `yaml:"name" json:"name"`
	Source     string                    `yaml:"source" json:"source"`
	Integrity  string                    `yaml:"integrity" json:"integrity"`
	Strip      int                       `yaml:"strip,omitempty" json:"strip,omitempty"`
	Entries    []LockEntry               `yaml:"entries,omitempty" json:"entries,omitempty"`
	ExpectJSON map[string]map[string]any `yaml:"expect_json,omitempty" json:"expect_json,omitempty"`
	Dest       string                    `yaml:"dest" json:"dest"`
	MaxSize    string                    `yaml:"max_size,omitempty" json:"max_size,omitempty"`
}

// LockEntry is one entry to take.
type LockEntry struct {
	Path   string `yaml:"path" json:"path"`
	SHA256 string `yaml:"sha256,omitempty" json:"sha256,omitempty"`
	Rename string `yaml:"rename,omitempty" json:"rename,omitempty"`
}

// ReadLock parses a lock file (YAML, or JSON, which is YAML too),
// refusing unknown keys: a misspelt key would silently unpin something.
func ReadLock(path string) (*Lock, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var l Lock
	if err := dec.Decode(&l); err != nil && err != io.EOF {
		return nil, lockError(path, err.Error())
	}
	if len(l.Artifacts) == 0 {
		return nil, lockError(path, "it lists no artifacts (want a top-level artifacts: list)")
	}
	names := map[string]bool{}
	for i, a := range l.Artifacts {
		what := fmt.Sprintf("artifacts[%d]", i)
		if a.Name != "" {
			what += " (" + a.Name + ")"
		}
		for _, f := range []struct{ key, v string }{{"name", a.Name}, {"source", a.Source}, {"integrity", a.Integrity}, {"dest", a.Dest}} {
			if f.v == "" {
				return nil, lockError(path, fmt.Sprintf("%s has no %s", what, f.key))
			}
		}
		if names[a.Name] {
			return nil, lockError(path, fmt.Sprintf("two artifacts are named %q", a.Name))
		}
		names[a.Name] = true
		if a.Strip < 0 {
			return nil, lockError(path, what+": strip is negative")
		}
	}
	return &l, nil
}

func lockError(path, why string) *tool.Error {
	return &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("lock file %s: %s", path, why),
		Hint: "see `mcode artifact sync --help` for the format: artifacts: [{name, source, integrity, strip, entries: [{path, sha256, rename}], expect_json: {FILE: {KEY: VALUE}}, dest}]"}
}

// Plan is one artifact of a lock, resolved against the lock's folder.
type Plan struct {
	Artifact LockArtifact
	Source   string // local paths made absolute
	Dest     string
	Options  ExtractOptions
}

// PlanOf resolves one artifact of a lock in baseDir.
func PlanOf(a LockArtifact, baseDir string) (*Plan, error) {
	in, err := ParseIntegrity(a.Integrity)
	if err != nil {
		return nil, err
	}
	p := &Plan{Artifact: a, Source: a.Source, Dest: a.Dest}
	if !filepath.IsAbs(p.Dest) {
		p.Dest = filepath.Join(baseDir, p.Dest)
	}
	if !strings.Contains(a.Source, ":") || filepath.IsAbs(a.Source) {
		if !filepath.IsAbs(a.Source) {
			p.Source = filepath.Join(baseDir, a.Source)
		}
	}
	o := ExtractOptions{Dest: p.Dest, Integrity: in, Strip: a.Strip}
	if a.MaxSize != "" {
		if o.MaxSize, err = fsutil.ParseSize(a.MaxSize); err != nil {
			return nil, &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("artifact %s: max_size: %v", a.Name, err), Hint: "e.g. max_size: 512MiB"}
		}
	}
	for _, e := range a.Entries {
		spec := EntrySpec{Path: e.Path, Rename: e.Rename}
		if e.SHA256 != "" {
			d, err := parseEntryDigest(e.SHA256)
			if err != nil {
				return nil, &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf("artifact %s, entry %s: %v", a.Name, e.Path, err),
					Hint: "write sha256: HEX (sha256sum FILE prints it)"}
			}
			spec.Digest = &d
		}
		o.Entries = append(o.Entries, spec)
	}
	o.Expect = expectations(a.ExpectJSON)
	p.Options = o
	return p, nil
}

// expectations lists {FILE: {KEY: VALUE}} in a stable order.
func expectations(m map[string]map[string]any) []Expectation {
	var out []Expectation
	files := make([]string, 0, len(m))
	for f := range m {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		keys := make([]string, 0, len(m[f]))
		for k := range m[f] {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, Expectation{File: f, Key: k, Value: m[f][k]})
		}
	}
	return out
}

// parseEntryDigest reads an entry's hash: bare hex is sha256.
func parseEntryDigest(s string) (Digest, error) {
	if !strings.ContainsAny(s, ":-") {
		s = "sha256:" + s
	}
	return parseDigest(strings.TrimSpace(s))
}

// Stamp is what StampName records: the pin a tree was made from, and
// every entry written, so that sync can tell a tree that is still
// exactly that pin.
type Stamp struct {
	Name    string    `json:"name"`
	Pin     string    `json:"pin"`
	Source  string    `json:"source"`
	Entries []Written `json:"entries"`
}

// pinOf is a fingerprint of everything in an artifact that shapes its
// tree.
func pinOf(a LockArtifact) string {
	a.Name = ""
	b, _ := json.Marshal(a)
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// UpToDate says whether dest holds exactly what the stamp there says,
// for this pin: every entry as recorded, and nothing else.
func UpToDate(dest string, a LockArtifact) (bool, string) {
	data, err := os.ReadFile(filepath.Join(dest, StampName))
	if err != nil {
		return false, "no stamp"
	}
	var st Stamp
	if json.Unmarshal(data, &st) != nil {
		return false, "the stamp is not readable"
	}
	if st.Pin != pinOf(a) {
		return false, "the pin changed"
	}
	want := map[string]Written{}
	for _, e := range st.Entries {
		want[e.Path] = e
	}
	seen := 0
	err = filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dest, p)
		rel = filepath.ToSlash(rel)
		if rel == "." || rel == StampName {
			return nil
		}
		w, ok := want[rel]
		if !ok {
			if d.IsDir() && impliedDir(want, rel) {
				return nil
			}
			return fmt.Errorf("%s is not part of the artifact", rel)
		}
		seen++
		if w.Type == string(kindFile) || w.Type == string(kindHardlink) {
			sum, n, err := fileSHA256(p)
			if err != nil || n != w.Size || sum != w.SHA256 {
				return fmt.Errorf("%s changed", rel)
			}
		}
		if w.Type == string(kindSymlink) {
			if t, err := os.Readlink(p); err != nil || t != w.Target {
				return fmt.Errorf("%s changed", rel)
			}
		}
		return nil
	})
	if err != nil {
		return false, err.Error()
	}
	if seen != len(want) {
		return false, "entries are missing"
	}
	return true, ""
}

func impliedDir(want map[string]Written, dir string) bool {
	for p := range want {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// physical is p with the symlinks of its existing part resolved: where
// the file system would put it. What does not exist yet is kept as
// written.
func physical(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for d := p; ; d = filepath.Dir(d) {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(real, rest)
		}
		if d == filepath.Dir(d) {
			return p
		}
		rest = filepath.Join(filepath.Base(d), rest)
	}
}

func fileSHA256(p string) (string, int64, error) {
	f, _, err := fsutil.OpenRegular(p, p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// SyncResult is one artifact's outcome.
type SyncResult struct {
	Name    string         `json:"name"`
	Dest    string         `json:"dest"`
	Status  string         `json:"status"` // synced or up_to_date
	Reason  string         `json:"reason,omitempty"`
	Fetch   *FetchResult   `json:"fetch,omitempty"`
	Extract *ExtractResult `json:"extract,omitempty"`
}

// Sync brings every destination of a lock to its pin. It stages every
// artifact that is not up to date first, and swaps them in only when all
// staged: a failure leaves every destination as it was.
func Sync(ctx context.Context, lockPath string, f *Fetcher, protected []string, check func(string) error, progress func(int64, string) (io.Writer, func())) ([]SyncResult, error) {
	lock, err := ReadLock(lockPath)
	if err != nil {
		return nil, err
	}
	base := filepath.Dir(lockPath)
	f.BaseDir = base
	var plans []*Plan
	for _, a := range lock.Artifacts {
		p, err := PlanOf(a, base)
		if err != nil {
			return nil, err
		}
		for _, q := range plans {
			// Compared as written and as the file system resolves them: a
			// symlinked folder makes two names one place.
			qp, pp := physical(q.Dest), physical(p.Dest)
			if within(q.Dest, p.Dest) || within(p.Dest, q.Dest) || within(qp, pp) || within(pp, qp) {
				why := ""
				if qp != q.Dest || pp != p.Dest {
					why = fmt.Sprintf(", which are %s and %s once symlinks are followed", qp, pp)
				}
				return nil, lockError(lockPath, fmt.Sprintf("artifacts %s and %s share a destination (%s, %s%s)", q.Artifact.Name, a.Name, q.Dest, p.Dest, why))
			}
		}
		plans = append(plans, p)
	}
	results := make([]SyncResult, len(plans))
	var staged []*Staged
	discard := func() {
		for _, s := range staged {
			s.Discard()
		}
	}
	for i, p := range plans {
		results[i] = SyncResult{Name: p.Artifact.Name, Dest: p.Dest}
		if ok, why := UpToDate(p.Dest, p.Artifact); ok {
			results[i].Status = "up_to_date"
			continue
		} else {
			results[i].Reason = why
		}
		f.MaxSize = p.Options.MaxSize
		fr, err := f.Fetch(ctx, p.Source, p.Options.Integrity)
		if err != nil {
			discard()
			return nil, fmt.Errorf("artifact %s: %w", p.Artifact.Name, err)
		}
		o := p.Options
		o.Archive = fr.Path
		o.Protected = append(protected, lockPath)
		o.Check = check
		a := p.Artifact
		o.Stamp = func(r *ExtractResult) ([]byte, error) {
			return json.MarshalIndent(Stamp{Name: a.Name, Pin: pinOf(a), Source: a.Source, Entries: r.Entries}, "", "  ")
		}
		if progress != nil && fr.Size > progressMin {
			w, done := progress(fr.Size, "extracting "+a.Name)
			o.Progress = w
			defer done()
		}
		s, err := Stage(ctx, o)
		if err != nil {
			discard()
			return nil, fmt.Errorf("artifact %s: %w", p.Artifact.Name, err)
		}
		staged = append(staged, s)
		results[i].Status, results[i].Fetch, results[i].Extract = "synced", fr, s.Result
	}
	for i, s := range staged {
		if err := s.swap(); err != nil {
			for _, t := range staged[:i] {
				t.rollback()
			}
			discard()
			return nil, err
		}
	}
	for _, s := range staged {
		s.finish()
	}
	return results, nil
}
