package safenet

import (
	"fmt"
	"net/netip"
	"strings"
)

// AllowList is what a person lets through although it is not public:
// host names (exact, or *.example.com for the names under it), IP
// addresses and CIDR prefixes. A nil list allows nothing.
type AllowList struct {
	hosts    map[string]bool
	suffixes []string // ".example.com"
	prefixes []netip.Prefix
}

// ParseAllowList reads entries such as "127.0.0.1", "intranet.example",
// "*.corp.example" or "10.1.0.0/16".
func ParseAllowList(entries []string) (*AllowList, error) {
	a := &AllowList{hosts: map[string]bool{}}
	for _, e := range entries {
		if err := a.add(e); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// CheckAllowEntry says what is wrong with one entry, or nil.
func CheckAllowEntry(e string) error {
	return (&AllowList{hosts: map[string]bool{}}).add(e)
}

func (a *AllowList) add(entry string) error {
	e := strings.TrimSpace(entry)
	switch {
	case e == "":
		return fmt.Errorf("an empty entry")
	case strings.Contains(e, "://") || strings.ContainsAny(e, "?#"):
		return fmt.Errorf("%q is a URL: write its host alone", entry)
	case strings.Contains(e, "/"):
		p, err := netip.ParsePrefix(e)
		if err != nil {
			return fmt.Errorf("%q is not a CIDR prefix (10.0.0.0/8, fd00::/8): %v", entry, err)
		}
		a.prefixes = append(a.prefixes, p.Masked())
		return nil
	case strings.HasPrefix(e, "*."):
		host, err := CanonicalHost(e[2:])
		if err != nil {
			return fmt.Errorf("%q: %v", entry, err)
		}
		if _, err := netip.ParseAddr(host); err == nil {
			return fmt.Errorf("%q: *. goes before a domain name, not an address", entry)
		}
		a.suffixes = append(a.suffixes, "."+host)
		return nil
	}
	h := strings.TrimSuffix(strings.TrimPrefix(e, "["), "]")
	if _, err := netip.ParseAddr(h); err != nil && strings.Contains(h, ":") {
		return fmt.Errorf("%q: write the host without a port (the allow list is by host)", entry)
	}
	host, err := CanonicalHost(h)
	if err != nil {
		return fmt.Errorf("%q: %v", entry, err)
	}
	a.hosts[host] = true
	return nil
}

// Host says whether a canonical host name (CanonicalHost) is listed.
func (a *AllowList) Host(host string) bool {
	if a == nil {
		return false
	}
	if a.hosts[host] {
		return true
	}
	for _, s := range a.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return a.Addr(ip)
	}
	return false
}

// Addr says whether an address is in a listed prefix or listed itself.
func (a *AllowList) Addr(ip netip.Addr) bool {
	if a == nil {
		return false
	}
	ip = ip.WithZone("").Unmap()
	if a.hosts[ip.String()] {
		return true
	}
	for _, p := range a.prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// Empty says whether the list allows nothing.
func (a *AllowList) Empty() bool {
	return a == nil || len(a.hosts) == 0 && len(a.suffixes) == 0 && len(a.prefixes) == 0
}
