package trash

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcode-dev/mcode/pkg/fsutil"
)

// InfoSuffix ends every file in $trash/info.
const InfoSuffix = ".trashinfo"

// infoGroup is the first line of a .trashinfo file.
const infoGroup = "[Trash Info]"

// DateLayout is DeletionDate's format: local time, no zone (the spec's
// YYYY-MM-DDThh:mm:ss).
const DateLayout = "2006-01-02T15:04:05"

// Info is the content of one .trashinfo file.
type Info struct {
	// Path is the original location, decoded to the file system's bytes:
	// absolute, or relative to the directory the trash directory is for.
	Path string
	// Deleted is the deletion time; zero when the file has none or an
	// unreadable one (the entry is still listed and restorable).
	Deleted time.Time
	// Trashed is where the item is now, in mcode's own records of what it
	// put in a macOS trash (TrashedKey); "" in a FreeDesktop .trashinfo.
	Trashed string
}

// TrashedKey is mcode's key for where a trashed item went, in the records
// it keeps of a macOS trash (whose own "Put Back" data is Finder's). Other
// readers of .trashinfo files ignore a key they do not know.
const TrashedKey = "X-Mcode-TrashedPath"

// FormatRecord is a .trashinfo with TrashedKey: mcode's record of an item
// it moved to trashed from path.
func FormatRecord(path, trashed string, deleted time.Time) []byte {
	return append(FormatInfo(path, deleted), []byte(TrashedKey+"="+EscapePath(trashed)+"\n")...)
}

// FormatInfo renders a .trashinfo file; the date is written in local
// time, as the spec says and other implementations read it.
func FormatInfo(path string, deleted time.Time) []byte {
	deleted = deleted.Local()
	var b bytes.Buffer
	b.WriteString(infoGroup + "\nPath=")
	b.WriteString(EscapePath(path))
	b.WriteString("\nDeletionDate=")
	b.WriteString(deleted.Format(DateLayout))
	b.WriteString("\n")
	return b.Bytes()
}

// ErrInfoSyntax is wrapped by every ParseInfo failure.
var ErrInfoSyntax = errors.New("not a valid .trashinfo file")

// ParseInfo reads a .trashinfo file the way the spec asks: the
// [Trash Info] group, the first Path= and DeletionDate= in it, every other
// line ignored. It is lenient where other implementations are (CRLF line
// ends, blank and comment lines, spaces around '=', bad percent escapes
// kept as written, a date it cannot read) and strict only about what a
// restore needs: the group and a non-empty Path. Times are read in loc.
func ParseInfo(data []byte, loc *time.Location) (Info, error) {
	var info Info
	inGroup, seenGroup, seenPath, seenDate := false, false, false, false
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		trimmed := bytes.TrimSpace(line)
		switch {
		case len(trimmed) == 0 || trimmed[0] == '#':
			continue
		case trimmed[0] == '[':
			inGroup = string(trimmed) == infoGroup
			seenGroup = seenGroup || inGroup
			continue
		case !inGroup:
			continue
		}
		key, value, ok := bytes.Cut(line, []byte("="))
		if !ok {
			continue
		}
		key = bytes.TrimSpace(key)
		value = bytes.TrimLeft(value, " \t")
		switch string(key) {
		case "Path":
			if !seenPath {
				seenPath = true
				info.Path = UnescapePath(string(value))
			}
		case TrashedKey:
			if info.Trashed == "" {
				info.Trashed = UnescapePath(string(value))
			}
		case "DeletionDate":
			if !seenDate {
				seenDate = true
				info.Deleted = parseDate(string(bytes.TrimSpace(value)), loc)
			}
		}
	}
	switch {
	case !seenGroup:
		return Info{}, fmt.Errorf("%w: no %s group", ErrInfoSyntax, infoGroup)
	case info.Path == "":
		return Info{}, fmt.Errorf("%w: no Path", ErrInfoSyntax)
	}
	return info, nil
}

// parseDate reads DeletionDate: the spec's form, the compact form of the
// spec's own example, and either with a zone or fraction that some writers
// add (a fraction of a second is read by every layout). Anything else is
// the zero time.
func parseDate(s string, loc *time.Location) time.Time {
	for _, layout := range []string{DateLayout, "20060102T15:04:05", time.RFC3339Nano} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t
		}
	}
	return time.Time{}
}

const upperHex = "0123456789ABCDEF"

// EscapePath percent-encodes a path for Path= (RFC 2396, as trash-cli
// and GLib do): every byte except ASCII letters, digits, "-._~" and "/"
// becomes %XX, so any byte sequence the file system allows survives.
func EscapePath(p string) string {
	return escape(p, func(c byte) bool {
		return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '/'
	})
}

// UnescapePath decodes %XX escapes; a '%' not followed by two hex digits
// is kept as it is (other writers are not always careful).
func UnescapePath(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && fsutil.IsHex(s[i+1]) && fsutil.IsHex(s[i+2]) {
			b.WriteByte(fsutil.Unhex(s[i+1])<<4 | fsutil.Unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// escapeID is the light escape of an entry's id: it keeps names readable
// (spaces and any valid UTF-8 stay) and escapes only what a JSON string or
// a terminal line cannot carry: invalid UTF-8, control bytes, and '%'.
func escapeID(name string) string {
	if !needsIDEscape(name) {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		if (r == utf8.RuneError && size == 1) || r < 0x20 || r == 0x7f || r == '%' {
			b.WriteByte('%')
			b.WriteByte(upperHex[name[i]>>4])
			b.WriteByte(upperHex[name[i]&0xf])
			i++
			continue
		}
		b.WriteString(name[i : i+size])
		i += size
	}
	return b.String()
}

func needsIDEscape(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c == '%' {
			return true
		}
	}
	return false
}

func escape(s string, keep func(byte) bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !keep(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if keep(c) {
			b = append(b, c)
			continue
		}
		b = append(b, '%', upperHex[c>>4], upperHex[c&0xf])
	}
	return string(b)
}
