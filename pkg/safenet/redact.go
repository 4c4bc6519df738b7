package safenet

import (
	"net/url"
	"strings"
)

// Hidden stands for a URL's user name and password where one is shown.
const Hidden = "xxxxx"

// Redacted is u as it may be shown: its user information (a password, or
// a token given as the user name) replaced by Hidden.
func Redacted(u *url.URL) string {
	if u == nil {
		return ""
	}
	if u.User == nil {
		return u.String()
	}
	c := *u
	if _, ok := u.User.Password(); ok {
		c.User = url.UserPassword(Hidden, Hidden)
	} else {
		c.User = url.User(Hidden)
	}
	return c.String()
}

// RedactText hides the user information of every URL written in s (text
// that may quote a URL as it was given, parsable or not): what stands
// between "://" and the last "@" of the authority.
func RedactText(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			break
		}
		i += 3
		b.WriteString(s[:i])
		s = s[i:]
		end := strings.IndexAny(s, "/?#\\ \t\r\n\"'<>`")
		if end < 0 {
			end = len(s)
		}
		if at := strings.LastIndexByte(s[:end], '@'); at >= 0 {
			if strings.Contains(s[:at], ":") {
				b.WriteString(Hidden + ":" + Hidden)
			} else {
				b.WriteString(Hidden)
			}
			s = s[at:]
		}
	}
	b.WriteString(s)
	return b.String()
}
