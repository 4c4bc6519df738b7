package artifact

import (
	"fmt"
	"path"
	"strings"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// CleanName checks an archive entry's name and returns it relative and
// slash-separated, without ./ or a trailing slash, with strip leading
// components removed. skip says the name has no more than strip
// components (tar --strip-components drops such entries). backslash
// says \ separates components (zip archives written on Windows); in tar
// names it is an ordinary byte, but a ..\ component is refused anyway,
// since the tree may be copied to Windows later.
func CleanName(name string, strip int, backslash bool) (clean string, skip bool, err error) {
	if name == "" {
		return "", false, fmt.Errorf("an entry has an empty name")
	}
	if strings.ContainsRune(name, 0) {
		return "", false, fmt.Errorf("entry %q has a NUL byte in its name", name)
	}
	if backslash {
		name = strings.ReplaceAll(name, `\`, "/")
	}
	if strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || hasDrive(name) {
		return "", false, fmt.Errorf("entry %q has an absolute name: it would be written outside the destination", name)
	}
	var parts []string
	for _, p := range strings.Split(name, "/") {
		for _, q := range strings.Split(p, `\`) {
			if q == ".." {
				return "", false, fmt.Errorf("entry %q climbs out with ..: it would be written outside the destination", name)
			}
		}
		if p == "" || p == "." {
			continue
		}
		parts = append(parts, p)
	}
	if len(parts) <= strip {
		return "", true, nil
	}
	clean = strings.Join(parts[strip:], "/")
	if strings.HasPrefix(clean, `\`) {
		// "pkg/\\x" under --strip 1: a rooted name on Windows once stripped.
		return "", false, fmt.Errorf("entry %q has a name that starts with a backslash once stripped (%s): it would be written outside the destination on Windows", name, clean)
	}
	if hasDrive(clean) {
		// "./C:x" or "pkg/C:x" under --strip 1: a drive name once cleaned.
		return "", false, fmt.Errorf("entry %q has a name that starts with a drive (%s): it would be written outside the destination on Windows", name, clean[:2])
	}
	return clean, false, nil
}

// hasDrive reports a Windows drive name: C: or C:\….
func hasDrive(name string) bool {
	return len(name) >= 2 && name[1] == ':' && ('a' <= name[0]|0x20 && name[0]|0x20 <= 'z')
}

// CheckRelative checks a name the caller chose (a rename, an entry):
// relative, no .., not empty.
func CheckRelative(name string) (string, error) {
	clean, skip, err := CleanName(name, 0, false)
	if err != nil {
		return "", err
	}
	if skip {
		return "", fmt.Errorf("%q names no file", name)
	}
	return clean, nil
}

// CheckEntries is the one check of the entries an extraction takes,
// whichever form named them (--entry PATH[=HASH][:RENAME], a tool call's
// objects, a lock file): each path and rename is relative and stays
// inside (CheckRelative), and an entry listed twice is taken once when
// both say the same, and refused when they differ.
func CheckEntries(entries []EntrySpec) ([]EntrySpec, error) {
	var out []EntrySpec
	seen := map[string]int{}
	for _, e := range entries {
		if e.Path == "" {
			return nil, &tool.Error{Code: tool.CodeUsage, Message: "an entry has an empty path", Hint: "name entries as they are in the archive, after strip"}
		}
		p, err := CheckRelative(e.Path)
		if err != nil {
			return nil, entryError("entry %q: %v", e.Path, err)
		}
		e.Path = p
		if e.Rename != "" {
			r, err := CheckRelative(e.Rename)
			if err != nil {
				return nil, entryError("entry %q: rename %q: %v", e.Path, e.Rename, err)
			}
			e.Rename = r
		}
		if i, dup := seen[e.Path]; dup {
			if !sameEntry(out[i], e) {
				return nil, entryError("entry %q is listed twice, with different hashes or renames", e.Path)
			}
			continue
		}
		seen[e.Path] = len(out)
		out = append(out, e)
	}
	return out, nil
}

func sameEntry(a, b EntrySpec) bool {
	if a.Rename != b.Rename || (a.Digest == nil) != (b.Digest == nil) {
		return false
	}
	return a.Digest == nil || (a.Digest.Algo == b.Digest.Algo && string(a.Digest.Sum) == string(b.Digest.Sum))
}

func entryError(format string, args ...any) *tool.Error {
	return &tool.Error{Code: tool.CodeUsage, Message: fmt.Sprintf(format, args...),
		Hint: "an entry and its rename are relative names inside the archive and dest: no leading /, no .., each listed once"}
}

// resolveLink follows the symbolic links of the tree being extracted
// (links maps each link's name to its target) from the name at, and says
// whether the result stays inside the tree. Every link an archive made is
// known, since the tree starts empty, so this is exact where a lexical
// check is not (a → ., then b → a/..).
func resolveLink(links map[string]string, name, target string) bool {
	if path.IsAbs(target) || strings.HasPrefix(target, `\`) || hasDrive(target) {
		return false
	}
	stack := []string{}
	for _, p := range strings.Split(path.Dir(name), "/") {
		if p != "." && p != "" {
			stack = append(stack, p)
		}
	}
	todo := strings.Split(target, "/")
	for hops := 0; len(todo) > 0; {
		p := todo[0]
		todo = todo[1:]
		switch p {
		case "", ".":
			continue
		case "..":
			if len(stack) == 0 {
				return false
			}
			stack = stack[:len(stack)-1]
			continue
		}
		for _, q := range strings.Split(p, `\`) {
			if q == ".." {
				return false
			}
		}
		cur := strings.Join(append(stack, p), "/")
		t, isLink := links[cur]
		if !isLink {
			stack = append(stack, p)
			continue
		}
		if hops++; hops > maxLinkHops || path.IsAbs(t) {
			return false
		}
		todo = append(strings.Split(t, "/"), todo...)
	}
	return true
}

// maxLinkHops bounds link chains, as the kernel's ELOOP does.
const maxLinkHops = 40
