// Package artifact is pinned, checksummed, all-or-nothing fetching and
// extraction: integrity strings (npm's SRI form, ALGO:HEX), a
// content-addressed download cache, archive extraction that refuses
// hostile entries and swaps the finished tree into place, and lock files
// that bring folders to a pinned state.
package artifact

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/fsutil"
	pathpolicy "github.com/mcode-dev/mcode/pkg/sandbox"
	"github.com/mcode-dev/mcode/pkg/sensitive"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Tool names.
const (
	VerifyName  = "artifact_verify"
	FetchName   = "artifact_fetch"
	ExtractName = "artifact_extract"
	SyncName    = "artifact_sync"
)

// Default per-call time limits.
const (
	VerifyTimeout  = 5 * time.Minute
	ExtractTimeout = 10 * time.Minute
	FetchTimeout   = 30 * time.Minute
)

var (
	//go:embed artifact_verify.md
	verifyDescription string
	//go:embed artifact_verify.schema.json
	verifySchema string
	//go:embed artifact_fetch.md
	fetchDescription string
	//go:embed artifact_fetch.schema.json
	fetchSchema string
	//go:embed artifact_extract.md
	extractDescription string
	//go:embed artifact_extract.schema.json
	extractSchema string
	//go:embed artifact_sync.md
	syncDescription string
	//go:embed artifact_sync.schema.json
	syncSchema string
)

var specData = map[string]any{
	"MaxSize": fsutil.HumanBytes(DefaultMaxSize), "MaxEntries": MaxEntries, "Formats": formatList(),
	"Attempts": Attempts, "StampName": StampName, "CacheDir": CacheDirName,
}

// VerifyParams are artifact_verify's parameters.
type VerifyParams struct {
	Path      string `json:"path"`
	Integrity string `json:"integrity"`
}

// FetchParams are artifact_fetch's parameters.
type FetchParams struct {
	URL       string    `json:"url"`
	Integrity string    `json:"integrity"`
	Dest      string    `json:"dest,omitempty"`
	MaxSize   SizeParam `json:"max_size,omitempty"`
}

// ExtractParams are artifact_extract's parameters.
type ExtractParams struct {
	Archive    string       `json:"archive"`
	Dest       string       `json:"dest"`
	Integrity  string       `json:"integrity,omitempty"`
	Entries    []EntryParam `json:"entries,omitempty"`
	Strip      int          `json:"strip,omitempty"`
	ExpectJSON ExpectParam  `json:"expect_json,omitempty"`
	MaxSize    SizeParam    `json:"max_size,omitempty"`
}

// SyncParams are artifact_sync's parameters.
type SyncParams struct {
	Lock string `json:"lock"`
}

// SizeParam is a byte count given as a number or as text (512MiB).
type SizeParam int64

func (s *SizeParam) UnmarshalJSON(b []byte) error {
	var n int64
	if json.Unmarshal(b, &n) == nil {
		if n <= 0 {
			return fmt.Errorf("max_size must be positive")
		}
		*s = SizeParam(n)
		return nil
	}
	var t string
	if err := json.Unmarshal(b, &t); err != nil {
		return fmt.Errorf("max_size is a byte count or text like 512MiB")
	}
	v, err := fsutil.ParseSize(t)
	*s = SizeParam(v)
	return err
}

// EntryParam is an entry as PATH[=sha256:HEX][:RENAME], or an object.
type EntryParam struct{ EntrySpec }

func (e *EntryParam) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		spec, err := ParseEntrySpec(s)
		e.EntrySpec = spec
		return err
	}
	var o struct {
		Path   string `json:"path"`
		SHA256 string `json:"sha256"`
		Rename string `json:"rename"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	e.Path, e.Rename = o.Path, o.Rename
	if o.SHA256 != "" {
		d, err := parseEntryDigest(o.SHA256)
		if err != nil {
			return fmt.Errorf("entry %s: %v", o.Path, err)
		}
		e.Digest = &d
	}
	return nil
}

// ParseEntrySpec reads PATH[=sha256:HEX][:RENAME].
func ParseEntrySpec(s string) (EntrySpec, error) {
	var spec EntrySpec
	rest := ""
	if i := strings.LastIndex(s, "="); i >= 0 {
		spec.Path, rest = s[:i], s[i+1:]
		algo, after, _ := strings.Cut(rest, ":")
		if strings.Contains(algo, "-") { // sha256-BASE64[:RENAME]
			sum, rename, _ := strings.Cut(rest, ":")
			d, err := parseDigest(sum)
			if err != nil {
				return spec, fmt.Errorf("entry %q: %v", s, err)
			}
			spec.Digest, spec.Rename = &d, rename
		} else {
			hexSum, rename, _ := strings.Cut(after, ":")
			d, err := parseDigest(algo + ":" + hexSum)
			if err != nil {
				return spec, fmt.Errorf("entry %q: %v (write PATH=sha256:HEX)", s, err)
			}
			spec.Digest, spec.Rename = &d, rename
		}
	} else if i := strings.LastIndex(s, ":"); i >= 0 {
		spec.Path, spec.Rename = s[:i], s[i+1:]
	} else {
		spec.Path = s
	}
	p, err := CheckRelative(spec.Path)
	if err != nil {
		return spec, fmt.Errorf("entry %q: %v", s, err)
	}
	spec.Path = p
	if spec.Rename != "" {
		if spec.Rename, err = CheckRelative(spec.Rename); err != nil {
			return spec, fmt.Errorf("entry %q: rename: %v", s, err)
		}
	}
	return spec, nil
}

// ExpectParam is a list of FILE:KEY=VALUE, or {FILE: {KEY: VALUE}}.
type ExpectParam []Expectation

func (x *ExpectParam) UnmarshalJSON(b []byte) error {
	var list []string
	if json.Unmarshal(b, &list) == nil {
		for _, s := range list {
			e, err := ParseExpectation(s)
			if err != nil {
				return err
			}
			*x = append(*x, e)
		}
		return nil
	}
	var m map[string]map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf(`expect_json is a list of "FILE:KEY=VALUE" or an object {FILE: {KEY: VALUE}}`)
	}
	*x = expectations(m)
	return nil
}

// ParseExpectation reads FILE:KEY=VALUE (VALUE may hold : and =).
func ParseExpectation(s string) (Expectation, error) {
	left, value, ok := strings.Cut(s, "=")
	i := strings.LastIndex(left, ":")
	if !ok || i <= 0 || i == len(left)-1 {
		return Expectation{}, fmt.Errorf("expect_json %q is not FILE:KEY=VALUE (e.g. package/package.json:version=1.2.3)", s)
	}
	return Expectation{File: strings.TrimPrefix(left[:i], "./"), Key: left[i+1:], Value: value}, nil
}

// protected are the folders extract and sync never replace.
func protected(env *tool.Env) []string {
	return []string{env.Root, env.UserHome, env.DataDir}
}

// progress draws a bar on stderr when a person watches it, never on a
// pipe or a file.
func progress(env *tool.Env) func(total int64, what string) (io.Writer, func()) {
	if env.Stderr == nil || !env.StderrIsTerminal {
		return nil
	}
	return func(total int64, what string) (io.Writer, func()) {
		bar := progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(env.Stderr), progressbar.OptionSetDescription(what),
			progressbar.OptionShowBytes(true), progressbar.OptionShowTotalBytes(true), progressbar.OptionSetWidth(20),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionSpinnerType(14),
			progressbar.OptionClearOnFinish(), progressbar.OptionSetRenderBlankState(true))
		return bar, func() { _ = bar.Finish() }
	}
}

func fetcher(env *tool.Env, maxSize int64) *Fetcher {
	return &Fetcher{CacheDir: filepath.Join(env.DataDir, filepath.FromSlash(CacheDirName)), MaxSize: maxSize,
		BaseDir: env.Root, Progress: progress(env)}
}

// fetchPaths: the source when it is a local file, and dest.
func fetchPaths(args json.RawMessage) []tool.PathUse {
	var p struct {
		URL  string `json:"url"`
		Dest string `json:"dest"`
	}
	if json.Unmarshal(args, &p) != nil {
		return nil
	}
	var out []tool.PathUse
	switch {
	case strings.HasPrefix(p.URL, "file://"):
		out = append(out, tool.PathUse{Path: strings.TrimPrefix(p.URL, "file://")})
	case p.URL != "" && !strings.Contains(p.URL, "://") && !strings.HasPrefix(p.URL, "npm:"):
		out = append(out, tool.PathUse{Path: p.URL})
	}
	if p.Dest != "" {
		out = append(out, tool.PathUse{Path: p.Dest, Write: true})
	}
	return out
}

// VerifyTool is artifact_verify.
func VerifyTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: VerifyName, Mode: tool.Parallel, Timeout: VerifyTimeout,
		Positional:  []string{"path"},
		Facts:       tool.Facts{ReadOnly: true, Idempotent: true},
		Paths:       tool.PathParams(tool.PathParam{Field: "path"}),
		Description: verifyDescription, Schema: verifySchema, Data: specData,
	}, func(ctx context.Context, env *tool.Env, p VerifyParams) (*tool.Response, error) {
		in, err := ParseIntegrity(p.Integrity)
		if err != nil {
			return nil, err
		}
		path := env.Abs(p.Path)
		d, size, err := verifyAt(p.Path, path, in)
		if err != nil {
			return nil, err
		}
		return &tool.Response{
			Output: fmt.Sprintf("%s (%s) matches %s\n", p.Path, fsutil.HumanBytes(size), d),
			Result: map[string]any{"path": path, "size": size, "integrity": d.SRI(), "hex": d.Hex(), "ok": true},
		}, nil
	})
}

func fileError(display, abs string, err error) error {
	if os.IsNotExist(err) {
		return fsutil.NotFound(display, abs)
	}
	if os.IsPermission(err) {
		return &tool.Error{Code: tool.CodePermission, Message: err.Error(), Hint: "check the file's permissions"}
	}
	return err
}

// FetchTool is artifact_fetch.
func FetchTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: FetchName, Mode: tool.Sequential, Timeout: FetchTimeout,
		Positional:  []string{"url"},
		Facts:       tool.Facts{Idempotent: true, OpenWorld: true},
		Paths:       fetchPaths,
		Description: fetchDescription, Schema: fetchSchema, Data: specData,
	}, func(ctx context.Context, env *tool.Env, p FetchParams) (*tool.Response, error) {
		in, err := ParseIntegrity(p.Integrity)
		if err != nil {
			return nil, err
		}
		f := fetcher(env, int64(p.MaxSize))
		r, err := f.Fetch(ctx, p.URL, in)
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		if r.Cached {
			fmt.Fprintf(&b, "cache hit: %s (%s, %s), no request made\n", r.Path, fsutil.HumanBytes(r.Size), r.Matched)
		} else {
			fmt.Fprintf(&b, "fetched %s (%s) into %s; it matches %s\n", p.URL, fsutil.HumanBytes(r.Size), r.Path, r.Matched)
		}
		result := map[string]any{"fetch": r}
		if p.Dest != "" {
			dest := env.Abs(p.Dest)
			if st, err := os.Stat(dest); err == nil && st.IsDir() {
				dest = filepath.Join(dest, sourceBase(p.URL))
			}
			if err := placeCopy(r.Path, dest); err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "copied to %s\n", dest)
			result["dest"] = dest
		}
		return &tool.Response{Output: b.String(), Result: result}, nil
	})
}

// sourceBase is the file name a source suggests.
func sourceBase(source string) string {
	s := strings.TrimPrefix(source, "npm:")
	if i := strings.IndexAny(s, "?#"); i >= 0 && strings.Contains(source, "://") {
		s = s[:i]
	}
	s = s[strings.LastIndex(s, "/")+1:]
	if strings.HasPrefix(source, "npm:") {
		s = strings.ReplaceAll(s, "@", "-") + ".tgz"
	}
	if s == "" {
		s = "artifact"
	}
	return s
}

// placeCopy copies a cached file to dest atomically (a hard link would
// let an edit of dest change the cache).
func placeCopy(src, dest string) error {
	in, _, err := fsutil.OpenRegular(src, src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	return fsutil.WriteAtomic(dest, 0o644, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// ExtractTool is artifact_extract.
func ExtractTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name:    ExtractName,
		Aliases: map[string]tool.Alias{"entry": {Param: "entries"}}, Mode: tool.Sequential, Timeout: ExtractTimeout,
		Positional: []string{"archive"},
		Facts:      tool.Facts{Destructive: true, Idempotent: true},
		// dest is replaced as a whole: a removal of what is there.
		Paths:       tool.PathParams(tool.PathParam{Field: "archive"}, tool.PathParam{Field: "dest", Write: true, Delete: true}),
		Description: extractDescription, Schema: extractSchema, Data: specData,
	}, func(ctx context.Context, env *tool.Env, p ExtractParams) (*tool.Response, error) {
		o := ExtractOptions{Archive: env.Abs(p.Archive), Dest: env.Abs(p.Dest), Strip: p.Strip,
			Expect: p.ExpectJSON, MaxSize: int64(p.MaxSize), Protected: protected(env)}
		if p.Integrity != "" {
			in, err := ParseIntegrity(p.Integrity)
			if err != nil {
				return nil, err
			}
			o.Integrity = in
		}
		for _, e := range p.Entries {
			o.Entries = append(o.Entries, e.EntrySpec)
		}
		st, err := os.Stat(o.Archive)
		if err != nil {
			return nil, fileError(p.Archive, o.Archive, err)
		}
		if bar := progress(env); bar != nil && st.Size() > progressMin {
			w, done := bar(st.Size(), "extracting "+filepath.Base(p.Archive))
			o.Progress = w
			defer done()
		}
		r, err := Extract(ctx, o)
		if err != nil {
			return nil, err
		}
		return &tool.Response{Output: renderExtract(r), Result: r}, nil
	})
}

// progressMin is the archive size below which no bar is drawn: it would
// only flicker.
const progressMin = 8 << 20

// shownEntries is how many entries the text output lists.
const shownEntries = 20

func renderExtract(r *ExtractResult) string {
	var b strings.Builder
	verb := "into"
	if r.Replaced {
		verb = "replacing"
	}
	fmt.Fprintf(&b, "extracted %d entries (%d files, %s) from %s (%s) %s %s\n",
		len(r.Entries), r.Files, fsutil.HumanBytes(r.Bytes), r.Archive, r.Format, verb, r.Dest)
	if r.Skipped > 0 {
		fmt.Fprintf(&b, "skipped %d entries not asked for\n", r.Skipped)
	}
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "check %s: %s %s\n", c.Check, c.Subject, c.Detail)
	}
	for i, e := range r.Entries {
		if i == shownEntries {
			fmt.Fprintf(&b, "… and %d more entries (result.entries lists all)\n", len(r.Entries)-shownEntries)
			break
		}
		switch e.Type {
		case string(kindDir):
			fmt.Fprintf(&b, "  %s/\n", e.Path)
		case string(kindSymlink):
			fmt.Fprintf(&b, "  %s -> %s\n", e.Path, e.Target)
		default:
			from := ""
			if e.From != "" {
				from = " (from " + e.From + ")"
			}
			fmt.Fprintf(&b, "  %s%s  %s  sha256:%s\n", e.Path, from, strconv.FormatInt(e.Size, 10), e.SHA256)
		}
	}
	return b.String()
}

// destCheck holds a destination from a lock file to the path policy the
// guard applies to the paths a call names: the sandbox's writable set and
// protected paths (guard.paths.outsideRoot), and the sensitive list
// (guard.paths.sensitive). No person can approve in the middle of a sync,
// so what the guard would hold is refused, with the guard's words.
func destCheck(env *tool.Env) func(string) error {
	cfg := config.Defaults().Guard
	if env.Config != nil {
		cfg = env.Config.Guard
	}
	pol := pathpolicy.New(pathpolicy.InputsFor(env, nil))
	return func(dest string) error {
		real := pathpolicy.Resolve(dest, false)
		if cfg.Enabled && cfg.Paths.Sensitive != "allow" && (sensitive.MatchPath(filepath.ToSlash(dest), true) || sensitive.MatchPath(filepath.ToSlash(real), true)) {
			return &tool.Error{Code: tool.CodeDenied,
				Message: fmt.Sprintf("dest %s holds secrets (guard.paths.sensitive: %s)", dest, cfg.Paths.Sensitive),
				Hint:    "name another destination in the lock file"}
		}
		if ok, why := pol.CanWrite(real); !ok && cfg.Enabled && cfg.Paths.OutsideRoot != "allow" {
			return &tool.Error{Code: tool.CodeDenied,
				Message: fmt.Sprintf("dest: %s (guard.paths.outsideRoot: %s)", why, cfg.Paths.OutsideRoot),
				Hint:    "name a destination in the workspace in the lock file, or sync it with a call that names it (artifact_extract --dest), which a person can approve"}
		}
		return nil
	}
}

// SyncTool is artifact_sync.
func SyncTool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: SyncName, Mode: tool.Sequential, Timeout: FetchTimeout,
		Facts: tool.Facts{Destructive: true, Idempotent: true, OpenWorld: true},
		// The destinations are in the lock file: Sync checks each against
		// the same policy when it reads them (destCheck).
		Paths:       tool.PathParams(tool.PathParam{Field: "lock"}),
		Description: syncDescription, Schema: syncSchema, Data: specData,
	}, func(ctx context.Context, env *tool.Env, p SyncParams) (*tool.Response, error) {
		lock := env.Abs(p.Lock)
		if _, err := os.Stat(lock); err != nil {
			return nil, fileError(p.Lock, lock, err)
		}
		results, err := Sync(ctx, lock, fetcher(env, 0), protected(env), destCheck(env), progress(env))
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		changed := 0
		for _, r := range results {
			if r.Status == "up_to_date" {
				fmt.Fprintf(&b, "%s: up to date in %s\n", r.Name, r.Dest)
				continue
			}
			changed++
			how := "fetched"
			if r.Fetch.Cached {
				how = "from the cache"
			}
			fmt.Fprintf(&b, "%s: synced %d entries into %s (%s, %s; was: %s)\n", r.Name, len(r.Extract.Entries), r.Dest, r.Fetch.Matched, how, r.Reason)
		}
		if changed == 0 {
			b.WriteString("nothing to do: every artifact is up to date\n")
		}
		return &tool.Response{Output: b.String(), Result: map[string]any{"lock": lock, "changed": changed, "artifacts": results}}, nil
	})
}
