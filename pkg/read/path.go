package read

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"syscall"

	"golang.org/x/text/unicode/norm"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// Variants name the spelling of a path that matched when the literal one
// did not exist; combined spellings join them with "+" ("at_prefix+nfd").
const (
	VariantAtPrefix    = "at_prefix"    // "@src/main.go", as chat UIs mention files
	VariantFileURL     = "file_url"     // "file:///home/me/x.go"
	VariantNarrowSpace = "narrow_nbsp"  // macOS puts U+202F before AM/PM in screenshot names
	VariantNFD         = "nfd"          // macOS file names are often decomposed (e + U+0301)
	VariantCurlyQuotes = "curly_quotes" // macOS turns ' into ’ in names typed in Finder
)

const (
	narrowNoBreakSpace = "\u202f"
	rightSingleQuote   = "\u2019"
	leftDoubleQuote    = "\u201c"
	rightDoubleQuote   = "\u201d"
)

// candidate is one spelling of the path the caller gave.
type candidate struct {
	path    string // as the caller would have typed it, before Env.Abs
	variant string // "" for the literal path
}

// pathCandidates lists the spellings to try, literal first, then the
// fallbacks in the order of docs/documents.md ("result", variant): a leading @, a file:// URL, then on
// each of those a narrow no-break space before AM/PM, the NFD form, curly
// quotes, and NFD with curly quotes. Duplicates are dropped.
func pathCandidates(p string) []candidate {
	bases := []candidate{{path: p}}
	if rest, ok := strings.CutPrefix(p, "@"); ok && rest != "" {
		bases = append(bases, candidate{rest, VariantAtPrefix})
	}
	if fp, ok := fileURLPath(p); ok {
		bases = append(bases, candidate{fp, VariantFileURL})
	}
	seen := map[string]bool{}
	var out []candidate
	add := func(c candidate) {
		if !seen[c.path] {
			seen[c.path] = true
			out = append(out, c)
		}
	}
	for _, b := range bases {
		add(b)
	}
	for _, b := range bases {
		transforms := []struct {
			name string
			f    func(string) string
		}{
			{VariantNarrowSpace, narrowSpaceBeforeAMPM},
			{VariantNFD, norm.NFD.String},
			{VariantCurlyQuotes, curlyQuotes},
			{VariantNFD + "+" + VariantCurlyQuotes, func(s string) string { return curlyQuotes(norm.NFD.String(s)) }},
		}
		for _, t := range transforms {
			if v := t.f(b.path); v != b.path {
				add(candidate{v, joinVariant(b.variant, t.name)})
			}
		}
	}
	return out
}

func joinVariant(a, b string) string {
	if a == "" {
		return b
	}
	return a + "+" + b
}

// fileURLPath turns file:///abs/path (or file://localhost/abs/path) into
// the path, with %-escapes decoded.
func fileURLPath(p string) (string, bool) {
	if !strings.HasPrefix(strings.ToLower(p), "file://") {
		return "", false
	}
	u, err := url.Parse(p)
	if err != nil || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
		return "", false
	}
	return u.Path, true
}

// narrowSpaceBeforeAMPM writes "10.00.00 AM" as macOS does, with U+202F.
func narrowSpaceBeforeAMPM(s string) string {
	for _, m := range []string{"AM", "PM", "am", "pm"} {
		s = strings.ReplaceAll(s, " "+m, narrowNoBreakSpace+m)
	}
	return s
}

// curlyQuotes turns straight quotes into typographic ones: ' into ’, and
// " into “ and ” by turns.
func curlyQuotes(s string) string {
	if !strings.ContainsAny(s, `'"`) {
		return s
	}
	var b strings.Builder
	open := true
	for _, r := range s {
		switch r {
		case '\'':
			b.WriteString(rightSingleQuote)
		case '"':
			if open {
				b.WriteString(leftDoubleQuote)
			} else {
				b.WriteString(rightDoubleQuote)
			}
			open = !open
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// resolved is the file a path named.
type resolved struct {
	abs     string
	variant string
	info    fs.FileInfo
}

// resolvePath finds the file p names: the literal path through env.Abs,
// else the first fallback spelling that exists. Device paths are refused
// before anything touches them. A path that exists in no spelling is
// not_found with near names.
func resolvePath(env *tool.Env, p string) (*resolved, error) {
	literal := env.Abs(p)
	var firstErr error
	for _, c := range pathCandidates(p) {
		abs := env.Abs(c.path)
		if err := refuseDevicePath(abs); err != nil {
			return nil, err
		}
		info, err := os.Stat(abs)
		if err == nil {
			return &resolved{abs: abs, variant: c.variant, info: info}, nil
		}
		if c.variant == "" {
			firstErr = err
		}
	}
	return nil, statError(p, literal, firstErr)
}

// statError turns a failed stat of the literal path into the contract's
// error.
func statError(display, abs string, err error) error {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrPermission):
		return &tool.Error{Code: tool.CodePermission,
			Message: "no permission to look up " + display + ": " + pathErrText(err),
			Hint:    "a folder on the way is not searchable by this user; check its permissions (ls -ld)"}
	case errors.Is(err, fs.ErrNotExist) || err == nil:
		return fsutil.NotFound(display, abs)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return &tool.Error{Code: tool.CodeInvalidArgs,
			Message: fmt.Sprintf("the path is too long for the file system (%d bytes)", len(abs)),
			Hint:    "check the path; use glob to find the file"}
	case errors.Is(err, syscall.ELOOP):
		return &tool.Error{Code: tool.CodeNotFound,
			Message: display + ": the symbolic links on the way form a loop",
			Hint:    "look at them with ls -l; use glob to find the file"}
	case errors.As(err, &pe) && errors.Is(pe.Err, syscall.ENOTDIR):
		return &tool.Error{Code: tool.CodeNotADirectory,
			Message: display + ": a part of the path is a file, not a folder",
			Hint:    "check the path; use glob to find the file"}
	}
	return err
}

func pathErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
