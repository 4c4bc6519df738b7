// Package ssrftest is what tests of outgoing connections share: a corpus
// of hosts that name addresses on this machine or its networks, a
// resolver that answers from a table (and rebinds), and a fence that
// keeps every connection on loopback.
package ssrftest

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"sync"
)

// Resolver answers from a table; a host with several answers gives
// the next one on each lookup and then keeps the last (DNS rebinding).
type Resolver struct {
	mu      sync.Mutex
	answers map[string][][]string
	lookups map[string]int
}

func (r *Resolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seq, ok := r.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	n := r.lookups[host]
	r.lookups[host] = n + 1
	var out []netip.Addr
	for _, s := range seq[min(n, len(seq)-1)] {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

// NewResolver answers from answers.
func NewResolver(answers map[string][][]string) *Resolver {
	return &Resolver{answers: answers, lookups: map[string]int{}}
}

// Fence keeps a test on loopback: it records every address a dial got
// as far as connecting to, lets loopback through to the sentinel server
// and stops the rest before a packet leaves.
type Fence struct {
	mu     sync.Mutex
	dialed []string
}

// Check is a safenet.Dialer's Fence.
func (f *Fence) Check(network, address string) error {
	f.mu.Lock()
	f.dialed = append(f.dialed, address)
	f.mu.Unlock()
	ap, err := netip.ParseAddrPort(address)
	if err == nil && ap.Addr().Unmap().IsLoopback() {
		return nil
	}
	return fmt.Errorf("test fence: %s is off this machine; not dialled", address)
}

// Saw lists the addresses dialled so far.
func (f *Fence) Saw() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.dialed...)
}

// Case is one way to name an address that must not be reached.
type Case struct {
	// Host is as written in a URL (brackets for IPv6).
	Host string
	// Addr is the address the dial must be refused at (no port).
	Addr string
}

// Corpus are the hosts the dialer must refuse, each with the address
// it must name. Hosts ending in .test are answered by corpusResolver.
var Corpus = []Case{
	{"127.0.0.1", "127.0.0.1"},
	{"2130706433", "127.0.0.1"},       // decimal
	{"017700000001", "127.0.0.1"},     // octal, one part
	{"0177.0.0.1", "127.0.0.1"},       // octal, dotted
	{"0x7f000001", "127.0.0.1"},       // hexadecimal
	{"0x7f.0x0.0x0.0x1", "127.0.0.1"}, // hexadecimal, dotted
	{"127.1", "127.0.0.1"},            // short
	{"127.0.1", "127.0.0.1"},          // short, three parts
	{"0x7f.1", "127.0.0.1"},           // short, mixed
	{"127.0.0.1.", "127.0.0.1"},       // trailing dot
	{"127.255.255.254", "127.255.255.254"},
	{"[::1]", "::1"},
	// IPv4-mapped: Go dials these as IPv4, so that is the address checked.
	{"[::ffff:127.0.0.1]", "127.0.0.1"},
	{"[::ffff:7f00:1]", "127.0.0.1"},
	{"[0:0:0:0:0:ffff:127.0.0.1]", "127.0.0.1"},
	{"[::127.0.0.1]", "::7f00:1"}, // IPv4-compatible
	{"0.0.0.0", "0.0.0.0"},
	{"0", "0.0.0.0"},
	{"[::]", "::"},
	{"169.254.169.254", "169.254.169.254"}, // cloud metadata
	{"2852039166", "169.254.169.254"},
	{"0xa9.0xfe.0xa9.0xfe", "169.254.169.254"},
	{"[::ffff:169.254.169.254]", "169.254.169.254"},
	{"[64:ff9b::a9fe:a9fe]", "64:ff9b::a9fe:a9fe"}, // NAT64
	{"[2002:a9fe:a9fe::]", "2002:a9fe:a9fe::"},     // 6to4
	{"[fe80::1]", "fe80::1"},
	{"[fd00:ec2::254]", "fd00:ec2::254"}, // AWS's IPv6 metadata service
	{"10.0.0.1", "10.0.0.1"},
	{"012.0.0.1", "10.0.0.1"},
	{"172.16.0.1", "172.16.0.1"},
	{"192.168.1.1", "192.168.1.1"},
	{"100.64.0.1", "100.64.0.1"},           // CGNAT
	{"100.100.100.200", "100.100.100.200"}, // Alibaba's metadata service, in CGNAT
	{"[fc00::1]", "fc00::1"},
	{"[fd12:3456::1]", "fd12:3456::1"},
	{"224.0.0.1", "224.0.0.1"},
	{"[ff02::1]", "ff02::1"},
	{"255.255.255.255", "255.255.255.255"},
	{"localhost.test", "127.0.0.1"},
	{"public-to-private.test", "10.0.0.5"},
	{"metadata.test", "169.254.169.254"},
	{"v6-loopback.test", "::1"},
	{"mapped.test", "10.0.0.1"},
	{"ula.test", "fd00::1"},
}

// Answers are the test DNS's answers for the corpus's names.
// rebind.test is public on the first lookup and loopback after.
func Answers() map[string][][]string {
	return map[string][][]string{
		"localhost.test":         {{"127.0.0.1"}},
		"public-to-private.test": {{"10.0.0.5"}},
		"metadata.test":          {{"169.254.169.254"}},
		"v6-loopback.test":       {{"::1"}},
		"mapped.test":            {{"::ffff:10.0.0.1"}},
		"ula.test":               {{"fd00::1"}},
		"rebind.test":            {{"93.184.216.34"}, {"127.0.0.1"}},
		"public.test":            {{"93.184.216.34"}},
	}
}
