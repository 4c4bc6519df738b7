package fsutil

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// DisplayPath shows a path as text that JSON carries whole: unchanged
// when it is UTF-8, else with each stray byte as \xHH. (JSON would turn
// such a byte into U+FFFD, a name no tool could find again.) Every tool
// takes the form back as input (InputPath).
func DisplayPath(p string) string {
	if utf8.ValidString(p) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02X`, p[i])
		} else {
			b.WriteString(p[i : i+size])
		}
		i += size
	}
	return b.String()
}

// UndisplayPath reverses DisplayPath: each \xHH becomes the byte HH. It
// says whether anything was decoded.
func UndisplayPath(s string) (string, bool) {
	if !strings.Contains(s, `\x`) {
		return s, false
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' && IsHex(s[i+2]) && IsHex(s[i+3]) {
			b.WriteByte(Unhex(s[i+2])<<4 | Unhex(s[i+3]))
			i += 3
			changed = true
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), changed
}

// InputPath is the path a caller means by p, which may carry \xHH for
// bytes that are not UTF-8 (as DisplayPath writes them): p itself when
// it exists, or when it holds no \xHH; else the decoded path when it
// exists, or when its folder does and p's does not (a new file there).
// abs resolves a path against the workspace (tool.Env.Abs).
func InputPath(abs func(string) string, p string) string {
	raw, ok := UndisplayPath(p)
	if !ok {
		return p
	}
	if exists(abs(p)) {
		return p
	}
	if exists(abs(raw)) {
		return raw
	}
	if !exists(filepath.Dir(abs(p))) && exists(filepath.Dir(abs(raw))) {
		return raw
	}
	return p
}

// IsHex reports whether c is a hexadecimal digit.
func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Unhex is the value of the hexadecimal digit c.
func Unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
