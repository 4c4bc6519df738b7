// Package winpath holds the rules of Windows paths as pure functions on
// strings, so they are tested on any platform: drive letters (C:\), UNC
// shares (\\server\share\), and the \\?\ prefix that lifts the MAX_PATH
// limit (\\?\C:\…, \\?\UNC\server\share\…). Both separators are read;
// backslashes are written. Comparisons fold case, as NTFS does.
package winpath

import "strings"

// MaxPath is the classic limit of a path, its NUL included, that the
// shell's file operations still keep to.
const MaxPath = 260

const (
	longPrefix = `\\?\`
	longUNC    = `\\?\UNC\`
)

func isSep(c byte) bool { return c == '\\' || c == '/' }

// Normal is p in the plain form Explorer shows: forward slashes turned to
// backslashes and the \\?\ prefix taken off (\\?\UNC\s\x is \\s\x).
func Normal(p string) string {
	p = strings.ReplaceAll(p, "/", `\`)
	switch {
	case hasPrefixFold(p, longUNC):
		return `\\` + p[len(longUNC):]
	case strings.HasPrefix(p, longPrefix), strings.HasPrefix(p, `\\.\`):
		return p[len(longPrefix):]
	}
	return p
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// Volume is the drive (C:) or share (\\server\share) p is on, "" for a
// relative path or one without either.
func Volume(p string) string {
	p = Normal(p)
	if len(p) >= 2 && p[1] == ':' && isLetter(p[0]) {
		return strings.ToUpper(p[:1]) + ":"
	}
	if strings.HasPrefix(p, `\\`) {
		parts := strings.SplitN(p[2:], `\`, 3)
		if len(parts) >= 2 && parts[0] != "" && parts[1] != "" {
			return `\\` + parts[0] + `\` + parts[1]
		}
	}
	return ""
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// IsUNC says whether p is on a network share, where there is no Recycle
// Bin: the shell deletes for good what it is asked to recycle there.
func IsUNC(p string) bool { return strings.HasPrefix(Volume(p), `\\`) }

// IsAbs says whether p names one place whatever the current folder and
// drive: a drive with a separator after it, or a share.
func IsAbs(p string) bool {
	p = Normal(p)
	v := Volume(p)
	return strings.HasPrefix(v, `\\`) || v != "" && len(p) > 2 && p[2] == '\\'
}

// Clean is p in normal form with . and .. resolved, repeated and trailing
// separators dropped (a volume's root keeps its backslash).
func Clean(p string) string {
	p = Normal(p)
	v := Volume(p)
	rest := p[len(v):]
	var out []string
	for _, part := range strings.Split(rest, `\`) {
		switch part {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, part)
		}
	}
	if v != "" && !strings.HasPrefix(rest, `\`) && !strings.HasPrefix(v, `\\`) {
		return v + strings.Join(out, `\`) // C:x, relative to C:'s folder
	}
	return v + `\` + strings.Join(out, `\`)
}

// IsRoot says whether p is the root of a volume: C:\, \\server\share\.
func IsRoot(p string) bool {
	c := Clean(p)
	v := Volume(c)
	return v != "" && IsAbs(c) && c == v+`\`
}

// Equal says whether a and b name the same path, case folded.
func Equal(a, b string) bool { return strings.EqualFold(Clean(a), Clean(b)) }

// Within says whether p is dir or below it, case folded.
func Within(p, dir string) bool {
	p, dir = Clean(p), Clean(dir)
	if strings.EqualFold(p, dir) {
		return true
	}
	if !strings.HasSuffix(dir, `\`) {
		dir += `\`
	}
	return hasPrefixFold(p, dir)
}

// Long is p with the \\?\ prefix when it is an absolute path too long
// for MAX_PATH, so the file APIs take it whole; other paths as they are.
func Long(p string) string {
	if len(p) < MaxPath || !IsAbs(p) || strings.HasPrefix(p, `\\?\`) {
		return p
	}
	c := Clean(p)
	if strings.HasPrefix(c, `\\`) {
		return longUNC + c[2:]
	}
	return longPrefix + c
}

// RecycleBin is the Recycle Bin folder of the user sid on p's drive, ""
// where there is none (a share, a relative path).
func RecycleBin(p, sid string) string {
	v := Volume(p)
	if v == "" || strings.HasPrefix(v, `\\`) {
		return ""
	}
	return v + `\$Recycle.Bin\` + sid
}

// InRecycleBin says whether p is inside some drive's Recycle Bin.
func InRecycleBin(p string) bool {
	c := Clean(p)
	v := Volume(c)
	return v != "" && hasPrefixFold(c[len(v):], `\$Recycle.Bin\`)
}
