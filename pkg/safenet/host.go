package safenet

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// URLError is a URL that cannot be fetched as written.
type URLError struct {
	URL    string
	Reason string
}

// Error names the URL with its user information hidden.
func (e *URLError) Error() string {
	return fmt.Sprintf("%q: %s", RedactText(e.URL), RedactText(e.Reason))
}

// Schemes are the URL schemes ParseURL accepts.
var Schemes = []string{"http", "https"}

// ParseURL reads a URL to fetch: http or https, with a host, read the way
// browsers and curl read it, so that what is checked is what will be
// dialled. The host comes back canonical: lower case, without a
// trailing dot; an IPv4 address in any of the forms inet_aton and the
// WHATWG URL standard accept (2130706433, 0x7f000001, 0177.0.0.1, 127.1)
// in dotted decimal; an IPv6 address in its RFC 5952 form. A URL without
// a scheme gets https://. The fragment is dropped: it is never sent.
func ParseURL(raw string) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, &URLError{raw, "the URL is empty"}
	}
	if !strings.Contains(s, "://") && !hasScheme(s) {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, &URLError{raw, err.Error()}
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, &URLError{raw, fmt.Sprintf("the scheme %q is not fetched (only %s)", u.Scheme, strings.Join(Schemes, " and "))}
	}
	if u.Opaque != "" {
		return nil, &URLError{raw, "the URL has no //host after its scheme"}
	}
	host, err := CanonicalHost(u.Hostname())
	if err != nil {
		return nil, &URLError{raw, err.Error()}
	}
	port := u.Port()
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return nil, &URLError{raw, fmt.Sprintf("the port %q is not a number from 1 to 65535", port)}
		}
		port = strconv.Itoa(n)
	}
	host = joinHostPort(host, port)
	u.Host = host
	u.Fragment, u.RawFragment = "", ""
	u.RawQuery = strings.ReplaceAll(u.RawQuery, " ", "%20") // as browsers send it
	if u.Path == "" && u.RawPath == "" {
		u.Path = "/"
	}
	return u, nil
}

// hasScheme says whether s starts with a URL scheme and a colon
// (mailto:, file:, javascript:), which is refused rather than taken for
// a host name.
func hasScheme(s string) bool {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return false
	}
	for j, c := range s[:i] {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	// host:port is not a scheme.
	rest := s[i+1:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if _, err := strconv.Atoi(rest[:end]); err == nil && end > 0 {
		return false
	}
	return true
}

// joinHostPort brackets an IPv6 address; port "" adds none.
func joinHostPort(host, port string) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" {
		return host
	}
	return host + ":" + port
}

// CanonicalHost is a URL's host name (without brackets or port) in the
// one form that checks and allow lists compare: see ParseURL.
func CanonicalHost(host string) (string, error) {
	if host == "" {
		return "", errors.New("the URL has no host")
	}
	if strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		if err != nil {
			return "", fmt.Errorf("the host %q is not an IPv6 address", host)
		}
		if a.Zone() != "" {
			// Zones name this machine's interfaces: only link-local
			// addresses take them, and those are never fetched.
			return "", fmt.Errorf("the host %q names an interface zone, which is never fetched", host)
		}
		return a.String(), nil
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" || strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") || strings.Contains(host, "..") {
		return "", fmt.Errorf("the host %q has an empty label", host)
	}
	for _, c := range host {
		if c <= ' ' || c == 0x7f || strings.ContainsRune(`#%/<>?@[\]^|"`+"`{}", c) {
			return "", fmt.Errorf("the host %q holds the character %q, which no host name has", host, c)
		}
	}
	if endsInNumber(host) {
		a, err := ParseIPv4(host)
		if err != nil {
			return "", fmt.Errorf("the host %q ends in a number but is not an IPv4 address: %v", host, err)
		}
		return a.String(), nil
	}
	return host, nil
}

// endsInNumber is the WHATWG URL standard's test: a host whose last label
// is a number (decimal, or 0x hex) must be an IPv4 address.
func endsInNumber(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if isDigits(last, 10) {
		return true
	}
	return len(last) >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') && isDigits(last[2:], 16)
}

func isDigits(s string, base int) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= '0' && c <= '9' && (base > 8 || c <= '7') ||
			base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')
		if !ok {
			return false
		}
	}
	return true
}

// ParseIPv4 reads an IPv4 address in every form the WHATWG URL standard
// and inet_aton accept: one to four parts, each decimal, octal (leading
// 0) or hexadecimal (0x), the last filling the bytes that remain
// (127.1 is 127.0.0.1, 2130706433 is 127.0.0.1).
func ParseIPv4(host string) (netip.Addr, error) {
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) > 4 {
		return netip.Addr{}, fmt.Errorf("%d parts, at most 4", len(parts))
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := parseIPv4Part(p)
		if err != nil {
			return netip.Addr{}, fmt.Errorf("part %q: %v", p, err)
		}
		nums[i] = n
	}
	last := len(nums) - 1
	for i, n := range nums[:last] {
		if n > 255 {
			return netip.Addr{}, fmt.Errorf("part %q is over 255", parts[i])
		}
	}
	if nums[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, fmt.Errorf("the last part %q is over %d", parts[last], uint64(1)<<(8*(4-last))-1)
	}
	v := nums[last]
	for i, n := range nums[:last] {
		v |= n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}

func parseIPv4Part(p string) (uint64, error) {
	if p == "" {
		return 0, errors.New("empty")
	}
	base := 10
	switch {
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		base, p = 16, p[2:]
		if p == "" {
			return 0, nil // "0x" is zero, as in browsers
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	if !isDigits(p, base) {
		return 0, fmt.Errorf("not a base-%d number", base)
	}
	n, err := strconv.ParseUint(p, base, 64)
	if err != nil {
		return 0, errors.New("too large")
	}
	return n, nil
}
