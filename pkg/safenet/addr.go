// Package safenet keeps outgoing connections off the machine's own
// networks: it names the address ranges that are not the public internet
// (loopback, private, link-local with the cloud metadata service, CGNAT,
// unique-local, multicast, unspecified, and the IPv6 forms that embed an
// IPv4 address), reads URL hosts the way browsers and curl do (2130706433,
// 0x7f.1 and 0177.0.0.1 are 127.0.0.1), and dials through a net.Dialer
// whose Control hook refuses a connection by the address actually dialled,
// so no lookup, redirect or DNS rebinding gets around it.
package safenet

import (
	"fmt"
	"net/netip"
	"sync"
)

// Range is a block of addresses that is not the public internet.
type Range struct {
	Prefix netip.Prefix
	// Name says what the block is, in words a person recognises.
	Name string
}

// blocked are the IPv4 and IPv6 special-purpose blocks (IANA's registries,
// RFC 6890) whose addresses are not globally reachable, or reach this
// machine or its neighbours. The IPv6 forms that carry an IPv4 address
// (mapped, NAT64, 6to4) are judged by that address (embeddedV4).
//
// Built on first use: our packages do no work at init.
func blocked() []Range {
	blockedOnce.Do(func() { blockedRanges = blockedList() })
	return blockedRanges
}

var (
	blockedOnce   sync.Once
	blockedRanges []Range
)

func blockedList() []Range {
	return []Range{
		{netip.MustParsePrefix("0.0.0.0/8"), "unspecified (\"this network\": 0.0.0.0 reaches this machine)"},
		{netip.MustParsePrefix("10.0.0.0/8"), "private (RFC 1918)"},
		{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (CGNAT, RFC 6598)"},
		{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
		{netip.MustParsePrefix("169.254.0.0/16"), "link-local (where cloud metadata services answer, 169.254.169.254)"},
		{netip.MustParsePrefix("172.16.0.0/12"), "private (RFC 1918)"},
		{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
		{netip.MustParsePrefix("192.0.2.0/24"), "documentation (TEST-NET-1)"},
		{netip.MustParsePrefix("192.168.0.0/16"), "private (RFC 1918)"},
		{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
		{netip.MustParsePrefix("198.51.100.0/24"), "documentation (TEST-NET-2)"},
		{netip.MustParsePrefix("203.0.113.0/24"), "documentation (TEST-NET-3)"},
		{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
		{netip.MustParsePrefix("240.0.0.0/4"), "reserved (and broadcast)"},

		{netip.MustParsePrefix("::/128"), "unspecified (:: reaches this machine)"},
		{netip.MustParsePrefix("::1/128"), "loopback"},
		{netip.MustParsePrefix("::/96"), "IPv4-compatible (deprecated)"},
		{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
		{netip.MustParsePrefix("100::/64"), "discard-only"},
		{netip.MustParsePrefix("2001::/32"), "Teredo (hides the IPv4 address it reaches)"},
		{netip.MustParsePrefix("2001:2::/48"), "benchmarking"},
		{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
		{netip.MustParsePrefix("fc00::/7"), "unique-local (fc00::/7)"},
		{netip.MustParsePrefix("fe80::/10"), "link-local"},
		{netip.MustParsePrefix("fec0::/10"), "site-local (deprecated)"},
		{netip.MustParsePrefix("ff00::/8"), "multicast"},
	}
}

// Embedding IPv6 blocks: the IPv4 address in them is where the packets
// go, so it is judged instead.

// Classify says whether addr is refused, and why: ok is true for a public
// address. An IPv6 address that embeds an IPv4 one (::ffff:127.0.0.1,
// 64:ff9b::7f00:1, 2002:7f00:1::) is refused when that address is, and
// the reason names the form.
func Classify(addr netip.Addr) (why string, ok bool) {
	if !addr.IsValid() {
		return "not an IP address", false
	}
	addr = addr.WithZone("")
	if addr.Is6() {
		if v4, form := embeddedV4(addr); form != "" {
			if inner, ok := Classify(v4); !ok {
				return fmt.Sprintf("%s of %s, %s", form, v4, inner), false
			}
			return "", true
		}
	}
	for _, r := range blocked() {
		if r.Prefix.Contains(addr) {
			return r.Name, false
		}
	}
	return "", true
}

// embeddedV4 is the IPv4 address an IPv6 address stands for, and the
// name of the form, or form "" when it embeds none.
func embeddedV4(a netip.Addr) (netip.Addr, string) {
	b := a.As16()
	switch {
	case a.Is4In6(): // ::ffff:0:0/96
		return netip.AddrFrom4([4]byte(b[12:16])), "IPv4-mapped form"
	case [12]byte(b[:12]) == [12]byte{0x00, 0x64, 0xff, 0x9b}: // 64:ff9b::/96
		return netip.AddrFrom4([4]byte(b[12:16])), "NAT64 form"
	case b[0] == 0x20 && b[1] == 0x02: // 2002::/16
		return netip.AddrFrom4([4]byte(b[2:6])), "6to4 form"
	}
	return netip.Addr{}, ""
}
